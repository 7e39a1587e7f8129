package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.dml.ForUpdate;
import io.meldb.sql.dml.LockingClause;
import io.meldb.sql.dml.OnConflictClause;
import io.meldb.sql.dml.Upsert;
import io.meldb.txn.api.TxnSession;

import java.sql.Connection;

/**
 * The PostgreSQL clauses of a statement that Calcite's parser does not read and the gateway carries out itself,
 * shared by both front ends: {@code INSERT ... ON CONFLICT} ({@link Upsert}) and {@code SELECT ... FOR UPDATE} and
 * its kin ({@link LockingClause}). {@link #sql} is what Calcite plans; {@link #enter} arms the clause for one
 * execution.
 */
public final class StatementClauses implements AutoCloseable {
    private final String sql;
    private final OnConflictClause onConflict;
    private final LockingClause locking;
    private Upsert upsert;

    private StatementClauses(final String sql, final OnConflictClause onConflict, final LockingClause locking) {
        this.sql = sql;
        this.onConflict = onConflict;
        this.locking = locking;
    }

    /** The clauses of {@code sql}, or null when it has none (the common case: nothing to do). */
    public static StatementClauses of(final String sql) {
        final OnConflictClause conflict = OnConflictClause.split(sql);
        if (conflict != null) {
            return new StatementClauses(conflict.sql(), conflict, null);
        }
        final LockingClause locking = LockingClause.split(sql);
        return locking == null ? null : new StatementClauses(locking.sql(), null, locking);
    }

    /** Whether the statement reads rows for update (a locking clause): it needs an update transaction. */
    public boolean locks() {
        return locking != null;
    }

    /** The alias of the INSERT's target that the ON CONFLICT clause's reader took out of the statement, or null. */
    public String targetAlias() {
        return onConflict == null ? null : onConflict.alias();
    }

    /** The statement as Calcite plans it: without the clauses. */
    public String sql() {
        return sql;
    }

    /**
     * Resolves the clauses once the statement itself was planned (so that its own errors come first): the ON
     * CONFLICT target in {@code catalog}, DO UPDATE's expressions planned on {@code calcite}.
     */
    public void prepare(final Catalog catalog, final String schema, final Connection calcite) {
        if (onConflict != null && upsert == null) {
            upsert = Upsert.prepare(onConflict, catalog, SqlEngine.DATABASE, schema, calcite);
        }
    }

    /**
     * Arms the clauses for the execution that runs now in {@code state}'s statement (GatewayConnection clears
     * them when the next statement begins). A locking clause in a read-only transaction is 25006; in autocommit
     * mode it has nothing to protect (the transaction ends with the statement) and the query runs as it is.
     */
    public void enter(final GatewayConnection state, final String schema) {
        if (locking != null) {
            final boolean autoCommit = state.autoCommit();
            final TxnSession txn = state.session();
            if (autoCommit ? state.readOnly() : txn.readOnly()) {
                throw new SqlStateException("25006", "cannot execute SELECT FOR UPDATE in a read-only transaction");
            }
            state.statementClauses(null, autoCommit ? null
                    : ForUpdate.of(locking, txn, state.catalog(), SqlEngine.DATABASE, schema));
        } else {
            state.statementClauses(upsert, null);
        }
    }

    @Override
    public void close() {
        if (upsert != null) {
            upsert.close();
        }
    }
}
