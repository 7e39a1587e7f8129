package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.adapter.enumerable.CallImplementor;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.linq4j.tree.Primitive;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.FunctionParameter;
import org.apache.calcite.schema.ImplementableFunction;
import org.apache.calcite.schema.ScalarFunction;
import org.apache.calcite.sql.type.SqlTypeName;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's {@code json_build_object(key, value, ...)} and {@code json_build_array(value, ...)}: JSON text built
 * from any values as PostgreSQL's {@code to_json} writes them (numbers and booleans bare, NULL as null, text quoted
 * with JSON's escapes; dates, times and intervals are refused with 0A000 for now), keys and values separated by {@code " : "} and members by
 * {@code ", "} as PostgreSQL separates them: {@code json_build_object('a', 1)} is {@code {"a" : 1}}. A text value is
 * quoted even when it holds JSON (MeldDB's json values are text to the planner). A key that is NULL is 22004; an
 * odd number of arguments to json_build_object is 42883, as in PostgreSQL (a function of that many arguments does
 * not exist here). One function per number of arguments, up to {@link #MAX_ARGUMENTS}.
 */
public final class JsonBuild implements ScalarFunction, ImplementableFunction {
    /** The most arguments a call may have (PostgreSQL allows 100). */
    public static final int MAX_ARGUMENTS = 100;

    private final int arity;
    private final boolean object;

    private JsonBuild(final int arity, final boolean object) {
        this.arity = arity;
        this.object = object;
    }

    /** json_build_object of 0, 2, 4, ... arguments. */
    static List<JsonBuild> objects() {
        final List<JsonBuild> out = new ArrayList<>();
        for (int n = 0; n <= MAX_ARGUMENTS; n += 2) {
            out.add(new JsonBuild(n, true));
        }
        return out;
    }

    /** json_build_array of 0 to {@link #MAX_ARGUMENTS} arguments. */
    static List<JsonBuild> arrays() {
        final List<JsonBuild> out = new ArrayList<>();
        for (int n = 0; n <= MAX_ARGUMENTS; n++) {
            out.add(new JsonBuild(n, false));
        }
        return out;
    }

    @Override
    public RelDataType getReturnType(final RelDataTypeFactory typeFactory) {
        return typeFactory.createSqlType(SqlTypeName.VARCHAR);
    }

    @Override
    public List<FunctionParameter> getParameters() {
        final List<FunctionParameter> out = new ArrayList<>();
        for (int i = 0; i < arity; i++) {
            out.add(ContextFunction.parameter(i, SqlTypeName.ANY));
        }
        return out;
    }

    @Override
    public CallImplementor getImplementor() {
        return (translator, call, nullAs) -> {
            for (org.apache.calcite.rex.RexNode operand : call.getOperands()) {
                if (SqlTypeName.DATETIME_TYPES.contains(operand.getType().getSqlTypeName())
                        || SqlTypeName.INTERVAL_TYPES.contains(operand.getType().getSqlTypeName())) {
                    throw new SqlStateException("0A000", "json_build_object and json_build_array of dates, times "
                            + "and intervals are not supported yet");
                }
            }
            final List<Expression> values = new ArrayList<>();
            for (Expression operand : translator.translateList(call.getOperands())) {
                final Expression boxed = Primitive.is(operand.getType()) ? Expressions.box(operand) : operand;
                values.add(Expressions.convert_(boxed, Object.class));
            }
            return Expressions.call(JsonBuild.class, object ? "buildObject" : "buildArray",
                    Expressions.newArrayInit(Object.class, values));
        };
    }

    /** What generated code calls for json_build_object. */
    public static String buildObject(final Object[] args) {
        final StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < args.length; i += 2) {
            if (args[i] == null) {
                throw new SqlStateException("22004", "argument " + (i + 1) + " cannot be null");
            }
            b.append(i == 0 ? "" : ", ");
            quote(b, text(args[i]));
            b.append(" : ");
            value(b, args[i + 1]);
        }
        return b.append('}').toString();
    }

    /** What generated code calls for json_build_array. */
    public static String buildArray(final Object[] args) {
        final StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < args.length; i++) {
            b.append(i == 0 ? "" : ", ");
            value(b, args[i]);
        }
        return b.append(']').toString();
    }

    private static void value(final StringBuilder b, final Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Short
                || v instanceof Byte) {
            b.append(v);
        } else if (v instanceof BigDecimal d) {
            b.append(d.toPlainString());
        } else if (v instanceof Double || v instanceof Float) {
            final double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                quote(b, Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
            } else {
                b.append(doubleText(d));
            }
        } else {
            quote(b, text(v));
        }
    }

    private static String text(final Object v) {
        return v.toString();
    }

    /** A double as PostgreSQL prints it: the shortest exact digits, an exponent as {@code e+20} past 15 digits. */
    private static String doubleText(final double d) {
        final double a = Math.abs(d);
        if (a == 0 || a >= 1e-4 && a < 1e15) {
            return new BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString();
        }
        final String java = Double.toString(d);
        final int e = java.indexOf('E');
        final String mantissa = new BigDecimal(java.substring(0, e)).stripTrailingZeros().toPlainString();
        final int exponent = Integer.parseInt(java.substring(e + 1));
        return mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "")
                + Math.abs(exponent);
    }

    private static void quote(final StringBuilder b, final String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
