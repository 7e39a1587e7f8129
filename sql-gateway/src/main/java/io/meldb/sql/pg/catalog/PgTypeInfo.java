package io.meldb.sql.pg.catalog;

import io.meldb.sql.codec.ColumnType;

/**
 * How a MeldDB column type reads in PostgreSQL's catalog: the {@code pg_type} OID and name, {@code typlen}, the
 * column's {@code atttypmod}, and the text {@code pg_catalog.format_type(atttypid, atttypmod)} gives.
 */
record PgTypeInfo(int oid, String typname, int typlen, int typmod, String formatted) {

    static PgTypeInfo of(final ColumnType t) {
        return switch (t.type()) {
            case SMALLINT -> new PgTypeInfo(21, "int2", 2, -1, "smallint");
            case INTEGER -> new PgTypeInfo(23, "int4", 4, -1, "integer");
            case BIGINT -> new PgTypeInfo(20, "int8", 8, -1, "bigint");
            case DECIMAL -> t.unconstrained() ? new PgTypeInfo(1700, "numeric", -1, -1, "numeric")
                    : new PgTypeInfo(1700, "numeric", -1, ((t.precision() << 16) | t.scale()) + 4,
                            "numeric(" + t.precision() + "," + t.scale() + ")");
            case DOUBLE -> new PgTypeInfo(701, "float8", 8, -1, "double precision");
            case CHAR -> new PgTypeInfo(1042, "bpchar", -1, t.precision() + 4, "character(" + t.precision() + ")");
            case VARCHAR -> new PgTypeInfo(1043, "varchar", -1, t.precision() + 4,
                    "character varying(" + t.precision() + ")");
            case BOOLEAN -> new PgTypeInfo(16, "bool", 1, -1, "boolean");
            case DATE -> new PgTypeInfo(1082, "date", 4, -1, "date");
            // MeldDB keeps milliseconds
            case TIMESTAMP -> new PgTypeInfo(1114, "timestamp", 8, 3, "timestamp(3) without time zone");
            case REAL -> new PgTypeInfo(700, "float4", 4, -1, "real");
            case TIME -> new PgTypeInfo(1083, "time", 8, 3, "time(3) without time zone");
            case TIMESTAMPTZ -> new PgTypeInfo(1184, "timestamptz", 8, 3, "timestamp(3) with time zone");
            case TEXT -> new PgTypeInfo(25, "text", -1, -1, "text");
            case BYTEA -> new PgTypeInfo(17, "bytea", -1, -1, "bytea");
            case UUID -> new PgTypeInfo(2950, "uuid", 16, -1, "uuid");
            // kept as written, as PostgreSQL's json is
            // a JSONB column is named so, with json's OID: MeldDB keeps both as text, and its pg_type has no jsonb
            case JSON -> t.scale() == ColumnType.JSONB_FLAG ? new PgTypeInfo(3802, "jsonb", -1, -1, "jsonb")
                    : new PgTypeInfo(114, "json", -1, -1, "json");
        };
    }
}
