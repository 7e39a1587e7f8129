package io.meldb.sql.parser;

import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * PostgreSQL's JSON access operators {@code ->} and {@code ->>} as the parser reads them ({@code JsonAccess} in
 * parserImpls.ftl): a binary operator of PostgreSQL's precedence for "any other operator" (tighter than LIKE and the
 * comparisons, looser than {@code +} and {@code -}), whose call is built as a call of the function that does the
 * work: {@code json_field}/{@code json_field_text} for a string literal key, {@code json_element}/{@code
 * json_element_text} for an integer literal index, {@code json_get}/{@code json_get_text} for any other expression,
 * which picks by the value's type at run time (as PostgreSQL picks {@code json_object_field} or
 * {@code json_array_element} by the right operand's type). A parameter on the right is a key, typed text as
 * PostgreSQL infers it.
 */
public final class JsonAccessOperator extends SqlBinaryOperator {
    /** {@code ->}. */
    public static final JsonAccessOperator GET = new JsonAccessOperator("->", false);
    /** {@code ->>}. */
    public static final JsonAccessOperator GET_TEXT = new JsonAccessOperator("->>", true);

    private final boolean asText;

    private JsonAccessOperator(final String name, final boolean asText) {
        super(name, SqlKind.OTHER, FunctionOperator.PRECEDENCE, true, null, null, null);
        this.asText = asText;
    }

    @Override
    public SqlCall createCall(final SqlLiteral functionQualifier, final SqlParserPos pos,
                              final SqlNode... operands) {
        final SqlNode key = operands[1];
        final boolean byIndex = key instanceof SqlNumericLiteral
                || key instanceof SqlBasicCall c && c.getOperator() == SqlStdOperatorTable.UNARY_MINUS
                && c.operand(0) instanceof SqlNumericLiteral;
        final SqlNode keyOperand = key instanceof SqlDynamicParam
                ? SqlStdOperatorTable.CAST.createCall(pos, key, new SqlDataTypeSpec(
                new SqlBasicTypeNameSpec(SqlTypeName.VARCHAR, pos), pos)) : key;
        final boolean byKey = key instanceof SqlCharStringLiteral || key instanceof SqlDynamicParam;
        final String function = "json_" + (byIndex ? "element" : byKey ? "field" : "get") + (asText ? "_text" : "");
        final SqlUnresolvedFunction f = new SqlUnresolvedFunction(new SqlIdentifier(function, pos), null, null,
                null, null, SqlFunctionCategory.USER_DEFINED_FUNCTION);
        return f.createCall(functionQualifier, pos, operands[0], keyOperand);
    }
}
