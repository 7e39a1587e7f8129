package io.meldb.sql.calcite;

import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.fun.SqlTrimFunction;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL's comparison of CHAR(n) values: trailing blanks do not count. CHAR(n) values are stored
 * blank-padded to n, and Calcite sees CHAR columns as VARCHAR (a Calcite CHAR(n) would silently cut longer
 * values before the gateway can refuse them with 22001), so before optimization every comparison in a filter or
 * join condition whose operand comes straight from a CHAR(n) column is rewritten: a string literal on the other
 * side is blank-padded to n (the comparison stays usable for key ranges), anything else is compared with
 * trailing blanks trimmed on both sides. Comparisons in SELECT lists, GROUP BY and ORDER BY keep VARCHAR
 * semantics (all values of a CHAR(n) column have the same length there, so only mixed comparisons differ).
 */
public final class CharComparisons {
    private static final Set<SqlKind> COMPARISONS = EnumSet.of(SqlKind.EQUALS, SqlKind.NOT_EQUALS,
            SqlKind.LESS_THAN, SqlKind.LESS_THAN_OR_EQUAL, SqlKind.GREATER_THAN, SqlKind.GREATER_THAN_OR_EQUAL,
            SqlKind.IS_DISTINCT_FROM, SqlKind.IS_NOT_DISTINCT_FROM);

    private CharComparisons() {
    }

    /** Rewrites the conditions of filters and joins, children first. */
    static final class Shuttle extends RelShuttleImpl {
        @Override
        public RelNode visit(final LogicalFilter filter) {
            final LogicalFilter visited = (LogicalFilter) super.visit(filter);
            final RexNode condition = rewrite(visited.getCondition(), visited.getInput());
            return condition == visited.getCondition() ? visited
                    : visited.copy(visited.getTraitSet(), visited.getInput(), condition);
        }

        @Override
        public RelNode visit(final LogicalJoin join) {
            final LogicalJoin visited = (LogicalJoin) super.visit(join);
            final RexNode condition = rewrite(visited.getCondition(), visited);
            return condition == visited.getCondition() ? visited
                    : visited.copy(visited.getTraitSet(), condition, visited.getLeft(), visited.getRight(),
                            visited.getJoinType(), visited.isSemiJoinDone());
        }
    }

    /** {@code condition} over the fields of {@code fields} (a join's own row for join conditions). */
    private static RexNode rewrite(final RexNode condition, final RelNode fields) {
        final RexBuilder rexBuilder = fields.getCluster().getRexBuilder();
        final RelMetadataQuery mq = fields.getCluster().getMetadataQuery();
        final RexShuttle shuttle = new RexShuttle() {
            @Override
            public RexNode visitCall(final RexCall call) {
                if (call.getKind() == SqlKind.SEARCH && charLength(call.getOperands().get(0), fields, mq) > 0) {
                    return RexUtil.expandSearch(rexBuilder, null, call).accept(this);
                }
                final RexCall visited = (RexCall) super.visitCall(call);
                if (!COMPARISONS.contains(visited.getKind()) || visited.getOperands().size() != 2) {
                    return visited;
                }
                final RexNode a = visited.getOperands().get(0);
                final RexNode b = visited.getOperands().get(1);
                final int na = charLength(a, fields, mq);
                final int nb = charLength(b, fields, mq);
                if (na <= 0 && nb <= 0) {
                    return visited;
                }
                if (na > 0 && nb <= 0 && stringLiteral(b) != null) {
                    return rexBuilder.makeCall(visited.getOperator(), a, padded(rexBuilder, b, na));
                }
                if (nb > 0 && na <= 0 && stringLiteral(a) != null) {
                    return rexBuilder.makeCall(visited.getOperator(), padded(rexBuilder, a, nb), b);
                }
                return rexBuilder.makeCall(visited.getOperator(), trimTrailing(rexBuilder, a),
                        trimTrailing(rexBuilder, b));
            }
        };
        return condition.accept(shuttle);
    }

    /** The declared length when {@code node} is a field coming unchanged from a CHAR(n) column, else 0. */
    private static int charLength(final RexNode node, final RelNode fields, final RelMetadataQuery mq) {
        if (!(node instanceof RexInputRef ref)) {
            return 0;
        }
        final RelColumnOrigin origin = mq.getColumnOrigin(fields, ref.getIndex());
        if (origin == null || origin.isDerived()) {
            return 0;
        }
        final RelOptTable table = origin.getOriginTable();
        final MeldTable meldTable = table == null ? null : table.unwrap(MeldTable.class);
        if (meldTable == null) {
            return 0;
        }
        final TableDef def = meldTable.def();
        final ColumnType type = def.columns().get(origin.getOriginColumnOrdinal()).type();
        return type.type() == SqlType.CHAR ? type.precision() : 0;
    }

    /** The string value of a (possibly cast) character literal, or null. */
    private static String stringLiteral(final RexNode node) {
        final RexNode n = MeldFilterRule.stripCast(node);
        if (n instanceof RexLiteral literal && !literal.isNull()
                && org.apache.calcite.sql.type.SqlTypeUtil.isCharacter(literal.getType())) {
            return literal.getValueAs(String.class);
        }
        return null;
    }

    /** The literal without trailing blanks, padded to {@code length} (unchanged when longer: it matches nothing). */
    private static RexNode padded(final RexBuilder rexBuilder, final RexNode literal, final int length) {
        String s = stringLiteral(literal);
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        s = s.substring(0, end);
        final int chars = s.codePointCount(0, s.length());
        if (chars > length) {
            return literal;
        }
        return rexBuilder.makeLiteral(s + " ".repeat(length - chars));
    }

    private static RexNode trimTrailing(final RexBuilder rexBuilder, final RexNode operand) {
        return rexBuilder.makeCall(SqlStdOperatorTable.TRIM, List.of(
                rexBuilder.makeFlag(SqlTrimFunction.Flag.TRAILING), rexBuilder.makeLiteral(" "), operand));
    }
}
