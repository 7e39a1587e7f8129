package io.meldb.txn.api;

/**
 * Cluster-wide name of a transaction: the incarnation of the server that began it (the log position of the
 * fence record that server appended when it started, unique and never reused) and a sequence number within
 * that incarnation. It travels in the intention, so every server learns every transaction's outcome from the
 * log.
 */
public record TxnId(long incarnation, long sequence) {
    @Override
    public String toString() {
        return incarnation + "-" + sequence;
    }

    /** Parses the form {@link #toString()} prints. */
    public static TxnId parse(final String text) {
        final int dash = text.indexOf('-');
        if (dash <= 0) {
            throw new IllegalArgumentException("not a transaction id: " + text);
        }
        return new TxnId(Long.parseLong(text.substring(0, dash)), Long.parseLong(text.substring(dash + 1)));
    }
}
