package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;

/**
 * double precision arithmetic with PostgreSQL's checks ({@code float.c}'s {@code float_overflow_error},
 * {@code float_underflow_error}, {@code float_zero_divide_error}), where Java's arithmetic answers Infinity, NaN or
 * zero: a finite result out of range is 22003 ({@code value out of range: overflow}/{@code underflow}), division
 * by zero 22012, the square root of a negative number 2201F. Operations on infinities and NaN given as input keep
 * IEEE's answers, as in PostgreSQL. {@link MeldConvertlets} puts these operators where a statement adds,
 * subtracts, multiplies or divides double precision values.
 */
public final class PgFloatArithmetic {
    public static final SqlUserDefinedFunction PLUS = function("float8pl", "plus");
    public static final SqlUserDefinedFunction MINUS = function("float8mi", "minus");
    public static final SqlUserDefinedFunction TIMES = function("float8mul", "times");
    public static final SqlUserDefinedFunction DIVIDE = function("float8div", "divide");
    public static final SqlUserDefinedFunction SQRT = new SqlUserDefinedFunction(
            new SqlIdentifier("sqrt", SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION,
            ReturnTypes.cascade(ReturnTypes.explicit(SqlTypeName.DOUBLE), SqlTypeTransforms.TO_NULLABLE),
            InferTypes.FIRST_KNOWN, null, ScalarFunctionImpl.create(PgFloatArithmetic.class, "sqrt"));

    private PgFloatArithmetic() {
    }

    private static SqlUserDefinedFunction function(final String name, final String method) {
        return new SqlUserDefinedFunction(new SqlIdentifier(name, SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION,
                ReturnTypes.cascade(ReturnTypes.explicit(SqlTypeName.DOUBLE), SqlTypeTransforms.TO_NULLABLE),
                InferTypes.FIRST_KNOWN, null, ScalarFunctionImpl.create(PgFloatArithmetic.class, method));
    }

    // what generated code calls: NULL in, NULL out (boxed, as Calcite passes nullable operands)

    public static Double plus(final Double a, final Double b) {
        return a == null || b == null ? null : overflowChecked(a + b, a, b);
    }

    public static Double minus(final Double a, final Double b) {
        return a == null || b == null ? null : overflowChecked(a - b, a, b);
    }

    public static Double times(final Double a, final Double b) {
        return a == null || b == null ? null : times(a.doubleValue(), b.doubleValue());
    }

    public static Double divide(final Double a, final Double b) {
        return a == null || b == null ? null : divide(a.doubleValue(), b.doubleValue());
    }

    public static Double sqrt(final Double a) {
        if (a == null) {
            return null;
        }
        if (a < 0) {
            throw new SqlStateException("2201F", "cannot take square root of a negative number");
        }
        return Math.sqrt(a);
    }

    static double times(final double a, final double b) {
        final double r = overflowChecked(a * b, a, b);
        if (r == 0.0 && a != 0.0 && b != 0.0) {
            throw new SqlStateException("22003", "value out of range: underflow");
        }
        return r;
    }

    static double divide(final double a, final double b) {
        if (b == 0.0) {
            throw new SqlStateException("22012", "division by zero");
        }
        final double r = a / b;
        if (Double.isInfinite(r) && !Double.isInfinite(a)) {
            throw new SqlStateException("22003", "value out of range: overflow");
        }
        if (r == 0.0 && a != 0.0 && !Double.isInfinite(b)) {
            throw new SqlStateException("22003", "value out of range: underflow");
        }
        return r;
    }

    private static double overflowChecked(final double r, final double a, final double b) {
        if (Double.isInfinite(r) && !Double.isInfinite(a) && !Double.isInfinite(b)) {
            throw new SqlStateException("22003", "value out of range: overflow");
        }
        return r;
    }
}
