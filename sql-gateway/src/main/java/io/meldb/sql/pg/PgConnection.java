package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.server.SqlSession;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One PostgreSQL client connection after its start-up: takes each message to the role that answers it, the way
 * Netty gives each protocol role its own handler (PostgreSQL docs, "Message Flow"): the simple query protocol and
 * COPY ({@link PgSimpleQuery}), Parse, Describe and Sync here, Bind ({@link PgBind}), Execute and the running of
 * portals ({@link PgExecutor}), named statements and portals and Close ({@link PgPortals}), SQL cursors ({@link
 * PgCursors}: a Describe or Execute of a cursor's name reaches it, as PostgreSQL's cursors are portals), errors and
 * ReadyForQuery ({@link PgContext}). Messages arrive in order on one worker at a time (see {@link
 * PgConnectionHandler}); answers collect in one buffer that goes out at Sync, Flush, the end of a Query, or when it
 * grows large. After an error in the extended protocol, messages are skipped until Sync.
 */
final class PgConnection {
    private final PgContext context;
    private final PgPortals portals;
    private final PgOutput output;
    private final PgPreparer preparer;
    private final PgBind bind;
    private final PgExecutor executor;
    private final PgSimpleQuery simple;

    PgConnection(final Channel channel, final PgOutput output, final SqlSession session, final PgSettings settings,
                 final ScheduledExecutorService timers, final int processId) {
        this.context = new PgContext(channel, output, session, settings, timers, processId);
        this.portals = context.portals;
        this.output = output;
        this.preparer = new PgPreparer(context);
        this.bind = new PgBind(portals, output);
        this.executor = new PgExecutor(context, preparer);
        this.simple = new PgSimpleQuery(context, preparer, executor);
    }

    /** Carries out one message (on the connection's worker). */
    void handle(final PgMessage m) {
        if (context.skipUntilSync && m.type() != 'S' && m.type() != 'X') {
            return;
        }
        if (simple.copying()) {
            simple.copy(m);
            return;
        }
        if (m.type() != 'S') {
            context.retry.disarm(); // only the Sync right after it commits a statement that may run again
        }
        try {
            switch (m.type()) {
                case 'Q' -> simple.simpleQuery(m);
                case 'P' -> parse(m);
                case 'B' -> bind.bind(m);
                case 'D' -> describe(m);
                case 'E' -> executor.execute(m);
                case 'S' -> sync();
                case 'H' -> output.flush();
                case 'C' -> {
                    portals.close(m);
                    PgBackend.closeComplete(output.buffer());
                }
                case 'X' -> context.channel.close();
                case 'd', 'c', 'f' -> {
                    // copy data after a COPY that failed to start: ignored, as PostgreSQL does
                }
                default -> throw new PgProtocolException("unknown message type '" + (char) m.type() + "'");
            }
        } catch (RuntimeException | Error e) {
            context.failStatement(e);
            if (m.type() != 'Q') {
                context.skipUntilSync = true;
            } else {
                context.readyForQuery();
            }
        }
    }

    /**
     * Whether a message may run on the connection's I/O thread rather than a worker: only when the session's
     * transactions live in this process, and only what cannot wait (no admission wait for a new transaction, no
     * commit that waits for meld, no Calcite planning or execution). Binding, describing, closing, a fast-path
     * statement in an open transaction, session commands and a read-only COMMIT qualify; a round trip then costs
     * no thread hand-off. Decided without consuming the message.
     */
    boolean runsInline(final PgMessage m) {
        if (!context.session.inProcess() || simple.copying() || context.skipUntilSync) {
            return false;
        }
        switch (m.type()) {
            case 'B', 'D', 'C', 'H':
                return true;
            case 'P': {
                // a driver's BEGIN and COMMIT, parsed anew for every transaction, need no planning
                final String sql = m.peekSecondCString();
                try {
                    // not a cursor's: a DECLARE plans its query, a FETCH's columns are its cursor's
                    final PgCommand command = sql != null && sql.length() < 64 ? PgCommand.parse(sql) : null;
                    return command != null && !(command instanceof PgCommand.OnCursor);
                } catch (RuntimeException e) {
                    return false; // the worker parses it again and answers the error
                }
            }
            case 'Q':
                // pgjdbc opens every transaction with a simple Query "BEGIN" of its own, and pgbench -M simple sends
                // every statement as one: on a worker each would cost two thread hand-offs
                return simple.runsInline(m);
            case 'S':
                // not when ending the block reads rows: a WITH HOLD cursor declared in it reads the rest at COMMIT
                return !context.block.commitPending() && !context.cursors.ofTransaction();
            case 'E': {
                final String name = m.peekEmptyCString() ? "" : m.peekCString();
                final PgPortal portal = name == null ? null : context.portals.portal(name);
                if (portal == null) {
                    return name == null || context.cursors.get(name) == null; // a cursor's rows are read on a worker
                }
                if (portal.completedTag != null || portal.statement.sql.isEmpty()) {
                    return true;
                }
                final PgStatement statement = portal.statement;
                final io.meldb.txn.api.TxnSession txn = context.session.state().currentTransaction();
                if (statement.command instanceof PgCommand.OnCursor) {
                    return false; // DECLARE runs its query, FETCH reads rows
                }
                if (statement.command != null) {
                    // a read-write COMMIT of an explicit block runs here too, without waiting (commitAsync); not one
                    // whose WITH HOLD cursors read the rest of their rows
                    return !(statement.command instanceof PgCommand.Commit) || !context.cursors.ofTransaction()
                            && (txn == null || txn.readOnly() || context.block.commitsAsync());
                }
                // a statement that begins the transaction runs here too when beginning it cannot wait
                // (not a write while cursors read the transaction: they read the rest of their rows first)
                return statement.prepared != null && statement.prepared.fast() != null && portal.result == null
                        && (txn != null && !context.block.beginsTransaction(statement.writes())
                            || context.session.beginsWithoutWaiting())
                        && !(statement.writes() && context.cursors.reading());
            }
            default:
                return false;
        }
    }

