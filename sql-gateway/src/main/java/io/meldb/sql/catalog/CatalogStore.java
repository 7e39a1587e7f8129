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
 * writes database, schema and table entries, allocates ids from a counter key and replaces the catalog-version
 * token, so every gateway and txn-server learns the change through meld, and two concurrent DDL transactions
 * conflict (both read and write the version key). Every DDL first makes sure the database entry and its
 * {@link Catalog#PUBLIC} schema exist ({@link #ensureDatabase}), as the gateway's bootstrap transaction does.
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
        final List<String> databases = new ArrayList<>();
        final List<SchemaDef> schemas = new ArrayList<>();
        final List<TableDef> tables = new ArrayList<>();
        TableStore.forEachEntry(txn, Keys.CATALOG_PREFIX, KeyCodec.prefixEnd(Keys.CATALOG_PREFIX), kv -> {
            switch (kv.key()[1]) {
                case 'D' -> databases.add(CatalogEntryCodec.decodeDatabase(kv.value()));
                case 'S' -> schemas.add(CatalogEntryCodec.decodeSchema(kv.value()));
                case 'T' -> tables.add(TableDefCodec.decode(kv.value()));
                default -> {
                    // the id counter and the version token
                }
            }
        });
        final Catalog catalog = new Catalog(databases, schemas, tables);
        synchronized (cache) {
            cache.put(token, catalog);
        }
        return catalog;
    }

    /**
     * Writes the entries of database {@code db} and of its schema {@link Catalog#PUBLIC} unless they exist.
     * Idempotent; returns whether it wrote anything.
     */
    public boolean ensureDatabase(final TxnSession txn, final String db) {
        final Catalog catalog = read(txn);
        boolean changed = false;
        if (!catalog.hasDatabase(db)) {
            txn.put(Keys.databaseKey(db), CatalogEntryCodec.encodeDatabase(db));
            changed = true;
        }
        if (!catalog.hasSchema(db, Catalog.PUBLIC)) {
            txn.put(Keys.schemaKey(db, Catalog.PUBLIC),
                    CatalogEntryCodec.encodeSchema(new SchemaDef(db, Catalog.PUBLIC)));
            changed = true;
        }
        if (changed) {
            bumpVersion(txn);
        }
        return changed;
    }

    /** Creates a schema; returns false (and changes nothing) when it exists and {@code ifNotExists}. */
    public boolean createSchema(final TxnSession txn, final String db, final String name, final boolean ifNotExists) {
        ensureDatabase(txn, db);
        if (read(txn).hasSchema(db, name)) {
            if (ifNotExists) {
                return false;
            }
            throw new SqlStateException("42P06", "schema \"" + name + "\" already exists");
        }
        txn.put(Keys.schemaKey(db, name), CatalogEntryCodec.encodeSchema(new SchemaDef(db, name)));
        bumpVersion(txn);
        return true;
    }

    /**
     * Drops a schema; refuses one that still has tables unless {@code cascade} (then drops them with it), and
     * always refuses {@link Catalog#PUBLIC}. Returns false when absent and {@code ifExists}.
     */
    public boolean dropSchema(final TxnSession txn, final String db, final String name, final boolean ifExists,
                              final boolean cascade) {
        ensureDatabase(txn, db);
        if (name.equals(Catalog.PUBLIC)) {
            throw new SqlStateException("2BP01", "cannot drop schema \"" + name + "\": MeldDB requires it "
                    + "(unqualified names resolve in it)");
        }
        final Catalog catalog = read(txn);
        if (!catalog.hasSchema(db, name)) {
            if (ifExists) {
                return false;
            }
            throw unknownSchema(name);
        }
        final Map<String, TableDef> tables = catalog.tables(db, name);
        if (!tables.isEmpty()) {
            if (!cascade) {
                throw new SqlStateException("2BP01", "cannot drop schema \"" + name + "\" because other objects "
                        + "depend on it: " + tables.size() + " table(s), e.g. \"" + tables.keySet().iterator().next()
                        + "\" (drop them first, or use DROP SCHEMA ... CASCADE)");
            }
            for (String table : tables.keySet()) {
                dropTable(txn, db, name, table, false);
            }
        }
        txn.delete(Keys.schemaKey(db, name));
        bumpVersion(txn);
        return true;
    }

    /**
     * Creates a table; returns false (and changes nothing) when it exists and {@code ifNotExists}. An empty
     * {@code primaryKey} makes a table whose rows are keyed by a hidden row id ({@link RowIds}).
     */
    public boolean createTable(final TxnSession txn, final String db, final String schema, final String name,
                               final List<ColumnDef> columns, final int[] primaryKey, final boolean ifNotExists) {
        ensureDatabase(txn, db);
        requireSchema(read(txn), db, schema);
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
        ensureDatabase(txn, db);
        final Catalog catalog = read(txn);
        if (!catalog.hasSchema(db, schema) && ifExists) {
            return false;
        }
        requireSchema(catalog, db, schema);
        final TableDef def = catalog.table(db, schema, name);
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
        ensureDatabase(txn, db);
        final Catalog catalog = read(txn);
        requireSchema(catalog, db, schema);
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
        store.forEachRow(txn, (key, row) -> txn.put(store.indexKey(index, key, row), empty));
        txn.put(Keys.tableDefKey(db, schema, table), TableDefCodec.encode(changed));
        bumpVersion(txn);
        return true;
    }

    public boolean dropIndex(final TxnSession txn, final String db, final String schema, final String indexName,
                             final boolean ifExists) {
        ensureDatabase(txn, db);
        final Catalog catalog = read(txn);
        if (!catalog.hasSchema(db, schema) && ifExists) {
            return false;
        }
        requireSchema(catalog, db, schema);
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

    public static SqlStateException unknownSchema(final String name) {
        return new SqlStateException("3F000", "schema \"" + name + "\" does not exist");
    }

    private static void requireSchema(final Catalog catalog, final String db, final String schema) {
        if (!catalog.schemaNames(db).contains(schema)) {
            throw unknownSchema(schema);
        }
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
