package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.fast.ParameterValues;

import java.util.List;

/**
 * The simple query protocol (PostgreSQL docs, "Simple Query"): a Query message's statements, split and run one
 * after another in an implicit transaction, each answered with its RowDescription, rows and CommandComplete, and
 * ReadyForQuery at the end; COPY TO STDOUT ({@link PgCopyOut}); and the COPY FROM STDIN sub-protocol a Query may start ("COPY Operations": CopyData,
 * CopyDone, CopyFail), whose rows {@link PgCopyIn} loads.
 */
final class PgSimpleQuery {
    private final PgContext context;
    private final PgPreparer preparer;
    private final PgExecutor executor;
    private final PgOutput output;
    private final PgLiteralShapes shapes;
    private final PgShapeCache kept;
    /** The portal of a kept statement, bound again for each Query. */
    private final PgPortal keptPortal = new PgPortal(null, null, PgBind.NO_FORMATS);
    /** The entry {@link #runsInline} found for the message it let run on the I/O thread; taken by the Query. */
    private PgShapeCache.Entry inlineEntry;
    private final PgCopyOut copyOut;
    /** The COPY FROM STDIN in progress, or null. */
    private PgCopyIn copyIn;

    PgSimpleQuery(final PgContext context, final PgPreparer preparer, final PgExecutor executor) {
        this.context = context;
        this.preparer = preparer;
        this.executor = executor;
        this.output = context.output;
        this.shapes = new PgLiteralShapes(preparer);
        this.kept = new PgShapeCache(context, preparer);
        this.copyOut = new PgCopyOut(context, preparer);
    }

    /**
     * Whether the Query {@code m} may run on the connection's I/O thread (not consuming it): one kept statement
     * that cannot wait — a transaction-control command ({@link PgInlineQuery}), or a fast-path statement under the
     * rule of an extended-protocol Execute (in an open transaction, or one that begins without waiting; and not one
     * whose implicit block would commit writes at its end) — or one of the commands {@link PgInlineQuery} lets run
     * there by their text.
     */
    boolean runsInline(final PgMessage m) {
        inlineEntry = null;
        final PgShapeCache.Entry e = kept.lookup(m.body());
        if (e == null) {
            return PgInlineQuery.runsInline(m.peekCString(), context.block);
        }
        final PgStatement statement = e.statement;
        final PgTransactionBlock block = context.block;
        final boolean inline;
        if (statement.command != null) {
            inline = PgInlineQuery.commandRunsInline(statement.command, block);
        } else {
            final boolean writes = statement.writes();
            final io.meldb.txn.api.TxnSession txn = context.session.state().currentTransaction();
            inline = (block.explicit() || !writes)
                    && (txn != null && !block.beginsTransaction(writes) || context.session.beginsWithoutWaiting())
                    && !(writes && context.cursors.reading()) // cursors would read the rest of their rows first
                    && kept.valid(e);
        }
        if (inline) {
            inlineEntry = e;
        }
        return inline;
    }

    /** Query: a kept statement's shape runs as it is; anything else goes through {@link #simpleQuery(String)}. */
    void simpleQuery(final PgMessage m) {
        context.cancelRequested = false;
        PgShapeCache.Entry e = inlineEntry;
        inlineEntry = null;
        // before a shape is looked up or kept: text that is not UTF-8 never runs, nor is kept decoded with U+FFFD
        m.checkCString();
        if (e == null) {
            e = kept.lookup(m.body());
            if (e != null && !kept.valid(e)) {
                e = null;
            }
            if (e == null && kept.admissible()) {
                e = kept.admit(m.peekCString());
            }
        }
        if (e == null) {
            simpleQuery(m.readCString());
            return;
        }
        final PgStatement statement = e.statement;
        try {
            keptPortal.rebind(statement, e.values, PgBind.NO_FORMATS);
            if (statement.columns.size() > 0) {
                PgBackend.rowDescription(output.buffer(), statement.columns, keptPortal.resultFormats);
            }
            if (executor.runSimple(keptPortal)) {
                return; // a COMMIT that waits for meld without a thread: its answer ends the Query
            }
            executor.endImplicit();
        } catch (RuntimeException | Error ex) {
            context.portals.closeCursor(keptPortal);
            context.failStatement(ex);
            context.endImplicitQuietly();
        }
        context.readyForQuery();
    }

