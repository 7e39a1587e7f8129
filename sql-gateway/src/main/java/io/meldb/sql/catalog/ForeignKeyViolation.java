package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;

/**
 * The errors of a FOREIGN KEY constraint, worded as PostgreSQL words them (SQLState 23503 with a DETAIL naming the
 * key), so that clients and ORMs that parse them find the constraint and the tables where they expect them.
 */
final class ForeignKeyViolation {
    private ForeignKeyViolation() {
    }

    /** A child row whose parent key does not exist. */
    static SqlStateException missingParent(final TableDef child, final ForeignKeyDef fk, final TableDef parent,
                                           final Object[] row) {
        return new SqlStateException("23503", "insert or update on table \"" + child.name() + "\" violates foreign "
                + "key constraint \"" + fk.name() + "\"", "Key " + key(child, fk.columns(), row)
                + " is not present in table \"" + parent.name() + "\".", null);
    }

    /** A parent row deleted, or re-keyed, while children reference it (NO ACTION, RESTRICT). */
    static SqlStateException stillReferenced(final TableDef parent, final ForeignKeyDef fk, final TableDef child,
                                             final Object[] parentRow) {
        return new SqlStateException("23503", "update or delete on table \"" + parent.name() + "\" violates foreign "
                + "key constraint \"" + fk.name() + "\" on table \"" + child.name() + "\"", "Key "
                + key(parent, fk.parentColumns(), parentRow) + " is still referenced from table \"" + child.name()
                + "\".", null);
    }

    /** {@code (a, b)=(1, x)}: the columns and the row's values in them. */
    static String key(final TableDef table, final int[] columns, final Object[] row) {
        final StringBuilder names = new StringBuilder("(");
        final StringBuilder values = new StringBuilder("(");
        for (int i = 0; i < columns.length; i++) {
            if (i > 0) {
                names.append(", ");
                values.append(", ");
            }
            names.append(table.columns().get(columns[i]).name());
            values.append(UniqueViolation.text(table.columns().get(columns[i]).type().type(), row[columns[i]]));
        }
        return names.append(")=").append(values).append(')').toString();
    }
}
