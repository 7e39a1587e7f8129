package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.fast.FastPlan;
import io.meldb.sql.fast.FastPlanner;
import org.apache.calcite.avatica.ConnectionPropertiesImpl;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.MissingResultsException;
import org.apache.calcite.avatica.NoSuchStatementException;
import org.apache.calcite.avatica.QueryState;
import org.apache.calcite.avatica.jdbc.JdbcMeta;
import org.apache.calcite.avatica.proto.Requests;
import org.apache.calcite.avatica.ColumnMetaData.Rep;
import org.apache.calcite.avatica.remote.TypedValue;
import org.apache.calcite.runtime.Hook;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The server side of MeldDB's JDBC: Avatica's {@link JdbcMeta} over an in-process Calcite connection per client
 * connection, with MeldDB's transaction handling around every statement (see {@link GatewayConnection}), DDL run
 * by the gateway itself, and every error turned into a proper SQLState (see {@link SqlErrors}). Each connection's
 * Calcite root schema is a {@link MeldRootSchema}: the catalog's schemas are its sub-schemas, and unqualified
 * names resolve in {@link Catalog#PUBLIC}.
 */
public final class MeldMeta extends JdbcMeta implements io.meldb.sql.jdbc.InlineMeta {
    private static final Logger LOG = LoggerFactory.getLogger(MeldMeta.class);
    /** The default schema of every connection (docs/architecture.md: db / schema / table). */
    public static final String SCHEMA = SqlEngine.SCHEMA;
    /** What MeldDB's driver sends to stop the running statement of its connection (see StatementCancels). */
    static final String CANCEL_REQUEST = "/* meldb */ CANCEL";
    /** What {@code DatabaseMetaData.getTimeDateFunctions} lists: every one runs as a JDBC escape. */
    static final String ESCAPE_TIME_DATE_FUNCTIONS = "TIMESTAMPADD,TIMESTAMPDIFF";

    /** The shape of EXPLAIN ANALYZE's answer. */
    private static final MetaResults PLAN = new MetaResults(MetaResults.text(ExplainAnalyze.COLUMN.name()));

    private final SqlEngine engine;
    private final Map<String, GatewayConnection> connections = new ConcurrentHashMap<>();
    private final Map<Connection, GatewayConnection> pending = new ConcurrentHashMap<>();
    /** Statement id → what it does and its SQL (for prepared statements). */
    private final Map<Integer, Prepared> prepared = new ConcurrentHashMap<>();
    private final Map<String, ConnectionPropertiesImpl> properties = new ConcurrentHashMap<>();

    /** A prepared statement: what it does, its SQL, and its fast-path plan (null: Calcite runs it). */
    private record Prepared(StatementKind kind, String sql, FastPlan fast, Signature signature,
                            StatementClauses clauses) {
    }

    /** Connections opened with {@code meldb.fast_path=off}: every statement through Calcite. */
    private final Set<String> slowConnections = ConcurrentHashMap.newKeySet();

    private final JdbcConfig limits;
    /** Ends transactions left idle; null when the timeout is off. */
    private final IdleTransactionSweeper sweeper;

    public MeldMeta(final SqlEngine engine) throws SQLException {
        this(engine, JdbcConfig.defaults());
    }

    public MeldMeta(final SqlEngine engine, final JdbcConfig limits) throws SQLException {
        super("jdbc:calcite:", cacheSettings(limits));
        this.engine = engine;
        this.limits = limits;
        this.sweeper = limits.idleInTransactionTimeout().isZero() ? null
                : new IdleTransactionSweeper(connections.values(), limits.idleInTransactionTimeout());
    }

    /** Stops the idle-in-transaction sweep. */
    void close() {
        if (sweeper != null) {
            sweeper.close();
        }
    }

    private static Properties cacheSettings(final JdbcConfig limits) {
        final Properties p = new Properties();
        // idle connections and statements expire after an hour rather than Avatica's 10 and 5 minutes
        p.setProperty(ConnectionCacheSettings.EXPIRY_DURATION.key(), "60");
        p.setProperty(StatementCacheSettings.EXPIRY_DURATION.key(), "60");
        // room above the connection limit, so the cache never evicts a live connection to take a new one: the
        // limit refuses it first (53300)
        p.setProperty(ConnectionCacheSettings.MAX_CAPACITY.key(),
                String.valueOf(limits.maxConnections() + Math.max(100, limits.maxConnections() / 10)));
        p.setProperty(StatementCacheSettings.MAX_CAPACITY.key(), "100000");
        return p;
    }

    @Override
    protected Connection createConnection(final String url, final Properties info) throws SQLException {
        final GatewayConnection state = engine.newConnectionState("pending", SqlMetrics.JDBC);
        final Connection connection = engine.calciteConnection(state);
        pending.put(connection, state);
        return connection;
    }

    @Override
    public void openConnection(final ConnectionHandle ch, final Map<String, String> info) {
        if (connections.size() >= limits.maxConnections()) {
            LOG.warn("refused a JDBC connection: {} are open, the limit", connections.size());
            throw SqlErrors.toAvatica(new io.meldb.sql.SqlStateException("53300", "sorry, too many clients already: "
                    + connections.size() + " JDBC connections are open (--jdbc-max-connections); close some first"));
        }
        try {
            super.openConnection(ch, info);
            if (info != null && "off".equalsIgnoreCase(info.get("meldb.fast_path"))) {
                slowConnections.add(ch.id);
            }
            final Connection c = getConnection(ch.id);
            final GatewayConnection state = pending.remove(c);
            state.bind(ch.id);
            if (info != null && info.get("meldb.statement_memory") != null) {
                state.memory().limit(io.meldb.sql.calcite.StatementMemory.parse(info.get("meldb.statement_memory")));
            }
            connections.put(ch.id, state);
            final ConnectionPropertiesImpl props = new ConnectionPropertiesImpl(true, false,
                    Connection.TRANSACTION_SERIALIZABLE, SqlEngine.DATABASE, SCHEMA);
            properties.put(ch.id, props);
            LOG.debug("opened connection {}", ch.id);
        } catch (SQLException | RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public Map<DatabaseProperty, Object> getDatabaseProperties(final ConnectionHandle ch) {
        final Map<DatabaseProperty, Object> props = new java.util.HashMap<>(super.getDatabaseProperties(ch));
        props.put(DatabaseProperty.GET_DATABASE_PRODUCT_NAME, io.meldb.sql.MeldVersion.PRODUCT);
        props.put(DatabaseProperty.GET_DATABASE_PRODUCT_VERSION, io.meldb.sql.MeldVersion.VERSION);
        props.put(DatabaseProperty.GET_DEFAULT_TRANSACTION_ISOLATION, Connection.TRANSACTION_SERIALIZABLE);
        props.put(DatabaseProperty.GET_DATABASE_MAJOR_VERSION, io.meldb.sql.MeldVersion.MAJOR);
        props.put(DatabaseProperty.GET_DATABASE_MINOR_VERSION, io.meldb.sql.MeldVersion.MINOR);
        // the JDBC escape functions ({fn NAME(...)}) that run: Calcite's escape table is keyed by upper-case names
        // and MeldDB folds unquoted names to lower case, so of Calcite's list only these two are found
        props.put(DatabaseProperty.GET_NUMERIC_FUNCTIONS, "");
        props.put(DatabaseProperty.GET_STRING_FUNCTIONS, "");
        props.put(DatabaseProperty.GET_SYSTEM_FUNCTIONS, "");
        props.put(DatabaseProperty.GET_TIME_DATE_FUNCTIONS, ESCAPE_TIME_DATE_FUNCTIONS);
        return props;
    }

    // DatabaseMetaData's catalog calls, answered from the catalog tree rather than Calcite's view of it (which
    // loses declared lengths, puts NOT NULL into TYPE_NAME and knows no keys or indexes)

    @Override
    public MetaResultSet getCatalogs(final ConnectionHandle ch) {
        return metaResult(ch, CatalogMetaData.CATALOGS, m -> CatalogMetaData.catalogs());
    }

    @Override
    public MetaResultSet getSchemas(final ConnectionHandle ch, final String catalog, final Pat schemaPattern) {
        return metaResult(ch, CatalogMetaData.SCHEMAS, m -> m.schemas(catalog, schemaPattern.s));
    }

    @Override
    public MetaResultSet getTableTypes(final ConnectionHandle ch) {
        return metaResult(ch, CatalogMetaData.TABLE_TYPES, m -> CatalogMetaData.tableTypes());
    }

    @Override
    public MetaResultSet getTables(final ConnectionHandle ch, final String catalog, final Pat schemaPattern,
                                   final Pat tableNamePattern, final List<String> typeList) {
        return metaResult(ch, CatalogMetaData.TABLES,
                m -> m.tables(catalog, schemaPattern.s, tableNamePattern.s, typeList));
    }

    @Override
    public MetaResultSet getColumns(final ConnectionHandle ch, final String catalog, final Pat schemaPattern,
                                    final Pat tableNamePattern, final Pat columnNamePattern) {
        return metaResult(ch, CatalogMetaData.COLUMNS,
                m -> m.columns(catalog, schemaPattern.s, tableNamePattern.s, columnNamePattern.s));
    }

    @Override
    public MetaResultSet getTypeInfo(final ConnectionHandle ch) {
        return metaResult(ch, CatalogMetaData.TYPE_INFO, m -> CatalogMetaData.typeInfo());
    }

    private MetaResultSet metaResult(final ConnectionHandle ch, final MetaResults shape,
                                     final java.util.function.Function<CatalogMetaData, List<Object[]>> rows) {
        return shape.resultSet(ch.id, getStatementIdGenerator().getAndIncrement(), true,
                rows.apply(catalogMetaData(ch.id)));
    }

    private CatalogMetaData catalogMetaData(final String connectionId) {
        try {
            final org.apache.calcite.jdbc.CalciteConnection calcite = getConnection(connectionId)
                    .unwrap(org.apache.calcite.jdbc.CalciteConnection.class);
            return new CatalogMetaData(state(connectionId).catalog(), calcite.getRootSchema(),
                    calcite.getTypeFactory());
        } catch (SQLException | RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    /**
     * The metadata calls Avatica's protocol has no request for (getPrimaryKeys, getIndexInfo), which MeldDB's
     * driver sends as a statement ({@link MetaDataRequest}); their rows are the statement's result.
     */
    private ExecuteResult metaDataStatement(final StatementHandle h, final String sql) {
        try {
            final MetaDataRequest request = MetaDataRequest.parse(sql);
            final CatalogMetaData m = catalogMetaData(h.connectionId);
            return new ExecuteResult(List.of(request.shape().resultSet(h.connectionId, h.id, false,
                    request.rows(m))));
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public void closeConnection(final ConnectionHandle ch) {
        final GatewayConnection state = connections.remove(ch.id);
        properties.remove(ch.id);
        slowConnections.remove(ch.id);
        if (state != null) {
            state.close();
        }
        super.closeConnection(ch);
    }

    @Override
    public ConnectionProperties connectionSync(final ConnectionHandle ch, final ConnectionProperties connProps) {
        final GatewayConnection state = state(ch.id);
        final ConnectionPropertiesImpl current = properties.get(ch.id);
        try {
            if (connProps.isAutoCommit() != null) {
                state.setAutoCommit(connProps.isAutoCommit());
            }
            if (connProps.isReadOnly() != null) {
                state.setReadOnly(connProps.isReadOnly());
            }
            if (connProps.getTransactionIsolation() != null) {
                state.setIsolation(connProps.getTransactionIsolation());
            }
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
        final ConnectionPropertiesImpl merged = current.merge(connProps);
        merged.setDirty(false);
        properties.put(ch.id, merged);
        return merged;
    }

    @Override
    public void commit(final ConnectionHandle ch) {
        try {
            state(ch.id).commit();
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    /**
     * Whether executing this prepared statement can never wait (on the network, on admission or on meld): a
     * fast-path plan on an in-process transaction that is open, or begins without waiting, and whose statement does
     * not commit by itself (autocommit writes wait for meld). Such statements may run on an I/O thread.
     */
    @Override
    public boolean runsWithoutWaiting(final String connectionId, final int statementId) {
        if (!engine.inProcess()) {
            return false;
        }
        final Prepared p = prepared.get(statementId);
        final GatewayConnection state = connections.get(connectionId);
        if (p == null || p.fast() == null || state == null) {
            return false;
        }
        if (state.autoCommit()) {
            return p.fast().reads() && engine.router().beginsWithoutWaiting();
        }
        return state.currentTransaction() != null || engine.router().beginsWithoutWaiting();
    }

    /** Whether {@link #commitAsync} can end transactions without waiting: they are in process. */
    @Override
    public boolean commitsWithoutWaiting() {
        return engine.inProcess();
    }

    /**
     * Commits the connection's transaction without waiting for meld: the future completes with the outcome on the
     * thread that learns it, failing as {@link #commit} would throw (see {@link #commitError}).
     */
    @Override
    public java.util.concurrent.CompletableFuture<Void> commitAsync(final String connectionId) {
        try {
            return state(connectionId).commitAsync();
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    /** A failed {@link #commitAsync} as the error Avatica answers with (its SQLSTATE kept). */
    @Override
    public Exception commitError(final Throwable error) {
        final Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        return SqlErrors.toAvatica(cause);
    }

    @Override
    public void rollback(final ConnectionHandle ch) {
        try {
            state(ch.id).rollback();
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public StatementHandle prepare(final ConnectionHandle ch, final String text, final long maxRowCount) {
        final String sql = SqlEngine.withoutTrailingSemicolons(text == null ? "" : text);
        if (sql.isBlank()) {
            throw SqlErrors.toAvatica(new SqlStateException("42601", "cannot prepare an empty statement"));
        }
        final StatementKind kind = kindOf(sql);
        final String named = kind == StatementKind.READ || kind == StatementKind.WRITE
                ? DateTimeIdentifiers.quote(sql) : sql;
        try {
            if (ExplainAnalyze.statement(sql) != null) {
                throw new SqlStateException("0A000", "EXPLAIN ANALYZE as a prepared statement is not supported over "
                        + "MeldDB's JDBC driver; run it with Statement.executeQuery");
            }
            if (SavepointStatement.parse(sql) != null) {
                throw new SqlStateException("0A000", "savepoint statements as prepared statements are not supported "
                        + "over MeldDB's JDBC driver; use Connection.setSavepoint, rollback(Savepoint) and "
                        + "releaseSavepoint, or Statement.execute");
            }
            refuseReturning(kind, sql);
            UnsupportedStatements.refuse(sql);
            final StatementHandle h;
            StatementClauses clauses = null;
            if (kind == StatementKind.READ || kind == StatementKind.WRITE) {
                // planning reads the catalog: in the open transaction, or a snapshot
                final GatewayConnection state = state(ch.id);
                state.clearCancel();
                // ON CONFLICT and FOR UPDATE: Calcite plans the statement without them, the gateway does the rest
                clauses = StatementClauses.of(named);
                try (Hook.Closeable program = SqlEngine.withMeldProgram(state::cancelled)) {
                    h = super.prepare(ch, clauses == null ? named : clauses.sql(), maxRowCount);
                    JdbcStringColumns.computedAsVarchar(h.signature);
                    if (clauses != null) {
                        clauses.prepare(state.catalog(), schemaOf(ch.id), getConnection(ch.id));
                    }
                } catch (RuntimeException | SQLException e) {
                    if (clauses != null) {
                        clauses.close();
                    }
                    throw e;
                }
            } else {
                final int id = getStatementIdGenerator().getAndIncrement();
                h = new StatementHandle(ch.id, id, Signature.create(List.of(), sql, List.of(),
                        CursorFactory.ARRAY, kind == StatementKind.DDL ? StatementType.OTHER_DDL
                                : StatementType.OTHER_DML));
            }
            prepared.put(h.id, new Prepared(kind, sql, clauses == null ? fastPlan(ch, kind, named) : null,
                    h.signature, clauses));
            return h;
        } catch (SQLException | RuntimeException | StackOverflowError | OutOfMemoryError e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public ExecuteResult prepareAndExecute(final StatementHandle h, final String text, final long maxRowCount,
                                           final int maxRowsInFirstFrame, final PrepareCallback callback)
            throws NoSuchStatementException {
        final String sql = SqlEngine.withoutTrailingSemicolons(text == null ? "" : text);
        if (sql.isBlank()) {
            return count(h, 0); // an empty statement does nothing, as in PostgreSQL
        }
        if (sql.equals(CANCEL_REQUEST)) {
            state(h.connectionId).cancel(); // MeldDB's driver: Statement.cancel or a query timeout
            return count(h, 0);
        }
        if (sql.startsWith(MetaDataRequest.PREFIX)) {
            return metaDataStatement(h, sql);
        }
        final StatementKind kind = kindOf(sql);
        try {
            // before the kind decides anything: ROLLBACK TO SAVEPOINT is not a ROLLBACK
            final SavepointStatement savepoint = SavepointStatement.parse(sql);
            if (savepoint != null) {
                savepoint.apply(state(h.connectionId));
                return count(h, 0);
            }
            final SetConstraintsStatement constraints = SetConstraintsStatement.parse(sql);
            if (constraints != null) {
                constraints.apply(state(h.connectionId));
                return count(h, 0);
            }
            if (kind == StatementKind.WRITE && Returning.present(sql)) {
                return returning(h, sql);
            }
            UnsupportedStatements.refuse(sql);
        } catch (RuntimeException | SQLException e) {
            throw SqlErrors.toAvatica(e);
        }
        final String analyzed = analyzedOf(sql);
        if (analyzed != null) {
            return run(h, kind, sql, () -> explainAnalyze(h, DateTimeIdentifiers.quote(analyzed), kind));
        }
        final boolean query = kind == StatementKind.READ || kind == StatementKind.WRITE;
        final String named = query ? DateTimeIdentifiers.quote(sql) : sql;
        return run(h, kind, sql, () -> {
            // made for each attempt: the body closes them, and an autocommit write may run again (AutocommitRetry)
            final StatementClauses clauses = query ? clausesOf(named) : null;
            final GatewayConnection state = state(h.connectionId);
            try (Hook.Closeable program = SqlEngine.withMeldProgram(state::cancelled)) {
                if (clauses == null) {
                    return JdbcStringColumns.computedAsVarchar(
                            super.prepareAndExecute(h, named, maxRowCount, maxRowsInFirstFrame, callback));
                }
                clauses.prepare(state.catalog(), schemaOf(h.connectionId), getConnection(h.connectionId));
                clauses.enter(state, schemaOf(h.connectionId));
                return JdbcStringColumns.computedAsVarchar(
                        super.prepareAndExecute(h, clauses.sql(), maxRowCount, maxRowsInFirstFrame, callback));
            } catch (NoSuchStatementException e) {
                throw new IllegalStateException(e);
            } catch (SQLException e) {
                throw SqlErrors.toSqlState(e);
            } finally {
                if (clauses != null) {
                    clauses.close();
                }
            }
        });
    }

    private static String analyzedOf(final String sql) {
        try {
            return ExplainAnalyze.statement(sql);
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    /** EXPLAIN ANALYZE: the statement runs in the connection's transaction; its plan lines are the result. */
    private ExecuteResult explainAnalyze(final StatementHandle h, final String statement, final StatementKind kind) {
        try {
            final List<String> lines = ExplainAnalyze.run(getConnection(h.connectionId), state(h.connectionId),
                    schemaOf(h.connectionId), statement, kind, !slowConnections.contains(h.connectionId));
            final List<Object[]> rows = new ArrayList<>(lines.size());
            for (String line : lines) {
                rows.add(new Object[] {line});
            }
            return new ExecuteResult(List.of(PLAN.resultSet(h.connectionId, h.id, false, rows)));
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    private static StatementClauses clausesOf(final String sql) {
        try {
            return StatementClauses.of(sql);
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    /** The schema unqualified names of the connection resolve in. */
    private String schemaOf(final String connectionId) {
        final ConnectionPropertiesImpl props = properties.get(connectionId);
        return props == null || props.getSchema() == null ? SCHEMA : props.getSchema();
    }

    /**
     * RETURNING runs through {@code Statement.execute} ({@link #returning}); prepared, a clear 0A000 rather than the
     * planner's syntax error.
     */
    private static void refuseReturning(final StatementKind kind, final String sql) {
        if (kind == StatementKind.WRITE && Returning.present(sql)) {
            throw new SqlStateException("0A000", "INSERT/UPDATE/DELETE ... RETURNING as a prepared statement is not "
                    + "supported over MeldDB's JDBC driver; run it with Statement.execute or executeQuery, or over "
                    + "the PostgreSQL protocol");
        }
    }

    /** {@code INSERT | UPDATE | DELETE ... RETURNING} sent as text ({@link JdbcReturning}). */
    private ExecuteResult returning(final StatementHandle h, final String sql) throws SQLException {
        final GatewayConnection state = state(h.connectionId);
        final Returning returning = Returning.of(sql, state.catalog(), SqlEngine.DATABASE, schemaOf(h.connectionId));
        JdbcReturning.refuseClauses(returning);
        final TableDef table = state.catalog().tableById(returning.tableId());
        final StatementHandle described;
        try (Hook.Closeable program = SqlEngine.withMeldProgram(state::cancelled)) {
            described = super.prepare(new ConnectionHandle(h.connectionId),
                    JdbcReturning.describingQuery(returning, table), -1);
        }
        super.closeStatement(described);
        final Connection calcite = getConnection(h.connectionId);
        return run(h, StatementKind.WRITE, sql, () -> JdbcReturning.execute(h, returning, table, described.signature,
                state, calcite));
    }

    /** A parameter the client never set would run as NULL; PostgreSQL's drivers refuse it, and so does MeldDB. */
    private static void requireEveryParameter(final Prepared p, final List<TypedValue> values) {
        final int expected = p.signature() == null || p.signature().parameters == null ? 0
                : p.signature().parameters.size();
        for (int i = 0; i < expected; i++) {
            if (values == null || i >= values.size() || values.get(i) == null) {
                throw SqlErrors.toAvatica(new SqlStateException("07001", "no value specified for parameter "
                        + (i + 1)));
            }
        }
    }

    /** The fast-path plan of a query or DML statement, or null when Calcite must run it. */
    private FastPlan fastPlan(final ConnectionHandle ch, final StatementKind kind, final String sql) {
        if ((kind != StatementKind.READ && kind != StatementKind.WRITE) || slowConnections.contains(ch.id)) {
            return null;
        }
        final ConnectionPropertiesImpl props = properties.get(ch.id);
        final String schema = props == null || props.getSchema() == null ? SCHEMA : props.getSchema();
        final FastPlan fast = FastPlanner.plan(sql, state(ch.id).catalog(), SqlEngine.DATABASE, schema);
        return fast != null && fast.reads() == (kind == StatementKind.READ) ? fast : null;
    }

    /** Runs a fast-path plan: its rows in one frame, in the forms Avatica's JDBC frames carry. */
    private ExecuteResult fastExecute(final StatementHandle h, final Prepared p, final List<TypedValue> values) {
        final GatewayConnection state = state(h.connectionId);
        // a Calendar costs a GregorianCalendar per statement; only date and time values read it (its zone)
        Calendar local = null;
        final Object[] parameters = new Object[values.size()];
        for (int i = 0; i < parameters.length; i++) {
            final TypedValue v = values.get(i);
            if (v != null && local == null && (v.type == Rep.JAVA_SQL_DATE || v.type == Rep.JAVA_SQL_TIME
                    || v.type == Rep.JAVA_SQL_TIMESTAMP || v.type == Rep.JAVA_UTIL_DATE || v.type == Rep.ARRAY
                    || v.type == Rep.OBJECT)) {
                local = Calendar.getInstance(Locale.ROOT);
            }
            parameters[i] = v == null ? null : v.toJdbc(local);
        }
        final FastPlan fast = p.fast();
        final TableDef current = state.catalog().tableById(fast.tableId());
        final io.meldb.sql.fast.ParameterValues bound = io.meldb.sql.fast.ParameterValues.of(parameters);
        if (!fast.reads()) {
            return count(h, fast.update(state.session(), current, state.catalog().foreignKeys(),
                    bound, state.sequences()));
        }
        final List<Object> rows = new ArrayList<>();
        try (RowCursor cursor = fast.query(state.session(), current, bound)) {
            final int n = fast.columns().size();
            while (cursor.next()) {
                final Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    row[i] = frameValue(cursor.value(i));
                }
                rows.add(row);
            }
        }
        return new ExecuteResult(List.of(MetaResultSet.create(h.connectionId, h.id, false, p.signature(),
                Frame.create(0, true, rows))));
    }

    /** A value as JdbcMeta puts it in a frame: DATE as days, TIMESTAMP and TIME as milliseconds (UTC-based). */
    static Object frameValue(final Object v) {
        if (v instanceof LocalDate d) {
            return (int) d.toEpochDay();
        }
        if (v instanceof LocalDateTime t) {
            return t.toInstant(ZoneOffset.UTC).toEpochMilli();
        }
        if (v instanceof java.time.LocalTime t) {
            return (int) (t.toNanoOfDay() / 1_000_000L); // TIME as milliseconds of the day
        }
        if (v instanceof java.time.OffsetDateTime t) {
            return t.toInstant().toEpochMilli(); // TIMESTAMP WITH LOCAL TIME ZONE as the instant's milliseconds
        }
        return v;
    }

    @Override
    public ExecuteResult execute(final StatementHandle h, final List<TypedValue> parameterValues,
                                 final int maxRowsInFirstFrame) throws NoSuchStatementException {
        final Prepared p = prepared.get(h.id);
        if (p == null) {
            throw new NoSuchStatementException(h);
        }
        if (h.signature == null) {
            h.signature = p.signature(); // MeldDB's driver sends only the statement's id (MeldRemoteService)
        }
        requireEveryParameter(p, parameterValues);
        if (p.signature() != null) {
            try {
                TemporalParameters.check(p.signature().parameters, parameterValues);
            } catch (SqlStateException e) {
                throw SqlErrors.toAvatica(e);
            }
        }
        if (p.fast() != null) {
            return run(h, p.kind(), p.sql(), () -> fastExecute(h, p, parameterValues));
        }
        return run(h, p.kind(), p.sql(), () -> {
            try {
                if (p.clauses() != null) {
                    p.clauses().enter(state(h.connectionId), schemaOf(h.connectionId));
                }
                return super.execute(h, parameterValues, maxRowsInFirstFrame);
            } catch (NoSuchStatementException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Override
    public ExecuteBatchResult executeBatch(final StatementHandle h, final List<List<TypedValue>> updateBatches)
            throws NoSuchStatementException {
        return batch(h, () -> {
            try {
                return super.executeBatch(h, updateBatches);
            } catch (NoSuchStatementException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Override
    public ExecuteBatchResult executeBatchProtobuf(final StatementHandle h,
                                                   final List<Requests.UpdateBatch> updateBatches)
            throws NoSuchStatementException {
        return batch(h, () -> {
            try {
                return super.executeBatchProtobuf(h, updateBatches);
            } catch (NoSuchStatementException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Override
    public ExecuteBatchResult prepareAndExecuteBatch(final StatementHandle h, final List<String> sqlCommands)
            throws NoSuchStatementException {
        final long[] counts = new long[sqlCommands.size()];
        for (int i = 0; i < counts.length; i++) {
            final ExecuteResult r = prepareAndExecute(h, sqlCommands.get(i), -1, -1, null);
            final MetaResultSet first = r.resultSets.isEmpty() ? null : r.resultSets.get(0);
            counts[i] = first == null ? 0 : Math.max(first.updateCount, 0);
        }
        return new ExecuteBatchResult(counts);
    }

    @Override
    public Frame fetch(final StatementHandle h, final long offset, final int fetchMaxRowCount)
            throws NoSuchStatementException, MissingResultsException {
        try {
            return super.fetch(h, offset, fetchMaxRowCount);
        } catch (NoSuchStatementException | MissingResultsException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public boolean syncResults(final StatementHandle sh, final QueryState state, final long offset)
            throws NoSuchStatementException {
        try {
            return super.syncResults(sh, state, offset);
        } catch (NoSuchStatementException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public void closeStatement(final StatementHandle h) {
        final Prepared p = prepared.remove(h.id);
        if (p != null && p.clauses() != null) {
            p.clauses().close();
        }
        final GatewayConnection state = connections.get(h.connectionId);
        if (state != null) {
            state.closeSnapshot(h.id);
        }
        super.closeStatement(h);
    }

    /** Runs one statement inside the connection's transaction handling. */
    private ExecuteResult run(final StatementHandle h, final StatementKind kind, final String sql,
                              final Supplier<ExecuteResult> calcite) {
        final GatewayConnection state = state(h.connectionId);
        if (kind == StatementKind.COMMIT) {
            commit(new ConnectionHandle(h.connectionId));
            return count(h, 0);
        }
        if (kind == StatementKind.ROLLBACK) {
            rollback(new ConnectionHandle(h.connectionId));
            return count(h, 0);
        }
        try {
            return state.runStatement(h.id, kind, () -> {
                if (kind == StatementKind.DDL) {
                    return count(h, engine.runDdl(state, SqlEngine.parseDdl(sql)));
                }
                return calcite.get();
            }, true); // nothing of an autocommit write reaches the client before its commit: retried on 40001
        } catch (RuntimeException | Error e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    private ExecuteBatchResult batch(final StatementHandle h, final Supplier<ExecuteBatchResult> calcite) {
        final Prepared p = prepared.get(h.id);
        final StatementKind kind = p == null ? StatementKind.WRITE : p.kind();
        try {
            final GatewayConnection state = state(h.connectionId);
            return state.runStatement(h.id, kind, () -> {
                if (p != null && p.clauses() != null) {
                    p.clauses().enter(state, schemaOf(h.connectionId));
                }
                return calcite.get();
            }, true);
        } catch (RuntimeException | Error e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    private static StatementKind kindOf(final String sql) {
        try {
            return StatementKind.of(sql);
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    private static ExecuteResult count(final StatementHandle h, final long count) {
        return new ExecuteResult(List.of(MetaResultSet.count(h.connectionId, h.id, count)));
    }

    private GatewayConnection state(final String connectionId) {
        final GatewayConnection state = connections.get(connectionId);
        if (state == null) {
            throw new org.apache.calcite.avatica.NoSuchConnectionException(connectionId);
        }
        return state;
    }
}
