package io.meldb.sql.calcite;

import io.meldb.txn.api.TxnSession;

/**
 * Which tables' rows the running statement reads for update (SELECT ... FOR UPDATE and its kin): {@link
 * MeldRuntime#scan} writes every row it reads from such a table unchanged into the transaction's intention, so that
 * meld's conflict test counts the row as written (docs/meld.md; Hyder II §3: a transaction conflicts when a
 * concurrent committed one wrote what it wrote, under snapshot isolation too).
 */
public interface RowLocks {
    /** Whether rows that {@code txn} reads from table {@code tableId} count as written. */
    boolean locks(TxnSession txn, int tableId);
}
