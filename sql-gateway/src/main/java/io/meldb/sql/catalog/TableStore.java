package io.meldb.sql.catalog;

import io.meldb.sql.ErrorFields;
import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ByteReader;
import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.sql.codec.RowCodec;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnSession;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Rows of one table in the tree: the key and payload of a row, its index entries, and the writes of INSERT,
 * UPDATE and DELETE, each keeping the secondary indexes in step within the same transaction. A row's key is its
 * encoded primary key, or for a table without one ({@link TableDef#hiddenRowId()}) a row id from {@link RowIds};
 * an index entry ends with what follows the table prefix in the row's key. The payload holds every column that is
 * not in the key (every column, for a table keyed by row id). A store made by {@link ForeignKeys#store} checks the
 * FOREIGN KEY constraints after each write.
 */
public final class TableStore {
    /** Rows are read from the tree in batches of this many keys. */
    public static final int SCAN_BATCH = 4096;
    private static final byte[] EMPTY = new byte[0];
    private static final CheckExpression[] NO_CHECKS = new CheckExpression[0];

    private final TableDef def;
    private final List<ColumnType> types;
    private final int[] valueColumns;
    private final byte[] prefix;
    /** The table's CHECK constraints, compiled, in the order of {@link TableDef#checks()}. */
    private final CheckExpression[] checks;
    /** The foreign keys this table's writes are checked against, or null when none concern it. */
    private final ForeignKeys foreignKeys;
    /** Null when payloads hold {@link #valueColumns} in their types (no column altered): RowCodec directly. */
    private final RowLayout layout;

    /**
     * The rows of {@code def}, written without FOREIGN KEY checks: for DDL that moves rows it keeps, and for tables
     * no foreign key concerns. Statements get their store from {@link ForeignKeys#store}.
     */
    public TableStore(final TableDef def) {
        this(def, null);
    }

    TableStore(final TableDef def, final ForeignKeys foreignKeys) {
        this.foreignKeys = foreignKeys;
        this.def = def;
        this.types = def.columnTypes();
        this.valueColumns = def.valueColumns();
        this.layout = def.layout().direct(valueColumns, types) ? null : def.layout();
        this.prefix = Keys.dataPrefix(def.id());
        this.checks = def.checks().isEmpty() ? NO_CHECKS : new CheckExpression[def.checks().size()];
        for (int i = 0; i < checks.length; i++) {
            checks[i] = CheckExpression.of(def.checks().get(i).sql(), def.columns());
        }
    }

    public TableDef def() {
        return def;
    }

    /** True when payloads are {@link RowCodec}'s encoding of the value columns in order (no column altered). */
    public boolean directLayout() {
        return layout == null;
    }

    public byte[] prefix() {
        return prefix;
    }

    /** Whether rows are keyed by a hidden row id ({@link RowIds}) rather than by a primary key. */
    public boolean hiddenRowId() {
        return def.hiddenRowId();
    }

    /** The key of a row of a table with a primary key. */
    public byte[] primaryKey(final Object[] row) {
        if (def.hiddenRowId()) {
            throw new IllegalStateException("table " + def.name() + " has no primary key: its rows are found by "
                    + "their hidden row id");
        }
        final ByteWriter out = KEY_SCRATCH.get().reset();
        out.write(prefix);
        for (int c : def.primaryKey()) {
            KeyCodec.encode(out, types.get(c).type(), row[c]);
        }
        return out.toByteArray();
    }

    /**
     * Starts the primary key of a row in {@code out} (emptied first): the table's prefix. Follow with {@link
     * #writeKeyColumn} for each primary-key column in order; the key is then {@code out.toByteArray()}, the same
     * bytes {@link #primaryKey} makes, without a row array.
     */
    public ByteWriter beginKey() {
        final ByteWriter out = KEY_SCRATCH.get();
        if (def.hiddenRowId()) {
            throw new IllegalStateException("table " + def.name() + " has no primary key: its rows are found by "
                    + "their hidden row id");
        }
        return out.reset().write(prefix);
    }

    /** Appends the value of primary-key column {@code column} (see {@link #beginKey}). */
    public void writeKeyColumn(final ByteWriter out, final int column, final Object value) {
        KeyCodec.encode(out, types.get(column).type(), value);
    }

    /** Each thread's scratch space for the keys it encodes; the key itself is a new exact array (the txn keeps it). */
    private static final ThreadLocal<ByteWriter> KEY_SCRATCH = ThreadLocal.withInitial(() -> new ByteWriter(64));

    /** The index entry of a row of a table with a primary key. */
    public byte[] indexKey(final IndexDef index, final Object[] row) {
        return indexKey(index, primaryKey(row), row);
    }

    /**
     * The key of the index entry of the row stored at {@code rowKey}: the encoded index columns, then (unless the
     * entry is {@link #uniqueEntry unique}) the row key's suffix.
     */
    public byte[] indexKey(final IndexDef index, final byte[] rowKey, final Object[] row) {
        final ByteWriter out = new ByteWriter(32);
        out.write(Keys.dataPrefix(index.id()));
        for (int c : index.columns()) {
            KeyCodec.encode(out, types.get(c).type(), row[c]);
        }
        if (!uniqueEntry(index, row)) {
            out.write(rowKey, prefix.length, rowKey.length - prefix.length);
        }
        return out.toByteArray();
    }

    /**
     * Whether the index entry of {@code row} holds the index columns alone as its key (and the row key as its
     * payload): the row's entry in a unique index, unless one of its columns is NULL (NULLs never conflict, so such
     * an entry keeps the row key in its key as a non-unique entry does).
     */
    public static boolean uniqueEntry(final IndexDef index, final Object[] row) {
        if (!index.unique()) {
            return false;
        }
        for (int c : index.columns()) {
            if (row[c] == null) {
                return false;
            }
        }
        return true;
    }

    /** The payload of the index entry of the row at {@code rowKey}: the row key's suffix for a unique entry. */
    private byte[] indexPayload(final IndexDef index, final byte[] rowKey, final Object[] row) {
        return uniqueEntry(index, row) ? Arrays.copyOfRange(rowKey, prefix.length, rowKey.length) : EMPTY;
    }

    /** The row key that an index entry points to: from the entry's key, or for a unique entry its payload. */
    public byte[] rowKeyOfIndexEntry(final IndexDef index, final byte[] indexKey, final byte[] payload) {
        final ByteReader in = new ByteReader(indexKey, 5);
        for (int c : index.columns()) {
            KeyCodec.skip(in, types.get(c).type());
        }
        final boolean unique = in.position() == indexKey.length; // a row key's suffix is never empty
        final byte[] suffix = unique ? payload : indexKey;
        final int from = unique ? 0 : in.position();
        final ByteWriter out = new ByteWriter(prefix.length + suffix.length - from);
        out.write(prefix).write(suffix, from, suffix.length - from);
        return out.toByteArray();
    }

    /**
     * SQLState 23505 unless every unique entry {@code row} needs at {@code rowKey} is free; {@code oldRow}, when
     * not null, is the row's value before an update, whose own entries do not count. Called before anything of the
     * row is written, so a refused row leaves nothing behind. The read puts the entry's key in the transaction's
     * read set and the following write in its write set: a concurrent transaction writing the same value conflicts
     * with this one in meld, on whichever txn-server it ran.
     */
    private void checkUnique(final TxnSession txn, final byte[] rowKey, final Object[] row, final Object[] oldRow) {
        for (IndexDef index : def.indexes()) {
            if (!uniqueEntry(index, row)) {
                continue;
            }
            final byte[] entry = indexKey(index, rowKey, row);
            if (oldRow != null && uniqueEntry(index, oldRow) && Arrays.equals(indexKey(index, rowKey, oldRow), entry)) {
                continue; // the row keeps its value: the entry is its own
            }
            if (txn.get(entry) != null) {
                throw UniqueViolation.of(def, index, row);
            }
        }
    }

    /** A row (in-flight Java form, one slot per column) from its key and payload. */
    public Object[] decodeRow(final byte[] key, final byte[] payload) {
        final Object[] row = new Object[types.size()];
        final ByteReader in = new ByteReader(key, prefix.length);
        for (int c : def.primaryKey()) {
            row[c] = KeyCodec.decode(in, types.get(c).type(), types.get(c).scale());
        }
        if (layout == null) {
            def.layout().fillMissing(RowCodec.decode(payload, types, valueColumns, row), row);
        } else {
            layout.decode(payload, types, row);
        }
        return row;
    }

    /** The payload of a checked row. */
    private byte[] payload(final Object[] row) {
        return layout == null ? RowCodec.encode(row, types, valueColumns) : layout.encode(row);
    }

    /**
     * Coerces every value to its column's type and checks NOT NULL (23502 naming the column) and the CHECK
     * constraints (23514 naming the constraint).
     */
    public Object[] checkRow(final Object[] row) {
        final Object[] out = coerce(row);
        for (int i = 0; i < out.length; i++) {
            if (out[i] == null && !def.columns().get(i).nullable()) {
                throw new SqlStateException("23502", "null value in column \"" + def.columns().get(i).name()
                        + "\" of relation \"" + def.name() + "\" violates not-null constraint", null,
                        ErrorFields.column(def.schema(), def.name(), def.columns().get(i).name()), null);
            }
        }
        for (int i = 0; i < checks.length; i++) {
            if (!checks[i].passes(out)) {
                throw new SqlStateException("23514", "new row for relation \"" + def.name() + "\" violates check "
                        + "constraint \"" + def.checks().get(i).name() + "\"", null,
                        ErrorFields.constraint(def.schema(), def.name(), def.checks().get(i).name()), null);
            }
        }
        return out;
    }

    private Object[] coerce(final Object[] row) {
        if (row.length != types.size()) {
            throw new SqlStateException("21S01", "table " + def.name() + " has " + types.size()
                    + " columns, the row has " + row.length);
        }
        final Object[] out = new Object[row.length];
        for (int i = 0; i < row.length; i++) {
            out[i] = types.get(i).coerce(row[i]);
        }
        return out;
    }

    /**
     * Inserts a row: at its primary key (SQLState 23505 when taken), or at a fresh hidden row id, which nothing
     * else can hold (no read of the key, so concurrent inserts do not conflict in meld).
     */
    public Object[] insert(final TxnSession txn, final Object[] row) {
        final Object[] checked = checkRow(row);
        final byte[] key;
        if (def.hiddenRowId()) {
            key = RowIds.next(prefix);
        } else {
            key = primaryKey(checked);
            if (txn.get(key) != null) {
                throw UniqueViolation.ofPrimaryKey(def, checked);
            }
        }
        checkUnique(txn, key, checked, null);
        txn.put(key, payload(checked));
        for (IndexDef index : def.indexes()) {
            txn.put(indexKey(index, key, checked), indexPayload(index, key, checked));
        }
        if (foreignKeys != null) {
            foreignKeys.afterInsert(txn, def, key, checked);
        }
        return checked;
    }

    /** Deletes a row of a table with a primary key. */
    public void delete(final TxnSession txn, final Object[] oldRow) {
        deleteAt(txn, primaryKey(oldRow), oldRow);
    }

    /** Deletes the row {@code oldRow} stored at {@code key}, with its index entries. */
    public void deleteAt(final TxnSession txn, final byte[] key, final Object[] oldRow) {
        txn.delete(key);
        for (IndexDef index : def.indexes()) {
            txn.delete(indexKey(index, key, oldRow));
        }
        if (foreignKeys != null) {
            foreignKeys.afterDelete(txn, def, oldRow);
        }
    }

    /** Updates a row of a table with a primary key (moving it when its key changes). */
    public void update(final TxnSession txn, final Object[] oldRow, final Object[] newRow) {
        updateAt(txn, primaryKey(oldRow), oldRow, newRow);
    }

    /**
     * Replaces the row {@code oldRow} stored at {@code oldKey} by {@code newRow}: at its new primary key, or at the
     * same hidden row id.
     */
    public Object[] updateAt(final TxnSession txn, final byte[] oldKey, final Object[] oldRow,
                             final Object[] newRow) {
        final Object[] checked = checkRow(newRow);
        final byte[] newKey = def.hiddenRowId() ? oldKey : primaryKey(checked);
        final boolean keyChanged = !Arrays.equals(oldKey, newKey);
        if (keyChanged) {
            if (txn.get(newKey) != null) {
                throw UniqueViolation.ofPrimaryKey(def, checked);
            }
        }
        checkUnique(txn, newKey, checked, oldRow);
        if (keyChanged) {
            txn.delete(oldKey);
        }
        txn.put(newKey, payload(checked));
        for (IndexDef index : def.indexes()) {
            final byte[] oldEntry = indexKey(index, oldKey, oldRow);
            final byte[] newEntry = indexKey(index, newKey, checked);
            if (!Arrays.equals(oldEntry, newEntry)) {
                txn.delete(oldEntry);
                txn.put(newEntry, indexPayload(index, newKey, checked));
            } else if (keyChanged && uniqueEntry(index, checked)) {
                txn.put(newEntry, indexPayload(index, newKey, checked)); // same value, the row moved
            }
        }
        if (foreignKeys != null) {
            foreignKeys.afterUpdate(txn, def, oldRow, newKey, checked);
        }
        return checked;
    }

    /**
     * The keys of {@code rows}, rows of this table without a primary key as a statement read them: one distinct key
     * per row, found by the row's stored form (rows alike in every column cannot be told apart, so any one of them
     * does). Reads the whole table once (as the statement that found the rows will mostly have done: such a table
     * has no key to narrow a scan with). SQLState 40001 when a row is no longer there.
     */
    public List<byte[]> locate(final TxnSession txn, final List<Object[]> rows) {
        final Map<ByteBuffer, ArrayDeque<byte[]>> wanted = new HashMap<>();
        final List<ByteBuffer> payloads = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            final ByteBuffer payload = ByteBuffer.wrap(payload(coerce(row)));
            payloads.add(payload);
            wanted.put(payload, new ArrayDeque<>());
        }
        final boolean altered = !def.layout().isCompact(def.columns(), def.primaryKey());
        forEachEntry(txn, prefix, KeyCodec.prefixEnd(prefix), kv -> {
            // a row written before ALTER TABLE has an older payload: compared in the form it has now
            final byte[] stored = altered ? payload(decodeRow(kv.key(), kv.value())) : kv.value();
            final ArrayDeque<byte[]> keys = wanted.get(ByteBuffer.wrap(stored));
            if (keys != null) {
                keys.add(kv.key());
            }
        });
        final List<byte[]> out = new ArrayList<>(rows.size());
        for (ByteBuffer payload : payloads) {
            final byte[] key = wanted.get(payload).poll();
            if (key == null) {
                throw new SqlStateException("40001", "a row of table \"" + def.name() + "\" changed while this "
                        + "statement ran; retry it");
            }
            out.add(key);
        }
        return out;
    }

    /** Calls {@code action} with every row of the table, in key order (primary key or hidden row id). */
    public void forEachRow(final TxnSession txn, final Consumer<Object[]> action) {
        forEachEntry(txn, prefix, KeyCodec.prefixEnd(prefix), kv -> action.accept(decodeRow(kv.key(), kv.value())));
    }

    /** Calls {@code action} with the key and the row of every row of the table, in key order. */
    public void forEachRow(final TxnSession txn, final BiConsumer<byte[], Object[]> action) {
        forEachEntry(txn, prefix, KeyCodec.prefixEnd(prefix),
                kv -> action.accept(kv.key(), decodeRow(kv.key(), kv.value())));
    }

    /** Calls {@code action} with every entry whose key is in [lo, hi), in batches of {@link #SCAN_BATCH}. */
    public static void forEachEntry(final TxnSession txn, final byte[] lo, final byte[] hi,
                                    final Consumer<KeyValue> action) {
        byte[] from = lo;
        boolean inclusive = true;
        while (true) {
            final List<KeyValue> batch = txn.scan(from, inclusive, hi, false, false, SCAN_BATCH);
            for (KeyValue kv : batch) {
                action.accept(kv);
            }
            if (batch.size() < SCAN_BATCH) {
                return;
            }
            from = batch.get(batch.size() - 1).key();
            inclusive = false;
        }
    }
}
