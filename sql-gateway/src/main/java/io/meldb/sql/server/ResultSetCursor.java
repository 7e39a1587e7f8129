package io.meldb.sql.server;

import java.sql.Date;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Time;
import java.sql.Timestamp;

/** The rows of a Calcite JDBC result set as a {@link RowCursor}, with dates and times as java.time values. */
final class ResultSetCursor implements RowCursor {
    private final ResultSet rows;

    ResultSetCursor(final ResultSet rows) {
        this.rows = rows;
    }

    @Override
    public boolean next() {
        try {
            return rows.next();
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    @Override
    public Object value(final int column) {
        try {
            return convert(rows.getObject(column + 1));
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    /** A JDBC value as front ends take it: java.time for dates and times, an array as a list of such values. */
    private static Object convert(final Object v) throws SQLException {
        if (v instanceof java.sql.Array a) {
            final Object elements = a.getArray();
            final int n = java.lang.reflect.Array.getLength(elements);
            final java.util.List<Object> out = new java.util.ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(convert(java.lang.reflect.Array.get(elements, i)));
            }
            return out;
        }
        if (v instanceof java.util.List<?> list) {
            final java.util.List<Object> out = new java.util.ArrayList<>(list.size());
            for (Object e : list) {
                out.add(convert(e));
            }
            return out;
        }
        if (v instanceof Timestamp t) {
            return t.toLocalDateTime();
        }
        if (v instanceof Date d) {
            return d.toLocalDate();
        }
        if (v instanceof Time t) {
            // Time.toLocalTime drops the milliseconds
            return t.toLocalTime().withNano((int) Math.floorMod(t.getTime(), 1000L) * 1_000_000);
        }
        if (v instanceof Float f) {
            return f.doubleValue();
        }
        if (v instanceof Byte b) {
            return b.shortValue();
        }
        return v;
    }

    @Override
    public void close() {
        try {
            rows.close();
        } catch (SQLException e) {
            // closing a Calcite result set only releases memory
        }
    }
}
