package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * PostgreSQL's numeric arithmetic where BigDecimal's own differs: division, whose result scale PostgreSQL chooses
 * from the operands' leading digits ({@code select_div_scale} in {@code numeric.c}: at least 16 significant digits,
 * at least either operand's display scale), rounding half away from zero; and the final steps of avg, variance and
 * stddev over exact numbers ({@code numeric_avg}, {@code numeric_stddev_internal}). Addition, subtraction and
 * multiplication need nothing here: BigDecimal's result scales (the larger scale; the sum of the scales) are
 * PostgreSQL's display scales.
 */
public final class PgNumerics {
    /** PostgreSQL's NUMERIC_MIN_SIG_DIGITS: a quotient has at least this many significant digits. */
    private static final int MIN_SIG_DIGITS = 16;
    /** PostgreSQL's DEC_DIGITS: decimal digits per base-10000 digit of its numeric format. */
    private static final int DEC_DIGITS = 4;
    /** PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE. */
    private static final int MAX_DISPLAY_SCALE = 1000;

    private PgNumerics() {
    }

    /** {@code a / b} as PostgreSQL's numeric division answers it; 22012 when {@code b} is zero. */
    public static BigDecimal divide(final BigDecimal a, final BigDecimal b) {
        if (a == null || b == null) {
            return null;
        }
        if (b.signum() == 0) {
            throw new SqlStateException("22012", "division by zero");
        }
        return a.divide(b, divisionScale(a, b), RoundingMode.HALF_UP);
    }

    /** {@code select_div_scale}: the display scale of {@code a / b}. */
    static int divisionScale(final BigDecimal a, final BigDecimal b) {
        final int weight1 = weight(a);
        final int weight2 = weight(b);
        int qweight = weight1 - weight2;
        if (firstDigit(a, weight1) <= firstDigit(b, weight2)) {
            qweight--;
        }
        int scale = MIN_SIG_DIGITS - qweight * DEC_DIGITS;
        scale = Math.max(scale, Math.max(a.scale(), 0));
        scale = Math.max(scale, Math.max(b.scale(), 0));
        return Math.min(Math.max(scale, 0), MAX_DISPLAY_SCALE);
    }

    /** The weight of the leading base-10000 digit of {@code v} (0 for zero). */
    private static int weight(final BigDecimal v) {
        if (v.signum() == 0) {
            return 0;
        }
        return Math.floorDiv(v.precision() - v.scale() - 1, DEC_DIGITS);
    }

    /** The leading base-10000 digit of {@code v} (0 for zero). */
    private static int firstDigit(final BigDecimal v, final int weight) {
        if (v.signum() == 0) {
            return 0;
        }
        return v.abs().movePointLeft(DEC_DIGITS * weight).setScale(0, RoundingMode.DOWN).intValueExact();
    }

    /** An exact sum, count and sum of squares: the state of avg, variance and stddev over exact numbers. */
    public static final class Moments {
        long count;
        BigDecimal sum = BigDecimal.ZERO;
        BigDecimal sumOfSquares = BigDecimal.ZERO;
    }

    static Moments add(final Moments m, final BigDecimal x) {
        if (x != null) {
            m.count++;
            m.sum = m.sum.add(x);
            m.sumOfSquares = m.sumOfSquares.add(x.multiply(x));
        }
        return m;
    }

    static Moments merge(final Moments a, final Moments b) {
        final Moments m = new Moments();
        m.count = a.count + b.count;
        m.sum = a.sum.add(b.sum);
        m.sumOfSquares = a.sumOfSquares.add(b.sumOfSquares);
        return m;
    }

    /** {@code numeric_avg}: the sum divided by the count, null without rows. */
    static BigDecimal average(final Moments m) {
        return m.count == 0 ? null : divide(m.sum, BigDecimal.valueOf(m.count));
    }

    /**
     * {@code numeric_stddev_internal}: variance or standard deviation, of the sample or the population; null
     * without rows (and for a sample of one row).
     */
    static BigDecimal spread(final Moments m, final boolean sample, final boolean root) {
        if (m.count == 0 || sample && m.count == 1) {
            return null;
        }
        final BigDecimal n = BigDecimal.valueOf(m.count);
        int scale = Math.max(m.sum.scale(), 0) * 2;
        final BigDecimal numerator = n.multiply(m.sumOfSquares).setScale(scale, RoundingMode.HALF_UP)
                .subtract(m.sum.multiply(m.sum).setScale(scale, RoundingMode.HALF_UP));
        if (numerator.signum() <= 0) {
            return BigDecimal.ZERO;
        }
        final BigDecimal denominator = sample ? n.multiply(n.subtract(BigDecimal.ONE)) : n.multiply(n);
        scale = divisionScale(numerator, denominator);
        final BigDecimal variance = numerator.divide(denominator, scale, RoundingMode.HALF_UP);
        if (!root) {
            return variance;
        }
        // PostgreSQL's sqrt_var(variance, scale): the root rounded to the quotient's scale
        final int digits = Math.max(variance.precision() - variance.scale(), 1) / 2 + scale + 8;
        return variance.sqrt(new MathContext(digits, RoundingMode.DOWN)).setScale(scale, RoundingMode.HALF_UP);
    }

    /**
     * The accumulation avg, variance and stddev share, in the form Calcite's aggregate functions take (init, add,
     * merge; each subclass adds result).
     */
    public abstract static class MomentsAggregate {
        public Moments init() {
            return new Moments();
        }

        public Moments add(final Moments m, final BigDecimal x) {
            return PgNumerics.add(m, x);
        }

        public Moments merge(final Moments a, final Moments b) {
            return PgNumerics.merge(a, b);
        }
    }

    /** avg over exact numbers. */
    public static final class Avg extends MomentsAggregate {
        public BigDecimal result(final Moments m) {
            return average(m);
        }
    }

    /** var_samp (and variance) over exact numbers. */
    public static final class VarSamp extends MomentsAggregate {
        public BigDecimal result(final Moments m) {
            return spread(m, true, false);
        }
    }

    /** var_pop over exact numbers. */
    public static final class VarPop extends MomentsAggregate {
        public BigDecimal result(final Moments m) {
            return spread(m, false, false);
        }
    }

    /** stddev_samp (and stddev) over exact numbers. */
    public static final class StddevSamp extends MomentsAggregate {
        public BigDecimal result(final Moments m) {
            return spread(m, true, true);
        }
    }

    /** stddev_pop over exact numbers. */
    public static final class StddevPop extends MomentsAggregate {
        public BigDecimal result(final Moments m) {
            return spread(m, false, true);
        }
    }
}
