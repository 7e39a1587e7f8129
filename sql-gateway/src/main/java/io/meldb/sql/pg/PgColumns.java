package io.meldb.sql.pg;

import io.meldb.sql.server.ResultColumn;

import java.sql.Types;
import java.util.List;

/** The columns of a result as RowDescription describes them: names, PostgreSQL types, type modifiers. */
public final class PgColumns {
    static final PgColumns NONE = new PgColumns(new String[0], new PgType[0], new int[0]);

    private final String[] names;
    private final PgType[] types;
    private final int[] typeModifiers;

    private PgColumns(final String[] names, final PgType[] types, final int[] typeModifiers) {
        this.names = names;
        this.types = types;
        this.typeModifiers = typeModifiers;
    }

    /** Columns of text values with the given names (SHOW and other answers of the protocol layer). */
    static PgColumns text(final List<String> names) {
        final PgType[] types = new PgType[names.size()];
        final int[] mods = new int[names.size()];
        java.util.Arrays.fill(types, PgType.TEXT);
        java.util.Arrays.fill(mods, -1);
        return new PgColumns(names.toArray(new String[0]), types, mods);
    }

    /** Columns of the given names and types, without type modifiers (answers of the system catalog queries). */
    public static PgColumns of(final String[] names, final PgType[] types) {
        final int[] mods = new int[names.length];
        java.util.Arrays.fill(mods, -1);
        return new PgColumns(names.clone(), types.clone(), mods);
    }

    static PgColumns of(final List<ResultColumn> columns) {
        final int n = columns.size();
        if (n == 0) {
            return NONE;
        }
        final String[] names = new String[n];
        final PgType[] types = new PgType[n];
        final int[] mods = new int[n];
        for (int i = 0; i < n; i++) {
            final ResultColumn c = columns.get(i);
            names[i] = c.name();
            types[i] = c.jdbcType() == Types.ARRAY ? arrayType(c) : type(c);
            if (types[i] == null || c.jdbcType() == Types.STRUCT) {
                // a row, an array of rows, of arrays, of dates or times: not sent yet
                throw new io.meldb.sql.SqlStateException("0A000", "a result column of this type is not supported "
                        + "yet: composite values and arrays of arrays, dates or times (column \"" + c.name() + "\")");
            }
            mods[i] = types[i] == PgType.TEXT || types[i] == PgType.JSON || types[i] == PgType.JSONB
                    || types[i] == PgType.NAME ? -1
                    : c.origin() != null && c.origin().type().isString()
                    ? stringTypeModifier(c.origin()) : typeModifier(c.jdbcType(), c.precision(), c.scale());
        }
        return new PgColumns(names, types, mods);
    }

    /**
     * The PostgreSQL type of a result column: a table column's own (text, varchar(n), char(n), json, which
     * Calcite types alike); a computed string is text, as PostgreSQL types string expressions and literals, except
     * PostgreSQL's name ({@link io.meldb.sql.calcite.PgNameType}); any other by its JDBC type.
     */
    private static PgType type(final ResultColumn c) {
        if (c.jdbcType() == Types.VARCHAR && c.precision() == io.meldb.sql.codec.SqlType.UUID_MARKER_LENGTH) {
            return PgType.UUID;
        }
        final io.meldb.sql.codec.ColumnType origin = c.origin();
        if (origin != null) {
            switch (origin.type()) {
                case TEXT:
                    return PgType.TEXT;
                case VARCHAR:
                    return PgType.VARCHAR;
                case CHAR:
                    return PgType.BPCHAR;
                case JSON:
                    return origin.scale() == io.meldb.sql.codec.ColumnType.JSONB_FLAG ? PgType.JSONB : PgType.JSON;
                default:
                    break;
            }
        }
        if (c.jdbcType() == Types.VARCHAR && c.precision() == io.meldb.sql.calcite.PgNameType.LENGTH) {
            return PgType.NAME; // current_user, current_schema, ...: PostgreSQL's name
        }
        if (c.jdbcType() == Types.VARCHAR || c.jdbcType() == Types.CHAR) {
            return PgType.TEXT;
        }
        return PgType.ofJdbc(c.jdbcType());
    }

    /**
     * The PostgreSQL array type of an array column, from its element type as {@link #type} would send the element
     * (a computed string element is text, so {@code ARRAY['a', 'b']} is text[]; {@code array_agg(attname)} is
     * name[], as a name's is), or null for elements MeldDB sends
     * no arrays of.
     */
    private static PgType arrayType(final ResultColumn c) {
        final int e = c.elementJdbcType();
        final PgType element = switch (e) {
            case Types.VARCHAR, Types.CHAR -> c.precision() == io.meldb.sql.calcite.PgNameType.LENGTH ? PgType.NAME
                    : PgType.TEXT;
            // Avatica's array accessor cannot read back dates and times (nor nested arrays) from Calcite's arrays
            case Types.DATE, Types.TIME, Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE, Types.OTHER -> null;
            default -> PgType.ofJdbc(e);
        };
        return element == null ? null : PgType.arrayOf(element);
    }

    /** A varchar(n) or char(n) column's atttypmod, n + 4; -1 for varchar without a length. */
    private static int stringTypeModifier(final io.meldb.sql.codec.ColumnType t) {
        return (t.type() == io.meldb.sql.codec.SqlType.CHAR || t.type() == io.meldb.sql.codec.SqlType.VARCHAR)
                && t.precision() > 0 && t.precision() != io.meldb.sql.codec.ColumnType.DEFAULT_VARCHAR_LENGTH
                ? t.precision() + 4 : -1;
    }

    /** atttypmod: VARCHAR(n) and CHAR(n) carry n + 4, NUMERIC(p, s) carries (p << 16 | s) + 4; -1 means none. */
    private static int typeModifier(final int jdbcType, final int precision, final int scale) {
        switch (jdbcType) {
            case Types.VARCHAR, Types.CHAR:
                return precision > 0 && precision < 10_485_760 ? precision + 4 : -1;
            case Types.DECIMAL, Types.NUMERIC:
                return precision > 0 && precision <= 1000 ? ((precision << 16) | Math.max(scale, 0)) + 4 : -1;
            default:
                return -1;
        }
    }

    /** The same columns under other names. */
    PgColumns withNames(final String[] newNames) {
        return new PgColumns(newNames.clone(), types, typeModifiers);
    }

    public int size() {
        return names.length;
    }

    public String name(final int i) {
        return names[i];
    }

    public PgType type(final int i) {
        return types[i];
    }

    public int typeModifier(final int i) {
        return typeModifiers[i];
    }
}
