package io.meldb.sql.server;

import io.meldb.sql.codec.ColumnType;

/**
 * A column of a statement's result as front ends describe it: its label, JDBC type ({@link java.sql.Types}),
 * precision (length of a character type) and scale, and the type of the table column it reads unchanged
 * ({@code origin}), or null for a computed value. The origin tells a text column from a varchar(n) or char(n) one,
 * which Calcite types alike, so that the PostgreSQL front end describes each as PostgreSQL does. An array column
 * ({@link java.sql.Types#ARRAY}) names its innermost element's JDBC type in {@code elementJdbcType} (arrays of
 * arrays are one PostgreSQL array type); any other has {@link java.sql.Types#NULL} there.
 */
public record ResultColumn(String name, int jdbcType, int precision, int scale, ColumnType origin,
                           int elementJdbcType) {
    /** A computed column. */
    public ResultColumn(final String name, final int jdbcType, final int precision, final int scale) {
        this(name, jdbcType, precision, scale, null);
    }

    /** A column that is no array. */
    public ResultColumn(final String name, final int jdbcType, final int precision, final int scale,
                        final ColumnType origin) {
        this(name, jdbcType, precision, scale, origin, java.sql.Types.NULL);
    }
}
