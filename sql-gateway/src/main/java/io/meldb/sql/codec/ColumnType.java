package io.meldb.sql.codec;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.Date;
import java.sql.Timestamp;
import java.util.Calendar;
import java.util.TimeZone;

/**
 * A column's type with its length (CHAR/VARCHAR), or precision and scale (DECIMAL). Also turns the values that
 * reach the gateway from SQL literals and JDBC parameters into the type's in-flight Java form, with the SQL
 * errors a database gives for values that do not fit. CHAR(n) values are blank-padded to n characters on the
 * way in (SQL standard), VARCHAR(n) values are kept as given; both reject longer values (SQLState 22001) except
 * for trailing blanks, which are cut.
 */
public record ColumnType(SqlType type, int precision, int scale) {
    /** Length limit of a VARCHAR declared without one. */
    public static final int DEFAULT_VARCHAR_LENGTH = 65_536;
    /** Largest declared length of CHAR/VARCHAR. */
    public static final int MAX_STRING_LENGTH = 1 << 20;
    public static final int MAX_DECIMAL_PRECISION = 38;
    /** Most digits after the point a numeric value keeps (PostgreSQL's NUMERIC_DSCALE_MAX). */
    public static final int MAX_NUMERIC_SCALE = 16_383;
    /** Most digits before the point a numeric value keeps (PostgreSQL's limit, 131072). */
    public static final int MAX_NUMERIC_INTEGER_DIGITS = 131_072;
    /** PostgreSQL's {@code numeric} without a precision or scale: every value keeps its digits and its scale. */
    public static final ColumnType NUMERIC = new ColumnType(SqlType.DECIMAL, 0, 0);
    /** The scale of a JSON column declared JSONB: stored and read as JSON, named as declared in the catalogs. */
    public static final int JSONB_FLAG = 1;

    public static ColumnType of(final SqlType type) {
        return switch (type) {
            case VARCHAR -> new ColumnType(type, DEFAULT_VARCHAR_LENGTH, 0);
            case CHAR -> new ColumnType(type, 1, 0);
            case DECIMAL -> new ColumnType(type, 19, 0);
            default -> new ColumnType(type, 0, 0);
        };
    }

    /** How the type reads in DDL, e.g. {@code DECIMAL(10, 2)}. */
    public String sqlName() {
        return switch (type) {
            case VARCHAR, CHAR -> type + "(" + precision + ")";
            case DECIMAL -> unconstrained() ? "NUMERIC" : "DECIMAL(" + precision + ", " + scale + ")";
            case TIMESTAMPTZ -> "TIMESTAMP WITH TIME ZONE";
            case JSON -> scale == JSONB_FLAG ? "JSONB" : "JSON";
            default -> type.name();
        };
    }

    /** Whether this is numeric without a precision or scale ({@link #NUMERIC}). */
    public boolean unconstrained() {
        return type == SqlType.DECIMAL && precision == 0;
    }

