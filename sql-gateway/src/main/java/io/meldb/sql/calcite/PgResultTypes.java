package io.meldb.sql.calcite;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * The result types PostgreSQL gives built-in operators where Calcite's operator definitions give others: extract is
 * numeric (PostgreSQL 14 and later), ceil, floor, round and sign of an integer or a real are double precision (they
 * exist for double precision and numeric only), and round and sign of a numeric are numerics of scale 0. The validator
 * ({@link MeldValidator}) types the calls so, and {@link MeldConvertlets} computes them so.
 */
final class PgResultTypes {
    private PgResultTypes() {
    }

    /** PostgreSQL's type of {@code node}, whose Calcite type is {@code type}; {@code type} itself when they agree. */
    static RelDataType of(final RelDataTypeFactory types, final SqlNode node, final RelDataType type) {
        if (!(node instanceof SqlCall call)) {
            return type;
        }
        if (call.getKind() == SqlKind.EXTRACT && datePart(call) && SqlTypeUtil.isNumeric(type)) {
            return types.createTypeWithNullability(types.createSqlType(SqlTypeName.DOUBLE), type.isNullable());
        }
        if (call.getKind() == SqlKind.EXTRACT && SqlTypeUtil.isExactNumeric(type) && !SqlTypeUtil.isDecimal(type)) {
            return PgNumericType.of(types, type.isNullable());
        }
        if (rounding(call) && (SqlTypeUtil.isIntType(type) || type.getSqlTypeName() == SqlTypeName.REAL)) {
            return types.createTypeWithNullability(types.createSqlType(SqlTypeName.DOUBLE), type.isNullable());
        }
        if ((call.getOperator() == SqlStdOperatorTable.ROUND || call.getOperator() == SqlStdOperatorTable.SIGN)
                && call.operandCount() == 1 && SqlTypeUtil.isDecimal(type) && !PgNumericType.is(type)) {
            return PgNumericType.of(types, type.isNullable());
        }
        return type;
    }

    /**
     * Whether {@code node} is a date plus or minus an interval, which Calcite types as a date ({@code type}) and
     * PostgreSQL as a timestamp; {@code typeOf} answers the operands' validated types.
     */
    static boolean dateAndInterval(final SqlNode node, final RelDataType type,
                                   final java.util.function.Function<SqlNode, RelDataType> typeOf) {
        if (!(node instanceof SqlCall call) || type.getSqlTypeName() != SqlTypeName.DATE || call.operandCount() != 2
                || call.getKind() != SqlKind.PLUS && call.getKind() != SqlKind.MINUS) {
            return false;
        }
        for (SqlNode operand : call.getOperandList()) {
            final RelDataType t = typeOf.apply(operand);
            if (t != null && SqlTypeUtil.isInterval(t) && !PgFunctionCalls.isIntegerDays(operand)) {
                return true;
            }
        }
        return false;
    }

    /** date_part(field, source): extract's value, but double precision (extract itself is numeric). */
    static boolean datePart(final SqlCall call) {
        return call.getOperator().getName().equalsIgnoreCase("DATE_PART");
    }

    /** ceil, floor, round or sign of one argument. */
    static boolean rounding(final SqlCall call) {
        return call.operandCount() == 1 && (call.getKind() == SqlKind.CEIL || call.getKind() == SqlKind.FLOOR
                || call.getOperator() == SqlStdOperatorTable.ROUND || call.getOperator() == SqlStdOperatorTable.SIGN);
    }
}
