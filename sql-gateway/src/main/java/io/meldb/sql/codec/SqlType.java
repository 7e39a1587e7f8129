package io.meldb.sql.codec;

/**
 * The column types MeldDB stores. Each has one Java form while a row is in flight, the form Calcite's generated
 * code uses ("internal representation"): DATE is days since 1970-01-01 as {@link Integer}, TIMESTAMP is
 * milliseconds since 1970-01-01 00:00 as {@link Long}, CHAR and VARCHAR are {@link String}.
 */
public enum SqlType {
    SMALLINT(Short.class),
    INTEGER(Integer.class),
    BIGINT(Long.class),
    DECIMAL(java.math.BigDecimal.class),
    DOUBLE(Double.class),
    CHAR(String.class),
    VARCHAR(String.class),
    BOOLEAN(Boolean.class),
    DATE(Integer.class),
    TIMESTAMP(Long.class);

    private final Class<?> javaClass;

    SqlType(final Class<?> javaClass) {
        this.javaClass = javaClass;
    }

    /** The class of a non-null value of this type while a row is in flight. */
    public Class<?> javaClass() {
        return javaClass;
    }

    /** The JDBC type ({@link java.sql.Types}) Calcite gives a column of this type (CHAR columns are VARCHAR). */
    public int jdbcType() {
        return switch (this) {
            case SMALLINT -> java.sql.Types.SMALLINT;
            case INTEGER -> java.sql.Types.INTEGER;
            case BIGINT -> java.sql.Types.BIGINT;
            case DECIMAL -> java.sql.Types.DECIMAL;
            case DOUBLE -> java.sql.Types.DOUBLE;
            case CHAR, VARCHAR -> java.sql.Types.VARCHAR;
            case BOOLEAN -> java.sql.Types.BOOLEAN;
            case DATE -> java.sql.Types.DATE;
            case TIMESTAMP -> java.sql.Types.TIMESTAMP;
        };
    }

    public boolean isString() {
        return this == CHAR || this == VARCHAR;
    }

    public boolean isExactInteger() {
        return this == SMALLINT || this == INTEGER || this == BIGINT;
    }
}
