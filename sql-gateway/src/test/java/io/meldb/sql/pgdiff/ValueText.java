package io.meldb.sql.pgdiff;

import org.postgresql.util.PGobject;

import java.math.BigDecimal;
import java.sql.Array;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HexFormat;
import java.util.List;
import java.util.StringJoiner;

/**
 * Driver-neutral text of a JDBC value, for comparing MeldDB's two front ends: pgjdbc's {@code getString} is the
 * server's text while Avatica's formats Java objects, so the JDBC comparison reads {@code getObject} and writes it
 * the same way whatever the driver: numbers by their Java text (BigDecimal plain, keeping its scale), dates, times
 * and timestamps by {@code toString} (in this JVM's zone on both sides), bytes as {@code \x} hex, arrays as
 * {@code {a,b}} of their elements, PostgreSQL objects (json, uuid, interval) by their value. Column types are
 * compared as families of {@link java.sql.Types}, since Avatica names types by SQL standard names.
 */
final class ValueText {
    private ValueText() {
    }

    static String of(final Object v) throws SQLException {
        if (v == null) {
            return null;
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (v instanceof byte[] b) {
            return "\\x" + HexFormat.of().formatHex(b);
        }
        if (v instanceof Array a) {
            return of(a.getArray());
        }
        if (v instanceof Object[] elements) {
            final StringJoiner j = new StringJoiner(",", "{", "}");
            for (Object e : elements) {
                j.add(String.valueOf(of(e)));
            }
            return j.toString();
        }
        if (v instanceof List<?> elements) {
            return of(elements.toArray());
        }
        if (v instanceof PGobject o) {
            return o.getValue();
        }
        return v.toString();
    }

    /** The family of a java.sql.Types code that both drivers agree on for the same PostgreSQL type. */
    static String family(final int jdbcType) {
        return switch (jdbcType) {
            case Types.BIT, Types.BOOLEAN -> "boolean";
            case Types.TINYINT, Types.SMALLINT -> "smallint";
            case Types.INTEGER -> "integer";
            case Types.BIGINT -> "bigint";
            case Types.NUMERIC, Types.DECIMAL -> "numeric";
            case Types.REAL -> "real";
            case Types.FLOAT, Types.DOUBLE -> "double";
            case Types.CHAR, Types.NCHAR -> "char";
            case Types.VARCHAR, Types.LONGVARCHAR, Types.NVARCHAR, Types.LONGNVARCHAR, Types.CLOB -> "varchar";
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> "binary";
            case Types.DATE -> "date";
            case Types.TIME, Types.TIME_WITH_TIMEZONE -> "time";
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> "timestamp";
            case Types.ARRAY -> "array";
            default -> "other(" + jdbcType + ")";
        };
    }
}
