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
    UUID(2950, 16, "uuid");

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

    private static final PgType[] ALL = values();

    /** The type of an OID, or null when MeldDB has no such type. */
    public static PgType ofOid(final int oid) {
        for (PgType t : ALL) {
            if (t.oid == oid) {
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
