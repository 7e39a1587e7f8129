package io.meldb.sql.pg;

import io.meldb.sql.server.SqlErrors;
import io.meldb.sql.server.SqlSession;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * What the roles of one PostgreSQL connection share ({@link PgConnection} and the classes it delegates to): the
 * channel, the outbound buffer, the SQL session and its transaction block, the session's settings, and the two
 * answers every role sends — an ErrorResponse that fails the transaction block, and ReadyForQuery (PostgreSQL docs,
 * "Message Flow": "Error handling" and the end of every query cycle). Also the cancel flags (CancelRequest and
 * statement_timeout), the idle-in-transaction timer, and the connection's SQL cursors.
 */
final class PgContext {
    private static final Logger LOG = LoggerFactory.getLogger(PgConnection.class);

    final Channel channel;
    final PgOutput output;
    final SqlSession session;
    final PgSettings settings;
    final PgTransactionBlock block;
    final PgCommands commands;
    final ScheduledExecutorService timers;
    final int processId;
    final PgPortals portals;
    /** The SQL cursors (DECLARE), which outlive statements, and WITH HOLD ones transactions. */
    final PgCursors cursors;
    /**
     * Set while the statements of a simple Query of several run: they form an implicit transaction block, in which
     * PostgreSQL lets DECLARE run without BEGIN.
     */
    boolean multiStatementQuery;
    /** The text of the simple Query running (a cursor's pg_cursors.statement, as PostgreSQL keeps it), or null. */
    String queryText;
    /** The autocommit statement the implicit block's commit may run again (see {@link PgAutocommitRetry}). */
    final PgAutocommitRetry retry;
    /** After an error in the extended protocol, messages are skipped until Sync. */
    boolean skipUntilSync;
    volatile boolean cancelRequested;
    /** Set by pg_terminate_backend: the running statement's error ends the session (FATAL 57P01). */
    volatile boolean terminated;
    /** Set when statement_timeout cancelled the running statement. */
    volatile boolean timedOut;
    /** Ends the session when it sits idle inside a transaction block (idle_in_transaction_session_timeout). */
    private volatile ScheduledFuture<?> idleTimer;

    PgContext(final Channel channel, final PgOutput output, final SqlSession session, final PgSettings settings,
              final ScheduledExecutorService timers, final int processId) {
        this.channel = channel;
        this.output = output;
        this.session = session;
        this.settings = settings;
        this.timers = timers;
        this.processId = processId;
        this.cursors = new PgCursors();
        session.state().openCursors(cursors); // pg_cursors
        this.block = new PgTransactionBlock(session.state(), cursors);
        this.commands = new PgCommands(session, settings, block, output, cursors);
        // what current_user, current_setting, set_config, pg_backend_pid() ... read and write
        session.state().sessionParameters(new PgSessionParameters(settings, commands, processId));
        this.portals = new PgPortals(session, cursors);
        this.retry = new PgAutocommitRetry(output, session.state().autocommitRetry());
    }

    /** The client asked to cancel what runs now (CancelRequest), or its statement_timeout passed. */
    void cancel() {
        cancelRequested = true;
        session.cancel();
    }

    /**
     * The session ends (its client went away, or pg_terminate_backend): stops the running statement and every
     * later one until the session is closed.
     */
    void end(final boolean terminate) {
        terminated |= terminate;
        cancelRequested = true;
        session.end();
    }

    /** Starts statement_timeout for the statement about to run; null when there is none. Stop it with {@link #stop}. */
    ScheduledFuture<?> startStatementTimer() {
        final long timeout = settings.statementTimeoutMillis();
        return timeout <= 0 ? null : timers.schedule(() -> {
            timedOut = true;
            cancel();
        }, timeout, TimeUnit.MILLISECONDS);
    }

    /**
     * Starts statement_timeout for what is left of it since {@code startNanos}; null when there is none, and 57014
     * (as the timeout) when none is left.
     */
    ScheduledFuture<?> startStatementTimer(final long startNanos) {
        final long timeout = settings.statementTimeoutMillis();
        if (timeout <= 0) {
            return null;
        }
        final long left = timeout - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        if (left <= 0) {
            timedOut = true;
            throw new io.meldb.sql.SqlStateException("57014", "canceling statement due to statement timeout");
        }
        return timers.schedule(() -> {
            timedOut = true;
            cancel();
        }, left, TimeUnit.MILLISECONDS);
    }

    static void stop(final ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** The schema unqualified names resolve in (the first of search_path). */
    String currentSchema() {
        return PgCommands.schemaOf(settings.get("search_path"));
    }

    /** Sends the error of a failed statement and fails the transaction block it ran in. */
    void failStatement(final Throwable e) {
        if (terminated) {
            throw terminating();
        }
        SqlErrors.Described d = SqlErrors.describe(e);
        if (d.sqlState().equals("57014") && timedOut) {
            d = new SqlErrors.Described("57014", "canceling statement due to statement timeout");
        }
        timedOut = false;
        cancelRequested = false;
        if (d.sqlState().equals("XX000")) {
            LOG.warn("internal error in a PostgreSQL connection", e);
        } else {
            LOG.debug("statement failed: {} {}", d.sqlState(), d.message());
        }
        try {
            block.failed();
        } catch (RuntimeException | Error again) {
            LOG.debug("failing the transaction block failed too", again);
        }
        PgBackend.error(output.buffer(), 'E', "ERROR", d.sqlState(), d.message(), d.detail(), d.hint(), d.fields());
    }

    /** What ends a terminated session: FATAL 57P01, as PostgreSQL sends it (the handler closes the connection). */
    static PgFatalException terminating() {
        return new PgFatalException(new io.meldb.sql.SqlStateException("57P01",
                "terminating connection due to administrator command"));
    }

    /** Ends the implicit transaction of a simple query that failed, and its portals. */
    void endImplicitQuietly() {
        try {
            block.endImplicit();
        } catch (RuntimeException | Error e) {
            LOG.debug("ending the implicit transaction failed", e);
        }
        portals.closeAllPortals();
    }

    void readyForQuery() {
        final byte status = block.status();
        PgBackend.readyForQuery(output.buffer(), status);
        output.flush();
        final long idle = settings.idleInTransactionMillis();
        if (idle > 0 && status != PgBackend.IDLE) {
            idleTimer = timers.schedule(this::idleInTransactionTimedOut, idle, TimeUnit.MILLISECONDS);
        }
    }

    /** A message arrived: the session is not idle (called on the I/O thread, before the message runs). */
    void messageArrived() {
        final ScheduledFuture<?> timer = idleTimer;
        if (timer != null) {
            idleTimer = null;
            timer.cancel(false);
        }
    }

    /**
     * idle_in_transaction_session_timeout passed with a transaction block open and no message: the session ends
     * (FATAL 25P03, as in PostgreSQL), which rolls its transaction back and frees its admission slot.
     */
    private void idleInTransactionTimedOut() {
        final io.netty.buffer.ByteBuf out = channel.alloc().buffer(128);
        PgBackend.error(out, 'E', "FATAL", "25P03", "terminating connection due to idle-in-transaction timeout",
                null, null);
        channel.eventLoop().execute(() -> channel.writeAndFlush(out).addListener(
                io.netty.channel.ChannelFutureListener.CLOSE));
    }
}
