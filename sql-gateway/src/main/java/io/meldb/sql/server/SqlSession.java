package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.Ddl;
import io.meldb.sql.catalog.ColumnDefault;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.catalog.TableStore;
import io.meldb.sql.fast.FastPlan;
import io.meldb.sql.fast.FastPlanner;
import io.meldb.txn.api.TxnSession;
import org.apache.calcite.runtime.Hook;

import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One client connection of a front end that is not Avatica (the PostgreSQL protocol): its transaction state
 * ({@link GatewayConnection}) and its Calcite connection. Statements are prepared once ({@link #prepare}) and
 * executed any number of times ({@link #execute}) inside the connection's transaction handling, exactly as the
 * JDBC front end runs them. Used by one thread at a time.
 */
public final class SqlSession implements AutoCloseable {
    private final SqlEngine engine;
    private final GatewayConnection state;
    private final Connection calcite;
    private final boolean inProcess;
    /** The schema unqualified names resolve in. */
    private String schema = SqlEngine.SCHEMA;
    /** Plans kept per SQL text (the unnamed statements and simple queries of PostgreSQL clients), LRU. */
    private static final int PLAN_CACHE_SIZE = 256;
    private final Map<String, Cached> plans = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, Cached> eldest) {
            if (size() > PLAN_CACHE_SIZE && !openCursors.containsKey(eldest.getValue().prepared())) {
                eldest.getValue().prepared().close();
                return true;
            }
            return false;
        }
    };
    /** Statements with a cursor open, and how many: such a statement cannot run again until they close. */
    private final Map<PreparedSql, Integer> openCursors = new IdentityHashMap<>();

    /**
     * A cached plan, the catalog it was planned against (a DDL makes a new catalog, and a new plan) and the schema
     * its unqualified names resolved in.
     */
    private record Cached(PreparedSql prepared, Catalog catalog, String schema) {
    }

    /**
     * Plans whose generated code failed to initialise (a constant of the statement, such as a cast of a literal,
     * that cannot be computed): the JVM never initialises such a class again ("Could not initialize class"), so an
     * execution of the same plan answers the first failure again, and the plan cache forgets it.
     */
    private final Map<PreparedSql, SqlStateException> failedPlans = new java.util.WeakHashMap<>();

    /** Whether key accesses take the fast path (off only to compare it with Calcite's answers). */
    private boolean fastPath = true;
    /** Ids of executions, for the snapshots autocommit queries keep until their cursor is closed. */
    private int nextExecutionId = 1;

    public SqlSession(final SqlEngine engine, final String id) {
        this.engine = engine;
        this.state = engine.newConnectionState(id, "pg");
        this.inProcess = engine.inProcess();
        try {
            this.calcite = engine.calciteConnection(state);
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    public GatewayConnection state() {
        return state;
    }

    /** Whether the session's transactions live in this process: their reads and writes never wait on a network. */
    public boolean inProcess() {
        return inProcess;
    }

    /** Whether a new transaction would begin now without waiting (admission, a lagging server): see TxnRouter. */
    public boolean beginsWithoutWaiting() {
        return inProcess && engine.router().beginsWithoutWaiting();
    }

    /** The schema unqualified names resolve in from now on. */
    public void setSchema(final String newSchema) {
        try {
            calcite.setSchema(newSchema);
            schema = newSchema;
            state.schema(newSchema);
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    /** Turns the fast path on or off for statements prepared from now on. */
    public void fastPath(final boolean on) {
        fastPath = on;
        plans.values().removeIf(c -> {
            if (openCursors.containsKey(c.prepared())) {
                return false;
            }
            c.prepared().close();
            return true;
        });
    }

    /**
     * Prepares a statement: parses (and plans, for queries and DML) it now, so that errors in it are reported at
     * once. A key access is compiled for the fast path ({@link FastPlanner}); anything else is Calcite's. COMMIT
     * and ROLLBACK are the caller's to handle.
     */
    public PreparedSql prepare(final String sql) {
        final StatementKind kind = StatementKind.of(sql);
        if (kind != StatementKind.READ && kind != StatementKind.WRITE) {
            return prepareNew(sql, kind);
        }
        final Catalog catalog = state.catalog();
        final Cached cached = plans.get(sql);
        if (cached != null && cached.catalog() == catalog && java.util.Objects.equals(cached.schema(), schema)
                && !openCursors.containsKey(cached.prepared())) {
            return cached.prepared();
        }
        final PreparedSql fresh = prepareNew(sql, kind);
        if (cached == null || !openCursors.containsKey(cached.prepared())) {
            final Cached old = plans.put(sql, new Cached(fresh, catalog, schema));
            if (old != null && old.prepared() != fresh) {
                old.prepared().close();
            }
        }
        return fresh;
    }

    /**
     * A statement is no longer needed by its front end: closes it unless the plan cache keeps it for the next
     * time the same SQL comes.
     */
    public void release(final PreparedSql p) {
        final Cached cached = plans.get(p.sql());
        if (cached == null || cached.prepared() != p) {
            p.close();
        }
    }

    private PreparedSql prepareNew(final String sql, final StatementKind kind) {
        switch (kind) {
            case DDL:
                return new PreparedSql(sql, kind, null, SqlEngine.parseDdl(sql), null);
            case READ:
            case WRITE: {
                final String analyzed = ExplainAnalyze.statement(sql);
                if (analyzed != null) {
                    // planned and run at each execution, with a probe above every operator
                    ExplainAnalyze.check(analyzed, kind);
                    UnsupportedStatements.refuse(analyzed);
                    return new PreparedSql(sql, kind, null, null, null, null, null, analyzed, null);
                }
                UnsupportedStatements.refuse(sql);
                final String named = DateTimeIdentifiers.quote(sql);
                // ON CONFLICT and FOR UPDATE: Calcite plans the statement without them, the gateway does the rest
                final StatementClauses clauses = StatementClauses.of(named);
                final String planned = clauses == null ? named : clauses.sql();
                final Returning returning = kind == StatementKind.WRITE
                        ? Returning.of(planned, state.catalog(), SqlEngine.DATABASE, schema,
                        clauses == null ? null : clauses.targetAlias()) : null;
                final FastPlan fast = fastPath && clauses == null && returning == null
                        ? FastPlanner.plan(named, state.catalog(), SqlEngine.DATABASE, schema) : null;
                if (fast != null && fast.reads() == (kind == StatementKind.READ)) {
                    return new PreparedSql(sql, kind, null, null, fast);
                }
                // planning reads the catalog: in the open transaction, or a snapshot; a cancel of an earlier
                // statement does not stop it, one that arrives while it plans does
                state.clearCancel();
                PreparedStatement ps = null;
                try (Hook.Closeable program = SqlEngine.withMeldProgram(state::cancelled)) {
                    io.meldb.sql.calcite.DeclaredTypes.take();
                    ps = calcite.prepareStatement(returning != null ? returning.sql() : planned);
                    final List<io.meldb.sql.codec.ColumnType> declared = io.meldb.sql.calcite.DeclaredTypes.take();
                    if (clauses != null) {
                        clauses.prepare(state.catalog(), schema, calcite);
                    }
                    return new PreparedSql(sql, kind, ps, null, null, returning, clauses, null,
                            returning == null && kind == StatementKind.READ ? origins(ps, declared) : null);
                } catch (SQLException e) {
                    closeQuietly(ps, clauses);
                    throw SqlErrors.toSqlState(e);
                } catch (RuntimeException e) {
                    closeQuietly(ps, clauses);
                    throw e;
                }
            }
            default:
                return new PreparedSql(sql, kind, null, null, null);
        }
    }

    private static void closeQuietly(final PreparedStatement ps, final StatementClauses clauses) {
        if (clauses != null) {
            clauses.close();
        }
        if (ps != null) {
            try {
                ps.close();
            } catch (SQLException e) {
                // closing a Calcite statement only releases memory
            }
        }
    }

    /**
     * Executes a prepared statement with the given parameter values (already converted to the Java forms the
     * statement's parameter types take). A query answers an open cursor: close it with {@link #closeResult} (in
     * autocommit mode its read-only snapshot stays pinned until then).
     */
    public Result execute(final PreparedSql p, final Object[] parameters) {
        return execute(p, io.meldb.sql.fast.ParameterValues.of(parameters));
    }

    /**
     * {@link #execute(PreparedSql, Object[])} with values a front end binds into one reused holder (integers of a
     * fast-path statement unboxed). A fast-path execution answers one of the session's reused {@link Result}s: an
     * update's is valid until the next execution, a query's until {@link #closeResult}.
     */
    public Result execute(final PreparedSql p, final io.meldb.sql.fast.ParameterValues values) {
        final int executionId = nextExecutionId++;
        if (p.ddl() == null && p.fast() != null && fastExecution.plan == null) {
            final io.meldb.sql.fast.ParameterValues parameters = values;
            final FastExecution f = fastExecution;
            f.executionId = executionId;
            f.plan = p;
            f.parameters = parameters;
            try {
                return state.runStatement(executionId, p.kind(), f);
            } finally {
                f.plan = null;
                f.parameters = null;
            }
        }
        final Object[] parameters = values.objects();
        return state.runStatement(executionId, p.kind(), () -> {
            if (p.ddl() != null) {
                return new Result(executionId, null, engine.runDdl(state, p.ddl()), p);
            }
            final FastPlan fast = p.fast();
            if (fast != null) {
                final TxnSession txn = state.session();
                final TableDef current = state.catalog().tableById(fast.tableId());
                return fast.reads() ? opened(p, new Result(executionId, fast.query(txn, current, values), -1, p))
                        : new Result(executionId, null, fast.update(txn, current, state.catalog().foreignKeys(),
                                values, state.sequences()), p);
            }
            if (p.analyzed() != null) {
                return opened(p, new Result(executionId, new TextRows(ExplainAnalyze.run(calcite, state, schema,
                        p.analyzed(), p.kind(), fastPath)), -1, p));
            }
            final PreparedStatement ps = p.statement();
            if (ps == null) {
                throw new SqlStateException("0A000", "statement is not supported here: " + p.sql());
            }
            final SqlStateException failed = failedPlans.get(p);
            if (failed != null) {
                throw new SqlStateException(failed.sqlState(), failed.getMessage(), failed.detail(), failed);
            }
            if (p.clauses() != null) {
                p.clauses().enter(state, schema);
            }
            try {
                for (int i = 0; i < parameters.length; i++) {
                    ps.setObject(i + 1, parameters[i]);
                }
                if (p.kind() == StatementKind.READ) {
                    return opened(p, new Result(executionId, new ResultSetCursor(ps.executeQuery()), -1, p));
                }
                if (p.returning() != null) {
                    final List<Object[]> written = new ArrayList<>();
                    state.captureWrittenRows(written);
                    final long count;
                    try {
                        count = ps.executeLargeUpdate();
                    } finally {
                        state.captureWrittenRows(null);
                    }
                    final TableDef def = state.catalog().tableById(p.returning().tableId());
                    return opened(p, new Result(executionId, p.returning().cursor(def, written), count, p));
                }
                return new Result(executionId, null, ps.executeLargeUpdate(), p);
            } catch (SQLException e) {
                throw SqlErrors.toSqlState(e);
            } catch (ExceptionInInitializerError | NoClassDefFoundError e) {
                final SqlStateException described = SqlErrors.toSqlState(e);
                failedPlans.put(p, described);
                final Cached cached = plans.get(p.sql());
                if (cached != null && cached.prepared() == p && !openCursors.containsKey(p)) {
                    plans.remove(p.sql());
                }
                throw described;
            }
        });
    }

    /**
     * The table and columns a bulk load (COPY) fills: all of the table's columns, or the named ones (names as
     * the client wrote them: unquoted ones lower-cased). SQLState 42P01 / 42703 when they do not exist.
     */
    public CopyTarget copyTarget(final String schemaName, final String table, final List<String> columnNames) {
        final TableDef def = state.catalog().table(SqlEngine.DATABASE, schemaName == null ? schema : schemaName,
                table);
        if (def == null) {
            throw new SqlStateException("42P01", "relation \"" + table + "\" does not exist");
        }
        final int[] columns = new int[columnNames.isEmpty() ? def.columns().size() : columnNames.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = columnNames.isEmpty() ? i : def.columnIndex(columnNames.get(i));
            if (columns[i] < 0) {
                throw new SqlStateException("42703", "column \"" + columnNames.get(i) + "\" of relation \"" + table
                        + "\" does not exist");
            }
        }
        final int[] types = new int[columns.length];
        for (int i = 0; i < columns.length; i++) {
            types[i] = def.columns().get(columns[i]).type().type().jdbcType();
        }
        return new CopyTarget(def.id(), columns, types);
    }

    /**
     * Inserts rows (values in the order of the target's columns, in the Java forms of their JDBC types) as one
     * statement of the connection's transaction; answers how many.
     */
    public long insertRows(final CopyTarget target, final List<Object[]> rows) {
        final int executionId = nextExecutionId++;
        return state.runStatement(executionId, StatementKind.WRITE, () -> {
            final TableDef def = state.catalog().tableById(target.tableId());
            if (def == null) {
                throw new SqlStateException("42P01", "the table was dropped during COPY");
            }
            final TableStore store = state.catalog().foreignKeys().store(def);
            final TxnSession txn = state.session();
            // the columns COPY does not fill take their DEFAULTs, as in PostgreSQL
            final boolean[] given = new boolean[def.columns().size()];
            for (int c : target.columns()) {
                given[c] = true;
            }
            for (Object[] values : rows) {
                final Object[] row = new Object[def.columns().size()];
                for (int i = 0; i < values.length; i++) {
                    row[target.columns()[i]] = values[i];
                }
                for (int c = 0; c < row.length; c++) {
                    final ColumnDefault d = def.columns().get(c).dflt();
                    if (!given[c] && d != null) {
                        row[c] = d.evaluate(state.sequences()::nextval);
                    }
                }
                store.insert(txn, row);
            }
            return (long) rows.size();
        });
    }

    /** Where COPY puts its rows: the table, its target column positions and their JDBC types. */
    public record CopyTarget(int tableId, int[] columns, int[] jdbcTypes) {
    }

    /**
     * Stops the statement that runs now, from any thread: it ends with 57014 at the next row any of its operators
     * reads (or the planner's next rule attempts).
     */
    public void cancel() {
        state.cancel();
    }

    /** The session ends (its client went away, or it is terminated): stops what runs now and whatever follows. */
    public void end() {
        state.end();
    }

    /** A query's cursor is done: closes it and releases its snapshot. */
    public void closeResult(final Result result) {
        if (result == fastExecution.queryResult) {
            fastExecution.queryResultFree = true;
        }
        if (result.rows() != null) {
            result.rows().close();
            openCursors.computeIfPresent(result.statement(), (k, n) -> n == 1 ? null : n - 1);
        }
        state.closeSnapshot(result.executionId());
    }

    @Override
    public void close() {
        for (Cached c : plans.values()) {
            c.prepared().close();
        }
        plans.clear();
        try {
            state.close();
        } finally {
            try {
                calcite.close();
            } catch (SQLException e) {
                // nothing is left to release
            }
        }
    }

    /**
     * For each result column of a prepared query, the type of the table column it reads unchanged, or null (a
     * computed value, a view's column): Calcite names the origin, the catalog knows its type; a value cast to
     * varchar(n) or char(n) has that type ({@code declared}, from the validator).
     */
    private List<io.meldb.sql.codec.ColumnType> origins(final PreparedStatement ps,
                                                        final List<io.meldb.sql.codec.ColumnType> declared)
            throws SQLException {
        final ResultSetMetaData md = ps.getMetaData();
        final List<io.meldb.sql.codec.ColumnType> out = new ArrayList<>(md.getColumnCount());
        for (int i = 1; i <= md.getColumnCount(); i++) {
            final String table = md.getTableName(i);
            final String column = md.getColumnName(i);
            final String schemaName = md.getSchemaName(i);
            final TableDef def = table == null || table.isEmpty() || column == null ? null
                    : state.catalog().table(SqlEngine.DATABASE, schemaName == null || schemaName.isEmpty() ? schema
                    : schemaName, table);
            final int index = def == null ? -1 : def.columnIndex(column);
            final io.meldb.sql.codec.ColumnType cast = declared != null && declared.size() == md.getColumnCount()
                    ? declared.get(i - 1) : null;
            out.add(cast != null ? cast : index < 0 ? null : def.columns().get(index).type());
        }
        return out;
    }

    /**
     * A statement ready to execute: a fast-path plan for key accesses, a Calcite prepared statement for other
     * queries and DML, parsed DDL, or (for statements a front end runs itself) only its SQL and kind.
     */
    public record PreparedSql(String sql, StatementKind kind, PreparedStatement statement, Ddl ddl, FastPlan fast,
                              Returning returning, StatementClauses clauses, String analyzed,
                              List<io.meldb.sql.codec.ColumnType> origins)
            implements AutoCloseable {
        public PreparedSql(final String sql, final StatementKind kind, final PreparedStatement statement,
                           final Ddl ddl, final FastPlan fast) {
            this(sql, kind, statement, ddl, fast, null, null, null, null);
        }

        public PreparedSql(final String sql, final StatementKind kind, final PreparedStatement statement,
                           final Ddl ddl, final FastPlan fast, final Returning returning,
                           final StatementClauses clauses) {
            this(sql, kind, statement, ddl, fast, returning, clauses, null, null);
        }

        /** The JDBC types of the parameters ({@link java.sql.Types}). */
        public int[] parameterTypes() {
            if (fast != null) {
                return fast.parameterTypes();
            }
            if (statement == null) {
                return new int[0];
            }
            try {
                final ParameterMetaData pm = statement.getParameterMetaData();
                final int[] out = new int[pm.getParameterCount()];
                for (int i = 0; i < out.length; i++) {
                    out[i] = pm.getParameterType(i + 1);
                }
                return out;
            } catch (SQLException e) {
                throw SqlErrors.toSqlState(e);
            }
        }

        /** The columns of a query's result (or of a RETURNING clause); empty for other statements. */
        public List<ResultColumn> columns() {
            if (analyzed != null) {
                return List.of(ExplainAnalyze.COLUMN);
            }
            if (returning != null) {
                return returning.result();
            }
            if (kind != StatementKind.READ) {
                return List.of();
            }
            if (fast != null) {
                return fast.columns();
            }
            if (statement == null) {
                return List.of();
            }
            try {
                final ResultSetMetaData md = statement.getMetaData();
                final List<ResultColumn> out = new ArrayList<>(md.getColumnCount());
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    // Calcite reports TIMESTAMP WITH LOCAL TIME ZONE as plain TIMESTAMP; its name tells them apart
                    final int jdbcType = "TIMESTAMP_WITH_LOCAL_TIME_ZONE".equals(md.getColumnTypeName(i))
                            ? java.sql.Types.TIMESTAMP_WITH_TIMEZONE : md.getColumnType(i);
                    // an array's precision is its element's: a name[] is an array of VARCHAR(63)
                    final int precision = jdbcType == java.sql.Types.ARRAY
                            ? ResultColumns.arrayElementPrecision(md.getColumnTypeName(i)) : md.getPrecision(i);
                    out.add(new ResultColumn(md.getColumnLabel(i), jdbcType, precision, md.getScale(i),
                            origins == null ? null : origins.get(i - 1), jdbcType == java.sql.Types.ARRAY
                            ? ResultColumns.arrayElement(md.getColumnTypeName(i)) : java.sql.Types.NULL));
                }
                return out;
            } catch (SQLException e) {
                throw SqlErrors.toSqlState(e);
            }
        }

        @Override
        public void close() {
            if (clauses != null) {
                clauses.close();
            }
            if (statement != null) {
                try {
                    statement.close();
                } catch (SQLException e) {
                    // closing a Calcite statement only releases memory
                }
            }
        }
    }

    private Result opened(final PreparedSql p, final Result result) {
        openCursors.merge(p, 1, Integer::sum);
        return result;
    }

    /** The body of a fast-path statement, one object per session reused by every execution (no lambda each time). */
    private final class FastExecution implements Supplier<Result> {
        int executionId;
        /** The statement running, or null when the object is free. */
        PreparedSql plan;
        io.meldb.sql.fast.ParameterValues parameters;
        /** The Result of every fast update (valid until the next execution). */
        final Result updateResult = new Result(0, null, 0, null);
        /** The Result of a fast query, reused once the cursor of the last one is closed. */
        final Result queryResult = new Result(0, null, -1, null);
        boolean queryResultFree = true;

        @Override
        public Result get() {
            final FastPlan fast = plan.fast();
            final TxnSession txn = state.session();
            final TableDef current = state.catalog().tableById(fast.tableId());
            if (fast.reads()) {
                final RowCursor rows = fast.query(txn, current, parameters);
                if (queryResultFree) {
                    queryResultFree = false;
                    return opened(plan, queryResult.reset(executionId, rows, -1, plan));
                }
                return opened(plan, new Result(executionId, rows, -1, plan));
            }
            final long count = fast.update(txn, current, state.catalog().foreignKeys(), parameters,
                    state.sequences());
            return updateResult.reset(executionId, null, count, plan);
        }
    }

    private final FastExecution fastExecution = new FastExecution();

    /**
     * What an execution of {@code statement} produced: an open cursor ({@code rows}), or the count of rows changed.
     * Mutable only so that the session can reuse one for its fast-path executions ({@link #execute}).
     */
    public static final class Result {
        private int executionId;
        private RowCursor rows;
        private long updateCount;
        private PreparedSql statement;

        public Result(final int executionId, final RowCursor rows, final long updateCount,
                      final PreparedSql statement) {
            reset(executionId, rows, updateCount, statement);
        }

        Result reset(final int executionId, final RowCursor rows, final long updateCount,
                     final PreparedSql statement) {
            this.executionId = executionId;
            this.rows = rows;
            this.updateCount = updateCount;
            this.statement = statement;
            return this;
        }

        public int executionId() {
            return executionId;
        }

        public RowCursor rows() {
            return rows;
        }

        public long updateCount() {
            return updateCount;
        }

        public PreparedSql statement() {
            return statement;
        }
    }
}
