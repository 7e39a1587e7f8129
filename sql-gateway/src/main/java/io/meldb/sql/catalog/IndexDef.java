package io.meldb.sql.catalog;

/**
 * A secondary index: a table of entries (index key, primary key) → empty payload under its own id, maintained
 * in the same transaction as the row. {@code columns} are positions in the table's column list.
 */
public record IndexDef(String name, int id, int[] columns) {
}
