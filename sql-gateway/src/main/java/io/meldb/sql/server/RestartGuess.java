package io.meldb.sql.server;

/**
 * A connection's best guess of how many times the update transaction it begins next has already restarted, for the
 * reorder window's tail-latency policy (seed 001 §4.2; docs/sql.md "Restart counts"). SQL has no way to say "this
 * is a retry", so the gateway counts: every transaction of the connection that ends in a serialization failure
 * (40001, a meld abort) adds one, a commit resets it, and so does a transaction that fails for any other reason
 * (a client does not retry a constraint violation unchanged). A ROLLBACK changes nothing: a client's retry loop
 * rolls back after the 40001 and then retries. Written by the connection's thread and by the thread that completes
 * an asynchronous commit, read when the next transaction begins, which happens after that completion was answered.
 */
final class RestartGuess {
    private volatile int restarts;

    /** The count to pass to the next begin. */
    int restarts() {
        return restarts;
    }

    void committed() {
        restarts = 0;
    }

    /** A transaction ended with {@code sqlState}. */
    void failed(final String sqlState) {
        restarts = SqlErrors.SERIALIZATION_FAILURE.equals(sqlState) ? Math.min(restarts + 1, 1 << 20) : 0;
    }
}
