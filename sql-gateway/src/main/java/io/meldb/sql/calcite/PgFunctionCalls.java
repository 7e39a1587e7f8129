package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;

import java.util.Locale;
import java.util.Set;

/**
 * Rewrites, right after parsing, the PostgreSQL calls that Calcite reads with other meanings or not at all, in
 * place: {@code now()} is {@code CURRENT_TIMESTAMP}; {@code EXTRACT(DOW FROM x)} counts Sunday as 0 as PostgreSQL
 * does (Calcite's DOW counts it as 1: {@code MOD(EXTRACT(ISODOW FROM x), 7)}); a date written as one plus or
 * minus an integer literal adds days ({@link #dateArithmetic}); the functions of types MeldDB does
 * not have (arrays, intervals from {@code age}) are refused with 0A000 naming them, not 42883 as if PostgreSQL had
 * no such function.
 */
final class PgFunctionCalls {
    /** Functions PostgreSQL has whose argument or result types MeldDB lacks. */
    private static final Set<String> UNSUPPORTED = Set.of("age", "justify_interval", "make_interval");

    private PgFunctionCalls() {
    }

    static void rewrite(final SqlBasicCall call) {
        final String name = call.getOperator().getName().toLowerCase(Locale.ROOT);
        if (UNSUPPORTED.contains(name) && !quoted(call)) {
            throw new SqlStateException("0A000", name + "() is not supported: MeldDB has no "
                    + (name.equals("age") || name.endsWith("interval") ? "INTERVAL" : "ARRAY") + " type");
        }
        if (name.equals("date_trunc") && !(call.getOperator() instanceof SqlUnresolvedFunction)) {
            // Calcite's parser reads DATE_TRUNC as BigQuery's: PostgreSQL's is MeldDB's own (PgFunctions)
            call.setOperator(new SqlUnresolvedFunction(new SqlIdentifier("date_trunc", call.getParserPosition()),
                    null, null, null, null, SqlFunctionCategory.USER_DEFINED_FUNCTION));
        }
        for (int i = 0; i < call.operandCount(); i++) {
            if (isNow(call.operand(i))) {
                call.setOperand(i, currentTimestamp());
            }
        }
        if (call.operandCount() == 2 && call.getOperator() instanceof SqlUnresolvedFunction && name.equals("round")
                && isDigits(call.operand(1)) && !quoted(call)) {
            roundToScale(call);
        }
        if (call.getOperator() == SqlStdOperatorTable.BITXOR_OPERATOR && call.operandCount() == 2) {
            exponentiation(call);
        }
        if ((call.getKind() == SqlKind.PLUS || call.getKind() == SqlKind.MINUS) && call.operandCount() == 2) {
            dateArithmetic(call);
        }
        if (call.getKind() == SqlKind.EXTRACT && call.operandCount() == 2
                && call.operand(0) instanceof SqlIntervalQualifier unit && unit.timeUnitRange != null
                && unit.timeUnitRange.startUnit == TimeUnit.DOW && unit.timeUnitRange.endUnit == null) {
            final SqlParserPos pos = call.getParserPosition();
            final SqlNode isoDow = SqlStdOperatorTable.EXTRACT.createCall(pos,
                    new SqlIntervalQualifier(TimeUnit.ISODOW, null, pos), call.operand(1));
            call.setOperator(SqlStdOperatorTable.MOD);
            call.setOperand(0, isoDow);
            call.setOperand(1, SqlLiteral.createExactNumeric("7", pos));
        }
    }

    /**
     * PostgreSQL's {@code a ^ b} is exponentiation ({@code 2 ^ 10} is 1024), where Calcite's parser reads a bitwise
     * exclusive or: the call becomes {@code POWER(a, b)}. PostgreSQL binds {@code ^} tighter than {@code * / % + -}
     * and Calcite's parser looser, so where an operand is one of those operations the tree may not be the one
     * PostgreSQL builds ({@code 2 * 3 ^ 2}): such a statement is refused (0A000) rather than answered differently.
     */
    private static void exponentiation(final SqlBasicCall call) {
        for (SqlNode operand : call.getOperandList()) {
            if (operand instanceof SqlBasicCall c && c.operandCount() == 2 && switch (c.getKind()) {
                case PLUS, MINUS, TIMES, DIVIDE, MOD -> true;
                default -> false;
            }) {
                throw new SqlStateException("0A000", "^ next to + - * / % is not supported yet (MeldDB's parser "
                        + "groups it differently from PostgreSQL): write power(a, b)");
            }
        }
        call.setOperator(SqlStdOperatorTable.POWER);
    }

    /**
     * PostgreSQL's {@code date + integer} and {@code date - integer} (days), where the date is written as one
     * ({@code CURRENT_DATE}, a DATE literal, a cast to DATE) and the number is an integer literal: the number
     * becomes {@code INTERVAL 'n' DAY}, which Calcite adds to a date. A date column plus a number needs the
     * interval written out ({@code d + INTERVAL '7' DAY}), since names have no type before validation.
     */
    private static void dateArithmetic(final SqlBasicCall call) {
        final boolean plus = call.getKind() == SqlKind.PLUS;
        if (isDate(call.operand(0)) && isDays(call.operand(1))) {
            call.setOperand(1, days(call.operand(1)));
        } else if (plus && isDays(call.operand(0)) && isDate(call.operand(1))) {
            call.setOperand(0, days(call.operand(0)));
        }
    }

