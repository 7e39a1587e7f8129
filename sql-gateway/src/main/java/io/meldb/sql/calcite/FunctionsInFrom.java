package io.meldb.sql.calcite;

import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlTableFunction;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlNameMatcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * PostgreSQL's scalar function in FROM ({@code SELECT * FROM current_schema()}, {@code FROM version() AS v}, as
 * TypeORM and other tools send them): a table of one row whose one column holds the function's value, named after
 * the column alias if the statement gives one ({@code AS s(x)}), else after the table alias ({@code AS s}), else
 * after the function; the table is named after its alias or the function. The parser reads {@code f(...)} in FROM
 * as a call of a table function; Calcite's validator takes only table functions there, so before validation
 * ({@link MeldValidator}) such an item whose function is a scalar one and no table function becomes the query
 * {@code (SELECT f(...) AS column) AS name}, which is that table. Table functions ({@code generate_series}) are left
 * as they are.
 */
final class FunctionsInFrom {
    private FunctionsInFrom() {
    }

    /** Puts each scalar function call of {@code select}'s FROM under a query of its value, in place. */
    static void rewrite(final SqlSelect select, final SqlOperatorTable operators, final SqlNameMatcher matcher) {
        final SqlNode from = select.getFrom();
        final SqlNode rewritten = item(from, operators, matcher);
        if (rewritten != from) {
            select.setFrom(rewritten);
        }
    }

    private static SqlNode item(final SqlNode from, final SqlOperatorTable operators, final SqlNameMatcher matcher) {
        if (from instanceof SqlJoin join) {
            final SqlNode left = item(join.getLeft(), operators, matcher);
            if (left != join.getLeft()) {
                join.setLeft(left);
            }
            final SqlNode right = item(join.getRight(), operators, matcher);
            if (right != join.getRight()) {
                join.setRight(right);
            }
            return join;
        }
        if (from instanceof SqlBasicCall as && as.getKind() == SqlKind.AS && as.operandCount() >= 2
                && as.operand(1) instanceof SqlIdentifier alias && alias.isSimple()) {
            final SqlBasicCall call = scalarCall(as.operand(0), operators, matcher);
            if (call == null) {
                return from;
            }
            // the column: named by the column alias, else by the table alias
            final SqlIdentifier column = as.operandCount() > 2 && as.operand(2) instanceof SqlIdentifier c ? c : alias;
            as.setOperand(0, valueQuery(call, column.getSimple()));
            return as;
        }
        final SqlBasicCall call = scalarCall(from, operators, matcher);
        if (call == null) {
            return from;
        }
        final String name = name(call);
        final SqlParserPos pos = from.getParserPosition();
        return SqlStdOperatorTable.AS.createCall(pos, valueQuery(call, name), new SqlIdentifier(name, pos));
    }

    /** The call of a FROM item {@code f(...)} when {@code f} is a scalar function and no table function, else null. */
    private static SqlBasicCall scalarCall(final SqlNode item, final SqlOperatorTable operators,
                                           final SqlNameMatcher matcher) {
        if (!(item instanceof SqlCall table) || table.getKind() != SqlKind.COLLECTION_TABLE
                || table.operandCount() != 1 || !(table.operand(0) instanceof SqlBasicCall call)
                || !(call.getOperator() instanceof SqlUnresolvedFunction function)) {
            return null;
        }
        final SqlIdentifier id = function.getNameAsId();
        for (SqlOperator op : lookup(operators, matcher, id, SqlFunctionCategory.USER_DEFINED_TABLE_FUNCTION)) {
            if (isTableFunction(op)) {
                return null;
            }
        }
        for (SqlOperator op : lookup(operators, matcher, id, SqlFunctionCategory.USER_DEFINED_FUNCTION)) {
            if (op instanceof SqlFunction && !isTableFunction(op)) {
                return call;
            }
        }
        return null; // no such function: the validator says so
    }

    private static List<SqlOperator> lookup(final SqlOperatorTable operators, final SqlNameMatcher matcher,
                                            final SqlIdentifier id, final SqlFunctionCategory category) {
        final List<SqlOperator> found = new ArrayList<>();
        operators.lookupOperatorOverloads(id, category, SqlSyntax.FUNCTION, found, matcher);
        return found;
    }

    private static boolean isTableFunction(final SqlOperator op) {
        return op instanceof SqlTableFunction
                || op instanceof SqlFunction f && f.getFunctionType() != null && f.getFunctionType().isTableFunction();
    }

    /** {@code SELECT f(...) AS column}, the call made a scalar one. */
    private static SqlSelect valueQuery(final SqlBasicCall call, final String column) {
        final SqlParserPos pos = call.getParserPosition();
        final SqlUnresolvedFunction table = (SqlUnresolvedFunction) call.getOperator();
        final SqlUnresolvedFunction scalar = new SqlUnresolvedFunction(table.getNameAsId(), null, null, null, null,
                SqlFunctionCategory.USER_DEFINED_FUNCTION);
        final SqlNode value = scalar.createCall(call.getFunctionQuantifier(), pos,
                call.getOperandList().toArray(new SqlNode[0]));
        final SqlNode item = SqlStdOperatorTable.AS.createCall(pos, value, new SqlIdentifier(column, pos));
        return new SqlSelect(pos, null, SqlNodeList.of(item), null, null, null, null, null, null, null, null, null,
                null);
    }

    /** The function's name as PostgreSQL names the column: unquoted names in lower case. */
    private static String name(final SqlBasicCall call) {
        final SqlIdentifier id = ((SqlUnresolvedFunction) call.getOperator()).getNameAsId();
        final String last = id.names.get(id.names.size() - 1);
        return id.isComponentQuoted(id.names.size() - 1) ? last : last.toLowerCase(Locale.ROOT);
    }
}
