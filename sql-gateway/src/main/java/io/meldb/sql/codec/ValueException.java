package io.meldb.sql.codec;

import io.meldb.sql.SqlStateException;

/**
 * A value that does not fit its column: wrong type, out of range, too long. Carries the SQLState the client
 * sees (class 22, data exception).
 */
public final class ValueException extends SqlStateException {
    public ValueException(final String sqlState, final String message) {
        super(sqlState, message);
    }

    static ValueException outOfRange(final Object value, final ColumnType type) {
        return new ValueException("22003", "value " + shorten(value) + " is out of range for type " + type.sqlName());
    }

    /** PostgreSQL's words for a NUMERIC(p, s) value with more than p - s integer digits. */
    static ValueException numericOverflow(final Object value, final ColumnType type) {
        return new ValueException("22003", "numeric field overflow: a field with precision " + type.precision()
                + ", scale " + type.scale() + " must round to an absolute value less than 10^"
                + (type.precision() - type.scale()) + " (value " + shorten(value) + ")");
    }

    static ValueException badSyntax(final Object value, final ColumnType type) {
        return new ValueException("22P02", "invalid input syntax for type " + type.sqlName().toLowerCase(
                java.util.Locale.ROOT) + ": " + shorten(value));
    }

    /** Text that does not read as the type is 22P02; a value of another type altogether is 42804. */
    static ValueException badCast(final Object value, final ColumnType type) {
        if (value instanceof String) {
            return badSyntax(value, type);
        }
        return new ValueException("42804", "cannot convert " + shorten(value) + " ("
                + value.getClass().getSimpleName() + ") to " + type.sqlName());
    }

    static ValueException tooLong(final String value, final ColumnType type) {
        return new ValueException("22001", "value too long for type " + type.sqlName() + ": "
                + value.codePointCount(0, value.length()) + " characters");
    }

    private static String shorten(final Object value) {
        final String s = String.valueOf(value);
        return s.length() > 40 ? "'" + s.substring(0, 40) + "...'" : "'" + s + "'";
    }
}
