package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's interval literals ({@code interval '3 days'}, {@code interval '1 day 2 hours'},
 * {@code '1 day 02:30:00'::interval}, {@code '1.5 hours'}, {@code '1 year 2 months'}) as the standard literals
 * MeldDB's planner reads: one whole field stays one field ({@code INTERVAL '3' DAY}, a week as 7 days); anything
 * else becomes {@code INTERVAL 'd hh:mm:ss.fff' DAY(9) TO SECOND(3)} or {@code INTERVAL 'y-m' YEAR(9) TO MONTH}.
 * Years or months with days or times are 0A000: the standard's intervals hold one or the other, and MeldDB has no
 * type holding both.
 */
final class PgIntervals {
    private static final Pattern LITERAL = Pattern.compile("\\binterval\\s+'([^']*)'", Pattern.CASE_INSENSITIVE);
    /** One field: a number and its unit, or a time of day [-]h:mm[:ss[.f]]. */
    private static final Pattern FIELD = Pattern.compile(
            "\\s*([+-]?\\d+(?:\\.\\d+)?)\\s*(years?|mons?|months?|weeks?|days?|hours?|mins?|minutes?|secs?|seconds?)"
            + "\\b\\s*|\\s*([+-])?(\\d+):(\\d{1,2})(?::(\\d{1,2}(?:\\.\\d+)?))?\\s*", Pattern.CASE_INSENSITIVE);

    private PgIntervals() {
    }

    /** {@code sql} with each {@code interval '...'} literal MeldDB reads rewritten; others are left to the planner. */
    static String rewrite(final String sql) {
        final Matcher m = LITERAL.matcher(sql);
        if (!m.find()) {
            return sql;
        }
        final StringBuilder out = new StringBuilder(sql.length());
        do {
            final String literal = literal(m.group(1));
            m.appendReplacement(out, Matcher.quoteReplacement(literal != null ? literal : m.group()));
        } while (m.find());
        m.appendTail(out);
        return out.toString();
    }

    /** The standard literal for PostgreSQL's interval text, or null when the text is not one MeldDB reads. */
    static String literal(final String text) {
        final Matcher m = FIELD.matcher(text);
        int at = 0;
        int fields = 0;
        String onlyUnit = null;
        BigDecimal onlyValue = null;
        long months = 0;
        BigDecimal seconds = BigDecimal.ZERO;
        boolean dayTime = false;
        while (at < text.length()) {
            if (!m.find(at) || m.start() != at || m.end() == at) {
                return null;
            }
            at = m.end();
            fields++;
            if (m.group(2) != null) {
                final BigDecimal n = new BigDecimal(m.group(1));
                final String unit = m.group(2).toLowerCase(Locale.ROOT);
                onlyUnit = n.stripTrailingZeros().scale() <= 0 ? unit : null;
                onlyValue = n;
                if (unit.startsWith("y") || unit.startsWith("mon")) {
                    if (n.stripTrailingZeros().scale() > 0) {
                        return null;
                    }
                    months += n.longValueExact() * (unit.startsWith("y") ? 12 : 1);
                } else {
                    dayTime = true;
                    final long per = unit.startsWith("w") ? 604_800 : unit.startsWith("d") ? 86_400
                            : unit.startsWith("h") ? 3_600 : unit.startsWith("mi") ? 60 : 1;
                    seconds = seconds.add(n.multiply(BigDecimal.valueOf(per)));
                }
            } else {
                dayTime = true;
                onlyUnit = null;
                BigDecimal t = BigDecimal.valueOf(Long.parseLong(m.group(4)) * 3_600 + Long.parseLong(m.group(5)) * 60);
                if (m.group(6) != null) {
                    t = t.add(new BigDecimal(m.group(6)));
                }
                seconds = seconds.add("-".equals(m.group(3)) ? t.negate() : t);
            }
        }
        if (fields == 0) {
            return null;
        }
        if (months != 0 && dayTime) {
            throw new SqlStateException("0A000", "interval '" + text + "' mixes years or months with days or "
                    + "times: MeldDB's intervals hold one or the other (add two intervals instead)");
        }
        if (fields == 1 && onlyUnit != null) {
            return oneField(onlyValue.longValueExact(), onlyUnit);
        }
        if (!dayTime) {
            final long a = Math.abs(months);
            return "INTERVAL '" + (months < 0 ? "-" : "") + a / 12 + "-" + a % 12 + "' YEAR(9) TO MONTH";
        }
        final BigDecimal abs = seconds.abs().setScale(3, RoundingMode.HALF_UP);
        final long whole = abs.longValue();
        final String fraction = abs.toPlainString().substring(abs.toPlainString().indexOf('.'));
        return String.format(Locale.ROOT, "INTERVAL '%s%d %02d:%02d:%02d%s' DAY(9) TO SECOND(3)",
                seconds.signum() < 0 ? "-" : "", whole / 86_400, whole % 86_400 / 3_600, whole % 3_600 / 60,
                whole % 60, fraction);
    }

    /** A whole number of one unit: that unit's literal ({@code INTERVAL '3' DAY}; weeks as days). */
    private static String oneField(final long value, final String unit) {
        long n = value;
        final String standard;
        if (unit.startsWith("w")) {
            n *= 7;
            standard = "DAY";
        } else if (unit.startsWith("y")) {
            standard = "YEAR";
        } else if (unit.startsWith("mon")) {
            standard = "MONTH";
        } else if (unit.startsWith("d")) {
            standard = "DAY";
        } else if (unit.startsWith("h")) {
            standard = "HOUR";
        } else if (unit.startsWith("mi")) {
            standard = "MINUTE";
        } else {
            standard = "SECOND";
        }
        return "INTERVAL '" + n + "' " + standard;
    }
}
