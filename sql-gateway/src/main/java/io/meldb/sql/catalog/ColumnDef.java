package io.meldb.sql.catalog;

import io.meldb.sql.codec.ColumnType;

/**
 * One column of a table: its name (as stored: folded to lower case unless quoted), type, nullability, its
 * {@code DEFAULT} ({@link ColumnDefault}, null when it has none) and whether it is an identity column.
 */
public record ColumnDef(String name, ColumnType type, boolean nullable, ColumnDefault dflt, Identity identity) {
    /** {@code GENERATED ALWAYS | BY DEFAULT AS IDENTITY}, or neither. */
    public enum Identity { NONE, ALWAYS, BY_DEFAULT }

    public ColumnDef {
        if (identity == null) {
            identity = Identity.NONE;
        }
    }

    /** A column without a default. */
    public ColumnDef(final String name, final ColumnType type, final boolean nullable) {
        this(name, type, nullable, null, Identity.NONE);
    }

    public ColumnDef withNullable(final boolean newNullable) {
        return new ColumnDef(name, type, newNullable, dflt, identity);
    }

    public ColumnDef withDefault(final ColumnDefault newDefault) {
        return new ColumnDef(name, type, nullable, newDefault, identity);
    }
}
