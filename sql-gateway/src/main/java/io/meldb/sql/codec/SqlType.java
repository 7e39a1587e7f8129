package io.meldb.sql.codec;

/**
 * The column types MeldDB stores. Each has one Java form while a row is in flight, the form Calcite's generated
 * code uses ("internal representation"): DATE is days since 1970-01-01 as {@link Integer}, TIMESTAMP is
 * milliseconds since 1970-01-01 00:00 as {@link Long}, CHAR and VARCHAR are {@link String}; REAL is {@link Float},
 * TIME is milliseconds of the day as {@link Integer}, TIMESTAMPTZ is the UTC instant in milliseconds as {@link Long},
 * TEXT and JSON are {@link String} (JSON checked on write), BYTEA is Avatica's {@code ByteString}, UUID is its
 * canonical lower-case text as {@link String} (whose order is the uuid's byte order) and is
 * {@link #UUID_MARKER_LENGTH VARCHAR(2950)} to Calcite.
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
    TIMESTAMP(Long.class),
    REAL(Float.class),
    TIME(Integer.class),
    TIMESTAMPTZ(Long.class),
    TEXT(String.class),
    BYTEA(org.apache.calcite.avatica.util.ByteString.class),
    UUID(String.class),
    JSON(String.class);

    /**
     * The length of the VARCHAR that Calcite sees for a UUID column: results of that type travel as uuid on the
     * PostgreSQL protocol. 2950 is uuid's type OID; no MeldDB string column shows Calcite a length.
     */
    public static final int UUID_MARKER_LENGTH = 2950;

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
            case REAL -> java.sql.Types.REAL;
            case TIME -> java.sql.Types.TIME;
            case TIMESTAMPTZ -> java.sql.Types.TIMESTAMP_WITH_TIMEZONE;
            case TEXT, JSON, UUID -> java.sql.Types.VARCHAR;
            case BYTEA -> java.sql.Types.VARBINARY;
        };
    }

    public boolean isString() {
        return this == CHAR || this == VARCHAR || this == TEXT || this == JSON;
    }

    public boolean isExactInteger() {
        return this == SMALLINT || this == INTEGER || this == BIGINT;
    }
}
