package io.meldb.sql.server;

import io.meldb.sql.codec.ColumnType;

/**
 * A column of a statement's result as front ends describe it: its label, JDBC type ({@link java.sql.Types}),
 * precision (length of a character type) and scale, and the type of the table column it reads unchanged
 * ({@code origin}), or null for a computed value. The origin tells a text column from a varchar(n) or char(n) one,
 * which Calcite types alike, so that the PostgreSQL front end describes each as PostgreSQL does.
 */
public record ResultColumn(String name, int jdbcType, int precision, int scale, ColumnType origin) {
    /** A computed column. */
    public ResultColumn(final String name, final int jdbcType, final int precision, final int scale) {
        this(name, jdbcType, precision, scale, null);
    }
}
