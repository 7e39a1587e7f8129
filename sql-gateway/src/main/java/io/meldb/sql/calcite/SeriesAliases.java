package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Puts each {@code generate_series(...)} in a FROM clause under a SELECT of its value ({@link GenerateSeries} says
 * why), named as PostgreSQL names the one column of a function in FROM: after the column alias if the statement
 * gives one ({@code AS t(n)}), else after the FROM item's alias ({@code generate_series(1, 10) g} gives column
 * {@code g}), else {@code generate_series}. Runs on each SELECT right after parsing, like {@link PgFunctionCalls}.
 */
final class SeriesAliases {
    private SeriesAliases() {
    }

    /** The SELECT this class puts around a series: left alone when the parse tree is visited further. */
    private static final class SeriesSelect extends SqlSelect {
        SeriesSelect(final SqlParserPos pos, final SqlNode series) {
            super(pos, null, SqlNodeList.of(new SqlIdentifier(GenerateSeries.NAME, pos)), series, null, null, null,
                    null, null, null, null, null, null);
        }
    }

    static void rewrite(final SqlSelect select) {
        if (select instanceof SeriesSelect) {
            return;
        }
        for (SqlNode item : select.getSelectList()) {
            final SqlNode expression = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
            if (isSeries(expression)) {
                // PostgreSQL's set-returning function in a select list makes rows; Calcite has no such thing
                throw new SqlStateException("0A000", "generate_series() in a select list is not supported: use it "
                        + "in FROM, as in SELECT * FROM generate_series(1, 3)");
            }
        }
        final SqlNode from = select.getFrom();
        final SqlNode named = named(from);
        if (named != from) {
            select.setFrom(named);
        }
    }

    private static SqlNode named(final SqlNode from) {
        if (from instanceof SqlJoin join) {
            final SqlNode left = named(join.getLeft());
            if (left != join.getLeft()) {
                join.setLeft(left);
            }
            final SqlNode right = named(join.getRight());
            if (right != join.getRight()) {
                join.setRight(right);
            }
            return join;
        }
        if (from instanceof SqlBasicCall as && as.getKind() == SqlKind.AS && isSeries(as.operand(0))
                && as.operand(1) instanceof SqlIdentifier alias && alias.isSimple()) {
            final SqlParserPos pos = as.getParserPosition();
            final List<SqlNode> operands = new ArrayList<>();
            operands.add(new SeriesSelect(pos, table(as.operand(0))));
            operands.add(alias);
            if (as.operandCount() > 2) {
                operands.addAll(as.getOperandList().subList(2, as.operandCount()));
            } else {
                operands.add(new SqlIdentifier(alias.getSimple(), alias.getParserPosition()));
            }
            return SqlStdOperatorTable.AS.createCall(pos, operands);
        }
        if (isSeries(from)) {
            final SqlParserPos pos = from.getParserPosition();
            return SqlStdOperatorTable.AS.createCall(pos, new SeriesSelect(pos, table(from)),
                    new SqlIdentifier(GenerateSeries.NAME, pos), new SqlIdentifier(GenerateSeries.NAME, pos));
        }
        return from;
    }

    /**
     * The series call as a table reference ({@code TABLE(generate_series(...))}), its parameters typed as BIGINT
     * (Calcite infers no type for a parameter of a table function: "Illegal use of dynamic parameter").
     */
    private static SqlNode table(final SqlNode series) {
        final SqlBasicCall call = (SqlBasicCall) (series.getKind() == SqlKind.COLLECTION_TABLE
                ? ((SqlCall) series).operand(0) : series);
        for (int i = 0; i < call.operandCount(); i++) {
            if (call.operand(i) instanceof SqlDynamicParam p) {
                call.setOperand(i, SqlStdOperatorTable.CAST.createCall(p.getParserPosition(), p,
                        new SqlDataTypeSpec(new SqlBasicTypeNameSpec(SqlTypeName.BIGINT, p.getParserPosition()),
                                p.getParserPosition())));
            }
        }
        if (series.getKind() == SqlKind.COLLECTION_TABLE) {
            return series;
        }
        return SqlStdOperatorTable.COLLECTION_TABLE.createCall(series.getParserPosition(), series);
    }

    private static boolean isSeries(final SqlNode node) {
        SqlNode n = node;
        if (n instanceof SqlCall c && c.getKind() == SqlKind.COLLECTION_TABLE && c.operandCount() == 1) {
            n = c.operand(0);
        }
        return n instanceof SqlBasicCall call && call.getKind() != SqlKind.AS
                && call.getOperator().getName().toLowerCase(Locale.ROOT).equals(GenerateSeries.NAME);
    }
}
