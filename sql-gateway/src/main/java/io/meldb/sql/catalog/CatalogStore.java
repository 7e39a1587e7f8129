package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnSession;

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
 * CREATE and DROP SEQUENCE are {@link SequenceDdl}'s, indexes and UNIQUE constraints {@link IndexDdl}'s.
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
        final List<SequenceDef> sequences = new ArrayList<>();
        final List<ViewDef> views = new ArrayList<>();
        final Map<Integer, byte[]> layouts = new java.util.TreeMap<>();
        final Map<Long, String> comments = new java.util.TreeMap<>();
        TableStore.forEachEntry(txn, Keys.CATALOG_PREFIX, KeyCodec.prefixEnd(Keys.CATALOG_PREFIX), kv -> {
            switch (kv.key()[1]) {
                case 'D' -> databases.add(CatalogEntryCodec.decodeDatabase(kv.value()));
                case 'S' -> schemas.add(CatalogEntryCodec.decodeSchema(kv.value()));
                // 'L' sorts before 'T': a table's layout is known when its definition is read
                case 'L' -> layouts.put(Keys.decodeInt(Arrays.copyOfRange(kv.key(), 2, 6)), kv.value());
                case 'T' -> {
                    final TableDef t = TableDefCodec.decode(kv.value());
                    final byte[] layout = layouts.get(t.id());
                    tables.add(layout == null ? t : t.withLayout(RowLayout.decode(layout, t.columnTypes())));
                }
                case 'W' -> views.add(ViewDef.decode(kv.value()));
                case 'C' -> comments.put(Catalog.commentKey(Keys.decodeInt(Arrays.copyOfRange(kv.key(), 2, 6)),
                        Keys.decodeInt(Arrays.copyOfRange(kv.key(), 6, 10))),
                        new String(kv.value(), java.nio.charset.StandardCharsets.UTF_8));
                case 'Q' -> sequences.add(CatalogEntryCodec.decodeSequence(kv.value()));
                default -> {
                    // the id counter and the version token
                }
            }
        });
        final Catalog catalog = new Catalog(databases, schemas, tables, sequences, views, comments);
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
        final Map<String, ViewDef> views = catalog.views(db, name);
        if (!views.isEmpty()) {
            if (!cascade) {
                throw new SqlStateException("2BP01", "cannot drop schema \"" + name + "\" because other objects "
                        + "depend on it: view \"" + views.keySet().iterator().next() + "\" (drop it first, or use "
                        + "DROP SCHEMA ... CASCADE)");
            }
            for (ViewDef v : views.values()) {
                ViewDdl.dropView(txn, read(txn), v, true);
            }
        }
        final Map<String, TableDef> tables = catalog.tables(db, name);
        if (!tables.isEmpty()) {
            if (!cascade) {
                throw new SqlStateException("2BP01", "cannot drop schema \"" + name + "\" because other objects "
                        + "depend on it: " + tables.size() + " table(s), e.g. \"" + tables.keySet().iterator().next()
                        + "\" (drop them first, or use DROP SCHEMA ... CASCADE)");
            }
            final java.util.Set<Integer> ids = new java.util.TreeSet<>();
            tables.values().forEach(t -> ids.add(t.id()));
            ForeignKeyDdl.dropReferencing(txn, catalog, db, ids, true);
            for (String table : tables.keySet()) {
                dropTable(txn, db, name, table, false);
            }
        }
        for (SequenceDef q : catalog.sequences()) {
            if (q.db().equals(db) && q.schema().equals(name)) {
                if (!cascade && q.ownerTable() == null) {
                    throw new SqlStateException("2BP01", "cannot drop schema \"" + name + "\" because sequence \""
                            + q.name() + "\" depends on it (drop it first, or use DROP SCHEMA ... CASCADE)");
                }
                dropSequence(txn, q);
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
        return createTable(txn, db, schema, new Ddl.CreateTable(schema, name, columns, primaryKey, ifNotExists));
    }

    /**
     * Creates the table {@code c} describes in {@code schema}, with the sequences its SERIAL and identity columns
     * own ({@code <table>_<column>_seq}, numbered when the name is taken, as PostgreSQL does); returns false (and
     * changes nothing) when it exists and {@code ifNotExists}.
     */
    public boolean createTable(final TxnSession txn, final String db, final String schema, final Ddl.CreateTable c) {
        ensureDatabase(txn, db);
        final Catalog catalog = read(txn);
        requireSchema(catalog, db, schema);
        final String name = c.name();
        if (catalog.table(db, schema, name) != null || catalog.sequence(db, schema, name) != null
                || catalog.view(db, schema, name) != null) {
            if (ifNotExistsAndTable(catalog, db, schema, name, c.ifNotExists())) {
                return false;
            }
            throw new SqlStateException("42P07", "relation \"" + name + "\" already exists");
        }
        final List<ColumnDef> columns = new ArrayList<>(c.columns());
        final List<SequenceDef> owned = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            final ColumnDef col = columns.get(i);
            if (col.dflt() != null && col.dflt().needsSequence()) {
                final String base = name + "_" + col.name() + "_seq";
                String seqName = base;
                for (int n = 1; catalog.sequence(db, schema, seqName) != null
                        || catalog.table(db, schema, seqName) != null || containsName(owned, seqName); n++) {
                    seqName = base + n;
                }
                final Ddl.SequenceOptions options = c.sequenceOptions().get(i) == null
                        ? Ddl.SequenceOptions.NONE.withType(col.type().type()) : c.sequenceOptions().get(i);
                owned.add(Sequences.define(db, schema, seqName, nextId(txn), options, name, col.name()));
                columns.set(i, col.withDefault(ColumnDefault.nextval(schema, seqName)));
            } else if (col.dflt() != null && col.dflt().kind() == ColumnDefault.Kind.NEXTVAL) {
                final String seqSchema = col.dflt().sequenceSchema() == null ? schema : col.dflt().sequenceSchema();
                if (catalog.sequence(db, seqSchema, col.dflt().sequence()) == null) {
                    throw Sequences.unknown(col.dflt().sequence());
                }
                columns.set(i, col.withDefault(ColumnDefault.nextval(seqSchema, col.dflt().sequence())));
            }
        }
        final int id = nextId(txn);
        final List<IndexDef> uniques = IndexDdl.constraintIndexes(txn, catalog, db, schema, name, columns,
                c.uniques());
        final TableDef def = ForeignKeyDdl.attach(txn, catalog, new TableDef(db, schema, name, id, columns,
                c.primaryKey(), uniques, c.primaryKey().length == 0, c.checks()), c.foreignKeys());
        txn.put(Keys.tableDefKey(db, schema, name), TableDefCodec.encode(def));
        for (SequenceDef q : owned) {
            txn.put(Keys.sequenceKey(db, schema, q.name()), CatalogEntryCodec.encodeSequence(q));
        }
        bumpVersion(txn);
        return true;
    }

    private static boolean ifNotExistsAndTable(final Catalog catalog, final String db, final String schema,
                                               final String name, final boolean ifNotExists) {
        return ifNotExists && catalog.table(db, schema, name) != null;
    }

    private static boolean containsName(final List<SequenceDef> sequences, final String name) {
        for (SequenceDef q : sequences) {
            if (q.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    static void dropSequence(final TxnSession txn, final SequenceDef q) {
        txn.delete(Keys.sequenceKey(q.db(), q.schema(), q.name()));
        txn.delete(Keys.dataPrefix(q.id()));
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
        ViewDdl.dropDependents(txn, catalog, def.id(), "table", name, true);
        deleteRange(txn, Keys.dataPrefix(def.id()));
        for (IndexDef index : def.indexes()) {
            deleteRange(txn, Keys.dataPrefix(index.id()));
        }
        for (SequenceDef q : catalog.sequences()) {
            if (q.db().equals(db) && q.schema().equals(schema) && name.equals(q.ownerTable())) {
                dropSequence(txn, q); // the sequences its SERIAL and identity columns own go with it
            }
        }
        txn.delete(Keys.tableDefKey(db, schema, name));
        txn.delete(Keys.layoutKey(def.id()));
        deleteRange(txn, Keys.commentsPrefix(def.id()));
        bumpVersion(txn);
        return true;
    }

    /**
     * Drops several tables in one transaction, as {@code DROP TABLE a, b, c} does: every name is checked before
     * anything is dropped (SQLState 42P01 for a missing one unless {@code ifExists}, which skips it; 42809 for a
     * view). A view reading one of them, or a FOREIGN KEY of a table not dropped with them that references one, is
     * dropped with CASCADE and refuses the drop (2BP01) without. Answers how many tables it dropped.
     */
    public int dropTables(final TxnSession txn, final String db, final List<Ddl.TableName> tables,
                          final boolean ifExists) {
        return dropTables(txn, db, tables, ifExists, false);
    }

    /** {@link #dropTables(TxnSession, String, List, boolean)}, with CASCADE or RESTRICT. */
    public int dropTables(final TxnSession txn, final String db, final List<Ddl.TableName> tables,
                          final boolean ifExists, final boolean cascade) {
        ensureDatabase(txn, db);
        final Catalog catalog = read(txn);
        final List<Ddl.TableName> present = new ArrayList<>();
        for (Ddl.TableName t : tables) {
            if (!catalog.schemaNames(db).contains(t.schema())) {
                if (!ifExists) {
                    throw unknownSchema(t.schema());
                }
            } else if (catalog.table(db, t.schema(), t.name()) != null) {
                present.add(t);
            } else if (catalog.view(db, t.schema(), t.name()) != null) {
                throw new SqlStateException("42809", "\"" + t.name() + "\" is not a table (use DROP VIEW)");
            } else if (!ifExists) {
                throw unknownTable(t.name());
            }
        }
        final java.util.Set<Integer> ids = new java.util.TreeSet<>();
        for (Ddl.TableName t : present) {
            ids.add(catalog.table(db, t.schema(), t.name()).id());
        }
        ForeignKeyDdl.dropReferencing(txn, catalog, db, ids, cascade);
        for (Ddl.TableName t : present) {
            final TableDef def = catalog.table(db, t.schema(), t.name());
            ViewDdl.dropDependents(txn, catalog, def.id(), "table", t.name(), cascade);
        }
        int dropped = 0;
        for (Ddl.TableName t : present) {
            if (dropTable(txn, db, t.schema(), t.name(), true)) {
                dropped++; // false only for a table named twice
            }
        }
        return dropped;
    }

    /**
     * Deletes every row and index entry of each table ({@code TRUNCATE a, b}), as an ordinary transaction: the
     * tables' definitions and ids stay. Every key is read and deleted, so a large table takes as long as a DELETE
     * of all its rows (and its keys are held in memory until then); MeldDB has no storage-level truncate. Every
     * name is checked first (SQLState 42P01).
     */
    public void truncateTables(final TxnSession txn, final String db, final List<Ddl.TableName> tables,
                               final boolean restartIdentity) {
        truncateTables(txn, db, tables, restartIdentity, false);
    }

    /**
     * As {@link #truncateTables(TxnSession, String, List, boolean)}: a table referenced by a FOREIGN KEY of a table
     * not truncated with it is refused (0A000), unless {@code cascade}, which truncates the referencing tables too.
     */
    public void truncateTables(final TxnSession txn, final String db, final List<Ddl.TableName> tables,
                               final boolean restartIdentity, final boolean cascade) {
        final Catalog catalog = read(txn);
        final Map<Integer, TableDef> defs = new LinkedHashMap<>();
        for (Ddl.TableName t : tables) {
            requireSchema(catalog, db, t.schema());
            final TableDef def = catalog.table(db, t.schema(), t.name());
            if (def == null) {
                throw unknownTable(t.name());
            }
            if (restartIdentity) {
                for (SequenceDef q : catalog.sequences()) {
                    if (q.db().equals(db) && q.schema().equals(t.schema()) && t.name().equals(q.ownerTable())) {
                        // other gateways may still hold reserved ranges of the old run: restarting could hand out
                        // values they still will
                        throw new SqlStateException("0A000", "TRUNCATE ... RESTART IDENTITY is not supported for "
                                + "table \"" + t.name() + "\", which owns sequence \"" + q.name() + "\" (use "
                                + "CONTINUE IDENTITY)");
                    }
                }
            }
            defs.put(def.id(), def);
        }
        ForeignKeyDdl.truncateReferencing(catalog, defs, cascade);
        for (TableDef def : defs.values()) {
            deleteRange(txn, Keys.dataPrefix(def.id()));
            for (IndexDef index : def.indexes()) {
                deleteRange(txn, Keys.dataPrefix(index.id()));
            }
        }
    }

    /**
     * {@code ALTER TABLE t ADD [CONSTRAINT name] PRIMARY KEY (columns)} on a table created without one: rewrites
     * every row (and index entry) from its hidden row id to the new key in this transaction, and makes the key's
     * columns NOT NULL. SQLState 42P16 when the table has a primary key already, 42703 for an unknown column,
     * 42701 for a column named twice, 23502 when a key column of some row is NULL, 23505 when two rows have the
     * same key. The constraint's name ({@code constraint}, or null for PostgreSQL's default {@code table_pkey})
     * only names it in errors; it is not kept. Returns false (and changes nothing) when the table does not exist
     * and {@code ifExists}.
     */
    public boolean addPrimaryKey(final TxnSession txn, final String db, final String schema, final String table,
                                 final String constraint, final List<String> columnNames, final boolean ifExists) {
        ensureDatabase(txn, db);
        final Catalog catalog = read(txn);
        final TableDef def = tableToAlter(catalog, db, schema, table, ifExists);
        if (def == null) {
            return false;
        }
        if (!def.hiddenRowId()) {
            throw new SqlStateException("42P16", "multiple primary keys for table \"" + table
                    + "\" are not allowed");
        }
        final int[] pk = new int[columnNames.size()];
        for (int i = 0; i < pk.length; i++) {
            pk[i] = def.columnIndex(columnNames.get(i));
            if (pk[i] < 0) {
                throw new SqlStateException("42703", "column \"" + columnNames.get(i) + "\" named in key does not "
                        + "exist");
            }
            for (int j = 0; j < i; j++) {
                if (pk[j] == pk[i]) {
                    throw new SqlStateException("42701", "column \"" + columnNames.get(i) + "\" appears twice in "
                            + "primary key constraint");
                }
            }
        }
        final TableDef keyed = def.withPrimaryKey(pk);
        final TableStore from = new TableStore(def);
        final TableStore to = new TableStore(keyed);
        // the row-id keys are a range of their own (RowIds): the new keys written here never fall into the range
        // being read
        final byte[] prefix = Keys.dataPrefix(def.id());
        TableStore.forEachEntry(txn, RowIds.rangeStart(prefix), RowIds.rangeEnd(prefix), kv -> {
            final Object[] row = from.decodeRow(kv.key(), kv.value());
            for (int c : pk) {
                if (row[c] == null) {
                    throw AlterTableDdl.containsNulls(def, def.columns().get(c).name());
                }
            }
            from.deleteAt(txn, kv.key(), row);
            try {
                to.insert(txn, row);
            } catch (SqlStateException e) {
                if (!e.sqlState().equals("23505")) {
                    throw e;
                }
                throw UniqueViolation.duplicated(def, constraint != null ? constraint : table + "_pkey", pk, row);
            }
        });
        putTable(txn, keyed);
        bumpVersion(txn);
        return true;
    }

    /**
     * The table a statement alters: its definition, or null when there is none and {@code ifExists} (PostgreSQL skips
     * it with a notice); otherwise 3F000 for an unknown schema, 42P01 for an unknown table.
     */
    static TableDef tableToAlter(final Catalog catalog, final String db, final String schema, final String table,
                                 final boolean ifExists) {
        final TableDef def = catalog.schemaNames(db).contains(schema) ? catalog.table(db, schema, table) : null;
        if (def == null && !ifExists) {
            requireSchema(catalog, db, schema);
            throw unknownTable(table);
        }
        return def;
    }

    /** Writes a table's definition and its row layout (an entry of its own unless compact). */
    static void putTable(final TxnSession txn, final TableDef def) {
        txn.put(Keys.tableDefKey(def.db(), def.schema(), def.name()), TableDefCodec.encode(def));
        if (def.layout().isCompact(def.columns(), def.primaryKey())) {
            txn.delete(Keys.layoutKey(def.id()));
        } else {
            txn.put(Keys.layoutKey(def.id()), def.layout().encode(def.columnTypes()));
        }
    }

    public static SqlStateException unknownSchema(final String name) {
        return new SqlStateException("3F000", "schema \"" + name + "\" does not exist");
    }

    static void requireSchema(final Catalog catalog, final String db, final String schema) {
        if (!catalog.schemaNames(db).contains(schema)) {
            throw unknownSchema(schema);
        }
    }

    public static SqlStateException unknownTable(final String name) {
        return new SqlStateException("42P01", "table \"" + name + "\" does not exist");
    }

    static int nextId(final TxnSession txn) {
        final byte[] current = txn.get(Keys.NEXT_ID);
        final int id = current == null ? Keys.FIRST_ID : Keys.decodeInt(current);
        txn.put(Keys.NEXT_ID, Keys.encodeInt(id + 1));
        return id;
    }

    static void bumpVersion(final TxnSession txn) {
        final UUID token = UUID.randomUUID();
        txn.put(Keys.CATALOG_VERSION, ByteBuffer.allocate(16).putLong(token.getMostSignificantBits())
                .putLong(token.getLeastSignificantBits()).array());
    }

    static void deleteRange(final TxnSession txn, final byte[] prefix) {
        final List<byte[]> keys = new ArrayList<>();
        TableStore.forEachEntry(txn, prefix, KeyCodec.prefixEnd(prefix), (KeyValue kv) -> keys.add(kv.key()));
        for (byte[] key : keys) {
            txn.delete(key);
        }
        assert keys.stream().noneMatch(k -> !Arrays.equals(Arrays.copyOf(k, prefix.length), prefix));
    }
}
