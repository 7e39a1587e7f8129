package io.meldb.sql.calcite;

import io.meldb.sql.catalog.TableStore;
import io.meldb.txn.api.TxnSession;

/**
 * What an INSERT does with a row that conflicts with an existing one (PostgreSQL's {@code ON CONFLICT}): {@link
 * MeldRuntime#modify} begins one {@link Execution} per executed INSERT and hands it each row instead of inserting it.
 */
public interface InsertConflicts {
    /** The table whose INSERT this applies to. */
    int tableId();

    /** The handling of one execution of the INSERT. */
    Execution begin();

    /** One execution: it may remember the rows it wrote (a row may be updated only once per statement). */
    interface Execution {
        /**
         * Inserts {@code row}, or on a conflict skips or updates the existing row; answers the row as stored
         * (inserted or updated), or null when nothing was written.
         */
        Object[] insert(TableStore store, TxnSession txn, Object[] row);
    }
}
