package io.meldb.sql.server;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.sql.calcite.CharComparisons;
import io.meldb.sql.calcite.FunctionNames;
import io.meldb.sql.calcite.MeldLex;
import io.meldb.sql.calcite.MeldPrograms;
import io.meldb.sql.calcite.MeldRootSchema;
import io.meldb.sql.catalog.AlterTableDdl;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.CatalogStore;
import io.meldb.sql.catalog.Ddl;
import io.meldb.sql.catalog.DdlParser;
import io.meldb.sql.catalog.ForeignKeyDdl;
import io.meldb.sql.catalog.IndexDdl;
import io.meldb.sql.catalog.SequenceDdl;
import io.meldb.sql.catalog.TableStatistics;
import io.meldb.sql.catalog.ViewDdl;
import io.meldb.sql.pg.catalog.SystemSchemas;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.runtime.Hook;
import org.apache.calcite.tools.Program;
import org.apache.calcite.util.Holder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.BooleanSupplier;

/**
 * What every front end of a gateway shares, whatever protocol its clients speak (Avatica's JDBC or PostgreSQL's
 * v3): the txn-server router, the catalog, a Calcite connection per client connection over the catalog tree,
 * and DDL, which the gateway runs itself as an ordinary transaction on the catalog prefix (docs/architecture.md, "The catalog
 * tree").
 */
public final class SqlEngine {
    private static final Logger LOG = LoggerFactory.getLogger(SqlEngine.class);
    /** The default schema of every connection (docs/architecture.md: db / schema / table). */
    public static final String SCHEMA = Catalog.PUBLIC;
    /** The one database of the cluster. */
    public static final String DATABASE = Catalog.DATABASE;
    /** How often the bootstrap transaction is tried when meld aborts it (another gateway bootstrapping). */
    private static final int BOOTSTRAP_ATTEMPTS = 5;

    private static final RootedCalciteDriver CALCITE = new RootedCalciteDriver();

    private final TxnRouter router;
    private final SqlMetrics metrics;
    private final AutocommitRetry autocommitRetry;
    private final CatalogStore catalogStore = new CatalogStore();
    private final SequenceCache sequenceCache;
    private final SequenceDdl sequenceDdl = new SequenceDdl(catalogStore);
    private final IndexDdl indexDdl = new IndexDdl(catalogStore);
    private final ForeignKeyDdl foreignKeyDdl = new ForeignKeyDdl(catalogStore);
    private final AlterTableDdl alterTableDdl = new AlterTableDdl(catalogStore);
    private final ViewDdl viewDdl = new ViewDdl(catalogStore);
    private final TableStatistics statistics = new TableStatistics();

    /**
     * Calcite's driver, opening connections over a root schema of our own (Calcite's public API only gives a
     * fixed root, to which sub-schemas would have to be added and removed by hand).
     */
    private static final class RootedCalciteDriver extends org.apache.calcite.jdbc.Driver {
        RootedCalciteDriver() {
            super(io.meldb.sql.calcite.MeldPrepare::new);
        }

        CalciteConnection connect(final CalciteSchema root, final Properties info) {
            return (CalciteConnection) ((org.apache.calcite.jdbc.CalciteFactory) factory)
                    .newConnection(this, factory, CONNECT_STRING_PREFIX, info, root,
                            new io.meldb.sql.calcite.MeldTypeFactory(io.meldb.sql.calcite.MeldTypeSystem.INSTANCE));
        }
    }

    public SqlEngine(final TxnRouter router, final SqlMetrics metrics) {
        FunctionNames.install();
        io.meldb.sql.calcite.MergeConversion.install();
        this.sequenceCache = new SequenceCache(router);
        this.router = router;
        this.metrics = metrics;
        this.autocommitRetry = AutocommitRetry.fromSystemProperties(metrics);
    }

    /** How autocommit statements are retried after a meld conflict. */
    public AutocommitRetry autocommitRetry() {
        return autocommitRetry;
    }

    public TxnRouter router() {
        return router;
    }

    /** Whether every txn-server the gateway routes to runs in this process (the embedded database). */
    public boolean inProcess() {
        for (var service : router.services()) {
            if (!service.inProcess()) {
                return false;
            }
        }
        return true;
    }

    public CatalogStore catalogStore() {
        return catalogStore;
    }

    /** The transaction state of a new client connection of {@code protocol} ({@link SqlMetrics#JDBC}, "pg"). */
    public GatewayConnection newConnectionState(final String id, final String protocol) {
        final GatewayConnection state = new GatewayConnection(id, DATABASE, router, catalogStore, metrics, protocol,
                sequenceCache);
        state.statistics(statistics);
        state.autocommitRetry(autocommitRetry);
        state.backends(backends);
        return state;
    }

    /** The PostgreSQL front end's sessions, which pg_cancel_backend and pg_terminate_backend signal. */
    private volatile io.meldb.sql.calcite.Backends backends = io.meldb.sql.calcite.Backends.NONE;

