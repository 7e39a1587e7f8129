package io.meldb.sql.catalog;

import io.meldb.sql.codec.ColumnType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A table's definition as stored in the catalog: columns, primary key (positions in the column list), indexes
 * and the id under which its rows live, CHECK and FOREIGN KEY constraints (those this table's rows make: a parent
 * learns of its children from the catalog, {@link ForeignKeys}). Immutable; DDL makes a changed copy.
 *
 * <p>{@code layout} says where each column lives in the rows' payloads ({@link RowLayout}): the compact layout
 * unless ALTER TABLE added, dropped or retyped a column.
 *
 * <p>A table created without a primary key has {@code hiddenRowId}: its rows are keyed by a row id that
 * {@link RowIds} hands out, which is no column (neither {@code SELECT *} nor an INSERT's column list sees it), and
 * {@code primaryKey} is empty. ALTER TABLE ... ADD PRIMARY KEY turns such a table into a keyed one.
 */
public record TableDef(String db, String schema, String name, int id, List<ColumnDef> columns, int[] primaryKey,
                       List<IndexDef> indexes, boolean hiddenRowId, List<CheckDef> checks,
                       List<ForeignKeyDef> foreignKeys, RowLayout layout) {

    public TableDef {
        columns = List.copyOf(columns);
        indexes = List.copyOf(indexes);
        checks = List.copyOf(checks);
        foreignKeys = List.copyOf(foreignKeys);
        if (hiddenRowId != (primaryKey.length == 0)) {
            throw new IllegalArgumentException("table " + name + ": a table has either a primary key or a hidden "
                    + "row id");
        }
        if (layout == null) {
            layout = RowLayout.compact(columns, primaryKey);
        } else if (layout.columnCount() != columns.size()) {
            throw new IllegalArgumentException("table " + name + ": a row layout of " + layout.columnCount()
                    + " columns for " + columns.size());
        }
        Keys.requireKeyTypes(columns, primaryKey, indexes);
    }

    /** A table in the compact row layout. */
    public TableDef(final String db, final String schema, final String name, final int id,
                    final List<ColumnDef> columns, final int[] primaryKey, final List<IndexDef> indexes,
                    final boolean hiddenRowId, final List<CheckDef> checks, final List<ForeignKeyDef> foreignKeys) {
        this(db, schema, name, id, columns, primaryKey, indexes, hiddenRowId, checks, foreignKeys, null);
    }

    /** A table without FOREIGN KEY constraints. */
    public TableDef(final String db, final String schema, final String name, final int id,
                    final List<ColumnDef> columns, final int[] primaryKey, final List<IndexDef> indexes,
                    final boolean hiddenRowId, final List<CheckDef> checks) {
        this(db, schema, name, id, columns, primaryKey, indexes, hiddenRowId, checks, List.of());
    }

    /** A table without CHECK constraints. */
    public TableDef(final String db, final String schema, final String name, final int id,
                    final List<ColumnDef> columns, final int[] primaryKey, final List<IndexDef> indexes,
                    final boolean hiddenRowId) {
        this(db, schema, name, id, columns, primaryKey, indexes, hiddenRowId, List.of());
    }

    /** A table keyed by its primary key ({@code primaryKey} not empty), or by a hidden row id when it is empty. */
    public TableDef(final String db, final String schema, final String name, final int id,
                    final List<ColumnDef> columns, final int[] primaryKey, final List<IndexDef> indexes) {
        this(db, schema, name, id, columns, primaryKey, indexes, primaryKey.length == 0);
    }

    public List<ColumnType> columnTypes() {
        final List<ColumnType> types = new ArrayList<>(columns.size());
        for (ColumnDef c : columns) {
            types.add(c.type());
        }
        return types;
    }

    /** Positions of the columns that are not part of the primary key (stored in the row payload). */
    public int[] valueColumns() {
        return java.util.stream.IntStream.range(0, columns.size())
                .filter(i -> Arrays.stream(primaryKey).noneMatch(k -> k == i)).toArray();
    }

    /** Position of the column named exactly {@code name} (names are case-sensitive once folded), or -1. */
    public int columnIndex(final String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    public IndexDef index(final String indexName) {
        for (IndexDef i : indexes) {
            if (i.name().equals(indexName)) {
                return i;
            }
        }
        return null;
    }

    public TableDef withIndexes(final List<IndexDef> newIndexes) {
        return new TableDef(db, schema, name, id, columns, primaryKey, newIndexes, hiddenRowId, checks, foreignKeys,
                layout);
    }

    public TableDef withLayout(final RowLayout newLayout) {
        return new TableDef(db, schema, name, id, columns, primaryKey, indexes, hiddenRowId, checks, foreignKeys,
                newLayout);
    }

    /** This table with {@code newColumns} in {@code newLayout}, other parts unchanged. */
    public TableDef withColumns(final List<ColumnDef> newColumns, final RowLayout newLayout) {
        return new TableDef(db, schema, name, id, newColumns, primaryKey, indexes, hiddenRowId, checks, foreignKeys,
                newLayout);
    }

    public TableDef withChecks(final List<CheckDef> newChecks) {
        return new TableDef(db, schema, name, id, columns, primaryKey, indexes, hiddenRowId, newChecks, foreignKeys,
                layout);
    }

    /** This table with {@code newForeignKeys} and {@code newIndexes} (a foreign key may bring a hidden index). */
    public TableDef withForeignKeys(final List<ForeignKeyDef> newForeignKeys, final List<IndexDef> newIndexes) {
        return new TableDef(db, schema, name, id, columns, primaryKey, newIndexes, hiddenRowId, checks,
                newForeignKeys, layout);
    }

    /** This table keyed by {@code newPrimaryKey} instead of its hidden row id; the key's columns become NOT NULL. */
    public TableDef withPrimaryKey(final int[] newPrimaryKey) {
        final List<ColumnDef> changed = new ArrayList<>(columns);
        for (int c : newPrimaryKey) {
            final ColumnDef col = changed.get(c);
            changed.set(c, col.withNullable(false));
        }
        return new TableDef(db, schema, name, id, changed, newPrimaryKey.clone(), indexes, false, checks,
                foreignKeys, layout.withPrimaryKey(newPrimaryKey));
    }
}
