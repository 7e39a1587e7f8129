package io.meldb.sql.pg;

import io.meldb.sql.server.AutocommitRetry;

/**
 * The PostgreSQL front end's side of {@link AutocommitRetry}: which statement of an implicit transaction may run
 * again when meld refuses the block's commit (40001), and where its answer starts in the outbound buffer. A
 * statement is armed ({@link #arm}) when it is a DML statement (or SELECT ... FOR UPDATE) that opens the implicit
 * block's update transaction — the only statement of that transaction; any message or statement after it other
 * than the Sync (or the end of the Query) that commits the block disarms it, and so does a portal left suspended
 * at its row limit. At the commit it runs again only if nothing was flushed to the client since its answer began:
 * its DataRows (RETURNING, FOR UPDATE) and CommandComplete are then dropped from the buffer and written anew by
 * the attempt that commits, so the client sees the successful attempt's rows and count only. A large answer, flushed
 * before the commit (past 64 KB), or a Flush message, leaves the 40001 to the client, as would PostgreSQL. Explicit
 * blocks are never retried.
 */
final class PgAutocommitRetry {
    private final PgOutput output;
    private final AutocommitRetry policy;
    /** The armed statement's portal, or null. */
    private PgPortal portal;
    private int maxRows;
    /** Where the armed statement's answer begins in the outbound buffer, and the flush count it holds for. */
    private int mark;
    private int flushes;
    /** When the statement first began (System.nanoTime), for statement_timeout across its attempts. */
    private long startNanos;
    /** Retries so far of the statement being committed; a retry in progress keeps its start. */
    private int retries;
    private boolean retrying;
    /** Whether this attempt holds the gateway's retry turn ({@link AutocommitRetry#enterTurn}). */
    private boolean inTurn;

    PgAutocommitRetry(final PgOutput output, final AutocommitRetry policy) {
        this.output = output;
        this.policy = policy != null && policy.retries() > 0 ? policy : null;
    }

    /** {@code portal}'s statement opens the implicit block's update transaction: it may run again at the commit. */
    void arm(final PgPortal armed, final int rowLimit) {
        if (policy == null) {
            return;
        }
        portal = armed;
        maxRows = rowLimit;
        mark = output.buffer().writerIndex();
        flushes = output.flushes();
        if (!retrying) {
            startNanos = System.nanoTime();
        }
    }

    /** Something else happened in the block: its commit is no longer retried. */
    void disarm() {
        portal = null;
    }

    /**
     * The portal to run again after the block's commit failed with {@code error}, or null (not armed, its answer
     * partly sent, not a conflict, retries used up). Counted by {@link AutocommitRetry#retry}.
     */
    PgPortal retryAfter(final RuntimeException error) {
        leaveTurn();
        final PgPortal p = portal;
        if (p == null || output.flushes() != flushes || !policy.retry(error, retries)) {
            return null;
        }
        return p;
    }

    /** Pauses before the next attempt (57014 once {@code cancelled}), then drops the failed attempt's answer. */
    void prepareAttempt(final java.util.function.BooleanSupplier cancelled) {
        policy.backoff(retries, cancelled);
        retries++;
        retrying = true;
        inTurn = policy.enterTurn(retries, cancelled);
        output.buffer().writerIndex(mark);
        portal.restart();
    }

    int maxRows() {
        return maxRows;
    }

    long startNanos() {
        return startNanos;
    }

    /** The block's commit is over, one way or the other. */
    void end() {
        leaveTurn();
        portal = null;
        retries = 0;
        retrying = false;
    }

    private void leaveTurn() {
        if (inTurn) {
            inTurn = false;
            policy.leaveTurn();
        }
    }
}
