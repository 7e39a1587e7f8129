package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.pg.catalog.PgCatalogView;
import io.meldb.sql.pg.catalog.PgMetaQueries;
import io.meldb.sql.pg.catalog.PgMetaQuery;
import io.meldb.sql.server.RowCursor;
import io.meldb.sql.server.SqlErrors;
import io.meldb.sql.server.SqlSession;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One PostgreSQL client connection after its start-up: the simple and extended query protocols (PostgreSQL
 * docs, "Message Flow") over a {@link SqlSession}. Messages arrive in order on one worker at a time (see
 * {@link PgConnectionHandler}); answers collect in one buffer that goes out at Sync, Flush, the end of a Query,
 * or when it grows large. After an error in the extended protocol, messages are skipped until Sync.
 */
final class PgConnection {
    private static final Logger LOG = LoggerFactory.getLogger(PgConnection.class);
    /** Answers are written out once this many bytes have collected, so a large result streams. */
    private static final int FLUSH_BYTES = 64 * 1024;

    private final Channel channel;
    private final PgOutput output;
    /** The TimeZone setting {@link #zone} was made from. */
    private String zoneSetting;
    private java.time.ZoneId zone = java.time.ZoneOffset.UTC;
    private final SqlSession session;
    private final PgSettings settings;
    private final PgTransactionBlock block;
    private final PgCommands commands;
    private final int processId;
    private final Map<String, PgStatement> statements = new HashMap<>();
    private final Map<String, PgPortal> portals = new HashMap<>();
    /** No formats, and one format for all: text or binary (shared; never written to). */
    private static final short[] NO_FORMATS = {};
    private static final short[] ALL_TEXT = {0};
    private static final short[] ALL_BINARY = {1};
    /** The portal object the unnamed portal reuses (Bind to "" on every statement is the common case). */
    private PgPortal unnamedPortal;
    /** The statement a Bind or Describe named last, so that the next one finds it without making a String. */
    private String lastStatementName;
    private PgStatement lastStatement;
    /** Where each parameter value of the Bind being read starts in its message, and its length (-1: NULL). */
    private int[] parameterAt = new int[8];
    private int[] parameterLength = new int[8];
    private boolean skipUntilSync;
    /** Set while an Execute runs: only there may a COMMIT end without waiting (not inside a simple Query). */
    private boolean asyncCommitAllowed;
    /** The COPY FROM STDIN in progress, or null. */
    private PgCopyIn copyIn;
    private volatile boolean cancelRequested;
    /** Ends the session when it sits idle inside a transaction block (idle_in_transaction_session_timeout). */
    private volatile ScheduledFuture<?> idleTimer;
    /** Set when statement_timeout cancelled the running statement. */
    private volatile boolean timedOut;
    /**
     * A COMMIT that waits for meld without holding a thread: set by an Execute, taken by the handler, which holds
     * the connection's later messages until {@link #commitFinished} has answered it.
     */
    private CompletableFuture<Void> suspension;
    private PgPortal suspendedPortal;
    private final ScheduledExecutorService timers;

    PgConnection(final Channel channel, final PgOutput output, final SqlSession session, final PgSettings settings,
                 final ScheduledExecutorService timers, final int processId) {
        this.timers = timers;
        this.channel = channel;
        this.processId = processId;
        this.output = output;
        this.session = session;
        this.settings = settings;
        this.block = new PgTransactionBlock(session.state());
        this.commands = new PgCommands(session, settings, block, output);
    }

