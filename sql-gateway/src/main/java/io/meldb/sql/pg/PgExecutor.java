package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.pg.catalog.PgCatalogView;
import io.meldb.sql.server.RowCursor;
import io.meldb.sql.server.SqlSession;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;

/**
 * Runs portals (PostgreSQL docs, "Extended Query": Execute, with its row limit and portal suspension; a simple
 * Query runs its statements through here too): a protocol command, a SQL cursor's statement ({@link
 * PgCursorCommands}), a catalog query, or the SQL session's statement, under statement_timeout, sending DataRows
 * straight from the cursor into the outbound buffer ({@link PgRowWriter}) and CommandComplete. A COMMIT of an
 * Execute may end without holding a thread: it hands the handler a suspension ({@link #takeSuspension}) that
 * {@link #commitFinished} answers.
 */
final class PgExecutor {
    private final PgContext context;
    private final PgPortals portals;
    private final PgOutput output;
    private final PgRowWriter writer;
    private final PgCursorCommands cursorCommands;
    /**
     * Set while an Execute or a simple Query's only statement runs: only there may a COMMIT end without waiting (not
     * amid a simple Query's several statements, whose later ones run after it).
     */
    private boolean asyncCommitAllowed;
    /**
     * A COMMIT that waits for meld without holding a thread: set by an Execute, taken by the handler, which holds
     * the connection's later messages until {@link #commitFinished} has answered it.
     */
    private CompletableFuture<Void> suspension;
    private PgPortal suspendedPortal;
    /** Whether the suspended COMMIT is a simple Query's, which its answer ends with ReadyForQuery. */
    private boolean suspendedSimple;

    PgExecutor(final PgContext context, final PgPreparer preparer) {
        this.context = context;
        this.portals = context.portals;
        this.output = context.output;
        this.writer = new PgRowWriter(context);
        this.cursorCommands = new PgCursorCommands(context, preparer, writer, portal -> open(portal, -1));
    }

    /** Execute: runs a portal (at most the message's row count), or answers what it completed with. */
    void execute(final PgMessage m) {
        final String name = PgPortals.readName(m);
        final int maxRows = m.readInt();
        final PgPortal portal = portals.portal(name);
        if (portal == null) {
            final PgCursor cursor = context.cursors.get(name);
            if (cursor == null) {
                throw new SqlStateException("34000", "portal \"" + name + "\" does not exist");
            }
            context.cancelRequested = false;
            final ScheduledFuture<?> timer = context.startStatementTimer();
            try {
                cursorCommands.execute(cursor, maxRows);
            } finally {
                PgContext.stop(timer);
            }
            return;
        }
        context.cancelRequested = false;
        asyncCommitAllowed = true;
        try {
            run(portal, Math.max(maxRows, 0));
        } finally {
            asyncCommitAllowed = false;
        }
    }

    /**
     * Runs the one statement of a simple Query; answers true when it is a COMMIT left waiting for meld without a
     * thread ({@link #takeSuspension}), whose answer, and the Query's ReadyForQuery, {@link #commitFinished} sends.
     */
    boolean runSimple(final PgPortal portal) {
        asyncCommitAllowed = true;
        try {
            run(portal, 0);
        } finally {
            asyncCommitAllowed = false;
        }
        suspendedSimple = suspension != null;
        return suspendedSimple;
    }

    /**
     * The COMMIT this connection is waiting for, if the last message started one ({@link #run}); the handler
     * calls {@link #commitFinished} on the connection's I/O thread once it completes, before any later message.
     */
    CompletableFuture<Void> takeSuspension() {
        final CompletableFuture<Void> s = suspension;
        suspension = null;
        return s;
    }

    /** Answers the COMMIT that {@link #takeSuspension} handed out: CommandComplete, or its error (40001). */
    void commitFinished(final Throwable error) {
        final PgPortal portal = suspendedPortal;
        final boolean simple = suspendedSimple;
        suspendedPortal = null;
        suspendedSimple = false;
        if (error == null) {
            portal.completedTag = "COMMIT";
            PgBackend.commandComplete(output.buffer(), "COMMIT");
        } else {
            context.failStatement(error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error);
            context.skipUntilSync = !simple;
        }
        if (simple) {
            context.readyForQuery(); // the block ended with the COMMIT: 'I'
        }
    }

    /** Executes a portal, sending at most {@code maxRows} rows (0 = all). */
    void run(final PgPortal portal, final int maxRows) {
        final PgStatement statement = portal.statement;
        if (portal.completedTag != null) {
            if (statement.prepared != null && statement.columns.size() > 0) {
                PgBackend.commandComplete(output.buffer(), "SELECT 0");
            } else {
                complete(portal);
            }
            return;
        }
        if (statement.sql.isEmpty()) {
            PgBackend.emptyQueryResponse(output.buffer());
            return;
        }
        context.retry.disarm(); // another statement in the block: its commit is not retried
        if (statement.command instanceof PgCommand.OnCursor c) {
            runCursorCommand(portal, c.command(), maxRows);
            return;
        }
        if (statement.command != null) {
            if (statement.command instanceof PgCommand.Commit && asyncCommitAllowed && context.block.commitsAsync()
                    && context.session.inProcess()) {
                suspendedPortal = portal;
                suspension = context.block.commitAsync();
                return;
            }
            portal.completedTag = context.commands.run(statement.command, statement.tag);
            return;
        }
        final ScheduledFuture<?> timer = context.startStatementTimer();
        try {
            executePortal(portal, maxRows);
        } finally {
            PgContext.stop(timer);
        }
    }

