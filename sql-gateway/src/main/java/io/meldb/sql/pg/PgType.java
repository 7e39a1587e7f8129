package io.meldb.sql.pg;

import java.sql.Types;

/**
 * The PostgreSQL types MeldDB's values travel as, with their type OIDs (fixed in PostgreSQL's catalog,
 * {@code pg_type.oid}) and sizes as RowDescription announces them. A column or parameter of a JDBC type is
 * sent as the PostgreSQL type {@link #ofJdbc} chooses.
 */
public enum PgType {
    BOOL(16, 1, "bool"),
    BYTEA(17, -1, "bytea"),
    NAME(19, 64, "name"),
    INT8(20, 8, "int8"),
    INT2(21, 2, "int2"),
    INT4(23, 4, "int4"),
    TEXT(25, -1, "text"),
    OID(26, 4, "oid"),
    FLOAT4(700, 4, "float4"),
    FLOAT8(701, 8, "float8"),
    UNKNOWN(705, -2, "unknown"),
    BPCHAR(1042, -1, "bpchar"),
    VARCHAR(1043, -1, "varchar"),
    DATE(1082, 4, "date"),
    TIME(1083, 8, "time"),
    TIMESTAMP(1114, 8, "timestamp"),
    TIMESTAMPTZ(1184, 8, "timestamptz"),
    NUMERIC(1700, -1, "numeric"),
    JSON(114, -1, "json"),
    UUID(2950, 16, "uuid"),
    /** Kept as its text, like json; its binary form is that text after a version byte (1). */
    JSONB(3802, -1, "jsonb"),
    // one-dimensional or nested arrays of the types above, sent in PostgreSQL's array forms (PgArrays)
    BOOL_ARRAY(1000, -1, "_bool"),
    BYTEA_ARRAY(1001, -1, "_bytea"),
    INT2_ARRAY(1005, -1, "_int2"),
    INT4_ARRAY(1007, -1, "_int4"),
    TEXT_ARRAY(1009, -1, "_text"),
    NAME_ARRAY(1003, -1, "_name"),
    BPCHAR_ARRAY(1014, -1, "_bpchar"),
    VARCHAR_ARRAY(1015, -1, "_varchar"),
    INT8_ARRAY(1016, -1, "_int8"),
    FLOAT4_ARRAY(1021, -1, "_float4"),
    FLOAT8_ARRAY(1022, -1, "_float8"),
    TIMESTAMP_ARRAY(1115, -1, "_timestamp"),
    DATE_ARRAY(1182, -1, "_date"),
    TIME_ARRAY(1183, -1, "_time"),
    TIMESTAMPTZ_ARRAY(1185, -1, "_timestamptz"),
    JSON_ARRAY(199, -1, "_json"),
    NUMERIC_ARRAY(1231, -1, "_numeric"),
    UUID_ARRAY(2951, -1, "_uuid"),
    JSONB_ARRAY(3807, -1, "_jsonb");

    private final int oid;
    private final int length;
    private final String typeName;

    PgType(final int oid, final int length, final String typeName) {
        this.oid = oid;
        this.length = length;
        this.typeName = typeName;
    }

    public int oid() {
        return oid;
    }

    /** {@code typlen}: bytes of the fixed-size binary form, -1 for variable length. */
    public int length() {
        return length;
    }

    public String typeName() {
        return typeName;
    }

    /** The element type of an array type, or null for a type that is no array. */
    public PgType element() {
        return switch (this) {
            case BOOL_ARRAY -> BOOL;
            case BYTEA_ARRAY -> BYTEA;
            case INT2_ARRAY -> INT2;
            case INT4_ARRAY -> INT4;
            case TEXT_ARRAY -> TEXT;
            case NAME_ARRAY -> NAME;
            case BPCHAR_ARRAY -> BPCHAR;
            case VARCHAR_ARRAY -> VARCHAR;
            case INT8_ARRAY -> INT8;
            case FLOAT4_ARRAY -> FLOAT4;
            case FLOAT8_ARRAY -> FLOAT8;
            case TIMESTAMP_ARRAY -> TIMESTAMP;
            case DATE_ARRAY -> DATE;
            case TIME_ARRAY -> TIME;
            case TIMESTAMPTZ_ARRAY -> TIMESTAMPTZ;
            case JSON_ARRAY -> JSON;
            case NUMERIC_ARRAY -> NUMERIC;
            case UUID_ARRAY -> UUID;
            case JSONB_ARRAY -> JSONB;
            default -> null;
        };
    }

    /** The array type of {@code element}, or null when MeldDB sends no arrays of it. */
    public static PgType arrayOf(final PgType element) {
        for (PgType t : ALL) {
            if (t.element() == element) {
                return t;
            }
        }
        return null;
    }

    private static final PgType[] ALL = values();

    /**
     * The type of an OID, or null when MeldDB has no such type; array types are not answered here (parameters
     * of array types are not taken yet).
     */
    public static PgType ofOid(final int oid) {
        for (PgType t : ALL) {
            if (t.oid == oid && t.element() == null) {
                return t;
            }
        }
        return null;
    }

    /** PostgreSQL's name of a SQL type as written in a CAST ("INTEGER" is int4, "VARCHAR(20)" is varchar). */
    static String ofJdbcName(final String sqlType) {
        final String t = sqlType.toUpperCase(java.util.Locale.ROOT).replaceAll("\\(.*", "").trim();
        return switch (t) {
            case "SMALLINT" -> INT2.typeName;
            case "INTEGER", "INT" -> INT4.typeName;
            case "BIGINT" -> INT8.typeName;
            case "REAL" -> FLOAT4.typeName;
            case "DOUBLE", "FLOAT" -> FLOAT8.typeName;
            case "DECIMAL", "NUMERIC" -> NUMERIC.typeName;
            case "CHAR", "CHARACTER" -> BPCHAR.typeName;
            case "VARCHAR" -> VARCHAR.typeName;
            case "BOOLEAN" -> BOOL.typeName;
            case "DATE" -> DATE.typeName;
            case "TIME" -> TIME.typeName;
            case "TIMESTAMP" -> TIMESTAMP.typeName;
            case "TIMESTAMP_WITH_LOCAL_TIME_ZONE" -> TIMESTAMPTZ.typeName;
            case "VARBINARY", "BINARY" -> BYTEA.typeName;
            default -> t.toLowerCase(java.util.Locale.ROOT);
        };
    }

    /** How a value of a JDBC type ({@link java.sql.Types}) travels. */
    public static PgType ofJdbc(final int jdbcType) {
        return switch (jdbcType) {
            case Types.BOOLEAN, Types.BIT -> BOOL;
            case Types.TINYINT, Types.SMALLINT -> INT2;
            case Types.INTEGER -> INT4;
            case Types.BIGINT -> INT8;
            case Types.REAL -> FLOAT4;
            case Types.FLOAT, Types.DOUBLE -> FLOAT8;
            case Types.DECIMAL, Types.NUMERIC -> NUMERIC;
            case Types.CHAR -> BPCHAR;
            case Types.VARCHAR, Types.LONGVARCHAR, Types.NVARCHAR, Types.NCHAR -> VARCHAR;
            case Types.DATE -> DATE;
            case Types.TIME -> TIME;
            case Types.TIMESTAMP -> TIMESTAMP;
            case Types.TIMESTAMP_WITH_TIMEZONE -> TIMESTAMPTZ;
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY -> BYTEA;
            default -> TEXT;
        };
    }
}
