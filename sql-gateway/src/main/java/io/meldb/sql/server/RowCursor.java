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

    @Override
    void close();
}
