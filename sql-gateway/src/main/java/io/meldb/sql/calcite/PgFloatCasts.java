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

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Casts from floating point as PostgreSQL makes them, where Calcite's differ ({@link MeldConvertlets} puts them in
 * plans): to an integer type the value is rounded to the nearest integer, halves to even ({@code dtoi4} uses C's
 * {@code rint}: {@code 5.5::float8::int4} is 6, Calcite truncates to 5), and NaN or a value outside the type is
 * 22003 ({@code integer out of range}), never a wrapped or zero value; to numeric the value is read back from its
 * decimal text with 15 significant digits for double precision and 6 for real ({@code float8_numeric} prints with
 * {@code DBL_DIG}): {@code 0.1::float8::numeric} is 0.1, not 0.1000000000000000055511151231257827021181583404541015625.
 * NaN and infinities have no numeric value in MeldDB (0A000).
 */
public final class PgFloatCasts {
    /** float to smallint, integer, bigint. */
    public static final SqlUserDefinedFunction TO_INT2 = function("int2", SqlTypeName.SMALLINT, "toInt2");
    public static final SqlUserDefinedFunction TO_INT4 = function("int4", SqlTypeName.INTEGER, "toInt4");
    public static final SqlUserDefinedFunction TO_INT8 = function("int8", SqlTypeName.BIGINT, "toInt8");
    /** double precision and real to numeric. */
    public static final SqlUserDefinedFunction FLOAT8_TO_NUMERIC = numeric("float8ToNumeric");
    public static final SqlUserDefinedFunction FLOAT4_TO_NUMERIC = numeric("float4ToNumeric");

    private PgFloatCasts() {
    }

    private static SqlUserDefinedFunction function(final String name, final SqlTypeName type, final String method) {
        return new SqlUserDefinedFunction(new SqlIdentifier(name, SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION,
                ReturnTypes.cascade(ReturnTypes.explicit(type), SqlTypeTransforms.TO_NULLABLE), InferTypes.FIRST_KNOWN,
                null, ScalarFunctionImpl.create(PgFloatCasts.class, method));
    }

    private static SqlUserDefinedFunction numeric(final String method) {
        return new SqlUserDefinedFunction(new SqlIdentifier("numeric", SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION,
                ReturnTypes.cascade(opBinding -> PgNumericType.of(opBinding.getTypeFactory(), false),
                        SqlTypeTransforms.TO_NULLABLE), InferTypes.FIRST_KNOWN, null,
                ScalarFunctionImpl.create(PgFloatCasts.class, method));
    }

    // what generated code calls: NULL in, NULL out (boxed, as Calcite passes nullable operands)

    public static Short toInt2(final Number d) {
        return d == null ? null : (short) rounded(d.doubleValue(), Short.MIN_VALUE, Short.MAX_VALUE, "smallint");
    }

    public static Integer toInt4(final Number d) {
        return d == null ? null : (int) rounded(d.doubleValue(), Integer.MIN_VALUE, Integer.MAX_VALUE, "integer");
    }

    public static Long toInt8(final Number d) {
        if (d == null) {
            return null;
        }
        // the bound is exclusive above: 2^63 is a double, Long.MAX_VALUE is not
        final double r = Math.rint(d.doubleValue());
        if (Double.isNaN(r) || r < -0x1p63 || r >= 0x1p63) {
            throw new SqlStateException("22003", "bigint out of range");
        }
        return (long) r;
    }

    private static long rounded(final double d, final long min, final long max, final String type) {
        final double r = Math.rint(d);
        if (Double.isNaN(r) || r < min || r > max) {
            throw new SqlStateException("22003", type + " out of range");
        }
        return (long) r;
    }

    public static BigDecimal float8ToNumeric(final Number d) {
        return d == null ? null : decimal(d.doubleValue(), 15);
    }

    public static BigDecimal float4ToNumeric(final Number f) {
        return f == null ? null : decimal(f.floatValue(), 6);
    }

    private static BigDecimal decimal(final double d, final int digits) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new SqlStateException("0A000", "cannot convert " + (Double.isNaN(d) ? "NaN" : "infinity")
                    + " to numeric: MeldDB's numeric has no NaN or infinity");
        }
        // C's %.*g: the shortest of the fixed and exponent forms at that many significant digits, trailing zeros off
        final BigDecimal v = new BigDecimal(String.format(Locale.ROOT, "%." + (digits - 1) + "e", d));
        final BigDecimal stripped = v.stripTrailingZeros();
        return stripped.scale() < 0 ? stripped.setScale(0) : stripped;
    }
}
