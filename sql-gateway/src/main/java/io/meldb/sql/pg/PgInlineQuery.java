package io.meldb.sql.pg;

/**
 * Which simple Query messages (PostgreSQL docs, "Simple Query") may run on the connection's I/O thread instead of a
 * worker: one short transaction-control or session command that cannot wait. BEGIN / START TRANSACTION only mark
 * the transaction block (the transaction itself begins with the first statement, where admission may wait, and that
 * statement decides for itself where it runs); ROLLBACK of an in-process transaction drops its workspace; SET
 * TRANSACTION, SHOW and the no-op commands touch only the session. COMMIT waits for meld when it has writes, and
 * SET of a parameter may change the session's schema or time zone: those stay on a worker, as does everything
 * else. pgjdbc sends "BEGIN" as such a Query at the start of every transaction when autocommit is off.
 */
final class PgInlineQuery {
    /** Longer strings are not one of these commands worth peeking at (the worker parses them). */
    private static final int MAX_LENGTH = 64;

    private PgInlineQuery() {
    }

    /** Whether the Query {@code sql} (null when not terminated) runs inline; a bad one goes to the worker. */
    static boolean runsInline(final String sql, final PgTransactionBlock block) {
        if (sql == null || sql.length() >= MAX_LENGTH) {
            return false;
        }
        final PgCommand command;
        try {
            command = PgCommand.parse(sql);
        } catch (RuntimeException e) {
            return false; // the worker parses it again and answers the error
        }
        // COMMIT only when it is known to be alone in its Query (commandRunsInline, for a kept shape)
        return !(command instanceof PgCommand.Commit) && commandRunsInline(command, block);
    }

    /**
     * Whether the command, alone in its Query, runs inline. COMMIT does when the block may commit without
     * waiting ({@link PgTransactionBlock#commitsAsync}): {@link PgExecutor#runSimple} leaves it waiting for meld
     * without a thread, and the outcome is answered on the I/O thread.
     */
    static boolean commandRunsInline(final PgCommand command, final PgTransactionBlock block) {
        if (command instanceof PgCommand.Begin) {
            // BEGIN after the reads of an open implicit block commits them first: read-only, so it cannot wait
            return !block.commitPending();
        }
        if (command instanceof PgCommand.Commit) {
            return block.commitsAsync();
        }
        return command instanceof PgCommand.Rollback || command instanceof PgCommand.SetTransaction
                || command instanceof PgCommand.Show || command instanceof PgCommand.NoOp;
    }
}
