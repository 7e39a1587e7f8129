package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rex.RexFieldCollation;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexWindowBound;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Refuses, before optimization, the calls of the statement as written that PostgreSQL has no definition for or
 * that MeldDB cannot run as PostgreSQL does: {@code min}/{@code max} of a boolean (PostgreSQL has
 * {@code bool_and}/{@code bool_or}, 42883), and a window frame {@code RANGE n PRECEDING/FOLLOWING} over an ORDER BY
 * key that can be NULL (Calcite's code for it cannot place NULL keys: 0A000). Runs on the tree the SQL converted
 * into, so that the aggregates Calcite's own rewrites add later are not judged.
 */
final class PgSignatures extends RelHomogeneousShuttle {
    @Override
    public RelNode visit(final RelNode other) {
        final RelNode visited = super.visit(other);
        if (visited instanceof Aggregate aggregate) {
            for (AggregateCall call : aggregate.getAggCallList()) {
                if ((call.getAggregation().getKind() == SqlKind.MIN || call.getAggregation().getKind() == SqlKind.MAX)
                        && call.getArgList().size() == 1 && aggregate.getInput().getRowType().getFieldList()
                        .get(call.getArgList().get(0)).getType().getSqlTypeName() == SqlTypeName.BOOLEAN) {
                    final String name = call.getAggregation().getKind() == SqlKind.MIN ? "min" : "max";
                    throw new SqlStateException("42883", "function " + name + "(boolean) does not exist: use "
                            + (name.equals("min") ? "bool_and" : "bool_or"));
                }
            }
        }
        visited.accept(new RexShuttle() {
            @Override
            public org.apache.calcite.rex.RexNode visitOver(final RexOver over) {
                final var window = over.getWindow();
                if (!window.isRows() && (offset(window.getLowerBound()) || offset(window.getUpperBound()))) {
                    for (RexFieldCollation key : window.orderKeys) {
                        if (key.getKey().getType().isNullable()) {
                            throw new SqlStateException("0A000", "RANGE frames with an offset (n PRECEDING or n "
                                    + "FOLLOWING) over an ORDER BY key that can be NULL are not supported yet: use "
                                    + "ROWS, or an ORDER BY key declared NOT NULL");
                        }
                    }
                }
                return super.visitOver(over);
            }
        });
        return visited;
    }

    private static boolean offset(final RexWindowBound bound) {
        return bound != null && !bound.isUnbounded() && !bound.isCurrentRow();
    }
}