    /**
     * Converts {@code value} (a value of this type in any of the forms SQL literals, JDBC parameters and Calcite
     * produce) into the in-flight form; null stays null.
     *
     * @throws ValueException when the value has the wrong type or does not fit
     */
    public Object coerce(final Object value) {
        if (value == null) {
            return null;
        }
        switch (type) {
            case SMALLINT: {
                final long v = toLong(value);
                if (v < Short.MIN_VALUE || v > Short.MAX_VALUE) {
                    throw ValueException.outOfRange(value, this);
                }
                return (short) v;
            }
            case INTEGER: {
                final long v = toLong(value);
                if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                    throw ValueException.outOfRange(value, this);
                }
                return (int) v;
            }
            case BIGINT:
                return toLong(value);
            case DOUBLE:
                if (value instanceof Number n) {
                    return n.doubleValue();
                }
                if (value instanceof String s) {
                    final String t = s.trim();
                    if (t.equalsIgnoreCase("nan") || t.equalsIgnoreCase("infinity") || t.equalsIgnoreCase("-infinity")) {
                        return Double.parseDouble(t.replace("nan", "NaN").replace("infinity", "Infinity"));
                    }
                    final double d;
                    try {
                        d = Double.parseDouble(t);
                    } catch (NumberFormatException e) {
                        throw ValueException.badCast(value, this);
                    }
                    if (Double.isInfinite(d)) {
                        throw ValueException.outOfRange(value, this);
                    }
                    return d;
                }
                throw ValueException.badCast(value, this);
            case DECIMAL: {
                final BigDecimal d = toBigDecimal(value);
                if (precision == 0) {
                    return unconstrainedValue(value, d);
                }
                final BigDecimal scaled;
                try {
                    scaled = d.setScale(scale, RoundingMode.HALF_UP);
                } catch (ArithmeticException e) {
                    throw ValueException.outOfRange(value, this);
                }
                if (scaled.signum() != 0 && scaled.precision() - scaled.scale() > precision - scale) {
                    throw ValueException.numericOverflow(value, this);
                }
                return scaled;
            }
            case CHAR, VARCHAR: {
                if (!(value instanceof String || value instanceof Number || value instanceof Boolean)) {
                    throw ValueException.badCast(value, this); // byte[] has no text form to store
                }
                final String s = value instanceof String str ? str : String.valueOf(value);
                if (s.codePointCount(0, s.length()) > precision) {
                    // trailing spaces beyond the length are cut, as SQL does; anything else is an error
                    final String trimmed = stripTrailingSpaces(s);
                    if (trimmed.codePointCount(0, trimmed.length()) > precision) {
                        throw ValueException.tooLong(s, this);
                    }
                    return type == SqlType.CHAR ? padTo(trimmed, precision) : trimmed;
                }
                return type == SqlType.CHAR ? padTo(s, precision) : s;
            }
            case BOOLEAN:
                if (value instanceof Boolean b) {
                    return b;
                }
                if (value instanceof String s) {
                    return BooleanText.parse(s);
                }
                throw ValueException.badCast(value, this);
            case DATE:
                if (value instanceof Integer i) {
                    return i;
                }
                if (value instanceof Date d) {
                    return (int) Math.floorDiv(d.getTime() + localOffset(d.getTime()), 86_400_000L);
                }
                if (value instanceof java.util.Date d) {
                    return (int) Math.floorDiv(d.getTime(), 86_400_000L);
                }
                if (value instanceof Calendar c) {
                    return (int) Math.floorDiv(c.getTimeInMillis() + c.getTimeZone().getOffset(c.getTimeInMillis()),
                            86_400_000L);
                }
                if (value instanceof Number) {
                    throw ValueException.badCast(value, this); // a number is not a date (PostgreSQL: 42804)
                }
                if (value instanceof String s) {
                    try {
                        return (int) java.time.LocalDate.parse(s.trim()).toEpochDay();
                    } catch (java.time.DateTimeException e) {
                        throw ValueException.badCast(value, this);
                    }
                }
                throw ValueException.badCast(value, this);
            case TIMESTAMP:
                if (value instanceof Long l) {
                    return l;
                }
                if (value instanceof Timestamp t) {
                    return t.getTime() + localOffset(t.getTime());
                }
                if (value instanceof java.util.Date d) {
                    return d.getTime();
                }
                if (value instanceof Calendar c) {
                    return c.getTimeInMillis() + c.getTimeZone().getOffset(c.getTimeInMillis());
                }
                if (value instanceof Number) {
                    throw ValueException.badCast(value, this); // a number is not a timestamp (42804)
                }
                if (value instanceof String s) {
                    try {
                        return java.time.LocalDateTime.parse(s.trim().replace(' ', 'T'))
                                .toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
                    } catch (java.time.DateTimeException e) {
                        throw ValueException.badCast(value, this);
                    }
                }
                throw ValueException.badCast(value, this);
            default:
                return ExtendedTypes.coerce(value, this);
        }
    }

    /** The number of bytes a string takes in UTF-8 (used for size limits). */
    public static int utf8Length(final String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** {@code s} with blanks appended up to {@code length} characters (code points). */
    private static String padTo(final String s, final int length) {
        final int missing = length - s.codePointCount(0, s.length());
        return missing <= 0 ? s : s + " ".repeat(missing);
    }

    private static String stripTrailingSpaces(final String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }

    private static long localOffset(final long millis) {
        return TimeZone.getDefault().getOffset(millis);
    }

    /** Whether values of this type are SMALLINT, INTEGER or BIGINT ({@link #coerceLong} takes them). */
    public boolean integral() {
        return type == SqlType.SMALLINT || type == SqlType.INTEGER || type == SqlType.BIGINT;
    }

    /**
     * {@link #coerce} of an integer to an {@link #integral} type without a box: the value itself, or 22003 when it
     * is out of the type's range.
     */
    public long coerceLong(final long value) {
        final boolean fits = switch (type) {
            case SMALLINT -> value >= Short.MIN_VALUE && value <= Short.MAX_VALUE;
            case INTEGER -> value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE;
            case BIGINT -> true;
            default -> throw new IllegalStateException("not an integer type: " + type);
        };
        if (!fits) {
            throw ValueException.outOfRange(value, this);
        }
        return value;
    }

    private long toLong(final Object value) {
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof BigDecimal d) {
            try {
                return d.setScale(0, RoundingMode.HALF_UP).longValueExact();
            } catch (ArithmeticException e) {
                throw ValueException.outOfRange(value, this);
            }
        }
        if (value instanceof java.math.BigInteger b) {
            try {
                return b.longValueExact();
            } catch (ArithmeticException e) {
                throw ValueException.outOfRange(value, this);
            }
        }
        if (value instanceof Double || value instanceof Float) {
            final double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || d < -9.223372036854776E18 || d >= 9.223372036854776E18) {
                throw ValueException.outOfRange(value, this);
            }
            return Math.round(d);
        }
        if (value instanceof String s) {
            final String t = s.trim();
            if (!t.matches("[+-]?\\d+")) {
                throw ValueException.badSyntax(value, this);
            }
            try {
                return Long.parseLong(t);
            } catch (NumberFormatException e) {
                throw ValueException.outOfRange(value, this);
            }
        }
        throw ValueException.badCast(value, this);
    }

    /** A numeric value as PostgreSQL keeps it: its own scale (never below 0), within numeric's limits. */
    private BigDecimal unconstrainedValue(final Object value, final BigDecimal d) {
        final BigDecimal kept = d.scale() < 0 ? d.setScale(0) : d;
        if (kept.scale() > MAX_NUMERIC_SCALE || kept.precision() - kept.scale() > MAX_NUMERIC_INTEGER_DIGITS) {
            throw ValueException.outOfRange(value, this);
        }
        return kept;
    }

    private BigDecimal toBigDecimal(final Object value) {
        if (value instanceof BigDecimal d) {
            return d;
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return BigDecimal.valueOf(((Number) value).longValue());
        }
        if (value instanceof Double || value instanceof Float) {
            final double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw ValueException.outOfRange(value, this);
            }
            return BigDecimal.valueOf(d);
        }
        if (value instanceof java.math.BigInteger b) {
            return new BigDecimal(b);
        }
        if (value instanceof String s) {
            try {
                return new BigDecimal(s.trim());
            } catch (NumberFormatException e) {
                throw ValueException.badCast(value, this);
            }
        }
        throw ValueException.badCast(value, this);
    }
}
