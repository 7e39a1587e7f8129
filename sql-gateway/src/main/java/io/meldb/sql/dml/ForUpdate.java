package io.meldb.sql.dml;

import io.meldb.sql.calcite.RowLocks;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.TableDef;
import io.meldb.txn.api.TxnSession;

import java.util.Arrays;

/**
 * The {@link RowLocks} of one execution of a SELECT with a {@link LockingClause}: rows of the tables the clause
 * names (every table when it names none, or names an alias, which the gateway does not map back to its table: more
 * rows count as written than PostgreSQL would lock, never fewer), read by the transaction the statement runs in.
 */
public final class ForUpdate implements RowLocks {
    private final TxnSession txn;
    /** The locked tables' ids, sorted; null for every table. */
    private final int[] tableIds;

    private ForUpdate(final TxnSession txn, final int[] tableIds) {
        this.txn = txn;
        this.tableIds = tableIds;
    }

    /** The locks of {@code clause} for statement of {@code txn}; names resolve in {@code schema} of {@code catalog}. */
    public static ForUpdate of(final LockingClause clause, final TxnSession txn, final Catalog catalog,
                               final String database, final String schema) {
        if (clause.allTables()) {
            return new ForUpdate(txn, null);
        }
        final int[] ids = new int[clause.tables().size()];
        for (int i = 0; i < ids.length; i++) {
            final TableDef def = catalog.table(database, schema, clause.tables().get(i));
            if (def == null) {
                return new ForUpdate(txn, null); // an alias: lock every table the statement reads
            }
            ids[i] = def.id();
        }
        Arrays.sort(ids);
        return new ForUpdate(txn, ids);
    }

    @Override
    public boolean locks(final TxnSession reader, final int tableId) {
        return reader == txn && (tableIds == null || Arrays.binarySearch(tableIds, tableId) >= 0);
    }
}
