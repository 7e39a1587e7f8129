package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.TableStore;
import io.meldb.txn.api.TxnSession;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies the rows of a MERGE (Calcite's {@code TableModify} with {@code Operation.MERGE}) to a table with a
 * primary key. Calcite joins the source to the target (a left join when there is a WHEN NOT MATCHED clause) and
 * hands each source row as: the row to insert (when the MERGE has an INSERT clause), then the matched target row
 * (all NULL when none matched) and the new values of the updated columns (when it has an UPDATE clause). A row
 * whose target part has a NULL primary key matched nothing. PostgreSQL's rules: the count is the rows inserted plus
 * the rows updated, and a target row that two source rows match is 21000. The writes go through
 * {@link TableStore}, so NOT NULL, CHECK, UNIQUE and FOREIGN KEY keep their SQLSTATEs, and an insert of a key
 * another transaction inserts concurrently conflicts in meld.
 */
final class MergeRows {
    private MergeRows() {
    }

    /** Applies {@code rows} (read completely before this) and answers the number of rows inserted or updated. */
    static long apply(final TableStore store, final TxnSession txn, final List<Object[]> written,
                      final int[] updateColumns, final List<Object[]> rows) {
        final int width = store.def().columns().size();
        final boolean updates = updateColumns.length > 0;
        final int updateWidth = updates ? width + updateColumns.length : 0;
        final int firstKeyColumn = store.def().primaryKey()[0];
        final Set<ByteBuffer> updated = new HashSet<>(); // membership only: its order reaches nothing
        long count = 0;
        for (Object[] row : rows) {
            final boolean inserts = row.length == width + updateWidth;
            final int target = inserts ? width : 0;
            final boolean matched = updates && row[target + firstKeyColumn] != null;
            final Object[] stored;
            if (matched) {
                final Object[] old = new Object[width];
                System.arraycopy(row, target, old, 0, width);
                final byte[] key = store.primaryKey(old);
                if (!updated.add(ByteBuffer.wrap(key))) {
                    throw new SqlStateException("21000", "MERGE command cannot affect row a second time "
                            + "(a target row matched more than one source row)");
                }
                final Object[] changed = old.clone();
                for (int j = 0; j < updateColumns.length; j++) {
                    changed[updateColumns[j]] = row[target + width + j];
                }
                stored = store.updateAt(txn, key, old, changed);
            } else if (inserts) {
                final Object[] insert = new Object[width];
                System.arraycopy(row, 0, insert, 0, width);
                stored = store.insert(txn, insert);
            } else {
                continue; // no WHEN NOT MATCHED clause: an unmatched source row does nothing
            }
            count++;
            if (written != null) {
                written.add(stored);
            }
        }
        return count;
    }
}
