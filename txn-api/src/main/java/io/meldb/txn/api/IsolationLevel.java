package io.meldb.txn.api;

/**
 * The isolation a transaction asks for at {@link TxnService#begin}: the two levels Hyder's meld certifies (Hyder II
 * §3: serializable validates the reads and ranges a transaction depends on, snapshot only its writes). The API's own
 * type, so a client of the transaction service needs nothing of meld-core's; the txn-server maps it onto
 * {@code io.meldb.core.Isolation}, and the RPC sends {@link #code()}.
 */
public enum IsolationLevel {
    SERIALIZABLE(0),
    SNAPSHOT(1);

    private final int code;

    IsolationLevel(final int code) {
        this.code = code;
    }

    /** Its number on the wire (the txn RPC's BEGIN and BEGUN). */
    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a number no level has */
    public static IsolationLevel fromCode(final int code) {
        for (IsolationLevel l : values()) {
            if (l.code == code) {
                return l;
            }
        }
        throw new IllegalArgumentException("unknown isolation code " + code);
    }
}
