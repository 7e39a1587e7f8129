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

    /** The value of an integer column as a long ({@link #hasLong}: read in place, else unboxed from {@link #value}). */
    default long longValue(final int column) {
        return ((Number) value(column)).longValue();
    }

    @Override
    void close();
}
