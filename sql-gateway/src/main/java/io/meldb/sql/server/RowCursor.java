package io.meldb.sql.server;

/**
 * The rows of a query, one at a time, whichever path ran it (Calcite or the fast path). A value is null, or one
 * of Boolean, Short, Integer, Long, Float, Double, BigDecimal, String, LocalDate, LocalTime, LocalDateTime,
 * OffsetDateTime (TIMESTAMP WITH TIME ZONE, at UTC), byte[], UUID.
 */
public interface RowCursor extends AutoCloseable {
    /** Moves to the next row; false when there is none. */
    boolean next();

    /** The value of column {@code column} (0-based) of the current row. */
    Object value(int column);

    /**
     * Whether column {@code column} of the current row is a non-null SMALLINT, INTEGER or BIGINT that {@link
     * #longValue} reads without a box (a cursor that reads rows in place says so; the default never does).
     */
    default boolean hasLong(final int column) {
        return false;
    }

    /**
     * The length of the UTF-8 bytes of column {@code column} of the current row when it is a non-null VARCHAR or
     * TEXT value the cursor holds in place ({@link #utf8Array} from {@link #utf8Offset}), else -1 (the default).
     */
    default int utf8Length(final int column) {
        return -1;
    }

    /** Where the bytes {@link #utf8Length} measured start in {@link #utf8Array}. */
    default int utf8Offset(final int column) {
        throw new IllegalStateException("no text in place");
    }

    /** The array that holds the current row's text in place (see {@link #utf8Length}). */
    default byte[] utf8Array() {
        throw new IllegalStateException("no text in place");
    }

    /** The value of an integer column as a long ({@link #hasLong}: read in place, else unboxed from {@link #value}). */
    default long longValue(final int column) {
        return ((Number) value(column)).longValue();
    }

    @Override
    void close();
}
