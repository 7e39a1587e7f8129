package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.BooleanText;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.Date;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * Parameters on the PostgreSQL wire: a value of a Bind message (or a COPY field) read, from text or binary
 * format, into the Java form its statement's parameter type takes, as PostgreSQL's {@code *in}/{@code *recv}
 * functions read them. A value that does not fit its type is an error with SQLState 22P02 (bad syntax), 22P03
 * (bad binary format) or 22003 (out of range), never a silently different value.
 */
public final class PgParameters {
    private static final BigInteger TEN_THOUSAND = BigInteger.valueOf(10_000);

    private static final DateTimeFormatter TIMESTAMP_IN = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .append(DateTimeFormatter.ISO_LOCAL_DATE)
            .optionalStart().appendLiteral(' ').optionalEnd()
            .optionalStart().appendLiteral('T').optionalEnd()
            .optionalStart()
            .appendValue(ChronoField.HOUR_OF_DAY, 2).appendLiteral(':')
            .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
            .optionalStart().appendLiteral(':').appendValue(ChronoField.SECOND_OF_MINUTE, 2).optionalEnd()
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .optionalEnd()
            .toFormatter(Locale.ROOT)
            .withResolverStyle(java.time.format.ResolverStyle.STRICT); // 2023-02-29 is an error, not 02-28
    /** A zone offset after a date or a time of day, which types without a zone ignore. */
    private static final java.util.regex.Pattern OFFSET = java.util.regex.Pattern.compile(
            "(\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?|\\d{4}-\\d{2}-\\d{2})\\s*(?:Z|[+-]\\d{1,2}(?::?\\d{2}){0,2})$");

    private PgParameters() {
    }

    /**
     * A Bind parameter as the Java value that a statement parameter of {@code jdbcType} takes: {@code declared}
     * is the type the client said it sends (null when it left the type to the server), {@code bytes} its value
     * (null for NULL) in text or binary format.
     */
    public static Object readParameter(final ByteBuf bytes, final boolean binary, final PgType declared,
                                       final int jdbcType) {
        if (bytes == null) {
            return null;
        }
        if (declared != null && !assignable(declared, jdbcType)) {
            throw new SqlStateException("42804", "a " + declared.typeName() + " parameter cannot be used as "
                    + jdbcName(jdbcType));
        }
        if (binary) {
            return convert(readBinary(bytes, declared == null ? binaryGuess(jdbcType, bytes) : declared), jdbcType);
        }
        return convertText(bytes.toString(StandardCharsets.UTF_8), jdbcType);
    }

