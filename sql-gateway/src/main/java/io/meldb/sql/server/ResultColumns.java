package io.meldb.sql.server;

import org.apache.calcite.sql.type.SqlTypeName;

import java.util.Locale;

/** What a result column's Calcite type name says beyond its JDBC type: the element type of an array. */
final class ResultColumns {
    private ResultColumns() {
    }

    /**
     * The JDBC type of the innermost element of an array column whose Calcite type name is {@code typeName}
     * ({@code INTEGER ARRAY}, {@code CHAR(1) NOT NULL ARRAY}, {@code DECIMAL(2, 1) ARRAY}), or
     * {@link java.sql.Types#OTHER} when it is not a plain SQL type (a row, a map, an array: Avatica cannot read
     * the elements of an array of arrays back).
     */
    /** The precision of an array type's element ({@code VARCHAR(63) ARRAY}: 63), or -1 when it has none. */
    static int arrayElementPrecision(final String typeName) {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("^[A-Z_ ]+\\((\\d+)\\)")
                .matcher(typeName.toUpperCase(Locale.ROOT).trim());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    static int arrayElement(final String typeName) {
        String t = typeName.toUpperCase(Locale.ROOT).replace(" NOT NULL", "").trim();
        if (!t.endsWith(" ARRAY")) {
            return java.sql.Types.OTHER;
        }
        t = t.substring(0, t.length() - " ARRAY".length()).replaceAll("\\(.*\\)", "").trim();
        if (t.equals("NUMERIC")) {
            return java.sql.Types.DECIMAL;
        }
        if (t.equals("TIMESTAMP_WITH_LOCAL_TIME_ZONE")) {
            return java.sql.Types.TIMESTAMP_WITH_TIMEZONE;
        }
        final SqlTypeName name = SqlTypeName.get(t);
        return name == null || name.getJdbcOrdinal() == java.sql.Types.ARRAY ? java.sql.Types.OTHER
                : name.getJdbcOrdinal();
    }
}
