package io.meldb.sql.server;

import io.meldb.core.Isolation;
import io.meldb.sql.calcite.CharComparisons;
import io.meldb.sql.calcite.MeldRootSchema;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.CatalogStore;
import io.meldb.sql.catalog.Ddl;
import io.meldb.sql.catalog.DdlParser;
import io.meldb.txn.TxnError;
import io.meldb.txn.TxnException;
import io.meldb.txn.TxnSession;
import org.apache.calcite.avatica.ConnectionPropertiesImpl;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.MissingResultsException;
import org.apache.calcite.avatica.NoSuchStatementException;
import org.apache.calcite.avatica.QueryState;
import org.apache.calcite.avatica.jdbc.JdbcMeta;
import org.apache.calcite.avatica.proto.Requests;
import org.apache.calcite.avatica.remote.TypedValue;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.runtime.Hook;
import org.apache.calcite.tools.Program;
import org.apache.calcite.util.Holder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The server side of MeldDB's JDBC: Avatica's {@link JdbcMeta} over an in-process Calcite connection per client
 * connection, with MeldDB's transaction handling around every statement (see {@link GatewayConnection}), DDL run
 * by the gateway itself, and every error turned into a proper SQLState (see {@link SqlErrors}). Each connection's
 * Calcite root schema is a {@link MeldRootSchema}: the catalog's schemas are its sub-schemas, and unqualified
 * names resolve in {@link Catalog#PUBLIC}.
 */
public final class MeldMeta extends JdbcMeta {
    private static final Logger LOG = LoggerFactory.getLogger(MeldMeta.class);
    /** The default schema of every connection (DESIGN.md: db / schema / table). */
    public static final String SCHEMA = Catalog.PUBLIC;
    /** The one database of the cluster. */
    public static final String DATABASE = Catalog.DATABASE;
    /** How often the bootstrap transaction is tried when meld aborts it (another gateway bootstrapping). */
    private static final int BOOTSTRAP_ATTEMPTS = 5;

    private static final RootedCalciteDriver CALCITE = new RootedCalciteDriver();

    private final TxnRouter router;
    private final SqlMetrics metrics;
    private final CatalogStore catalogStore = new CatalogStore();
    private final Map<String, GatewayConnection> connections = new ConcurrentHashMap<>();
    private final Map<Connection, GatewayConnection> pending = new ConcurrentHashMap<>();
    /** Statement id → what it does and its SQL (for prepared statements). */
    private final Map<Integer, Prepared> prepared = new ConcurrentHashMap<>();
    private final Map<String, ConnectionPropertiesImpl> properties = new ConcurrentHashMap<>();

    private record Prepared(StatementKind kind, String sql) {
    }

    /**
     * Calcite's driver, opening connections over a root schema of our own (Calcite's public API only gives a
     * fixed root, to which sub-schemas would have to be added and removed by hand).
     */
    private static final class RootedCalciteDriver extends org.apache.calcite.jdbc.Driver {
        CalciteConnection connect(final CalciteSchema root, final Properties info) {
            return (CalciteConnection) ((org.apache.calcite.jdbc.CalciteFactory) factory)
                    .newConnection(this, factory, CONNECT_STRING_PREFIX, info, root, null);
        }
    }

    public MeldMeta(final TxnRouter router) throws SQLException {
        this(router, SqlMetrics.unexported());
    }

    public MeldMeta(final TxnRouter router, final SqlMetrics metrics) throws SQLException {
        super("jdbc:calcite:", cacheSettings());
        this.router = router;
        this.metrics = metrics;
    }

    private static Properties cacheSettings() {
        final Properties p = new Properties();
        // idle connections and statements expire after an hour rather than Avatica's 10 and 5 minutes
        p.setProperty(ConnectionCacheSettings.EXPIRY_DURATION.key(), "60");
        p.setProperty(StatementCacheSettings.EXPIRY_DURATION.key(), "60");
        p.setProperty(ConnectionCacheSettings.MAX_CAPACITY.key(), "10000");
        p.setProperty(StatementCacheSettings.MAX_CAPACITY.key(), "100000");
        return p;
    }

    @Override
    protected Connection createConnection(final String url, final Properties info) throws SQLException {
        final Properties calcite = new Properties();
        calcite.setProperty("timeZone", "UTC");
        final GatewayConnection state = new GatewayConnection("pending", DATABASE, router, catalogStore, metrics,
                SqlMetrics.JDBC);
        // no caching: the sub-schemas and their tables come from the catalog at every lookup
        final CalciteSchema root = CalciteSchema.createRootSchema(false, false, "", new MeldRootSchema(state));
        final CalciteConnection cc = CALCITE.connect(root, calcite);
        cc.setSchema(SCHEMA);
        final Connection connection = cc;
        pending.put(connection, state);
        return connection;
    }

    /**
     * Writes the database entry and its {@link Catalog#PUBLIC} schema unless they exist: an ordinary transaction,
     * retried when meld aborts it (another gateway bootstrapping at the same time). Every DDL does the same, so
     * a failure here is logged and not fatal.
     */
    public void bootstrap() {
        for (int attempt = 1; attempt <= BOOTSTRAP_ATTEMPTS; attempt++) {
            try (TxnSession txn = router.begin(Isolation.SERIALIZABLE, false)) {
                if (catalogStore.ensureDatabase(txn, DATABASE)) {
                    router.observed(txn.commit());
                    LOG.info("created database {} with schema {} in the catalog", DATABASE, SCHEMA);
                } else {
                    txn.abort();
                }
                return;
            } catch (TxnException e) {
                if (e.error() != TxnError.CONFLICT || attempt == BOOTSTRAP_ATTEMPTS) {
                    LOG.warn("could not bootstrap the catalog (DDL will do it): {}", e.getMessage());
                    return;
                }
            } catch (RuntimeException e) {
                LOG.warn("could not bootstrap the catalog (DDL will do it): {}", e.toString());
                return;
            }
        }
    }

    @Override
    public void openConnection(final ConnectionHandle ch, final Map<String, String> info) {
        try {
            super.openConnection(ch, info);
            final Connection c = getConnection(ch.id);
            final GatewayConnection state = pending.remove(c);
            state.bind(ch.id);
            connections.put(ch.id, state);
            final ConnectionPropertiesImpl props = new ConnectionPropertiesImpl(true, false,
                    Connection.TRANSACTION_SERIALIZABLE, null, SCHEMA);
            properties.put(ch.id, props);
            LOG.debug("opened connection {}", ch.id);
        } catch (SQLException | RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public Map<DatabaseProperty, Object> getDatabaseProperties(final ConnectionHandle ch) {
        final Map<DatabaseProperty, Object> props = new java.util.HashMap<>(super.getDatabaseProperties(ch));
        props.put(DatabaseProperty.GET_DATABASE_PRODUCT_NAME, "MeldDB");
        props.put(DatabaseProperty.GET_DATABASE_PRODUCT_VERSION, "0.1.0");
        props.put(DatabaseProperty.GET_DEFAULT_TRANSACTION_ISOLATION, Connection.TRANSACTION_SERIALIZABLE);
        return props;
    }

    @Override
    public void closeConnection(final ConnectionHandle ch) {
        final GatewayConnection state = connections.remove(ch.id);
        properties.remove(ch.id);
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

    @Override
    public void rollback(final ConnectionHandle ch) {
        try {
            state(ch.id).rollback();
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public StatementHandle prepare(final ConnectionHandle ch, final String sql, final long maxRowCount) {
        final StatementKind kind = kindOf(sql);
        try {
            final StatementHandle h;
            if (kind == StatementKind.READ || kind == StatementKind.WRITE) {
                // planning reads the catalog: in the open transaction, or a snapshot
                try (Hook.Closeable program = withMeldProgram()) {
                    h = super.prepare(ch, sql, maxRowCount);
                }
            } else {
                final int id = getStatementIdGenerator().getAndIncrement();
                h = new StatementHandle(ch.id, id, Signature.create(List.of(), sql, List.of(),
                        CursorFactory.ARRAY, kind == StatementKind.DDL ? StatementType.OTHER_DDL
                                : StatementType.OTHER_DML));
            }
            prepared.put(h.id, new Prepared(kind, sql));
            return h;
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public ExecuteResult prepareAndExecute(final StatementHandle h, final String sql, final long maxRowCount,
                                           final int maxRowsInFirstFrame, final PrepareCallback callback)
            throws NoSuchStatementException {
        final StatementKind kind = kindOf(sql);
        return run(h, kind, sql, () -> {
            try (Hook.Closeable program = withMeldProgram()) {
                return super.prepareAndExecute(h, sql, maxRowCount, maxRowsInFirstFrame, callback);
            } catch (NoSuchStatementException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Override
    public ExecuteResult execute(final StatementHandle h, final List<TypedValue> parameterValues,
                                 final int maxRowsInFirstFrame) throws NoSuchStatementException {
        final Prepared p = prepared.get(h.id);
        if (p == null) {
            throw new NoSuchStatementException(h);
        }
        return run(h, p.kind(), p.sql(), () -> {
            try {
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
        } catch (RuntimeException e) {
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
        } catch (RuntimeException e) {
            throw SqlErrors.toAvatica(e);
        }
    }

    @Override
    public void closeStatement(final StatementHandle h) {
        prepared.remove(h.id);
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
        boolean began = false;
        Throwable error = null;
        try {
            state.beginStatement(h.id, kind);
            began = true;
            if (kind == StatementKind.DDL) {
                runDdl(state, DdlParser.parse(sql));
                return count(h, 0);
            }
            return calcite.get();
        } catch (RuntimeException | Error e) {
            error = e;
            throw SqlErrors.toAvatica(e);
        } finally {
            if (began) {
                try {
                    state.endStatement(h.id, kind, error, error != null && startedExecution(error));
                } catch (RuntimeException e) {
                    if (error == null) {
                        throw SqlErrors.toAvatica(e);
                    }
                    LOG.debug("ending a failed statement failed too", e);
                }
            }
        }
    }

    private ExecuteBatchResult batch(final StatementHandle h, final Supplier<ExecuteBatchResult> calcite) {
        final Prepared p = prepared.get(h.id);
        final StatementKind kind = p == null ? StatementKind.WRITE : p.kind();
        final GatewayConnection state = state(h.connectionId);
        boolean began = false;
        Throwable error = null;
        try {
            state.beginStatement(h.id, kind);
            began = true;
            return calcite.get();
        } catch (RuntimeException | Error e) {
            error = e;
            throw SqlErrors.toAvatica(e);
        } finally {
            if (began) {
                try {
                    state.endStatement(h.id, kind, error, error != null);
                } catch (RuntimeException e) {
                    if (error == null) {
                        throw SqlErrors.toAvatica(e);
                    }
                }
            }
        }
    }

    /** Whether an error came from executing (rather than parsing or validating) the statement. */
    private static boolean startedExecution(final Throwable error) {
        final SqlErrors.Described d = SqlErrors.describe(error);
        final String cls = d.sqlState().substring(0, 2);
        return !(cls.equals("42") || cls.equals("0A"));
    }

    private void runDdl(final GatewayConnection state, final Ddl ddl) {
        final TxnSession txn = state.session();
        final CatalogStore store = state.catalogStore();
        if (ddl instanceof Ddl.CreateSchema c) {
            store.createSchema(txn, DATABASE, c.name(), c.ifNotExists());
        } else if (ddl instanceof Ddl.DropSchema d) {
            store.dropSchema(txn, DATABASE, d.name(), d.ifExists(), d.cascade());
        } else if (ddl instanceof Ddl.CreateTable c) {
            store.createTable(txn, DATABASE, schema(c.schema()), c.name(), c.columns(), c.primaryKey(),
                    c.ifNotExists());
        } else if (ddl instanceof Ddl.DropTable d) {
            store.dropTable(txn, DATABASE, schema(d.schema()), d.name(), d.ifExists());
        } else if (ddl instanceof Ddl.CreateIndex c) {
            store.createIndex(txn, DATABASE, schema(c.schema()), c.table(), c.name(), c.columns(), c.ifNotExists());
        } else if (ddl instanceof Ddl.DropIndex d) {
            store.dropIndex(txn, DATABASE, schema(d.schema()), d.name(), d.ifExists());
        }
    }

    /** The schema of a DDL name: the one given, or {@link #SCHEMA} for an unqualified name. */
    private static String schema(final String given) {
        return given == null ? SCHEMA : given;
    }

    /** Plans this thread's statements with {@link CharComparisons#program()} until closed. */
    private static Hook.Closeable withMeldProgram() {
        return Hook.PROGRAM.addThread((Holder<Program> holder) -> holder.set(CharComparisons.program()));
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