    public void backends(final io.meldb.sql.calcite.Backends b) {
        backends = b;
    }

    /** A Calcite connection whose schema tree is the catalog as {@code state}'s transaction sees it. */
    public Connection calciteConnection(final GatewayConnection state) throws SQLException {
        final Properties calcite = new Properties();
        calcite.setProperty("timeZone", "UTC");
        MeldLex.apply(calcite);
        // PostgreSQL's function library on top of the standard one (length, left, right, concat, date_trunc, ...):
        // the dialect the PostgreSQL front end's clients write
        calcite.setProperty("fun", "standard,postgresql");
        // PostgreSQL's rounding, SUM widening and NUMERIC precision (MeldTypeSystem)
        calcite.setProperty("typeSystem", "io.meldb.sql.calcite.MeldTypeSystem#INSTANCE");
        // no caching: the sub-schemas and their tables come from the catalog at every lookup
        final CalciteSchema root = CalciteSchema.createRootSchema(false, false, "", new MeldRootSchema(state));
        final CalciteConnection cc = CALCITE.connect(root, calcite);
        cc.setSchema(SCHEMA);
        return cc;
    }

    /**
     * Writes the database entry and its {@link Catalog#PUBLIC} schema unless they exist: an ordinary transaction,
     * retried when meld aborts it (another gateway bootstrapping at the same time). Every DDL does the same, so
     * a failure here is logged and not fatal.
     */
    public void bootstrap() {
        for (int attempt = 1; attempt <= BOOTSTRAP_ATTEMPTS; attempt++) {
            try (TxnSession txn = router.begin(IsolationLevel.SERIALIZABLE, false)) {
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

    /**
     * The statement without the semicolons (and blanks) that end it: "SELECT 1;" is one statement, as every SQL
     * shell writes it, but Calcite's parser refuses the semicolon.
     */
    public static String withoutTrailingSemicolons(final String sql) {
        int end = sql.length();
        while (end > 0 && (sql.charAt(end - 1) == ';' || Character.isWhitespace(sql.charAt(end - 1)))) {
            end--;
        }
        return end == sql.length() ? sql : sql.substring(0, end);
    }

    /** Parses a DDL statement (SQLState 42601 for bad syntax, 0A000 for what MeldDB does not support). */
    public static Ddl parseDdl(final String sql) {
        return DdlParser.parse(sql);
    }

    /**
     * Runs DDL in the transaction of {@code state}'s running statement; answers the rows it inserted (CREATE TABLE
     * ... AS), else 0.
     */
    public long runDdl(final GatewayConnection state, final Ddl ddl) {
        if (ddl instanceof Ddl.Analyze a) {
            analyze(a);
            return 0;
        }
        final TxnSession txn = state.session();
        try {
            if (ddl instanceof Ddl.CreateTableAs || ddl instanceof Ddl.CreateView) {
                return runQueryDdl(state, txn, ddl);
            }
            runDdl(txn, ddl);
            return 0;
        } finally {
            state.catalogChanged();
        }
    }

    /**
     * ANALYZE: counts the rows of the named tables (every table without names) in a snapshot of its own, for this
     * gateway's planner ({@link TableStatistics}); a view named is skipped (PostgreSQL warns), an unknown name is
     * 42P01.
     */
    private void analyze(final Ddl.Analyze analyze) {
        final TxnSession begun;
        try {
            begun = router.begin(IsolationLevel.SNAPSHOT, true);
        } catch (TxnException e) {
            throw SqlErrors.atBegin(e);
        }
        try (TxnSession snapshot = begun) {
            final Catalog catalog = catalogStore.read(snapshot);
            if (analyze.tables().isEmpty()) {
                for (io.meldb.sql.catalog.TableDef def : catalog.all()) {
                    statistics.analyze(snapshot, def);
                }
                return;
            }
            for (Ddl.TableName n : resolve(analyze.tables())) {
                final io.meldb.sql.catalog.TableDef def = catalog.table(DATABASE, n.schema(), n.name());
                if (def != null) {
                    statistics.analyze(snapshot, def);
                } else if (catalog.view(DATABASE, n.schema(), n.name()) == null) {
                    throw new io.meldb.sql.SqlStateException("42P01", "relation \"" + n.name() + "\" does not exist");
                }
            }
        }
    }

    /** CREATE VIEW and CREATE TABLE ... AS: their query is planned (and run) on a Calcite connection of its own. */
    private long runQueryDdl(final GatewayConnection state, final TxnSession txn, final Ddl ddl) {
        try (Connection calcite = calciteConnection(state)) {
            if (ddl instanceof Ddl.CreateView v) {
                QueryDdl.createView(calcite, viewDdl, txn, DATABASE, schema(v.schema()), v, state::cancelled);
                return 0;
            }
            final Ddl.CreateTableAs c = (Ddl.CreateTableAs) ddl;
            return QueryDdl.createTableAs(calcite, catalogStore, txn, DATABASE, schema(c.schema()), c,
                    state::cancelled);
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    private void runDdl(final TxnSession txn, final Ddl ddl) {
        if (ddl instanceof Ddl.CreateSchema c) {
            if (c.ifNotExists() && SystemSchemas.isSystemSchema(c.name())) {
                return; // it exists (PostgreSQL: a notice, "already exists, skipping")
            }
            SystemSchemas.checkSchemaName(c.name());
            catalogStore.createSchema(txn, DATABASE, c.name(), c.ifNotExists());
        } else if (ddl instanceof Ddl.DropSchema d) {
            catalogStore.dropSchema(txn, DATABASE, d.name(), d.ifExists(), d.cascade());
        } else if (ddl instanceof Ddl.CreateTable c) {
            catalogStore.createTable(txn, DATABASE, schema(c.schema()), c);
        } else if (ddl instanceof Ddl.CreateSequence c) {
            sequenceDdl.createSequence(txn, DATABASE, schema(c.schema()), c.name(), c.options(),
                    c.ifNotExists());
        } else if (ddl instanceof Ddl.DropSequence d) {
            sequenceDdl.dropSequences(txn, DATABASE, resolve(d.sequences()), d.ifExists());
        } else if (ddl instanceof Ddl.DropTable d) {
            catalogStore.dropTables(txn, DATABASE, resolve(d.tables()), d.ifExists(), d.cascade());
        } else if (ddl instanceof Ddl.Truncate t) {
            catalogStore.truncateTables(txn, DATABASE, resolve(t.tables()), t.restartIdentity(), t.cascade());
        } else if (ddl instanceof Ddl.AddPrimaryKey a) {
            catalogStore.addPrimaryKey(txn, DATABASE, schema(a.table().schema()), a.table().name(), a.constraint(),
                    a.columns(), a.ifExists());
        } else if (ddl instanceof Ddl.CreateIndex c) {
            indexDdl.createIndex(txn, DATABASE, schema(c.schema()), c.table(), c.name(), c.columns(),
                    c.ifNotExists(), c.unique());
        } else if (ddl instanceof Ddl.DropIndex d) {
            indexDdl.dropIndex(txn, DATABASE, schema(d.schema()), d.name(), d.ifExists());
        } else if (ddl instanceof Ddl.AddUnique a) {
            indexDdl.addUnique(txn, DATABASE, schema(a.table().schema()), a.table().name(), a.unique(),
                    a.ifExists());
        } else if (ddl instanceof Ddl.AddForeignKey a) {
            foreignKeyDdl.addForeignKey(txn, DATABASE, schema(a.table().schema()), a.table().name(), a.foreignKey(),
                    a.ifExists());
        } else if (ddl instanceof Ddl.AlterTable a) {
            alterTableDdl.alter(txn, DATABASE, schema(a.table().schema()), a, other -> runDdl(txn, other));
        } else if (ddl instanceof Ddl.DropView d) {
            viewDdl.dropViews(txn, DATABASE, resolve(d.views()), d.ifExists(), d.cascade());
        } else if (ddl instanceof Ddl.CommentOn c) {
            viewDdl.comment(txn, DATABASE, schema(c.relation().schema()), c);
        } else if (ddl instanceof Ddl.DropConstraint d) {
            indexDdl.dropConstraint(txn, DATABASE, schema(d.table().schema()), d.table().name(), d.constraint(),
                    d.ifExists(), d.constraintIfExists());
        }
    }

    /** Table names with their schemas: unqualified names are in {@link #SCHEMA}. */
    private static List<Ddl.TableName> resolve(final List<Ddl.TableName> names) {
        final List<Ddl.TableName> out = new ArrayList<>(names.size());
        for (Ddl.TableName n : names) {
            out.add(new Ddl.TableName(schema(n.schema()), n.name()));
        }
        return out;
    }

    /** The schema of a DDL name: the one given, or {@link #SCHEMA} for an unqualified name. */
    private static String schema(final String given) {
        return given == null ? SCHEMA : given;
    }

    /**
     * Plans this thread's statements with {@link MeldPrograms#program} until closed; planning stops with 57014
     * once {@code cancelled} answers true.
     */
    public static Hook.Closeable withMeldProgram(final BooleanSupplier cancelled) {
        return withMeldProgram(cancelled, null);
    }

    /** As {@link #withMeldProgram(BooleanSupplier)}, measuring every operator into {@code analyze}. */
    public static Hook.Closeable withMeldProgram(final BooleanSupplier cancelled,
                                                 final io.meldb.sql.calcite.OperatorStats analyze) {
        return Hook.PROGRAM.addThread((Holder<Program> holder) -> holder.set(MeldPrograms.program(cancelled,
                analyze)));
    }
}