    /** Carries out one message (on the connection's worker). */
    void handle(final PgMessage m) {
        if (skipUntilSync && m.type() != 'S' && m.type() != 'X') {
            return;
        }
        if (copyIn != null) {
            copy(m);
            return;
        }
        try {
            switch (m.type()) {
                case 'Q' -> simpleQuery(m.readCString());
                case 'P' -> parse(m);
                case 'B' -> bind(m);
                case 'D' -> describe(m);
                case 'E' -> execute(m);
                case 'S' -> sync();
                case 'H' -> output.flush();
                case 'C' -> close(m);
                case 'X' -> channel.close();
                case 'd', 'c', 'f' -> {
                    // copy data after a COPY that failed to start: ignored, as PostgreSQL does
                }
                default -> throw new PgProtocolException("unknown message type '" + (char) m.type() + "'");
            }
        } catch (RuntimeException | Error e) {
            failStatement(e);
            if (m.type() != 'Q') {
                skipUntilSync = true;
            } else {
                readyForQuery();
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
        if (!session.inProcess() || copyIn != null || skipUntilSync) {
            return false;
        }
        switch (m.type()) {
            case 'B', 'D', 'C', 'H':
                return true;
            case 'P': {
                // a driver's BEGIN and COMMIT, parsed anew for every transaction, need no planning
                final String sql = m.peekSecondCString();
                try {
                    return sql != null && sql.length() < 64 && PgCommand.parse(sql) != null;
                } catch (RuntimeException e) {
                    return false; // the worker parses it again and answers the error
                }
            }
            case 'S':
                return !block.commitPending();
            case 'E': {
                final String name = m.peekEmptyCString() ? "" : m.peekCString();
                final PgPortal portal = name == null ? null : portals.get(name);
                if (portal == null || portal.completedTag != null || portal.statement.sql.isEmpty()) {
                    return true;
                }
                final PgStatement statement = portal.statement;
                final io.meldb.txn.api.TxnSession txn = session.state().currentTransaction();
                if (statement.command != null) {
                    // a read-write COMMIT of an explicit block runs here too, without waiting (commitAsync)
                    return !(statement.command instanceof PgCommand.Commit) || txn == null || txn.readOnly()
                            || block.commitsAsync();
                }
                // a statement that begins the transaction runs here too when beginning it cannot wait
                return statement.prepared != null && statement.prepared.fast() != null && portal.result == null
                        && (txn != null && !block.beginsTransaction(statement.writes())
                            || session.beginsWithoutWaiting());
            }
            default:
                return false;
        }
    }

    /** Points unqualified names at the first schema of the session's search_path. */
    void applySearchPath() {
        session.setSchema(PgCommands.schemaOf(settings.get("search_path")));
    }

    /** The client asked to cancel what runs now (CancelRequest), or its statement_timeout passed. */
    void cancel() {
        cancelRequested = true;
        session.cancel();
    }

    /** The channel closed: rolls back whatever is open and releases the session. */
    void closed() {
        for (PgPortal p : portals.values()) {
            closeCursor(p);
        }
        portals.clear();
        for (PgStatement s : statements.values()) {
            s.close();
        }
        statements.clear();
        forgetStatementName();
        block.close();
        session.close();
    }

    // ------------------------------------------------------------------------------------------ simple query

    private void simpleQuery(final String sql) {
        cancelRequested = false;
        final List<String> parts = PgSqlSplitter.split(sql);
        if (parts.isEmpty()) {
            PgBackend.emptyQueryResponse(output.buffer());
            readyForQuery();
            return;
        }
        try {
            for (int i = 0; i < parts.size(); i++) {
                final String part = parts.get(i);
                if (PgCopy.isCopy(part)) {
                    if (i != parts.size() - 1) {
                        throw new SqlStateException("0A000", "COPY FROM STDIN must be the last statement of a query");
                    }
                    final PgCopy copy = PgCopy.parse(part);
                    copyIn = new PgCopyIn(copy, session.copyTarget(copy.schema, copy.table, copy.columns), session,
                            block);
                    PgBackend.copyInResponse(output.buffer(), copyIn.columnCount());
                    output.flush();
                    return; // ReadyForQuery comes after CopyDone or CopyFail
                }
                try (PgStatement statement = prepareTimed(part, new int[0])) {
                    final PgPortal portal = new PgPortal(statement, new Object[0], NO_FORMATS);
                    if (statement.columns.size() > 0) {
                        PgBackend.rowDescription(output.buffer(), statement.columns, portal.resultFormats);
                    }
                    run(portal, 0);
                }
            }
            block.endImplicit();
        } catch (RuntimeException | Error e) {
            failStatement(e);
            endImplicitQuietly();
        }
        readyForQuery();
    }

    /** A message during COPY FROM STDIN: data, done, or fail; anything else ends the COPY with an error. */
    private void copy(final PgMessage m) {
        final PgCopyIn copy = copyIn;
        try {
            switch (m.type()) {
                case 'd' -> copy.data(m.body());
                case 'c' -> {
                    final long rows = copy.done();
                    copyIn = null;
                    PgBackend.commandComplete(output.buffer(), "COPY " + rows);
                    readyForQuery();
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
                failStatement(e);
                copy.fail();
            }
            if (copyIn == null || m.type() == 'c') {
                copyIn = null;
                endImplicitQuietly();
                readyForQuery();
            }
        }
    }

    // ------------------------------------------------------------------------------------------ extended query

    private void parse(final PgMessage m) {
        final String name = m.readCString();
        final String sql = m.readCString();
        final int count = m.readShort();
        final int[] declared = new int[Math.max(count, 0)];
        for (int i = 0; i < declared.length; i++) {
            declared[i] = m.readInt();
        }
        final List<String> parts = PgSqlSplitter.split(sql);
        if (parts.size() > 1) {
            throw new SqlStateException("42601", "cannot insert multiple commands into a prepared statement");
        }
        if (!name.isEmpty() && statements.containsKey(name)) {
            throw new SqlStateException("42P05", "prepared statement \"" + name + "\" already exists");
        }
        cancelRequested = false;
        final PgStatement statement = prepareTimed(parts.isEmpty() ? "" : parts.get(0), declared);
        final PgStatement old = statements.put(name, statement);
        forgetStatementName();
        if (old != null) {
            old.close();
        }
        PgBackend.parseComplete(output.buffer());
    }

    private void bind(final PgMessage m) {
        final String portalName = readName(m);
        final PgStatement statement = readStatement(m);
        final String statementName = lastStatementName;
        final short[] formats = readShorts(m);
        final int count = m.readShort();
        if (count != statement.parameterOids.length) {
            throw new PgProtocolException("bind message supplies " + count + " parameters, but prepared "
                    + "statement \"" + statementName + "\" requires " + statement.parameterOids.length);
        }
        if (formats.length > 1 && formats.length != count) {
            throw new PgProtocolException("bind message has " + formats.length + " parameter formats but "
                    + count + " parameters");
        }
        if (parameterAt.length < count) {
            parameterAt = new int[count];
            parameterLength = new int[count];
        }
        final ByteBuf body = m.body();
        for (int i = 0; i < count; i++) {
            final int length = m.readInt();
            parameterAt[i] = body.readerIndex();
            parameterLength[i] = length;
            if (length > 0) {
                m.skip(length);
            }
        }
        final short[] resultFormats = readShorts(m);
        if (resultFormats.length > 1 && resultFormats.length != statement.columns.size()) {
            throw new PgProtocolException("bind message has " + resultFormats.length + " result formats but the "
                    + "query has " + statement.columns.size() + " columns");
        }
        final int slots = statement.slotTypes.length;
        final PgPortal portal;
        final Object[] values;
        if (portalName.isEmpty()) {
            // as PostgreSQL does, a Bind to the unnamed portal drops the one there before reading the values
            final PgPortal old = portals.get("");
            if (old != null) {
                closeCursor(old);
            }
            if (unnamedPortal == null) {
                unnamedPortal = new PgPortal(statement, new Object[slots], resultFormats);
            }
            portal = unnamedPortal;
            values = portal.parameters.length == slots ? portal.parameters : new Object[slots];
            portal.rebind(statement, values, resultFormats);
        } else {
            values = new Object[slots];
            portal = new PgPortal(statement, values, resultFormats);
        }
        final int readerIndex = body.readerIndex();
        final int writerIndex = body.writerIndex();
        try {
            for (int slot = 0; slot < slots; slot++) {
                final int p = statement.slotParameter[slot];
                if (p < 0 || p >= count) {
                    throw new SqlStateException("08P01", "the statement uses parameter $" + (p + 1) + " but the bind "
                            + "message supplies " + count);
                }
                // the value's bytes as a window of the message body (no slice object)
                final ByteBuf raw = parameterLength[p] < 0 ? null
                        : body.setIndex(parameterAt[p], parameterAt[p] + parameterLength[p]);
                values[slot] = PgParameters.readParameter(raw, PgBackend.format(formats, p) == 1,
                        PgType.ofOid(statement.parameterOids[p]), statement.slotTypes[slot]);
            }
        } catch (RuntimeException | Error e) {
            if (portal == unnamedPortal) {
                portals.remove(""); // half bound
            }
            throw e;
        } finally {
            body.setIndex(readerIndex, writerIndex);
        }
        final PgPortal old = portals.put(portalName, portal);
        if (old != null && old != portal) {
            closeCursor(old);
        }
        PgBackend.bindComplete(output.buffer());
    }

    private void describe(final PgMessage m) {
        final byte what = m.readByte();
        final ByteBuf out = output.buffer();
        if (what == 'S') {
            final PgStatement statement = readStatement(m);
            PgBackend.parameterDescription(out, statement.parameterOids);
            describeRows(statement, NO_FORMATS);
        } else if (what == 'P') {
            final String name = readName(m);
            final PgPortal portal = portals.get(name);
            if (portal == null) {
                throw new SqlStateException("34000", "portal \"" + name + "\" does not exist");
            }
            describeRows(portal.statement, portal.resultFormats);
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

    private void execute(final PgMessage m) {
        final String name = readName(m);
        final int maxRows = m.readInt();
        final PgPortal portal = portals.get(name);
        if (portal == null) {
            throw new SqlStateException("34000", "portal \"" + name + "\" does not exist");
        }
        cancelRequested = false;
        asyncCommitAllowed = true;
        try {
            run(portal, Math.max(maxRows, 0));
        } finally {
            asyncCommitAllowed = false;
        }
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
        suspendedPortal = null;
        if (error == null) {
            portal.completedTag = "COMMIT";
            PgBackend.commandComplete(output.buffer(), "COMMIT");
            return;
        }
        failStatement(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
        skipUntilSync = true;
    }

    private void sync() {
        skipUntilSync = false;
        try {
            block.endImplicit();
        } catch (RuntimeException | Error e) {
            failStatement(e);
        }
        if (!block.explicit()) {
            closeAllPortals();
        }
        readyForQuery();
    }

    private void close(final PgMessage m) {
        final byte what = m.readByte();
        final String name = readName(m);
        if (what == 'S') {
            forgetStatementName();
            final PgStatement s = statements.remove(name);
            if (s != null) {
                s.close();
            }
        } else if (what == 'P') {
            final PgPortal p = portals.remove(name);
            if (p != null) {
                closeCursor(p);
            }
        } else {
            throw new PgProtocolException("invalid Close target '" + (char) what + "'");
        }
        PgBackend.closeComplete(output.buffer());
    }

    // ------------------------------------------------------------------------------------------ running

    /**
     * Prepares one statement: a command of the protocol layer, a system catalog query of psql or pgjdbc
     * ({@link PgMetaQueries}), or the SQL engine's prepared statement (with PostgreSQL's session functions,
     * {@link PgSessionFunctions}, replaced by their values).
     */
    private PgStatement prepare(final String sql, final int[] declared) {
        if (sql.isEmpty()) {
            return new PgStatement(session::release, sql, new PgCommand.NoOp(""), null, declared, PgColumns.NONE, new int[0], 0);
        }
        final PgCommand command = PgCommand.parse(sql);
        if (command != null) {
            return new PgStatement(session::release, sql, command, null, declared, commands.columns(command), new int[0], 0);
        }
        final PgMetaQuery meta = PgMetaQueries.recognize(sql);
        if (meta != null) {
            LOG.debug("answering {} from the catalog", meta.family());
            return PgStatement.meta(sql, meta, declared);
        }
        final PgSqlRewriter.Rewritten rewritten = PgSqlRewriter.rewrite(PgSessionFunctions.rewrite(sql,
                new PgSessionFunctions.Values(settings.get("session_authorization"), currentSchema(), processId)));
        final SqlSession.PreparedSql prepared = session.prepare(rewritten.sql());
        try {
            return new PgStatement(session::release, sql, null, prepared, declared,
                    PgColumnNames.rename(rewritten.sql(), PgColumns.of(prepared.columns())),
                    rewritten.parameterOf(), rewritten.parameterCount());
        } catch (RuntimeException e) {
            session.release(prepared);
            throw e;
        }
    }

    /** {@link #prepare} under statement_timeout: planning a statement counts against its time too. */
    private PgStatement prepareTimed(final String sql, final int[] declared) {
        final long timeout = settings.statementTimeoutMillis();
        final ScheduledFuture<?> timer = timeout <= 0 ? null : timers.schedule(() -> {
            timedOut = true;
            cancel();
        }, timeout, TimeUnit.MILLISECONDS);
        try {
            return prepare(sql, declared);
        } finally {
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }

    /** Executes a portal, sending at most {@code maxRows} rows (0 = all). */
    private void run(final PgPortal portal, final int maxRows) {
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
        if (statement.command != null) {
            if (statement.command instanceof PgCommand.Commit && asyncCommitAllowed && block.commitsAsync()
                    && session.inProcess()) {
                suspendedPortal = portal;
                suspension = block.commitAsync();
                return;
            }
            portal.completedTag = commands.run(statement.command, statement.tag);
            return;
        }
        final long timeout = settings.statementTimeoutMillis();
        final ScheduledFuture<?> timer = timeout <= 0 ? null : timers.schedule(() -> {
            timedOut = true;
            cancel();
        }, timeout, TimeUnit.MILLISECONDS);
        try {
            executePortal(portal, maxRows);
        } finally {
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }

    private void executePortal(final PgPortal portal, final int maxRows) {
        final PgStatement statement = portal.statement;
        if (statement.meta != null && portal.result == null) {
            final PgCatalogView view = PgCatalogView.of(session.state().catalog(),
                    settings.get("session_authorization"), currentSchema());
            portal.result = new SqlSession.Result(0, statement.meta.run(view, portal.parameters), -1, null);
        }
        if (portal.result == null) {
            block.beforeStatement(statement.writes());
            portal.result = session.execute(statement.prepared, portal.parameters);
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
        if (sendRows(portal, rows, maxRows)) {
            PgBackend.portalSuspended(output.buffer());
            return;
        }
        // a query's rows, or those of INSERT/UPDATE/DELETE ... RETURNING (tagged as the statement: INSERT 0 n)
        portal.completedTag = statement.prepared != null && statement.prepared.returning() != null
                ? statement.tag : "SELECT";
        portal.completedCount = portal.rowsSent;
        closeCursor(portal);
        complete(portal);
    }

    /** CommandComplete of a portal that completed: its tag, and its count if it has one. */
    private void complete(final PgPortal portal) {
        if (portal.completedCount < 0) {
            PgBackend.commandComplete(output.buffer(), portal.completedTag);
        } else {
            PgBackend.commandComplete(output.buffer(), portal.completedTag, portal.completedCount);
        }
    }

    /** Reads a portal or statement name: the empty one, the commonest, without making a String. */
    private static String readName(final PgMessage m) {
        return m.readEmptyCString() ? "" : m.readCString();
    }

    /**
     * Reads a statement name and answers its statement (26000 when there is none); the name is then in
     * {@link #lastStatementName}. The name the previous call found is compared in place, without a String.
     */
    private PgStatement readStatement(final PgMessage m) {
        if (lastStatement != null && m.readCStringIf(lastStatementName)) {
            return lastStatement;
        }
        final String name = readName(m);
        final PgStatement statement = statements.get(name);
        if (statement == null) {
            throw new SqlStateException("26000", "prepared statement \"" + name + "\" does not exist");
        }
        lastStatementName = name;
        lastStatement = statement;
        return statement;
    }

    /** The statements changed: the next lookup goes through the map. */
    private void forgetStatementName() {
        lastStatementName = null;
        lastStatement = null;
    }

    /** The schema unqualified names resolve in (the first of search_path). */
    private String currentSchema() {
        return PgCommands.schemaOf(settings.get("search_path"));
    }

    /** Sends rows of the cursor; answers true when it stopped at {@code maxRows} with rows left. */
    private boolean sendRows(final PgPortal portal, final RowCursor rows, final int maxRows) {
        final PgColumns columns = portal.statement.columns;
        final int n = columns.size();
        final java.time.ZoneId zone = sessionZone();
        long sent = 0;
        while (true) {
            if (maxRows > 0 && sent == maxRows) {
                return true;
            }
            if (!rows.next()) {
                return false;
            }
            final ByteBuf out = output.buffer();
            final int at = PgBackend.begin(out, 'D');
            try {
                out.writeShort(n);
                for (int i = 0; i < n; i++) {
                    PgValues.writeValue(out, columns.type(i), rows.value(i),
                            PgBackend.format(portal.resultFormats, i) == 1, zone);
                }
            } catch (RuntimeException | Error e) {
                out.writerIndex(at - 1); // no half DataRow before the ErrorResponse: the client would lose sync
                throw e;
            }
            PgBackend.end(out, at);
            sent++;
            portal.rowsSent++;
            if (out.readableBytes() >= FLUSH_BYTES) {
                output.flushAndAwaitWritable();
            }
            if (cancelRequested) {
                throw new SqlStateException("57014", "canceling statement due to user request");
            }
        }
    }

    /** The session's TimeZone as a zone, made again only when the setting changed. */
    private java.time.ZoneId sessionZone() {
        final String setting = settings.get("TimeZone");
        if (!java.util.Objects.equals(setting, zoneSetting)) {
            zone = PgSessionZone.of(setting);
            zoneSetting = setting;
        }
        return zone;
    }

    private void closeCursor(final PgPortal portal) {
        if (portal.result != null) {
            session.closeResult(portal.result);
            portal.result = null;
        }
    }

    private void closeAllPortals() {
        for (PgPortal p : portals.values()) {
            closeCursor(p);
        }
        portals.clear();
    }

    // ------------------------------------------------------------------------------------------ errors

    /** Sends the error of a failed statement and fails the transaction block it ran in. */
    private void failStatement(final Throwable e) {
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
        PgBackend.error(output.buffer(), 'E', "ERROR", d.sqlState(), d.message(), d.detail(), null);
    }

    private void endImplicitQuietly() {
        try {
            block.endImplicit();
        } catch (RuntimeException | Error e) {
            LOG.debug("ending the implicit transaction failed", e);
        }
        closeAllPortals();
    }

    private void readyForQuery() {
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

    private static short[] readShorts(final PgMessage m) {
        final int n = m.readShort();
        if (n < 0) {
            throw new PgProtocolException("negative count in a Bind message");
        }
        if (n == 0) {
            return NO_FORMATS;
        }
        if (n == 1) {
            final short f = m.readShort();
            if (f != 0 && f != 1) {
                throw new PgProtocolException("unsupported format code " + f);
            }
            return f == 0 ? ALL_TEXT : ALL_BINARY;
        }
        final short[] out = new short[n];
        for (int i = 0; i < n; i++) {
            out[i] = m.readShort();
            if (out[i] != 0 && out[i] != 1) {
                throw new PgProtocolException("unsupported format code " + out[i]);
            }
        }
        return out;
    }
}