    /**
     * PostgreSQL's {@code round(numeric, n)} answers a numeric of scale n ({@code round(10.989, 2)} is
     * {@code 10.99}); Calcite's keeps its argument's scale ({@code 10.990}). With n an integer literal the call
     * becomes {@code CAST(ROUND(x, n) AS DECIMAL(38, n))}, in place.
     */
    private static void roundToScale(final SqlBasicCall call) {
        final SqlParserPos pos = call.getParserPosition();
        final int scale = ((org.apache.calcite.sql.SqlNumericLiteral) call.operand(1)).intValue(true);
        if (scale > io.meldb.sql.codec.ColumnType.MAX_DECIMAL_PRECISION) {
            return;
        }
        final SqlNode rounded = SqlStdOperatorTable.ROUND.createCall(pos, call.operand(0), call.operand(1));
        call.setOperator(SqlStdOperatorTable.CAST);
        call.setOperand(0, rounded);
        call.setOperand(1, new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(
                org.apache.calcite.sql.type.SqlTypeName.DECIMAL, io.meldb.sql.codec.ColumnType.MAX_DECIMAL_PRECISION,
                scale, pos), pos));
    }

    private static boolean isDigits(final SqlNode node) {
        return node instanceof org.apache.calcite.sql.SqlNumericLiteral n && n.isExact() && n.isInteger()
                && n.getValueAs(java.math.BigDecimal.class).signum() >= 0;
    }

    private static boolean isDate(final SqlNode node) {
        if (node instanceof org.apache.calcite.sql.SqlDateLiteral
                || node instanceof org.apache.calcite.sql.SqlUnknownLiteral u && u.tag.equalsIgnoreCase("DATE")) {
            return true; // the parser leaves DATE '...' unresolved until validation
        }
        if (node instanceof SqlBasicCall c && c.getOperator() == SqlStdOperatorTable.CURRENT_DATE
                || node instanceof SqlIdentifier id && id.isSimple() && !id.isComponentQuoted(0)
                && id.getSimple().equalsIgnoreCase("CURRENT_DATE")) {
            return true; // CURRENT_DATE parses as a name until the validator makes it a call
        }
        return node instanceof SqlBasicCall c && c.getKind() == SqlKind.CAST && c.operandCount() == 2
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && spec.getTypeName().isSimple() && spec.getTypeName().getSimple().equalsIgnoreCase("DATE");
    }

    private static boolean isDays(final SqlNode node) {
        return node instanceof org.apache.calcite.sql.SqlNumericLiteral n && n.isExact() && n.isInteger();
    }

    private static SqlNode days(final SqlNode number) {
        final org.apache.calcite.sql.SqlNumericLiteral n = (org.apache.calcite.sql.SqlNumericLiteral) number;
        final java.math.BigDecimal value = n.getValueAs(java.math.BigDecimal.class);
        final SqlParserPos pos = number.getParserPosition();
        return SqlLiteral.createInterval(value.signum() < 0 ? -1 : 1, value.abs().toPlainString(),
                new IntegerDays(pos), pos);
    }

    /**
     * The day qualifier of an interval that stands for an integer number of days ({@code date + 1}): PostgreSQL's
     * {@code date + integer} is a date, its {@code date + interval} a timestamp ({@link PgResultTypes}).
     */
    static final class IntegerDays extends SqlIntervalQualifier {
        IntegerDays(final SqlParserPos pos) {
            super(TimeUnit.DAY, null, pos);
        }
    }

    /** Whether {@code node} is the interval {@code date + integer} put in place of the integer. */
    static boolean isIntegerDays(final SqlNode node) {
        return node instanceof org.apache.calcite.sql.SqlIntervalLiteral l
                && l.getValue() instanceof org.apache.calcite.sql.SqlIntervalLiteral.IntervalValue v
                && v.getIntervalQualifier() instanceof IntegerDays;
    }

    /** Replaces the {@code now()} calls among {@code list}'s items. */
    static void rewrite(final SqlNodeList list) {
        for (int i = 0; i < list.size(); i++) {
            if (isNow(list.get(i))) {
                list.set(i, currentTimestamp());
            }
        }
    }

    private static boolean quoted(final SqlBasicCall call) {
        return call.getOperator() instanceof SqlUnresolvedFunction f && f.getSqlIdentifier() != null
                && f.getSqlIdentifier().isComponentQuoted(0);
    }

    /** An unquoted {@code now()}: PostgreSQL's transaction timestamp, MeldDB's statement's CURRENT_TIMESTAMP. */
    private static boolean isNow(final SqlNode node) {
        return node instanceof SqlBasicCall c && c.operandCount() == 0
                && c.getOperator() instanceof SqlUnresolvedFunction f && f.getSqlIdentifier() != null
                && f.getSqlIdentifier().isSimple() && !f.getSqlIdentifier().isComponentQuoted(0)
                && f.getSqlIdentifier().getSimple().equalsIgnoreCase("now");
    }

    /** CURRENT_TIMESTAMP exactly as the parser makes it. */
    private static SqlNode currentTimestamp() {
        try {
            return ((SqlSelect) MeldLex.parser("SELECT CURRENT_TIMESTAMP").parseQuery()).getSelectList().get(0);
        } catch (SqlParseException e) {
            throw new IllegalStateException(e);
        }
    }
}
