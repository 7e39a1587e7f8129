package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.CatalogStore;
import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.Keys;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.catalog.TableStore;
import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnSession;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.schema.SchemaPlus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the code Calcite generates for {@link MeldTableScan} and {@link MeldTableModify} calls at run time:
 * reading key ranges from, and writing rows into, the transaction of the running statement.
 */
public final class MeldRuntime {
    private MeldRuntime() {
    }

    /**
     * Rows of a table (as Object[] in column order) whose primary key, or index key when {@code indexId != 0},
     * starts with {@code equalities} and whose next key column lies within the optional bounds. A null value in
     * any bound matches nothing, as a comparison with NULL does in SQL.
     */
    public static Enumerable<Object[]> scan(final DataContext root, final String schema, final int tableId,
                                            final int indexId, final Object[] equalities, final boolean hasLower,
                                            final Object lower, final boolean lowerInclusive, final boolean hasUpper,
                                            final Object upper, final boolean upperInclusive) {
        final MeldTxnContext context = context(root, schema);
        final TableStore store = new TableStore(table(context, tableId));
        final TableDef def = store.def();
        final IndexDef index = indexId == 0 ? null : indexById(def, indexId);
        final int[] keyColumns = index == null ? def.primaryKey() : index.columns();

        final ByteWriter prefix = new ByteWriter();
        prefix.write(Keys.dataPrefix(index == null ? tableId : indexId));
        for (int i = 0; i < equalities.length; i++) {
            final ColumnType type = def.columns().get(keyColumns[i]).type();
            final Object v = type.coerce(equalities[i]);
            if (v == null) {
                return Linq4j.emptyEnumerable();
            }
            KeyCodec.encode(prefix, type.type(), v);
        }
        final byte[] base = prefix.toByteArray();
        byte[] lo = base;
        byte[] hi = KeyCodec.prefixEnd(base);
        if (hasLower || hasUpper) {
            final ColumnType type = def.columns().get(keyColumns[equalities.length]).type();
            if (hasLower) {
                final Object v = type.coerce(lower);
                if (v == null) {
                    return Linq4j.emptyEnumerable();
                }
                final byte[] bound = concat(base, type, v);
                lo = lowerInclusive ? bound : KeyCodec.prefixEnd(bound);
                // NULLs sort last: a lower bound alone must not reach them
                hi = new ByteWriter().write(base).write(KeyCodec.TAG_NULL).toByteArray();
            }
            if (hasUpper) {
                final Object v = type.coerce(upper);
                if (v == null) {
                    return Linq4j.emptyEnumerable();
                }
                final byte[] bound = concat(base, type, v);
                hi = upperInclusive ? KeyCodec.prefixEnd(bound) : bound;
            }
        }
        final TxnSession txn = context.session();
        final byte[] from = lo;
        final byte[] to = hi;
        final AtomicBoolean cancel = DataContext.Variable.CANCEL_FLAG.get(root);
        final RowLocks locks = context.rowLocks();
        final boolean forUpdate = locks != null && locks.locks(txn, tableId);
        return new AbstractEnumerable<>() {
            @Override
            public Enumerator<Object[]> enumerator() {
                return Linq4j.iterableEnumerator(() -> new RangeIterator(txn, store, index, from, to, cancel,
                        context, forUpdate));
            }
        };
    }

