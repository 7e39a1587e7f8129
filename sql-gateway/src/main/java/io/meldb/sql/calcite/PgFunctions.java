package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.linq4j.function.NonDeterministic;
import org.apache.calcite.schema.Function;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;

import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * PostgreSQL functions that Calcite's PostgreSQL library lacks or answers differently, as functions of the schema
 * tree (lower-case names, {@link FunctionNames#OWN}): {@code date_trunc(text, timestamp)} (Calcite's DATE_TRUNC is
 * BigQuery's, with its arguments the other way round), and {@code left}/{@code right}, whose negative counts
 * mean "all but the last/first n" in PostgreSQL and the empty string in Calcite; {@code gen_random_uuid()} (also as
 * uuid-ossp's {@code uuid_generate_v4()}).
 */
public final class PgFunctions {
    private PgFunctions() {
    }

    /** The functions by their names, as the root schema lists them. */
    public static Map<String, Function> functions() {
        return Map.of("date_trunc", ScalarFunctionImpl.create(PgFunctions.class, "dateTrunc"),
                "left", ScalarFunctionImpl.create(PgFunctions.class, "left"),
                "right", ScalarFunctionImpl.create(PgFunctions.class, "right"),
                "gen_random_uuid", ScalarFunctionImpl.create(PgFunctions.class, "genRandomUuid"),
                "uuid_generate_v4", ScalarFunctionImpl.create(PgFunctions.class, "genRandomUuid"));
    }

    /** PostgreSQL's {@code date_trunc(field, timestamp)}: the timestamp with every field below {@code field} zero. */
    public static Timestamp dateTrunc(final String field, final Timestamp ts) {
        if (field == null || ts == null) {
            return null;
        }
        final LocalDateTime t = ts.toLocalDateTime();
        final LocalDateTime out = switch (field.trim().toLowerCase(Locale.ROOT)) {
            case "microseconds" -> t;
            case "milliseconds" -> t.truncatedTo(ChronoUnit.MILLIS);
            case "second" -> t.truncatedTo(ChronoUnit.SECONDS);
            case "minute" -> t.truncatedTo(ChronoUnit.MINUTES);
            case "hour" -> t.truncatedTo(ChronoUnit.HOURS);
            case "day" -> t.truncatedTo(ChronoUnit.DAYS);
            case "week" -> t.truncatedTo(ChronoUnit.DAYS).minusDays(t.getDayOfWeek().getValue() - 1L);
            case "month" -> t.truncatedTo(ChronoUnit.DAYS).withDayOfMonth(1);
            case "quarter" -> t.truncatedTo(ChronoUnit.DAYS).withDayOfMonth(1)
                    .withMonth((t.get(IsoFields.QUARTER_OF_YEAR) - 1) * 3 + 1);
            case "year" -> t.truncatedTo(ChronoUnit.DAYS).withDayOfYear(1);
            case "decade" -> LocalDateTime.of(Math.floorDiv(t.getYear(), 10) * 10, 1, 1, 0, 0);
            case "century" -> LocalDateTime.of(t.getYear() > 0 ? (t.getYear() - 1) / 100 * 100 + 1
                    : t.getYear(), 1, 1, 0, 0);
            case "millennium" -> LocalDateTime.of(t.getYear() > 0 ? (t.getYear() - 1) / 1000 * 1000 + 1
                    : t.getYear(), 1, 1, 0, 0);
            default -> throw new SqlStateException("22023", "unit \"" + field + "\" not recognized for type "
                    + "timestamp without time zone");
        };
        return Timestamp.valueOf(out);
    }

    /** PostgreSQL's {@code left(text, n)}: the first n characters, or all but the last -n. */
    public static String left(final String s, final Integer n) {
        if (s == null || n == null) {
            return null;
        }
        final int length = s.codePointCount(0, s.length());
        final int keep = n >= 0 ? Math.min(n, length) : Math.max(length + n, 0);
        return s.substring(0, s.offsetByCodePoints(0, keep));
    }

    /** PostgreSQL's {@code right(text, n)}: the last n characters, or all but the first -n. */
    public static String right(final String s, final Integer n) {
        if (s == null || n == null) {
            return null;
        }
        final int length = s.codePointCount(0, s.length());
        final int keep = n >= 0 ? Math.min(n, length) : Math.max(length + n, 0);
        return s.substring(s.offsetByCodePoints(0, length - keep));
    }

    /** PostgreSQL's {@code gen_random_uuid()}: a version 4 UUID, as MeldDB's UUID text (lower case). */
    @NonDeterministic
    public static String genRandomUuid() {
        return UUID.randomUUID().toString();
    }
}
