package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.Ddl;
import org.apache.calcite.runtime.Hook;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

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
    /** Ids of executions, for the snapshots autocommit queries keep until their cursor is closed. */
    private int nextExecutionId = 1;

    public SqlSession(final SqlEngine engine, final String id) {
        this.engine = engine;
        this.state = engine.newConnectionState(id);
        try {
            this.calcite = engine.calciteConnection(state);
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    public GatewayConnection state() {
        return state;
    }

    /** The schema unqualified names resolve in from now on. */
    public void setSchema(final String schema) {
        try {
            calcite.setSchema(schema);
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    /**
     * Prepares a statement: parses (and plans, for queries and DML) it now, so that errors in it are reported at
     * once. COMMIT and ROLLBACK are the caller's to handle.
     */
    public PreparedSql prepare(final String sql) {
        final StatementKind kind = StatementKind.of(sql);
        switch (kind) {
            case DDL:
                return new PreparedSql(sql, kind, null, SqlEngine.parseDdl(sql));
            case READ:
            case WRITE:
                // planning reads the catalog: in the open transaction, or a snapshot
                try (Hook.Closeable program = SqlEngine.withMeldProgram()) {
                    return new PreparedSql(sql, kind, calcite.prepareStatement(sql), null);
                } catch (SQLException e) {
                    throw SqlErrors.toSqlState(e);
                }
            default:
                return new PreparedSql(sql, kind, null, null);
        }
    }

    /**
     * Executes a prepared statement with the given parameter values (already converted to the Java forms the
     * statement's parameter types take). A query answers an open cursor: close it with {@link #closeResult} (in
     * autocommit mode its read-only snapshot stays pinned until then).
     */
    public Result execute(final PreparedSql p, final Object[] parameters) {
        final int executionId = nextExecutionId++;
        return state.runStatement(executionId, p.kind(), () -> {
            try {
                if (p.ddl() != null) {
                    engine.runDdl(state, p.ddl());
                    return new Result(executionId, null, 0);
                }
                final PreparedStatement ps = p.statement();
                if (ps == null) {
                    throw new SqlStateException("0A000", "statement is not supported here: " + p.sql());
                }
                for (int i = 0; i < parameters.length; i++) {
                    ps.setObject(i + 1, parameters[i]);
                }
                if (p.kind() == StatementKind.READ) {
                    return new Result(executionId, ps.executeQuery(), -1);
                }
                return new Result(executionId, null, ps.executeLargeUpdate());
            } catch (SQLException e) {
                throw SqlErrors.toSqlState(e);
            }
        });
    }

    /** A query's cursor is done: closes it and releases its snapshot. */
    public void closeResult(final Result result) {
        if (result.rows() != null) {
            try {
                result.rows().close();
            } catch (SQLException e) {
                // closing a Calcite result set only releases memory
            }
        }
        state.closeSnapshot(result.executionId());
    }

    @Override
    public void close() {
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

    /** A statement ready to execute: a Calcite prepared statement for queries and DML, parsed DDL otherwise. */
    public record PreparedSql(String sql, StatementKind kind, PreparedStatement statement, Ddl ddl)
            implements AutoCloseable {
        @Override
        public void close() {
            if (statement != null) {
                try {
                    statement.close();
                } catch (SQLException e) {
                    // closing a Calcite statement only releases memory
                }
            }
        }
    }

    /** What an execution produced: an open cursor ({@code rows}), or the count of rows changed. */
    public record Result(int executionId, ResultSet rows, long updateCount) {
    }
}
