package io.meldb.sql.parser;

import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * A PostgreSQL operator that is a call of the function implementing it, as PostgreSQL's {@code pg_operator} names
 * an {@code oprcode} for each: the parser reads {@code a op b} at PostgreSQL's precedence for "any other operator"
 * (tighter than LIKE and the comparisons, looser than {@code +} and {@code -}, left-associative) and builds the
 * call {@code function(a, b)}. The jsonb operators {@code ?}, {@code ?|}, {@code ?&}, {@code @>} and {@code <@}
 * are such operators ({@code JsonbOperators} in parserImpls.ftl).
 */
public final class FunctionOperator extends SqlBinaryOperator {
    /** {@code jsonb ? text}: the key or string element exists. */
    public static final FunctionOperator JSONB_EXISTS = new FunctionOperator("?", "jsonb_exists");
    /** {@code jsonb ?| text[]}: any of them exists. */
    public static final FunctionOperator JSONB_EXISTS_ANY = new FunctionOperator("?|", "jsonb_exists_any");
    /** {@code jsonb ?& text[]}: all of them exist. */
    public static final FunctionOperator JSONB_EXISTS_ALL = new FunctionOperator("?&", "jsonb_exists_all");
    /** {@code jsonb @> jsonb}: the left value contains the right one. */
    public static final FunctionOperator JSONB_CONTAINS = new FunctionOperator("@>", "jsonb_contains");
    /** {@code jsonb <@ jsonb}: the left value is contained in the right one. */
    public static final FunctionOperator JSONB_CONTAINED = new FunctionOperator("<@", "jsonb_contained");

    /** Between LIKE (32) and {@code +} (40), as PostgreSQL ranks its other operators (Calcite wants it even). */
    static final int PRECEDENCE = 36;

    private final String function;

    private FunctionOperator(final String name, final String function) {
        super(name, SqlKind.OTHER, PRECEDENCE, true, null, null, null);
        this.function = function;
    }

    @Override
    public SqlCall createCall(final SqlLiteral functionQualifier, final SqlParserPos pos,
                              final SqlNode... operands) {
        final SqlUnresolvedFunction f = new SqlUnresolvedFunction(new SqlIdentifier(function, pos), null, null,
                null, null, SqlFunctionCategory.USER_DEFINED_FUNCTION);
        return f.createCall(functionQualifier, pos, operands);
    }
}
