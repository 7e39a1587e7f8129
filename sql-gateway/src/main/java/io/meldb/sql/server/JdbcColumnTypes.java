package io.meldb.sql.server;

import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;

import java.sql.Types;

/**
 * How a MeldDB column type reads in JDBC's {@code DatabaseMetaData}: the {@link Types} code, the type's name
 * without constraint words, {@code COLUMN_SIZE} (characters for strings, digits for numbers, characters of the text
 * form for dates and times) and {@code DECIMAL_DIGITS}. One place, so {@code getColumns} and {@code getTypeInfo}
 * agree. CHAR columns are {@link Types#CHAR} here as declared (Calcite's row types call them VARCHAR).
 */
final class JdbcColumnTypes {
    private JdbcColumnTypes() {
    }

    static int jdbcType(final SqlType t) {
        return t == SqlType.CHAR ? Types.CHAR : t.jdbcType();
    }

    static String name(final SqlType t) {
        return t.name();
    }

    /** The largest size a column of the type can have: what {@code getTypeInfo}'s PRECISION says. */
    static int maxSize(final SqlType t) {
        return switch (t) {
            case CHAR, VARCHAR -> ColumnType.MAX_STRING_LENGTH;
            case DECIMAL -> ColumnType.MAX_DECIMAL_PRECISION;
            default -> size(ColumnType.of(t));
        };
    }

    /** {@code COLUMN_SIZE} of a column of type {@code c}. */
    static int size(final ColumnType c) {
        return switch (c.type()) {
            case SMALLINT -> 5;
            case INTEGER -> 10;
            case BIGINT -> 19;
            case DOUBLE -> 15;
            case REAL -> 7;
            case BOOLEAN -> 1;
            case DATE -> 10; // yyyy-mm-dd
            case TIME -> 12; // hh:mm:ss.fff
            case TIMESTAMP -> 23; // yyyy-mm-dd hh:mm:ss.fff: MeldDB keeps milliseconds
            case TIMESTAMPTZ -> 29; // yyyy-mm-dd hh:mm:ss.fff+hh:mm
            case UUID -> 36;
            case DECIMAL -> c.unconstrained() ? 1000 : c.precision(); // pgjdbc's size of numeric without one
            case TEXT, JSON, BYTEA -> Integer.MAX_VALUE; // unbounded, as PostgreSQL's driver reports them
            default -> c.precision(); // CHAR/VARCHAR length, DECIMAL precision (and whatever comes with one)
        };
    }

    /** {@code DECIMAL_DIGITS}: the scale of exact numbers, fractional seconds of timestamps, else null. */
    static Integer decimalDigits(final ColumnType c) {
        return switch (c.type()) {
            case SMALLINT, INTEGER, BIGINT -> 0;
            case DECIMAL -> c.scale();
            case TIME, TIMESTAMP, TIMESTAMPTZ -> 3;
            default -> null;
        };
    }

    /** {@code NUM_PREC_RADIX}: 10 for numbers, null otherwise. */
    static Integer radix(final SqlType t) {
        return switch (t) {
            case SMALLINT, INTEGER, BIGINT, DECIMAL, DOUBLE, REAL -> 10;
            default -> null;
        };
    }

    /** The largest scale {@code getTypeInfo} says a type takes. */
    static short maxScale(final SqlType t) {
        return (short) switch (t) {
            case DECIMAL -> ColumnType.MAX_DECIMAL_PRECISION;
            case TIME, TIMESTAMP, TIMESTAMPTZ -> 3;
            default -> 0;
        };
    }

    /** What a CREATE TABLE puts in parentheses after the type's name, or null. */
    static String createParams(final SqlType t) {
        return switch (t) {
            case CHAR, VARCHAR -> "length";
            case DECIMAL -> "precision,scale";
            default -> null;
        };
    }

    /** The quote a literal of the type starts with, or null. */
    static String literalPrefix(final SqlType t) {
        return switch (t) {
            case CHAR, VARCHAR, TEXT, JSON, UUID -> "'";
            case DATE -> "DATE '";
            case TIME -> "TIME '";
            case TIMESTAMP -> "TIMESTAMP '";
            case TIMESTAMPTZ -> "TIMESTAMP WITH TIME ZONE '";
            default -> null;
        };
    }
}
