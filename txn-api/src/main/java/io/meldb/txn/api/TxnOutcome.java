package io.meldb.txn.api;

/** What a server knows of a transaction's fate (see {@link TxnService#outcome}). */
public record TxnOutcome(TxnId id, State state, long csn, String reason) {
    public enum State {
        /** Meld committed it at {@code csn}. */
        COMMITTED,
        /** Meld aborted it at {@code csn}; {@code reason} says why. */
        ABORTED,
        /**
         * It never reached the log and never will: its server restarted (a fence record of a newer incarnation
         * is in the log, and meld rejects anything the old incarnation still manages to append).
         */
        NOT_COMMITTED,
        /** Not in the log yet, and its server has not restarted since: ask again later. */
        PENDING,
        /** Outside what this server remembers (older than its outcome window or its recovery point). */
        UNKNOWN
    }
}
