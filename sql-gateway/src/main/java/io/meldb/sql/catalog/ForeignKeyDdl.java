package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.SqlType;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * FOREIGN KEY constraints as transactions on the catalog tree: those of {@code CREATE TABLE}, {@code ALTER TABLE
 * ... ADD [CONSTRAINT name] FOREIGN KEY} (the existing rows are checked, 23503 for the first without a parent) and
 * {@code DROP CONSTRAINT}. A constraint is resolved here: the parent (42P01), the columns (42703), the referenced
 * columns, which must be the parent's primary key or a UNIQUE constraint's (42830), matching types (42804), its
 * name ({@code <table>_<columns>_fkey} by default, numbered when taken; 42710 when a given one is). Its children are
 * found through the child's primary key when that starts with the referencing columns, else through a hidden
 * index on them made here and filled from the rows.
 */
public final class ForeignKeyDdl {
    private final CatalogStore store;

    public ForeignKeyDdl(final CatalogStore store) {
        this.store = store;
    }

    /**
     * {@code def} (a table being created, not yet in {@code catalog}) with the constraints {@code foreignKeys}; a
     * constraint may reference {@code def} itself.
     */
    static TableDef attach(final TxnSession txn, final Catalog catalog, final TableDef def,
                           final List<Ddl.ForeignKey> foreignKeys) {
        TableDef out = def;
        for (Ddl.ForeignKey fk : foreignKeys) {
            out = resolve(txn, catalog, out, fk);
        }
        return out;
    }