    private void executePortal(final PgPortal portal, final int maxRows) {
        final PgStatement statement = portal.statement;
        if (portal.result == null) {
            // a DML statement that opens the block's update transaction may run again if meld refuses its commit
            final boolean retryable = statement.writes() && context.block.beginsTransaction(true)
                    && statement.prepared.ddl() == null;
            open(portal, retryable ? maxRows : -1);
        }
        final RowCursor rows = portal.result.rows();
        if (rows == null) {
            portal.completedTag = statement.tag;
            // DDL has no count in its tag, but CREATE TABLE ... AS, tagged SELECT n as PostgreSQL does
            portal.completedCount = statement.prepared.ddl() != null
                    && !(statement.prepared.ddl() instanceof io.meldb.sql.catalog.Ddl.CreateTableAs) ? -1
                    : portal.result.updateCount();
            portal.result = null;
            complete(portal);
            return;
        }
        sendResult(portal, rows, maxRows);
    }

    /**
     * Runs a portal's statement, leaving its rows open in the portal's result: a catalog query's, or the SQL
     * session's execution in the transaction block (arming its retry with {@code retryRows} unless that is -1).
     */
    void open(final PgPortal portal, final int retryRows) {
        final PgStatement statement = portal.statement;
        if (statement.meta != null) {
            final PgCatalogView view = PgCatalogView.of(context.session.state().catalog(),
                    context.settings.get("session_authorization"), context.currentSchema());
            portal.result = new SqlSession.Result(0, statement.meta.run(view, portal.parameters.objects()), -1, null);
            return;
        }
        context.block.beforeStatement(statement.writes());
        if (retryRows >= 0) {
            context.retry.arm(portal, retryRows);
        }
        portal.result = context.session.execute(statement.prepared, portal.parameters);
    }

    /** A SQL cursor's statement, under statement_timeout; a FETCH under a row limit leaves rows to send here. */
    private void runCursorCommand(final PgPortal portal, final PgCursorCommand command, final int maxRows) {
        final ScheduledFuture<?> timer = context.startStatementTimer();
        try {
            if (portal.result == null) {
                final String tag = cursorCommands.run(command, portal, maxRows);
                if (tag != null) {
                    portal.completedTag = tag;
                    return;
                }
            }
            sendResult(portal, portal.result.rows(), maxRows);
        } finally {
            PgContext.stop(timer);
        }
    }

    /** Sends a result's rows (at most {@code maxRows}), then PortalSuspended, or CommandComplete with its count. */
    private void sendResult(final PgPortal portal, final RowCursor rows, final int maxRows) {
        final PgStatement statement = portal.statement;
        if (sendRows(portal, rows, maxRows)) {
            context.retry.disarm(); // the rest of its rows come with a later Execute
            PgBackend.portalSuspended(output.buffer());
            return;
        }
        // a query's rows, or those of INSERT/UPDATE/DELETE ... RETURNING (tagged as the statement: INSERT 0 n), or
        // a FETCH's
        portal.completedTag = statement.command != null || statement.prepared != null
                && statement.prepared.returning() != null ? statement.tag : "SELECT";
        portal.completedCount = portal.rowsSent;
        portals.closeCursor(portal);
        complete(portal);
    }

    /**
     * Ends the implicit block (the end of a Query, or Sync), committing it. When meld refuses the commit (40001) of
     * an autocommit statement nothing of which has reached the client ({@link PgAutocommitRetry}), the statement
     * runs again, whole, on a new snapshot, its first answer replaced by the new one; a cancel or statement_timeout
     * (counted from the statement's first start) stops the retries with 57014.
     */
    void endImplicit() {
        final PgAutocommitRetry retry = context.retry;
        ScheduledFuture<?> timer = null;
        try {
            while (true) {
                try {
                    context.block.endImplicit();
                    return;
                } catch (RuntimeException e) {
                    final PgPortal portal = retry.retryAfter(e);
                    if (portal == null) {
                        throw e;
                    }
                    if (timer == null) {
                        timer = context.startStatementTimer(retry.startNanos());
                    }
                    retry.prepareAttempt(() -> context.cancelRequested);
                    executePortal(portal, retry.maxRows());
                }
            }
        } finally {
            retry.end();
            PgContext.stop(timer);
        }
    }

    /** CommandComplete of a portal that completed: its tag, and its count if it has one. */
    private void complete(final PgPortal portal) {
        if (portal.completedCount < 0) {
            PgBackend.commandComplete(output.buffer(), portal.completedTag);
        } else {
            PgBackend.commandComplete(output.buffer(), portal.completedTag, portal.completedCount);
        }
    }

    /** Sends rows of the cursor; answers true when it stopped at {@code maxRows} with rows left. */
    private boolean sendRows(final PgPortal portal, final RowCursor rows, final int maxRows) {
        final PgColumns columns = portal.statement.columns;
        final short[] formats = portal.resultFormats;
        final java.time.ZoneId zone = writer.sessionZone();
        long sent = 0;
        while (true) {
            if (maxRows > 0 && sent == maxRows) {
                return true;
            }
            if (!rows.next()) {
                return false;
            }
            writer.write(columns, formats, rows, zone);
            sent++;
            portal.rowsSent++;
        }
    }
}
