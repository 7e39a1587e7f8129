package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ByteReader;
import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.sql.codec.RowCodec;
import io.meldb.txn.KeyValue;
import io.meldb.txn.TxnSession;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Rows of one table in the tree: the key and payload of a row, its index entries, and the writes of INSERT,
 * UPDATE and DELETE, each keeping the secondary indexes in step within the same transaction.
 */
public final class TableStore {
    /** Rows are read from the tree in batches of this many keys. */
    public static final int SCAN_BATCH = 4096;
    private static final byte[] EMPTY = new byte[0];

    private final TableDef def;
    private final List<ColumnType> types;
    private final int[] valueColumns;
    private final byte[] prefix;

    public TableStore(final TableDef def) {
        this.def = def;
        this.types = def.columnTypes();
        this.valueColumns = def.valueColumns();
        this.prefix = Keys.dataPrefix(def.id());
    }

    public TableDef def() {
        return def;
    }

    public byte[] prefix() {
        return prefix;
    }

    public byte[] primaryKey(final Object[] row) {
        final ByteWriter out = new ByteWriter(prefix.length + 16);
        out.write(prefix);
        for (int c : def.primaryKey()) {
            KeyCodec.encode(out, types.get(c).type(), row[c]);
        }
        return out.toByteArray();
    }

    public byte[] indexKey(final IndexDef index, final Object[] row) {
        final ByteWriter out = new ByteWriter(32);
        out.write(Keys.dataPrefix(index.id()));
        for (int c : index.columns()) {
            KeyCodec.encode(out, types.get(c).type(), row[c]);
        }
        for (int c : def.primaryKey()) {
            KeyCodec.encode(out, types.get(c).type(), row[c]);
        }
        return out.toByteArray();
    }

    /** The row key that an index entry points to. */
    public byte[] rowKeyOfIndexEntry(final IndexDef index, final byte[] indexKey) {
        final ByteReader in = new ByteReader(indexKey, 5);
        for (int c : index.columns()) {
            KeyCodec.skip(in, types.get(c).type());
        }
        final ByteWriter out = new ByteWriter(prefix.length + indexKey.length - in.position());
        out.write(prefix).write(indexKey, in.position(), indexKey.length - in.position());
        return out.toByteArray();
    }

    /** A row (in-flight Java form, one slot per column) from its key and payload. */
    public Object[] decodeRow(final byte[] key, final byte[] payload) {
        final Object[] row = new Object[types.size()];
        final ByteReader in = new ByteReader(key, prefix.length);
        for (int c : def.primaryKey()) {
            row[c] = KeyCodec.decode(in, types.get(c).type(), types.get(c).scale());
        }
        RowCodec.decode(payload, types, valueColumns, row);
        return row;
    }

    /** Coerces every value to its column's type and checks NOT NULL. */
    public Object[] checkRow(final Object[] row) {
        if (row.length != types.size()) {
            throw new SqlStateException("21S01", "table " + def.name() + " has " + types.size()
                    + " columns, the row has " + row.length);
        }
        final Object[] out = new Object[row.length];
        for (int i = 0; i < row.length; i++) {
            out[i] = types.get(i).coerce(row[i]);
            if (out[i] == null && !def.columns().get(i).nullable()) {
                throw new SqlStateException("23502", "null value in column \"" + def.columns().get(i).name()
                        + "\" of table \"" + def.name() + "\" violates not-null constraint");
            }
        }
        return out;
    }

    public void insert(final TxnSession txn, final Object[] row) {
        final Object[] checked = checkRow(row);
        final byte[] key = primaryKey(checked);
        if (txn.get(key) != null) {
            throw duplicateKey(checked);
        }
        txn.put(key, RowCodec.encode(checked, types, valueColumns));
        for (IndexDef index : def.indexes()) {
            txn.put(indexKey(index, checked), EMPTY);
        }
    }

    public void delete(final TxnSession txn, final Object[] oldRow) {
        txn.delete(primaryKey(oldRow));
        for (IndexDef index : def.indexes()) {
            txn.delete(indexKey(index, oldRow));
        }
    }

    public void update(final TxnSession txn, final Object[] oldRow, final Object[] newRow) {
        final Object[] checked = checkRow(newRow);
        final byte[] oldKey = primaryKey(oldRow);
        final byte[] newKey = primaryKey(checked);
        final boolean keyChanged = !Arrays.equals(oldKey, newKey);
        if (keyChanged) {
            if (txn.get(newKey) != null) {
                throw duplicateKey(checked);
            }
            txn.delete(oldKey);
        }
        txn.put(newKey, RowCodec.encode(checked, types, valueColumns));
        for (IndexDef index : def.indexes()) {
            final byte[] oldEntry = indexKey(index, oldRow);
            final byte[] newEntry = indexKey(index, checked);
            if (!Arrays.equals(oldEntry, newEntry)) {
                txn.delete(oldEntry);
                txn.put(newEntry, EMPTY);
            }
        }
    }

    /** Calls {@code action} with every row of the table, in primary-key order. */
    public void forEachRow(final TxnSession txn, final Consumer<Object[]> action) {
        forEachEntry(txn, prefix, KeyCodec.prefixEnd(prefix), kv -> action.accept(decodeRow(kv.key(), kv.value())));
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

    private SqlStateException duplicateKey(final Object[] row) {
        final StringBuilder key = new StringBuilder();
        for (int c : def.primaryKey()) {
            if (key.length() > 0) {
                key.append(", ");
            }
            key.append(def.columns().get(c).name()).append('=').append(row[c]);
        }
        return new SqlStateException("23505", "duplicate key value violates primary key of table \"" + def.name()
                + "\": (" + key + ") already exists");
    }
}