    /**
     * Applies INSERT, UPDATE, DELETE or MERGE ({@link MergeRows}) to every input row and answers the count. For
     * UPDATE an input row is the old row followed by the new values of {@code updateColumns}. The input is read
     * completely before the first write, so a statement never sees its own changes.
     */
    public static Enumerable<Long> modify(final DataContext root, final String schema, final int tableId,
                                          final String operation, final int[] updateColumns,
                                          final Enumerable<?> input) {
        final MeldTxnContext context = context(root, schema);
        final TableStore store = context.catalog().foreignKeys().store(table(context, tableId));
        final int width = store.def().columns().size();
        final List<Object[]> rows = new ArrayList<>();
        for (Object o : input) {
            rows.add(o instanceof Object[] a ? a : new Object[] {o});
        }
        final TxnSession txn = context.session();
        final List<Object[]> written = context.writtenRows();
        if (operation.equals("INSERT")) {
            final InsertConflicts conflicts = context.insertConflicts();
            final InsertConflicts.Execution onConflict = conflicts != null && conflicts.tableId() == tableId
                    ? conflicts.begin() : null;
            long count = 0;
            for (Object[] row : rows) {
                final Object[] stored = onConflict != null ? onConflict.insert(store, txn, row) : store.insert(txn, row);
                if (stored != null) {
                    count++;
                    if (written != null) {
                        written.add(stored);
                    }
                }
            }
            return Linq4j.singletonEnumerable(count);
        }
        if (operation.equals("MERGE")) {
            return Linq4j.singletonEnumerable(MergeRows.apply(store, txn, written, updateColumns, rows));
        }
        if (!operation.equals("DELETE") && !operation.equals("UPDATE")) {
            throw new SqlStateException("0A000", operation + " is not supported");
        }
        final List<Object[]> oldRows = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            oldRows.add(Arrays.copyOf(row, width));
        }
        // a table without a primary key: its rows are found by what they hold (TableStore.locate)
        final List<byte[]> keys = store.hiddenRowId() ? store.locate(txn, oldRows) : null;
        for (int i = 0; i < rows.size(); i++) {
            final Object[] old = oldRows.get(i);
            final byte[] key = keys != null ? keys.get(i) : store.primaryKey(old);
            if (operation.equals("DELETE")) {
                store.deleteAt(txn, key, old);
                if (written != null) {
                    written.add(old);
                }
            } else {
                final Object[] changed = old.clone();
                for (int j = 0; j < updateColumns.length; j++) {
                    changed[updateColumns[j]] = rows.get(i)[width + j];
                }
                final Object[] stored = store.updateAt(txn, key, old, changed);
                if (written != null) {
                    written.add(stored);
                }
            }
        }
        return Linq4j.singletonEnumerable((long) rows.size());
    }

    private static MeldTxnContext context(final DataContext root, final String schema) {
        final SchemaPlus s = root.getRootSchema().getSubSchema(schema);
        final MeldSchema meldSchema = s == null ? null : s.unwrap(MeldSchema.class);
        if (meldSchema == null) {
            throw new SqlStateException("3F000", "schema \"" + schema + "\" does not exist");
        }
        return meldSchema.context();
    }

    private static TableDef table(final MeldTxnContext context, final int tableId) {
        final TableDef def = context.catalog().tableById(tableId);
        if (def == null) {
            throw new SqlStateException("42P01", "the table of this statement was dropped; prepare it again");
        }
        return def;
    }

    private static IndexDef indexById(final TableDef def, final int indexId) {
        for (IndexDef i : def.indexes()) {
            if (i.id() == indexId) {
                return i;
            }
        }
        throw new SqlStateException("42704", "the index of this statement was dropped; prepare it again");
    }

    private static byte[] concat(final byte[] base, final ColumnType type, final Object value) {
        final ByteWriter out = new ByteWriter(base.length + 16);
        out.write(base);
        KeyCodec.encode(out, type.type(), value);
        return out.toByteArray();
    }

    /**
     * Walks [from, to) in batches; for an index, looks each entry's row up by primary key. Batches start at
     * {@link #FIRST_BATCH} rows and grow 16-fold up to {@link TableStore#SCAN_BATCH}: under serializable isolation
     * a scan's range dependency reaches only as far as the rows it returned, so a consumer that stops early (an
     * {@code ORDER BY key LIMIT 1}, which Calcite's limit pulls twice) depends on the first rows of the range, not
     * the whole of it. Before, the first batch read up to 4,096 rows and so the whole range of any smaller one:
     * TPC-C's delivery, which takes a district's oldest new_order this way, conflicted with every new-order
     * inserting at the district's far end (docs/perf/tpcc.md).
     */
    private static final class RangeIterator implements Iterator<Object[]> {
        /** Rows of the first batch: two, since a LIMIT 1 asks for a second row before it stops. */
        static final int FIRST_BATCH = 2;
        private int batchSize = FIRST_BATCH;
        private final TxnSession txn;
        private final TableStore store;
        private final IndexDef index;
        private final byte[] to;
        private byte[] from;
        private boolean fromInclusive = true;
        private List<KeyValue> batch = List.of();
        private int next;
        private boolean exhausted;
        private Object[] pending;

        /** Set when the statement is cancelled (Statement.cancel, a timeout): checked at every row. */
        private final AtomicBoolean cancel;

        private final MeldTxnContext context;
        /** Whether every row read is written back unchanged (SELECT ... FOR UPDATE: see RowLocks). */
        private final boolean forUpdate;

        RangeIterator(final TxnSession txn, final TableStore store, final IndexDef index, final byte[] from,
                      final byte[] to, final AtomicBoolean cancel, final MeldTxnContext context,
                      final boolean forUpdate) {
            this.forUpdate = forUpdate;
            this.cancel = cancel;
            this.context = context;
            this.txn = txn;
            this.store = store;
            this.index = index;
            this.from = from;
            this.to = to;
        }

        @Override
        public boolean hasNext() {
            if ((cancel != null && cancel.get()) || context.cancelled()) {
                throw new SqlStateException("57014", "canceling statement due to user request");
            }
            while (pending == null) {
                if (next == batch.size()) {
                    if (exhausted) {
                        return false;
                    }
                    batch = txn.scan(from, fromInclusive, to, false, false, batchSize);
                    next = 0;
                    exhausted = batch.size() < batchSize;
                    batchSize = Math.min(batchSize * 16, TableStore.SCAN_BATCH);
                    context.rowsRead(batch.size());
                    if (!batch.isEmpty()) {
                        from = batch.get(batch.size() - 1).key();
                        fromInclusive = false;
                    }
                    continue;
                }
                final KeyValue kv = batch.get(next++);
                if (index == null) {
                    pending = store.decodeRow(kv.key(), kv.value());
                    if (forUpdate) {
                        txn.put(kv.key(), kv.value());
                    }
                } else {
                    final byte[] rowKey = store.rowKeyOfIndexEntry(index, kv.key(), kv.value());
                    final byte[] payload = txn.get(rowKey);
                    if (payload != null) {
                        pending = store.decodeRow(rowKey, payload);
                        if (forUpdate) {
                            txn.put(rowKey, payload);
                        }
                    }
                }
            }
            return true;
        }

        @Override
        public Object[] next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            final Object[] row = pending;
            pending = null;
            return row;
        }
    }
}
