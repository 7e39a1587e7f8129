package io.meldb.txn.api;

/** Error codes of the transaction layer; the same on the in-process and the network form. */
public enum TxnError {
    /** Meld aborted the transaction: a concurrent committed transaction changed what it read or wrote. */
    CONFLICT(1, true),
    /** The transaction id is not an active transaction of this session or server. */
    UNKNOWN_TRANSACTION(2, false),
    /** The connection to the server was lost; the transaction is gone (its outcome may be asked for). */
    SESSION_LOST(3, true),
    /** The server's in-flight limit is reached. */
    OVERLOADED(4, true),
    /** The request took longer than its timeout. */
    TIMEOUT(5, true),
    /** A malformed request or argument (null key, empty key, ...). */
    BAD_REQUEST(6, false),
    /** A key, value or intention beyond the server's limits. */
    TOO_LARGE(7, false),
    /** A write in a read-only transaction. */
    READ_ONLY(8, false),
    /** The server stopped, or lost the log, before it learned the commit's outcome. */
    OUTCOME_UNKNOWN(9, false),
    /** The server is starting (recovering) or stopping. */
    UNAVAILABLE(10, true),
    /** A bug or an unexpected failure; the message says more. */
    INTERNAL(11, false),
    /**
     * An increment ({@link TxnSession#add}) would leave its field's range: refused at once when the transaction's own
     * view overflows, or as the commit's outcome when the value committed at meld time does.
     */
    OUT_OF_RANGE(12, false),
    /** An increment of a key that is absent, or whose field is missing or null, in the transaction's view. */
    NOT_APPLICABLE(13, false),
    /**
     * Node memory (the versions of the live states, open snapshots and what was melded since the last checkpoint)
     * is at the server's limit: new update transactions are refused until a checkpoint or the end of old snapshots
     * frees some. Retry later.
     */
    OUT_OF_MEMORY(14, true);

    private final int code;
    private final boolean retryable;

    TxnError(final int code, final boolean retryable) {
        this.code = code;
        this.retryable = retryable;
    }

    public int code() {
        return code;
    }

    /** Whether running the whole transaction again may succeed. */
    public boolean retryable() {
        return retryable;
    }

    public static TxnError fromCode(final int code) {
        for (TxnError e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return INTERNAL;
    }
}
