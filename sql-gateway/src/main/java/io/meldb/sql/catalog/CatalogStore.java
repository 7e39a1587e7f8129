package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.txn.KeyValue;
import io.meldb.txn.TxnSession;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Reads and changes the catalog prefix of the tree inside a transaction. DDL is an ordinary transaction: it
 * writes table definitions, allocates ids from a counter key and replaces the catalog-version token, so every
 * gateway and txn-server learns the change through meld, and two concurrent DDL transactions conflict.
 * Decoded catalogs are cached by version token (one catalog read per statement is then one key lookup).
 */
public final class CatalogStore {
    private static final int CACHE_SIZE = 32;

    private final Map<ByteBuffer, Catalog> cache = new LinkedHashMap<>(CACHE_SIZE, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<ByteBuffer, Catalog> eldest) {
            return size() > CACHE_SIZE;
        }
    };

    /** The catalog as {@code txn} sees it (including the transaction's own DDL). */
    public Catalog read(final TxnSession txn) {
        final byte[] version = txn.get(Keys.CATALOG_VERSION);
        if (version == null) {
            return Catalog.EMPTY;
        }
        final ByteBuffer token = ByteBuffer.wrap(version);
        synchronized (cache) {
            final Catalog cached = cache.get(token);
            if (cached != null) {
                return cached;
            }
        }
        final List<TableDef> tables = new ArrayList<>();
        TableStore.forEachEntry(txn, Keys.TABLES_PREFIX, KeyCodec.prefixEnd(Keys.TABLES_PREFIX),
                kv -> tables.add(TableDefCodec.decode(kv.value())));
        final Catalog catalog = new Catalog(tables);
        synchronized (cache) {
            cache.put(token, catalog);
        }
        return catalog;
    }

    /** Creates a table; returns false (and changes nothing) when it exists and {@code ifNotExists}. */
    public boolean createTable(final TxnSession txn, final String db, final String schema, final String name,
                               final List<ColumnDef> columns, final int[] primaryKey, final boolean ifNotExists) {
        if (read(txn).table(db, schema, name) != null) {
            if (ifNotExists) {
                return false;
            }
            throw new SqlStateException("42P07", "table \"" + name + "\" already exists");
        }
        final TableDef def = new TableDef(db, schema, name, nextId(txn), columns, primaryKey, List.of());
        txn.put(Keys.tableDefKey(db, schema, name), TableDefCodec.encode(def));
        bumpVersion(txn);
        return true;
    }

    /** Drops a table with its rows and index entries; returns false when absent and {@code ifExists}. */
    public boolean dropTable(final TxnSession txn, final String db, final String schema, final String name,
                             final boolean ifExists) {
        final TableDef def = read(txn).table(db, schema, name);
        if (def == null) {
            if (ifExists) {
                return false;
            }
            throw unknownTable(name);
        }
        deleteRange(txn, Keys.dataPrefix(def.id()));
        for (IndexDef index : def.indexes()) {
            deleteRange(txn, Keys.dataPrefix(index.id()));
        }
        txn.delete(Keys.tableDefKey(db, schema, name));
        bumpVersion(txn);
        return true;
    }

    /** Creates an index on {@code table} and fills it from the table's rows, in the same transaction. */
    public boolean createIndex(final TxnSession txn, final String db, final String schema, final String table,
                               final String indexName, final List<String> columnNames, final boolean ifNotExists) {
        final Catalog catalog = read(txn);
        final TableDef def = catalog.table(db, schema, table);
        if (def == null) {
            throw unknownTable(table);
        }
        if (findIndex(catalog, db, schema, indexName) != null) {
            if (ifNotExists) {
                return false;
            }
            throw new SqlStateException("42P07", "index \"" + indexName + "\" already exists");
        }
        final int[] columns = new int[columnNames.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = def.columnIndex(columnNames.get(i));
            if (columns[i] < 0) {
                throw new SqlStateException("42703", "column \"" + columnNames.get(i) + "\" of table \"" + table
                        + "\" does not exist");
            }
        }
        final IndexDef index = new IndexDef(indexName, nextId(txn), columns);
        final List<IndexDef> indexes = new ArrayList<>(def.indexes());
        indexes.add(index);
        final TableDef changed = def.withIndexes(indexes);
        final TableStore store = new TableStore(changed);
        final byte[] empty = new byte[0];
        store.forEachRow(txn, row -> txn.put(store.indexKey(index, row), empty));
        txn.put(Keys.tableDefKey(db, schema, table), TableDefCodec.encode(changed));
        bumpVersion(txn);
        return true;
    }

    public boolean dropIndex(final TxnSession txn, final String db, final String schema, final String indexName,
                             final boolean ifExists) {
        final Catalog catalog = read(txn);
        final TableDef def = findIndex(catalog, db, schema, indexName);
        if (def == null) {
            if (ifExists) {
                return false;
            }
            throw new SqlStateException("42704", "index \"" + indexName + "\" does not exist");
        }
        final IndexDef index = def.index(indexName);
        deleteRange(txn, Keys.dataPrefix(index.id()));
        final List<IndexDef> indexes = new ArrayList<>(def.indexes());
        indexes.remove(index);
        txn.put(Keys.tableDefKey(db, schema, def.name()), TableDefCodec.encode(def.withIndexes(indexes)));
        bumpVersion(txn);
        return true;
    }

    public static SqlStateException unknownTable(final String name) {
        return new SqlStateException("42P01", "table \"" + name + "\" does not exist");
    }

    private static TableDef findIndex(final Catalog catalog, final String db, final String schema,
                                      final String indexName) {
        for (TableDef t : catalog.tables(db, schema).values()) {
            if (t.index(indexName) != null) {
                return t;
            }
        }
        return null;
    }

    private static int nextId(final TxnSession txn) {
        final byte[] current = txn.get(Keys.NEXT_ID);
        final int id = current == null ? Keys.FIRST_ID : Keys.decodeInt(current);
        txn.put(Keys.NEXT_ID, Keys.encodeInt(id + 1));
        return id;
    }

    private static void bumpVersion(final TxnSession txn) {
        final UUID token = UUID.randomUUID();
        txn.put(Keys.CATALOG_VERSION, ByteBuffer.allocate(16).putLong(token.getMostSignificantBits())
                .putLong(token.getLeastSignificantBits()).array());
    }

    private static void deleteRange(final TxnSession txn, final byte[] prefix) {
        final List<byte[]> keys = new ArrayList<>();
        TableStore.forEachEntry(txn, prefix, KeyCodec.prefixEnd(prefix), (KeyValue kv) -> keys.add(kv.key()));
        for (byte[] key : keys) {
            txn.delete(key);
        }
        assert keys.stream().noneMatch(k -> !Arrays.equals(Arrays.copyOf(k, prefix.length), prefix));
    }
}