    /** {@code ALTER TABLE ... ADD FOREIGN KEY}; returns false when the table is absent and {@code ifExists}. */
    public boolean addForeignKey(final TxnSession txn, final String db, final String schema, final String table,
                                 final Ddl.ForeignKey fk, final boolean ifExists) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        final TableDef def = CatalogStore.tableToAlter(catalog, db, schema, table, ifExists);
        if (def == null) {
            return false;
        }
        final TableDef changed = resolve(txn, catalog, def, fk);
        final ForeignKeyDef added = changed.foreignKeys().get(changed.foreignKeys().size() - 1);
        final TableDef parent = added.parentId() == def.id() ? changed : catalog.tableById(added.parentId());
        final TableStore rows = new TableStore(changed);
        final IndexDef index = added.usesPrimaryKey() ? null : ForeignKeys.indexById(changed, added.indexId());
        final byte[] empty = new byte[0];
        rows.forEachRow(txn, (key, row) -> {
            if (index != null) {
                txn.put(rows.indexKey(index, key, row), empty);
            }
            for (int c : added.columns()) {
                if (row[c] == null) {
                    return;
                }
            }
            if (txn.get(ForeignKeys.parentKey(parent, added, row)) == null) {
                throw ForeignKeyViolation.missingParent(changed, added, parent, row);
            }
        });
        txn.put(Keys.tableDefKey(db, schema, table), TableDefCodec.encode(changed));
        CatalogStore.bumpVersion(txn);
        return true;
    }

    /** Whether {@code def} has a FOREIGN KEY constraint named {@code name}. */
    static boolean has(final TableDef def, final String name) {
        return find(def, name) != null;
    }

    static ForeignKeyDef find(final TableDef def, final String name) {
        for (ForeignKeyDef fk : def.foreignKeys()) {
            if (fk.name().equals(name)) {
                return fk;
            }
        }
        return null;
    }

    /** {@code def} without its constraint {@code name} (and the hidden index it made). */
    static TableDef without(final TxnSession txn, final TableDef def, final String name) {
        final ForeignKeyDef fk = find(def, name);
        final List<ForeignKeyDef> fks = new ArrayList<>(def.foreignKeys());
        fks.remove(fk);
        final List<IndexDef> indexes = new ArrayList<>(def.indexes());
        if (!fk.usesPrimaryKey()) {
            final IndexDef index = ForeignKeys.indexById(def, fk.indexId());
            if (index.hidden()) {
                indexes.remove(index);
                CatalogStore.deleteRange(txn, Keys.dataPrefix(index.id()));
            }
        }
        return def.withForeignKeys(fks, indexes);
    }

    /** {@code ALTER TABLE ... DROP CONSTRAINT} of a foreign key. */
    static void drop(final TxnSession txn, final String db, final TableDef def, final String name) {
        txn.put(Keys.tableDefKey(db, def.schema(), def.name()), TableDefCodec.encode(without(txn, def, name)));
        CatalogStore.bumpVersion(txn);
    }

    /**
     * 2BP01 unless {@code cascade}: the constraints of tables outside {@code dropped} that reference one of them
     * ({@code DROP TABLE}); with it, drops those constraints. Answers whether it changed a definition.
     */
    static void dropReferencing(final TxnSession txn, final Catalog catalog, final String db,
                                final Set<Integer> dropped, final boolean cascade) {
        for (int parentId : dropped) {
            for (ForeignKeys.Reference r : catalog.foreignKeys().referencing(parentId)) {
                if (dropped.contains(r.child().id())) {
                    continue;
                }
                final TableDef parent = catalog.tableById(parentId);
                if (!cascade) {
                    throw new SqlStateException("2BP01", "cannot drop table " + parent.name() + " because other "
                            + "objects depend on it", "constraint " + r.foreignKey().name() + " on table "
                            + r.child().name() + " depends on table " + parent.name(), null);
                }
                final TableDef current = store(txn, catalog, db, r.child());
                txn.put(Keys.tableDefKey(db, current.schema(), current.name()),
                        TableDefCodec.encode(without(txn, current, r.foreignKey().name())));
            }
        }
    }

    /** The child's definition as this transaction last wrote it (it may have lost a constraint already). */
    static TableDef store(final TxnSession txn, final Catalog catalog, final String db, final TableDef child) {
        final byte[] bytes = txn.get(Keys.tableDefKey(db, child.schema(), child.name()));
        return bytes == null ? child : TableDefCodec.decode(bytes);
    }

    /**
     * {@code TRUNCATE}: 0A000 when a table outside {@code truncated} references one of them, as PostgreSQL refuses
     * it ("cannot truncate a table referenced in a foreign key constraint"); with {@code cascade}, the referencing
     * tables are added to {@code truncated} (and theirs, transitively).
     */
    static void truncateReferencing(final Catalog catalog, final java.util.Map<Integer, TableDef> truncated,
                                    final boolean cascade) {
        final List<TableDef> work = new ArrayList<>(truncated.values());
        while (!work.isEmpty()) {
            final TableDef parent = work.remove(work.size() - 1);
            for (ForeignKeys.Reference r : catalog.foreignKeys().referencing(parent.id())) {
                if (truncated.containsKey(r.child().id())) {
                    continue;
                }
                if (!cascade) {
                    throw new SqlStateException("0A000", "cannot truncate a table referenced in a foreign key "
                            + "constraint", "Table \"" + r.child().name() + "\" references \"" + parent.name()
                            + "\". Truncate table \"" + r.child().name() + "\" at the same time, or use TRUNCATE ... "
                            + "CASCADE.", null);
                }
                truncated.put(r.child().id(), r.child());
                work.add(r.child());
            }
        }
    }

    /**
     * 2BP01 when a foreign key references the unique index {@code index} of {@code def} (DROP CONSTRAINT or DROP
     * INDEX of it).
     */
    static void requireUnreferenced(final Catalog catalog, final TableDef def, final IndexDef index) {
        for (ForeignKeys.Reference r : catalog.foreignKeys().referencing(def.id())) {
            if (ForeignKeys.sameSet(index.columns(), r.foreignKey().parentColumns())
                    && !ForeignKeys.sameSet(def.primaryKey(), r.foreignKey().parentColumns())) {
                throw new SqlStateException("2BP01", "cannot drop constraint " + index.name() + " on table "
                        + def.name() + " because other objects depend on it", "constraint " + r.foreignKey().name()
                        + " on table " + r.child().name() + " depends on index " + index.name(), null);
            }
        }
    }

    private static TableDef resolve(final TxnSession txn, final Catalog catalog, final TableDef child,
                                    final Ddl.ForeignKey fk) {
        final String parentSchema = fk.parent().schema() == null ? Catalog.PUBLIC : fk.parent().schema();
        final boolean self = parentSchema.equals(child.schema()) && fk.parent().name().equals(child.name());
        final TableDef parent = self ? child : catalog.table(child.db(), parentSchema, fk.parent().name());
        if (parent == null) {
            throw new SqlStateException("42P01", "relation \"" + fk.parent().name() + "\" does not exist");
        }
        final int[] columns = columns(child, fk.columns());
        final int[] parentColumns;
        if (fk.parentColumns().isEmpty()) {
            if (parent.hiddenRowId()) {
                throw new SqlStateException("42830", "there is no primary key for referenced table \""
                        + parent.name() + "\"");
            }
            parentColumns = parent.primaryKey().clone();
        } else {
            parentColumns = columns(parent, fk.parentColumns());
        }
        if (parentColumns.length != columns.length) {
            throw new SqlStateException("42830", "number of referencing and referenced columns for foreign key "
                    + "disagree");
        }
        if (!ForeignKeys.sameSet(parent.primaryKey(), parentColumns)
                && parent.indexes().stream().noneMatch(i -> i.unique() && ForeignKeys.sameSet(i.columns(),
                parentColumns))) {
            throw new SqlStateException("42830", "there is no unique constraint matching given keys for referenced "
                    + "table \"" + parent.name() + "\"");
        }
        final Set<String> names = new HashSet<>();
        for (ForeignKeyDef f : child.foreignKeys()) {
            names.add(f.name());
        }
        for (CheckDef c : child.checks()) {
            names.add(c.name());
        }
        for (IndexDef i : child.indexes()) {
            names.add(i.name());
        }
        String name = fk.name();
        if (name == null) {
            final StringBuilder base = new StringBuilder(child.name());
            for (String c : fk.columns()) {
                base.append('_').append(c);
            }
            base.append("_fkey");
            name = base.toString();
            for (int n = 1; names.contains(name); n++) {
                name = base.toString() + n;
            }
        } else if (names.contains(name)) {
            throw new SqlStateException("42710", "constraint \"" + name + "\" for relation \"" + child.name()
                    + "\" already exists");
        }
        for (int i = 0; i < columns.length; i++) {
            final var a = child.columns().get(columns[i]);
            final var b = parent.columns().get(parentColumns[i]);
            if (a.type().type() != b.type().type()
                    || a.type().type() == SqlType.DECIMAL && a.type().scale() != b.type().scale()) {
                throw new SqlStateException("42804", "foreign key constraint \"" + name + "\" cannot be "
                        + "implemented", "Key columns \"" + a.name() + "\" and \"" + b.name() + "\" are of "
                        + "incompatible types: " + a.type().type().name().toLowerCase() + " and "
                        + b.type().type().name().toLowerCase() + ".", null);
            }
        }
        final List<IndexDef> indexes = new ArrayList<>(child.indexes());
        int indexId = 0;
        if (!startsWith(child.primaryKey(), columns)) {
            indexId = CatalogStore.nextId(txn);
            indexes.add(new IndexDef(name, indexId, columns, false, false, true));
        }
        final List<ForeignKeyDef> fks = new ArrayList<>(child.foreignKeys());
        fks.add(new ForeignKeyDef(name, columns, parent.id(), parentColumns, fk.onDelete(), fk.onUpdate(), indexId,
                fk.timing()));
        return child.withForeignKeys(fks, indexes);
    }

    private static boolean startsWith(final int[] key, final int[] columns) {
        if (key.length < columns.length) {
            return false;
        }
        for (int i = 0; i < columns.length; i++) {
            if (key[i] != columns[i]) {
                return false;
            }
        }
        return true;
    }

    private static int[] columns(final TableDef def, final List<String> names) {
        final int[] out = new int[names.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = def.columnIndex(names.get(i));
            if (out[i] < 0) {
                throw new SqlStateException("42703", "column \"" + names.get(i) + "\" referenced in foreign key "
                        + "constraint does not exist");
            }
            for (int j = 0; j < i; j++) {
                if (out[j] == out[i]) {
                    throw new SqlStateException("42701", "column \"" + names.get(i) + "\" appears twice in foreign "
                            + "key constraint");
                }
            }
        }
        return out;
    }
}
