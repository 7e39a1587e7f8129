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
            final Object v = rows.getObject(column + 1);
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
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
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
