package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's conversion of parsed SQL into expressions, with PostgreSQL's numeric division: {@code a / b} where
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
