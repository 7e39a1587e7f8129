package io.meldb.sql.catalog;

import io.meldb.sql.ErrorFields;
import io.meldb.sql.SqlStateException;

/**
 * The errors of a FOREIGN KEY constraint, worded as PostgreSQL words them (SQLState 23503 with a DETAIL naming the
 * key), so that clients and ORMs that parse them find the constraint and the tables where they expect them. As in
 * PostgreSQL (ri_triggers.c), the error's schema and table fields name the referencing (child) table, whichever
 * side's change violated the constraint.
 */
final class ForeignKeyViolation {
    private ForeignKeyViolation() {
    }

    /** A child row whose parent key does not exist. */
    static SqlStateException missingParent(final TableDef child, final ForeignKeyDef fk, final TableDef parent,
                                           final Object[] row) {
        return new SqlStateException("23503", "insert or update on table \"" + child.name() + "\" violates foreign "
                + "key constraint \"" + fk.name() + "\"", "Key " + UniqueViolation.key(child, fk.columns(), row)
                + " is not present in table \"" + parent.name() + "\".", fields(child, fk), null);
    }

    /** A parent row deleted, or re-keyed, while children reference it (NO ACTION, RESTRICT). */
    static SqlStateException stillReferenced(final TableDef parent, final ForeignKeyDef fk, final TableDef child,
                                             final Object[] parentRow) {
        return new SqlStateException("23503", "update or delete on table \"" + parent.name() + "\" violates foreign "
                + "key constraint \"" + fk.name() + "\" on table \"" + child.name() + "\"", "Key "
                + UniqueViolation.key(parent, fk.parentColumns(), parentRow) + " is still referenced from table \""
                + child.name() + "\".", fields(child, fk), null);
    }

    private static ErrorFields fields(final TableDef child, final ForeignKeyDef fk) {
        return ErrorFields.constraint(child.schema(), child.name(), fk.name());
    }
}