    /**
     * Whether a value the client declared as {@code declared} may be stored as {@code jdbcType}: PostgreSQL has no
     * assignment cast from boolean to a number, from a number to boolean, or from anything but text to bytea.
     */
    private static boolean assignable(final PgType declared, final int jdbcType) {
        final boolean number = declared == PgType.INT2 || declared == PgType.INT4 || declared == PgType.INT8
                || declared == PgType.FLOAT4 || declared == PgType.FLOAT8 || declared == PgType.NUMERIC;
        return switch (jdbcType) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT, Types.DECIMAL, Types.NUMERIC, Types.REAL,
                 Types.FLOAT, Types.DOUBLE -> declared != PgType.BOOL && declared != PgType.BYTEA
                    && declared != PgType.UUID;
            case Types.BOOLEAN, Types.BIT -> !number && declared != PgType.BYTEA && declared != PgType.UUID;
            case Types.BINARY, Types.VARBINARY -> declared == PgType.BYTEA || declared == PgType.TEXT
                    || declared == PgType.VARCHAR || declared == PgType.BPCHAR || declared == PgType.UNKNOWN;
            default -> true;
        };
    }

    /** A binary value of a parameter the client sent without naming its type: take the statement's. */
    private static PgType binaryGuess(final int jdbcType, final ByteBuf bytes) {
        final PgType t = PgType.ofJdbc(jdbcType);
        if (t == PgType.INT4 && bytes.readableBytes() == 8) {
            return PgType.INT8;
        }
        return t;
    }

    private static Object readBinary(final ByteBuf b, final PgType type) {
        final int n = b.readableBytes();
        switch (type) {
            case BOOL:
                expectLength(type, n, 1);
                return b.getByte(b.readerIndex()) != 0;
            case INT2:
                expectLength(type, n, 2);
                return (long) b.getShort(b.readerIndex());
            case INT4:
            case OID:
                expectLength(type, n, 4);
                return (long) b.getInt(b.readerIndex());
            case INT8:
                expectLength(type, n, 8);
                return b.getLong(b.readerIndex());
            case FLOAT4:
                expectLength(type, n, 4);
                return (double) b.getFloat(b.readerIndex());
            case FLOAT8:
                expectLength(type, n, 8);
                return b.getDouble(b.readerIndex());
            case NUMERIC:
                return readNumericBinary(b);
            case DATE:
                expectLength(type, n, 4);
                return LocalDate.ofEpochDay(b.getInt(b.readerIndex()) + PgValues.PG_EPOCH_DAYS);
            case TIME:
                expectLength(type, n, 8);
                return LocalTime.ofNanoOfDay(b.getLong(b.readerIndex()) * 1000);
            case TIMESTAMP:
            case TIMESTAMPTZ: {
                expectLength(type, n, 8);
                final long micros = b.getLong(b.readerIndex()) + PgValues.PG_EPOCH_MICROS;
                return LocalDateTime.of(1970, 1, 1, 0, 0).plus(micros, ChronoUnit.MICROS);
            }
            case BYTEA:
                return ByteBufUtil.getBytes(b);
            case JSONB:
                // jsonb_recv: version 1, then the text
                if (n < 1 || b.getByte(b.readerIndex()) != 1) {
                    throw new SqlStateException("22P03", "unsupported jsonb version number");
                }
                return b.toString(b.readerIndex() + 1, n - 1, StandardCharsets.UTF_8);
            case UUID:
                expectLength(type, n, 16);
                return new java.util.UUID(b.getLong(b.readerIndex()), b.getLong(b.readerIndex() + 8)).toString();
            default:
                return b.toString(StandardCharsets.UTF_8);
        }
    }

    private static void expectLength(final PgType type, final int actual, final int expected) {
        if (actual != expected) {
            throw new SqlStateException("22P03", "incorrect binary data format: " + type.typeName() + " takes "
                    + expected + " bytes, the parameter has " + actual);
        }
    }

    private static BigDecimal readNumericBinary(final ByteBuf b) {
        if (b.readableBytes() < 8) {
            throw new SqlStateException("22P03", "incorrect binary data format for numeric");
        }
        final int at = b.readerIndex();
        final int ndigits = b.getUnsignedShort(at);
        final int weight = b.getShort(at + 2);
        final int sign = b.getUnsignedShort(at + 4);
        final int dscale = b.getUnsignedShort(at + 6);
        if (b.readableBytes() != 8 + 2 * ndigits) {
            throw new SqlStateException("22P03", "incorrect binary data format for numeric");
        }
        if (sign == 0xC000) {
            throw new SqlStateException("22003", "NaN is not a value MeldDB's numbers can take");
        }
        BigInteger unscaled = BigInteger.ZERO;
        for (int i = 0; i < ndigits; i++) {
            unscaled = unscaled.multiply(TEN_THOUSAND).add(BigInteger.valueOf(b.getShort(at + 8 + 2 * i)));
        }
        // the digits stand for unscaled * 10000^(weight - ndigits + 1)
        BigDecimal v = new BigDecimal(unscaled).scaleByPowerOfTen(4 * (weight - ndigits + 1));
        v = v.setScale(dscale, RoundingMode.UNNECESSARY);
        return sign == 0x4000 ? v.negate() : v;
    }

    /** A value read in binary format as the Java form of a statement parameter of {@code jdbcType}. */
    private static Object convert(final Object v, final int jdbcType) {
        switch (jdbcType) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> {
                final long l = v instanceof Long x ? x : integral(v, jdbcType);
                return narrow(l, jdbcType);
            }
            case Types.DECIMAL, Types.NUMERIC -> {
                if (v instanceof BigDecimal d) {
                    return d;
                }
                if (v instanceof Long l) {
                    return BigDecimal.valueOf(l);
                }
                if (v instanceof Double d) {
                    return finite(d, jdbcType) ? BigDecimal.valueOf(d) : null;
                }
                return convertText(String.valueOf(v), jdbcType);
            }
            case Types.REAL, Types.FLOAT, Types.DOUBLE -> {
                if (v instanceof Number n) {
                    return n.doubleValue();
                }
                return convertText(String.valueOf(v), jdbcType);
            }
            case Types.DATE -> {
                if (v instanceof LocalDate d) {
                    return Date.valueOf(d);
                }
                if (v instanceof LocalDateTime t) {
                    return Date.valueOf(t.toLocalDate());
                }
                return convertText(String.valueOf(v), jdbcType);
            }
            case Types.TIMESTAMP_WITH_TIMEZONE -> {
                if (v instanceof LocalDateTime t) { // binary timestamptz: UTC
                    return Timestamp.from(t.toInstant(java.time.ZoneOffset.UTC));
                }
                return convertText(String.valueOf(v), jdbcType);
            }
            case Types.TIMESTAMP -> {
                if (v instanceof LocalDateTime t) {
                    return Timestamp.valueOf(t);
                }
                if (v instanceof LocalDate d) {
                    return Timestamp.valueOf(d.atStartOfDay());
                }
                return convertText(String.valueOf(v), jdbcType);
            }
            case Types.TIME -> {
                if (v instanceof LocalTime t) {
                    return time(t);
                }
                return convertText(String.valueOf(v), jdbcType);
            }
            case Types.BOOLEAN, Types.BIT -> {
                if (v instanceof Boolean b) {
                    return b;
                }
                if (v instanceof Number) {
                    throw new SqlStateException("42804", "a number cannot be used as a boolean parameter");
                }
                return convertText(String.valueOf(v), jdbcType);
            }
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR -> {
                if (v instanceof String s) {
                    return s;
                }
                if (v instanceof byte[]) {
                    throw new SqlStateException("42804", "a bytea parameter cannot be used as text");
                }
                if (v instanceof LocalDateTime t) {
                    return PgValues.timestampText(t);
                }
                if (v instanceof Double d) {
                    return PgValues.doubleText(d);
                }
                if (v instanceof BigDecimal d) {
                    return d.toPlainString();
                }
                return String.valueOf(v);
            }
            case Types.BINARY, Types.VARBINARY -> {
                if (v instanceof byte[] b) {
                    return b;
                }
                if (!(v instanceof String)) {
                    throw new SqlStateException("42804", "a " + v.getClass().getSimpleName().toLowerCase(Locale.ROOT)
                            + " parameter cannot be used as bytea");
                }
                return convertText((String) v, jdbcType);
            }
            default -> {
                return v instanceof LocalDateTime t ? Timestamp.valueOf(t)
                        : v instanceof LocalDate d ? Date.valueOf(d) : v;
            }
        }
    }

    private static long integral(final Object v, final int jdbcType) {
        if (v instanceof Double d) {
            if (!finite(d, jdbcType) || d < -9.223372036854776E18 || d >= 9.223372036854776E18) {
                throw outOfRange(String.valueOf(d), jdbcType);
            }
            return Math.round(d);
        }
        if (v instanceof BigDecimal d) {
            try {
                return d.setScale(0, RoundingMode.HALF_EVEN).longValueExact();
            } catch (ArithmeticException e) {
                throw outOfRange(d.toPlainString(), jdbcType);
            }
        }
        if (v instanceof Boolean) {
            throw new SqlStateException("42804", "a boolean parameter cannot be used as " + jdbcName(jdbcType));
        }
        return (Long) convertText(String.valueOf(v), Types.BIGINT);
    }

    private static boolean finite(final double d, final int jdbcType) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw outOfRange(String.valueOf(d), jdbcType);
        }
        return true;
    }

    /** An integer as a parameter of an integer type: it fits exactly, or the statement fails with 22003. */
    private static Object narrow(final long v, final int jdbcType) {
        switch (jdbcType) {
            case Types.TINYINT:
            case Types.SMALLINT:
                if (v < Short.MIN_VALUE || v > Short.MAX_VALUE) {
                    throw outOfRange(String.valueOf(v), jdbcType);
                }
                return (short) v;
            case Types.INTEGER:
                if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                    throw outOfRange(String.valueOf(v), jdbcType);
                }
                return (int) v;
            default:
                return v;
        }
    }

    /** A text-format value (PostgreSQL's input syntax) as the Java form of a parameter of {@code jdbcType}. */
    public static Object convertText(final String text, final int jdbcType) {
        final String s = text.trim();
        try {
            switch (jdbcType) {
                case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT: {
                    final long v;
                    try {
                        v = Long.parseLong(s);
                    } catch (NumberFormatException e) {
                        if (s.matches("[+-]?\\d+")) {
                            throw outOfRange(s, jdbcType);
                        }
                        throw badSyntax(s, jdbcType);
                    }
                    return narrow(v, jdbcType);
                }
                case Types.DECIMAL, Types.NUMERIC:
                    return new BigDecimal(s);
                case Types.REAL, Types.FLOAT, Types.DOUBLE:
                    return switch (s.toLowerCase(Locale.ROOT)) {
                        case "nan" -> Double.NaN;
                        case "infinity", "+infinity", "inf" -> Double.POSITIVE_INFINITY;
                        case "-infinity", "-inf" -> Double.NEGATIVE_INFINITY;
                        default -> {
                            final double d = Double.parseDouble(s);
                            if (Double.isInfinite(d)) { // "1e400": float8in says out of range, not Infinity
                                throw outOfRange(s, jdbcType);
                            }
                            yield d;
                        }
                    };
                case Types.BOOLEAN, Types.BIT:
                    final Boolean b = BooleanText.read(s);
                    if (b == null) {
                        throw badSyntax(s, jdbcType);
                    }
                    return b;
                case Types.DATE:
                    return Date.valueOf(LocalDate.from(TIMESTAMP_IN.parse(withoutOffset(s))));
                case Types.TIME:
                    // pgjdbc's setTime sends an offset, which a time without zone ignores
                    return time(LocalTime.parse(withoutOffset(s)));
                case Types.TIMESTAMP:
                    return Timestamp.valueOf(parseTimestamp(s));
                case Types.TIMESTAMP_WITH_TIMEZONE:
                    return Timestamp.from(parseInstant(s));
                case Types.BINARY, Types.VARBINARY:
                    return s.startsWith("\\x") ? ByteBufUtil.decodeHexDump(s, 2, s.length() - 2)
                            : text.getBytes(StandardCharsets.UTF_8);
                default:
                    return text;
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            throw badSyntax(s, jdbcType);
        }
    }

    /** A timestamp literal; an offset, as clients send with TIMESTAMP values, is dropped as PostgreSQL does. */
    private static LocalDateTime parseTimestamp(final String s) {
        final var parsed = TIMESTAMP_IN.parseBest(withoutOffset(s), LocalDateTime::from, LocalDate::from);
        if (parsed instanceof LocalDate d) {
            return d.atStartOfDay();
        }
        return (LocalDateTime) parsed;
    }

    /** A timestamptz literal: with its offset, or without one in the session's zone (UTC, MeldDB's only). */
    private static java.time.Instant parseInstant(final String s) {
        final java.util.regex.Matcher m = OFFSET.matcher(s);
        final LocalDateTime local = parseTimestamp(s);
        if (!m.find()) {
            return local.toInstant(java.time.ZoneOffset.UTC);
        }
        final String zone = s.substring(m.end(1)).trim();
        final String offset = zone.equalsIgnoreCase("Z") ? "+00:00" : zone.length() <= 3 ? zone + ":00"
                : zone.contains(":") ? zone : zone.substring(0, 3) + ":" + zone.substring(3);
        return local.toInstant(java.time.ZoneOffset.of(offset));
    }

    /** A time of day with its milliseconds (Time.valueOf drops them). */
    private static Time time(final LocalTime t) {
        final Time out = Time.valueOf(t);
        out.setTime(out.getTime() + t.getNano() / 1_000_000);
        return out;
    }

    private static String withoutOffset(final String s) {
        final java.util.regex.Matcher m = OFFSET.matcher(s);
        return m.find() ? s.substring(0, m.start()) + m.group(1) : s;
    }

    private static SqlStateException badSyntax(final String s, final int jdbcType) {
        return new SqlStateException("22P02", "invalid input syntax for type " + jdbcName(jdbcType) + ": \""
                + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"");
    }

    private static SqlStateException outOfRange(final String s, final int jdbcType) {
        return new SqlStateException("22003", "value \"" + s + "\" is out of range for type " + jdbcName(jdbcType));
    }

    private static String jdbcName(final int jdbcType) {
        return switch (jdbcType) {
            case Types.TINYINT, Types.SMALLINT -> "smallint";
            case Types.INTEGER -> "integer";
            case Types.BIGINT -> "bigint";
            case Types.DECIMAL, Types.NUMERIC -> "numeric";
            case Types.REAL -> "real";
            case Types.FLOAT, Types.DOUBLE -> "double precision";
            case Types.BOOLEAN, Types.BIT -> "boolean";
            case Types.DATE -> "date";
            case Types.TIME -> "time";
            case Types.TIMESTAMP -> "timestamp";
            default -> PgType.ofJdbc(jdbcType).typeName();
        };
    }
}