    /** Points unqualified names at the first schema of the session's search_path. */
    void applySearchPath() {
        context.session.setSchema(context.currentSchema());
    }

    /** The client asked to cancel what runs now (CancelRequest), or its statement_timeout passed. */
    void cancel() {
        context.cancel();
    }

    /** The session ends (the client went away, or {@code terminate}: pg_terminate_backend). */
    void end(final boolean terminate) {
        context.end(terminate);
    }

    /** The channel closed: rolls back whatever is open and releases the session. */
    void closed() {
        simple.close();
        portals.closeEverything();
        try {
            context.cursors.closeAll();
        } catch (RuntimeException e) {
            // closing a cursor only releases its result: the session closes below all the same
        }
        context.block.close();
        context.session.close();
    }

    /** A message arrived: the session is not idle (called on the I/O thread, before the message runs). */
    void messageArrived() {
        context.messageArrived();
    }

    /** See {@link PgExecutor#takeSuspension}. */
    CompletableFuture<Void> takeSuspension() {
        return executor.takeSuspension();
    }

    /** See {@link PgExecutor#commitFinished}. */
    void commitFinished(final Throwable error) {
        executor.commitFinished(error);
    }

    // ------------------------------------------------------------------------------------------ extended query

    private void parse(final PgMessage m) {
        final String name = m.readCString();
        final String sql = m.readCString();
        final int count = m.readUnsignedShort();
        final int[] declared = new int[count];
        for (int i = 0; i < declared.length; i++) {
            declared[i] = m.readInt();
        }
        final List<String> parts = PgSqlSplitter.split(sql);
        if (parts.size() > 1) {
            throw new SqlStateException("42601", "cannot insert multiple commands into a prepared statement");
        }
        if (!name.isEmpty() && portals.hasStatement(name)) {
            throw new SqlStateException("42P05", "prepared statement \"" + name + "\" already exists");
        }
        context.cancelRequested = false;
        final PgStatement statement = preparer.prepareTimed(parts.isEmpty() ? "" : parts.get(0), declared);
        portals.putStatement(name, statement);
        PgBackend.parseComplete(output.buffer());
    }

    private void describe(final PgMessage m) {
        final byte what = m.readByte();
        final ByteBuf out = output.buffer();
        if (what == 'S') {
            final PgStatement statement = portals.readStatement(m);
            PgBackend.parameterDescription(out, statement.parameterOids);
            describeRows(statement, PgBind.NO_FORMATS);
        } else if (what == 'P') {
            final String name = PgPortals.readName(m);
            final PgPortal portal = portals.portal(name);
            if (portal != null) {
                describeRows(portal.statement, portal.resultFormats);
                return;
            }
            final PgCursor cursor = context.cursors.get(name); // a SQL cursor is a portal too (psycopg describes one)
            if (cursor == null) {
                throw new SqlStateException("34000", "portal \"" + name + "\" does not exist");
            }
            PgBackend.rowDescription(out, cursor.columns, PgBind.NO_FORMATS);
        } else {
            throw new PgProtocolException("invalid Describe target '" + (char) what + "'");
        }
    }

    private void describeRows(final PgStatement statement, final short[] formats) {
        if (statement.columns.size() == 0) {
            PgBackend.noData(output.buffer());
        } else {
            PgBackend.rowDescription(output.buffer(), statement.columns, formats);
        }
    }

    private void sync() {
        context.skipUntilSync = false;
        try {
            executor.endImplicit();
        } catch (RuntimeException | Error e) {
            context.failStatement(e);
            context.endImplicitQuietly();
        }
        if (!context.block.explicit()) {
            portals.closeAllPortals();
        }
        context.readyForQuery();
    }
}
