package io.meldb.sql.catalog;

import io.meldb.sql.codec.ColumnType;

/** One column of a table: its name (as stored, upper case unless quoted), type and nullability. */
public record ColumnDef(String name, ColumnType type, boolean nullable) {
}
