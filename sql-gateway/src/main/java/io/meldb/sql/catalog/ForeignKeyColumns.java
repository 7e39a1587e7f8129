package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.List;

/**
 * What ALTER TABLE's column actions do to FOREIGN KEY constraints, which name columns by position
 * ({@link ForeignKeyDef}): DROP COLUMN drops the table's own constraints that use the column (as PostgreSQL does),
 * refuses to drop a column another table's constraint references unless CASCADE (2BP01), and shifts the positions
 * of every constraint on either side; a TYPE change of a column a constraint uses is refused, since the child's and
 * the parent's keys must stay of one type.
 */
final class ForeignKeyColumns {
    private ForeignKeyColumns() {
    }

    /**
     * {@code def} with its foreign keys adjusted for dropping column {@code c}; the definitions of other tables that
     * reference {@code def} are rewritten in {@code txn}. The caller still removes the column itself.
     */
    static TableDef dropColumn(final TxnSession txn, final Catalog catalog, final TableDef def, final int c,
                               final boolean cascade) {
        final String column = def.columns().get(c).name();
        for (ForeignKeys.Reference r : catalog.foreignKeys().referencing(def.id())) {
            if (r.child().id() == def.id()) {
                continue; // a self-reference is one of def's own constraints, handled below
            }
            final TableDef current = ForeignKeyDdl.store(txn, catalog, def.db(), r.child());
            final ForeignKeyDef fk = ForeignKeyDdl.find(current, r.foreignKey().name());
            if (fk == null) {
                continue;
            }
            final TableDef changed;
            if (contains(fk.parentColumns(), c)) {
                if (!cascade) {
                    throw new SqlStateException("2BP01", "cannot drop column " + column + " of table " + def.name()
                            + " because other objects depend on it", "constraint " + fk.name() + " on table "
                            + current.name() + " depends on column " + column + " of table " + def.name()
                            + " (use DROP COLUMN ... CASCADE to drop the constraint too)", null);
                }
                changed = ForeignKeyDdl.without(txn, current, fk.name());
            } else {
                changed = replace(current, fk, shifted(fk, fk.columns(), shift(fk.parentColumns(), c)));
            }
            txn.put(Keys.tableDefKey(def.db(), changed.schema(), changed.name()), TableDefCodec.encode(changed));
        }
        TableDef out = def;
        for (ForeignKeyDef fk : def.foreignKeys()) {
            final boolean self = fk.parentId() == def.id();
            if (contains(fk.columns(), c) || self && contains(fk.parentColumns(), c)) {
                out = ForeignKeyDdl.without(txn, out, fk.name());
            } else {
                out = replace(out, fk, shifted(fk, shift(fk.columns(), c),
                        self ? shift(fk.parentColumns(), c) : fk.parentColumns()));
            }
        }
        return out;
    }

    /** 0A000 when a foreign key of {@code def} or referencing it uses column {@code c}. */
    static void requireUnused(final Catalog catalog, final TableDef def, final int c, final String action) {
        final String column = def.columns().get(c).name();
        for (ForeignKeyDef fk : def.foreignKeys()) {
            if (contains(fk.columns(), c) || fk.parentId() == def.id() && contains(fk.parentColumns(), c)) {
                throw usedBy(column, action, fk.name(), def.name());
            }
        }
        for (ForeignKeys.Reference r : catalog.foreignKeys().referencing(def.id())) {
            if (contains(r.foreignKey().parentColumns(), c)) {
                throw usedBy(column, action, r.foreignKey().name(), r.child().name());
            }
        }
    }

    private static SqlStateException usedBy(final String column, final String action, final String fk,
                                            final String table) {
        return new SqlStateException("0A000", "ALTER COLUMN \"" + column + "\" " + action + " is not supported: "
                + "foreign key constraint \"" + fk + "\" on table \"" + table + "\" uses the column (drop the "
                + "constraint, change the column, add the constraint again)");
    }

    private static TableDef replace(final TableDef def, final ForeignKeyDef old, final ForeignKeyDef updated) {
        final List<ForeignKeyDef> fks = new ArrayList<>(def.foreignKeys());
        for (int i = 0; i < fks.size(); i++) {
            if (fks.get(i).name().equals(old.name())) {
                fks.set(i, updated);
            }
        }
        return def.withForeignKeys(fks, def.indexes());
    }

    private static ForeignKeyDef shifted(final ForeignKeyDef fk, final int[] columns, final int[] parentColumns) {
        return new ForeignKeyDef(fk.name(), columns, fk.parentId(), parentColumns, fk.onDelete(), fk.onUpdate(),
                fk.indexId(), fk.timing());
    }

    private static int[] shift(final int[] columns, final int dropped) {
        final int[] out = columns.clone();
        for (int i = 0; i < out.length; i++) {
            if (out[i] > dropped) {
                out[i]--;
            }
        }
        return out;
    }

    private static boolean contains(final int[] columns, final int c) {
        for (int x : columns) {
            if (x == c) {
                return true;
            }
        }
        return false;
    }
}
