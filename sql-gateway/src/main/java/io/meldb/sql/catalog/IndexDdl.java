package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Indexes and UNIQUE constraints as transactions on the catalog tree, as {@link CatalogStore} runs the other DDL:
 * {@code CREATE [UNIQUE] INDEX}, {@code DROP INDEX}, {@code ALTER TABLE ... ADD UNIQUE} and {@code DROP CONSTRAINT},
 * and the indexes of the UNIQUE constraints of {@code CREATE TABLE}. A new index is filled from the table's rows in
 * the same transaction; a unique one over rows that hold a value twice is refused (23505). Index names share the
 * schema's namespace with tables and sequences (42P07), as relations do in PostgreSQL.
 */
public final class IndexDdl {
    private final CatalogStore store;

    public IndexDdl(final CatalogStore store) {
        this.store = store;
    }

    /** {@code CREATE [UNIQUE] INDEX}; returns false (and changes nothing) when it exists and {@code ifNotExists}. */
    public boolean createIndex(final TxnSession txn, final String db, final String schema, final String table,
                               final String indexName, final List<String> columnNames, final boolean ifNotExists,
                               final boolean unique) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        CatalogStore.requireSchema(catalog, db, schema);
        final TableDef def = catalog.table(db, schema, table);
        if (def == null) {
            throw CatalogStore.unknownTable(table);
        }
        if (relationExists(catalog, db, schema, indexName)) {
            if (ifNotExists && findIndex(catalog, db, schema, indexName) != null) {
                return false;
            }
            throw new SqlStateException("42P07", "relation \"" + indexName + "\" already exists");
        }
        addIndex(txn, db, def, new IndexDef(indexName, CatalogStore.nextId(txn), columns(def, columnNames, false),
                unique, false));
        return true;
    }

    /**
     * {@code ALTER TABLE t ADD [CONSTRAINT name] UNIQUE (columns)}: a unique index named as the constraint (or
     * {@code <table>_<columns>_key}), filled from the rows (23505 when two hold the same value). Returns false when
     * the table does not exist and {@code ifExists}.
     */
    public boolean addUnique(final TxnSession txn, final String db, final String schema, final String table,
                             final Ddl.Unique unique, final boolean ifExists) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        final TableDef def = CatalogStore.tableToAlter(catalog, db, schema, table, ifExists);
        if (def == null) {
            return false;
        }
        final List<IndexDef> made = constraintIndexes(txn, catalog, db, schema, table, def.columns(),
                List.of(unique));
        addIndex(txn, db, def, made.get(0));
        return true;
    }

    /** Adds {@code index} to {@code def} and writes an entry for every row. */
    private void addIndex(final TxnSession txn, final String db, final TableDef def, final IndexDef index) {
        final List<IndexDef> indexes = new ArrayList<>(def.indexes());
        indexes.add(index);
        final TableDef changed = def.withIndexes(indexes);
        final TableStore rows = new TableStore(changed);
        final byte[] empty = new byte[0];
        rows.forEachRow(txn, (key, row) -> {
            final byte[] entry = rows.indexKey(index, key, row);
            if (TableStore.uniqueEntry(index, row)) {
                if (txn.get(entry) != null) {
                    throw UniqueViolation.duplicated(def, index, row);
                }
                txn.put(entry, Arrays.copyOfRange(key, rows.prefix().length, key.length));
            } else {
                txn.put(entry, empty);
            }
        });
        txn.put(Keys.tableDefKey(db, def.schema(), def.name()), TableDefCodec.encode(changed));
        CatalogStore.bumpVersion(txn);
    }

    /**
     * The indexes of the UNIQUE constraints {@code uniques} of table {@code table} with {@code columns}, each with
     * a new id and its name: as given, or PostgreSQL's {@code <table>_<column>[_<column>...]_key}, numbered when a
     * relation of the schema (or an earlier constraint here) holds it. 42703 for an unknown column, 42701 for a
     * column named twice, 42P07 for a given name that is taken.
     */
    static List<IndexDef> constraintIndexes(final TxnSession txn, final Catalog catalog, final String db,
                                            final String schema, final String table, final List<ColumnDef> columns,
                                            final List<Ddl.Unique> uniques) {
        final List<IndexDef> out = new ArrayList<>();
        final Set<String> taken = new HashSet<>();
        final TableDef shape = new TableDef(db, schema, table, 0, columns, new int[0], List.of());
        for (Ddl.Unique u : uniques) {
            final int[] cols = columns(shape, u.columns(), true);
            String name = u.name();
            if (name != null) {
                if (taken.contains(name) || relationExists(catalog, db, schema, name) || name.equals(table)) {
                    throw new SqlStateException("42P07", "relation \"" + name + "\" already exists");
                }
            } else {
                final StringBuilder base = new StringBuilder(table);
                for (String c : u.columns()) {
                    base.append('_').append(c);
                }
                base.append("_key");
                name = base.toString();
                for (int n = 1; taken.contains(name) || relationExists(catalog, db, schema, name); n++) {
                    name = base.toString() + n;
                }
            }
            taken.add(name);
            out.add(new IndexDef(name, CatalogStore.nextId(txn), cols, true, true));
        }
        return out;
    }

    /** {@code DROP INDEX}; refuses the index of a UNIQUE constraint (2BP01), as PostgreSQL does. */
    public boolean dropIndex(final TxnSession txn, final String db, final String schema, final String indexName,
                             final boolean ifExists) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        if (!catalog.hasSchema(db, schema) && ifExists) {
            return false;
        }
        CatalogStore.requireSchema(catalog, db, schema);
        final TableDef def = findIndex(catalog, db, schema, indexName);
        if (def == null) {
            if (ifExists) {
                return false;
            }
            throw new SqlStateException("42704", "index \"" + indexName + "\" does not exist");
        }
        final IndexDef index = def.index(indexName);
        if (index.hidden()) {
            throw new SqlStateException("42704", "index \"" + indexName + "\" does not exist");
        }
        if (index.unique()) {
            ForeignKeyDdl.requireUnreferenced(catalog, def, index);
        }
        if (index.constraint()) {
            throw new SqlStateException("2BP01", "cannot drop index " + indexName + " because constraint "
                    + indexName + " on table " + def.name() + " requires it (use ALTER TABLE " + def.name()
                    + " DROP CONSTRAINT " + indexName + ")");
        }
        removeIndex(txn, db, def, index);
        return true;
    }

    /**
     * {@code ALTER TABLE t DROP CONSTRAINT name} of a UNIQUE constraint, with its index, a FOREIGN KEY, or the
     * primary key ({@link PrimaryKeyDrop}). 42704 when the table has no such constraint (unless
     * {@code constraintIfExists}). CHECK constraints are dropped by ALTER TABLE's own actions before this.
     */
    public boolean dropConstraint(final TxnSession txn, final String db, final String schema, final String table,
                                  final String constraint, final boolean ifExists,
                                  final boolean constraintIfExists) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        final TableDef def = CatalogStore.tableToAlter(catalog, db, schema, table, ifExists);
        if (def == null) {
            return false;
        }
        if (ForeignKeyDdl.has(def, constraint)) {
            ForeignKeyDdl.drop(txn, db, def, constraint);
            return true;
        }
        final IndexDef index = def.index(constraint);
        if (index != null && index.constraint()) {
            ForeignKeyDdl.requireUnreferenced(catalog, def, index);
        }
        if (index == null || !index.constraint()) {
            if (constraint.equals(table + "_pkey") && !def.hiddenRowId()) {
                PrimaryKeyDrop.drop(txn, catalog, db, def);
                return true;
            }
            if (def.checks().stream().anyMatch(c -> c.name().equals(constraint))) {
                throw new SqlStateException("0A000", "only UNIQUE, FOREIGN KEY and PRIMARY KEY constraints can be "
                        + "dropped here, not \"" + constraint + "\"");
            }
            if (constraintIfExists) {
                return false;
            }
            throw new SqlStateException("42704", "constraint \"" + constraint + "\" of relation \"" + table
                    + "\" does not exist");
        }
        removeIndex(txn, db, def, index);
        return true;
    }

    private static void removeIndex(final TxnSession txn, final String db, final TableDef def, final IndexDef index) {
        CatalogStore.deleteRange(txn, Keys.dataPrefix(index.id()));
        final List<IndexDef> indexes = new ArrayList<>(def.indexes());
        indexes.remove(index);
        txn.put(Keys.tableDefKey(db, def.schema(), def.name()), TableDefCodec.encode(def.withIndexes(indexes)));
        CatalogStore.bumpVersion(txn);
    }

    /**
     * Positions of the named columns; 42703 for an unknown one, and for a constraint ({@code once}) 42701 for one
     * named twice (PostgreSQL lets a plain index name a column twice).
     */
    private static int[] columns(final TableDef def, final List<String> names, final boolean once) {
        final int[] columns = new int[names.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = def.columnIndex(names.get(i));
            if (columns[i] < 0) {
                throw new SqlStateException("42703", "column \"" + names.get(i) + "\" of table \"" + def.name()
                        + "\" does not exist");
            }
            for (int j = 0; once && j < i; j++) {
                if (columns[j] == columns[i]) {
                    throw new SqlStateException("42701", "column \"" + names.get(i) + "\" appears twice in unique "
                            + "constraint");
                }
            }
        }
        return columns;
    }

    /** Whether a table, sequence or index of the schema is named {@code name}. */
    private static boolean relationExists(final Catalog catalog, final String db, final String schema,
                                          final String name) {
        return catalog.table(db, schema, name) != null || catalog.sequence(db, schema, name) != null
                || findIndex(catalog, db, schema, name) != null;
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
}
