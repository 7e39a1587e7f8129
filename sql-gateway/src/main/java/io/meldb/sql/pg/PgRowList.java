package io.meldb.sql.pg;

import io.meldb.sql.server.RowCursor;

import java.util.List;

/**
 * Rows held in memory, read as a {@link RowCursor}: a list read in order (the rows a FETCH collected for an Execute
 * with a row limit), or one row at a time as its holder shows them ({@link #show}: a SCROLL or WITH HOLD cursor's
 * kept rows, PostgreSQL's tuplestore).
 */
final class PgRowList implements RowCursor {
    private final List<Object[]> rows;
    private int next;
    private Object[] current;

    PgRowList(final List<Object[]> rows) {
        this.rows = rows;
    }

    /** A cursor that reads only what {@link #show} puts in it. */
    static PgRowList single() {
        return new PgRowList(List.of());
    }

    /** Makes {@code row} the current row. */
    void show(final Object[] row) {
        current = row;
    }

    /** The values of the current row of {@code rows}, copied out of it (its first {@code n} columns). */
    static Object[] copy(final RowCursor rows, final int n) {
        final Object[] out = new Object[n];
        for (int i = 0; i < n; i++) {
            out[i] = rows.value(i);
        }
        return out;
    }

    @Override
    public boolean next() {
        if (next < rows.size()) {
            current = rows.get(next++);
            return true;
        }
        current = null;
        return false;
    }

    @Override
    public Object value(final int column) {
        return current[column];
    }

    @Override
    public void close() {
        current = null;
    }
}