    /** Query: runs each statement of the string in turn, in one implicit transaction, then ReadyForQuery. */
    void simpleQuery(final String sql) {
        context.cancelRequested = false;
        final List<String> parts = PgSqlSplitter.split(sql);
        if (parts.isEmpty()) {
            PgBackend.emptyQueryResponse(output.buffer());
            context.readyForQuery();
            return;
        }
        context.multiStatementQuery = parts.size() > 1;
        context.queryText = sql;
        try {
            for (int i = 0; i < parts.size(); i++) {
                final String part = parts.get(i);
                if (PgCopy.isCopy(part)) {
                    context.retry.disarm();
                    final PgCopy copy = PgCopy.parse(part);
                    if (copy.toStdout) {
                        copyOut.run(copy);
                        continue;
                    }
                    if (i != parts.size() - 1) {
                        throw new SqlStateException("0A000", "COPY FROM STDIN must be the last statement of a query");
                    }
                    copyIn = new PgCopyIn(copy, context.session.copyTarget(copy.schema, copy.table, copy.columns),
                            context.session, context.block);
                    PgBackend.copyInResponse(output.buffer(), copyIn.columnCount());
                    output.flush();
                    return; // ReadyForQuery comes after CopyDone or CopyFail
                }
                // by its shape when it has integer literals: planned once per shape, not once per statement
                final PgLiteralShapes.Bound shaped = shapes.prepare(part);
                try (PgStatement statement = shaped != null ? shaped.statement()
                        : preparer.prepareTimed(part, new int[0])) {
                    final PgPortal portal = new PgPortal(statement,
                            shaped != null ? shaped.values() : new ParameterValues(), statement.simpleFormats);
                    if (statement.columns.size() > 0) {
                        PgBackend.rowDescription(output.buffer(), statement.columns, portal.resultFormats);
                    }
                    executor.run(portal, 0);
                    if (i == parts.size() - 1) {
                        executor.endImplicit(); // while the statement is open: the commit may run it again
                    }
                }
            }
            context.block.endImplicit();
        } catch (RuntimeException | Error e) {
            context.failStatement(e);
            context.endImplicitQuietly();
        } finally {
            context.multiStatementQuery = false;
            context.queryText = null;
        }
        context.readyForQuery();
    }

    /** The connection closed: the kept statements go. */
    void close() {
        kept.clear();
    }

    /** Whether a COPY FROM STDIN is in progress: its messages go to {@link #copy}. */
    boolean copying() {
        return copyIn != null;
    }

    /** A message during COPY FROM STDIN: data, done, or fail; anything else ends the COPY with an error. */
    void copy(final PgMessage m) {
        final PgCopyIn copy = copyIn;
        try {
            switch (m.type()) {
                case 'd' -> copy.data(m.body());
                case 'c' -> {
                    final long rows = copy.done();
                    copyIn = null;
                    PgBackend.commandComplete(output.buffer(), "COPY " + rows);
                    context.readyForQuery();
                }
                case 'f' -> {
                    copyIn = null;
                    throw new SqlStateException("57014", "COPY from stdin failed: " + m.readCString());
                }
                case 'H', 'S' -> {
                    // allowed during COPY and ignored
                }
                default -> {
                    copyIn = null;
                    throw new PgProtocolException("unexpected message type '" + (char) m.type() + "' during COPY "
                            + "FROM STDIN");
                }
            }
        } catch (RuntimeException | Error e) {
            if (!copy.failed()) {
                context.failStatement(e);
                copy.fail();
            }
            if (copyIn == null || m.type() == 'c') {
                copyIn = null;
                context.endImplicitQuietly();
                context.readyForQuery();
            }
        }
    }
}
