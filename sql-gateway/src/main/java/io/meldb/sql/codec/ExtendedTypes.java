package io.meldb.sql.codec;

import org.apache.calcite.avatica.util.ByteString;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.HexFormat;
import java.util.Locale;
import java.util.TimeZone;
import java.util.regex.Pattern;

/**
 * {@link ColumnType#coerce} for the types PostgreSQL applications use beyond the SQL-92 core: REAL, TIME,
 * TIMESTAMP WITH TIME ZONE, TEXT, BYTEA, UUID and JSON. Every narrowing is checked the way PostgreSQL checks it:
 * a double too large for REAL is 22003 (not Infinity), a bad literal is 22P02, JSON that does not parse is 22P02.
 */
final class ExtendedTypes {
    private static final long DAY_MILLIS = 86_400_000L;
    private static final Pattern UUID_TEXT = Pattern.compile(
            "\\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}}?");
    /** ISO or PostgreSQL's output form, with an optional offset ({@code +02}, {@code +02:00}, {@code Z}). */
    private static final DateTimeFormatter TIMESTAMPTZ_IN = new DateTimeFormatterBuilder()
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
            .optionalStart().appendOffset("+HH:mm", "Z").optionalEnd()
            .optionalStart().appendOffset("+HH", "Z").optionalEnd()
            .toFormatter(Locale.ROOT)
            .withResolverStyle(java.time.format.ResolverStyle.STRICT);

    private ExtendedTypes() {
    }

    static Object coerce(final Object value, final ColumnType type) {
        return switch (type.type()) {
            case REAL -> real(value, type);
            case TIME -> time(value, type);
            case TIMESTAMPTZ -> timestamptz(value, type);
            case TEXT -> value instanceof String s ? s : text(value, type);
            case JSON -> {
                final String s = value instanceof String str ? str : text(value, type);
                if (type.scale() == ColumnType.JSONB_FLAG) {
                    yield JsonbText.normalize(s);
                }
                JsonText.check(s);
                yield s;
            }
            case BYTEA -> bytes(value, type);
            case UUID -> uuid(value, type);
            default -> throw new IllegalStateException("unknown type " + type);
        };
    }

    private static String text(final Object value, final ColumnType type) {
        if (value instanceof String || value instanceof Number || value instanceof Boolean
                || value instanceof java.util.UUID) {
            return String.valueOf(value);
        }
        throw ValueException.badCast(value, type); // byte[] has no text form to store
    }

    private static Float real(final Object value, final ColumnType type) {
        final double d;
        if (value instanceof Float f) {
            return f;
        } else if (value instanceof Number n) {
            d = n.doubleValue();
        } else if (value instanceof String s) {
            d = switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "nan" -> Double.NaN;
                case "infinity", "+infinity", "inf" -> Double.POSITIVE_INFINITY;
                case "-infinity", "-inf" -> Double.NEGATIVE_INFINITY;
                default -> {
                    final double parsed;
                    try {
                        parsed = Double.parseDouble(s.trim());
                    } catch (NumberFormatException e) {
                        throw ValueException.badSyntax(value, type);
                    }
                    if (Double.isInfinite(parsed)) {
                        throw ValueException.outOfRange(value, type);
                    }
                    yield parsed;
                }
            };
        } else {
            throw ValueException.badCast(value, type);
        }
        final float f = (float) d;
        if (Float.isInfinite(f) && !Double.isInfinite(d)) {
            throw new ValueException("22003", "value out of range: overflow (" + value + " does not fit in real)");
        }
        if (f == 0.0f && d != 0.0) {
            throw new ValueException("22003", "value out of range: underflow (" + value + " does not fit in real)");
        }
        return f;
    }

    private static Integer time(final Object value, final ColumnType type) {
        if (value instanceof Integer i) {
            if (i < 0 || i >= DAY_MILLIS) {
                throw ValueException.outOfRange(value, type);
            }
            return i;
        }
        if (value instanceof java.sql.Time t) {
            // a java.sql.Time is a wall-clock time in the JVM's zone on 1970-01-01
            final long local = t.getTime() + TimeZone.getDefault().getOffset(t.getTime());
            return (int) Math.floorMod(local, DAY_MILLIS);
        }
        if (value instanceof LocalTime t) {
            return (int) (t.toNanoOfDay() / 1_000_000L);
        }
        if (value instanceof String s) {
            try {
                return (int) (LocalTime.parse(s.trim()).toNanoOfDay() / 1_000_000L);
            } catch (DateTimeParseException e) {
                throw ValueException.badSyntax(value, type);
            }
        }
        throw ValueException.badCast(value, type);
    }

    private static Long timestamptz(final Object value, final ColumnType type) {
        if (value instanceof Long l) {
            return l;
        }
        if (value instanceof java.util.Date d) { // java.sql.Timestamp too: an instant
            return d.getTime();
        }
        if (value instanceof OffsetDateTime t) {
            return t.toInstant().toEpochMilli();
        }
        if (value instanceof ZonedDateTime t) {
            return t.toInstant().toEpochMilli();
        }
        if (value instanceof Instant t) {
            return t.toEpochMilli();
        }
        if (value instanceof LocalDateTime t) {
            return t.toInstant(ZoneOffset.UTC).toEpochMilli();
        }
        if (value instanceof String s) {
            try {
                final TemporalAccessor t = TIMESTAMPTZ_IN.parse(s.trim());
                final LocalDateTime local = t.isSupported(ChronoField.HOUR_OF_DAY) ? LocalDateTime.of(
                        java.time.LocalDate.from(t), LocalTime.from(t))
                        : java.time.LocalDate.from(t).atStartOfDay();
                final ZoneOffset offset = t.isSupported(ChronoField.OFFSET_SECONDS)
                        ? ZoneOffset.from(t) : ZoneOffset.UTC; // no offset: the session zone, UTC in MeldDB
                return local.toInstant(offset).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw ValueException.badSyntax(value, type);
            }
        }
        throw ValueException.badCast(value, type);
    }

    private static ByteString bytes(final Object value, final ColumnType type) {
        if (value instanceof ByteString b) {
            return b;
        }
        if (value instanceof byte[] b) {
            return new ByteString(b);
        }
        if (value instanceof String s) {
            if (s.startsWith("\\x")) {
                try {
                    return new ByteString(HexFormat.of().parseHex(s, 2, s.length()));
                } catch (IllegalArgumentException e) {
                    throw ValueException.badSyntax(value, type);
                }
            }
            return new ByteString(s.getBytes(StandardCharsets.UTF_8));
        }
        throw ValueException.badCast(value, type);
    }

    private static String uuid(final Object value, final ColumnType type) {
        if (value instanceof java.util.UUID u) {
            return u.toString();
        }
        if (value instanceof String s) {
            final String t = s; // no blanks around it, as PostgreSQL's uuid_in
            if (!UUID_TEXT.matcher(t).matches() || t.startsWith("{") != t.endsWith("}")) {
                throw ValueException.badSyntax(value, type);
            }
            final String hex = t.replace("-", "").replace("{", "").replace("}", "");
            return new java.util.UUID(Long.parseUnsignedLong(hex.substring(0, 16), 16),
                    Long.parseUnsignedLong(hex.substring(16), 16)).toString();
        }
        throw ValueException.badCast(value, type);
    }

}
