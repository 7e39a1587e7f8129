package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's conversion of parsed SQL into expressions, with PostgreSQL's meanings where Calcite's differ: a boolean
 * cast to a string is 'true'/'false'; exp, ln, log and power of numerics are refused (PostgreSQL computes them as
 * numerics, which MeldDB cannot yet); and numeric division: {@code a / b} where
 * both are exact numbers and one is a decimal becomes {@link PgNumericOperators#DIVIDE} over numerics (Calcite
 * divides to 16 significant digits, PostgreSQL to at least 16 and the operands' scales: {@code 1/3.0} is
 * 0.33333333333333333333). It happens here, before planning, so that constant folding computes PostgreSQL's value
 * too. Everything else converts as Calcite's standard table converts it.
 */
public final class MeldConvertlets implements SqlRexConvertletTable {
    public static final MeldConvertlets INSTANCE = new MeldConvertlets();

    private static final SqlRexConvertlet DIVIDE = (cx, call) -> {
        final RexNode a = cx.convertExpression(call.operand(0));
        final RexNode b = cx.convertExpression(call.operand(1));
        if (!numericOperands(a.getType(), b.getType())) {
            final SqlRexConvertlet standard = StandardConvertletTable.INSTANCE.get(call);
            return standard.convertCall(cx, call);
        }
        final RexBuilder rex = cx.getRexBuilder();
        final RelDataType numeric = PgNumericType.of(rex.getTypeFactory(), false);
        return rex.makeCall(PgNumericOperators.DIVIDE, toNumeric(rex, numeric, a), toNumeric(rex, numeric, b));
    };

    /**
     * power(a, b) and a ^ b: of floating-point numbers as Calcite computes them; of numerics PostgreSQL answers a
     * numeric with its own scale rules, which MeldDB does not have yet, so that is refused rather than answered as a
     * double.
     */
    private static final SqlRexConvertlet POWER = (cx, call) -> {
        // the base decides: sqrt(x) reaches here as power(x, 0.5)
        for (SqlNode operand : call.getOperandList().subList(0, 1)) {
            if (SqlTypeUtil.isDecimal(cx.getValidator().deriveType(cx.getValidator().getEmptyScope(), operand))) {
                throw new SqlStateException("0A000", "power() and ^ of numeric values are not supported yet: cast "
                        + "the operands to double precision");
            }
        }
        return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
    };

    /** Functions whose numeric forms PostgreSQL computes with numeric's own precision rules. */
    private static final java.util.Set<String> NUMERIC_REFUSED = java.util.Set.of("EXP", "LN", "LOG", "LOG10",
            "CBRT");

    /**
     * exp, ln, log and cbrt of a numeric: PostgreSQL answers a numeric computed to its own precision rules, which
     * MeldDB does not have yet; refused rather than answered as a double with other digits and another type.
     */
    private static final SqlRexConvertlet TRANSCENDENTAL = (cx, call) -> {
        if (SqlTypeUtil.isDecimal(cx.getValidator().deriveType(cx.getValidator().getEmptyScope(), call.operand(0)))) {
            throw new SqlStateException("0A000", call.getOperator().getName().toLowerCase(java.util.Locale.ROOT)
                    + "() of numeric values is not supported yet: cast the argument to double precision");
        }
        return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
    };

    /** A boolean cast to a string is 'true' or 'false', as PostgreSQL's boolout writes it (Calcite: TRUE/FALSE). */
    private static final SqlRexConvertlet CAST = (cx, call) -> {
        // casts the validator added (an INSERT's) have no validated type: they are never of a boolean to text
        final RelDataType source = cx.getValidator().getValidatedNodeTypeIfKnown(call.operand(0));
        final RelDataType target = cx.getValidator().getValidatedNodeTypeIfKnown(call);
        if (source == null || target == null || source.getSqlTypeName() != SqlTypeName.BOOLEAN
                || !SqlTypeUtil.inCharFamily(target)) {
            return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
        }
        final RexNode operand = cx.convertExpression(call.operand(0));
        final RexBuilder rex = cx.getRexBuilder();
        final RexNode text = rex.makeCall(SqlStdOperatorTable.CASE,
                operand, rex.makeLiteral("true"),
                rex.makeCall(SqlStdOperatorTable.NOT, operand), rex.makeLiteral("false"),
                rex.makeNullLiteral(rex.getTypeFactory().createSqlType(SqlTypeName.VARCHAR)));
        return rex.makeCast(target, text);
    };

    private MeldConvertlets() {
    }

    @Override
    public @Nullable SqlRexConvertlet get(final SqlCall call) {
        if (call.getKind() == SqlKind.DIVIDE && call.operandCount() == 2) {
            return DIVIDE;
        }
        if (call.getOperator() == SqlStdOperatorTable.POWER) {
            return POWER;
        }
        if (call.operandCount() == 1 && NUMERIC_REFUSED.contains(call.getOperator().getName().toUpperCase(
                java.util.Locale.ROOT))) {
            return TRANSCENDENTAL;
        }
        if (call.getKind() == SqlKind.CAST && call.operandCount() == 2) {
            return CAST;
        }
        return StandardConvertletTable.INSTANCE.get(call);
    }

    private static boolean numericOperands(final RelDataType a, final RelDataType b) {
        return SqlTypeUtil.isExactNumeric(a) && SqlTypeUtil.isExactNumeric(b)
                && (SqlTypeUtil.isDecimal(a) || SqlTypeUtil.isDecimal(b));
    }

    private static RexNode toNumeric(final RexBuilder rex, final RelDataType numeric, final RexNode operand) {
        if (PgNumericType.is(operand.getType())) {
            return operand;
        }
        return rex.makeCast(rex.getTypeFactory().createTypeWithNullability(numeric, operand.getType().isNullable()),
                operand);
    }
}
