package io.meldb.sql.calcite;

import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.List;

/**
 * An array subscript by a bigint ({@code a[s.r]} over {@code generate_series}, whose values are bigints in MeldDB)
 * reads the element as PostgreSQL does, whose subscripts are integers: the subscript is cast to integer first
 * (Calcite's code for the subscript takes an int and does not compile with a long). A subscript beyond integer's
 * range is no element of any array MeldDB can hold.
 */
final class ArraySubscripts extends RelHomogeneousShuttle {
    @Override
    public RelNode visit(final RelNode other) {
        final RelNode visited = super.visit(other);
        final RexBuilder rex = visited.getCluster().getRexBuilder();
        return visited.accept(new RexShuttle() {
            @Override
            public RexNode visitCall(final RexCall call) {
                final RexCall visitedCall = (RexCall) super.visitCall(call);
                if (visitedCall.getKind() == SqlKind.ITEM && visitedCall.operands.size() == 2
                        && visitedCall.operands.get(0).getType().getSqlTypeName() == SqlTypeName.ARRAY
                        && visitedCall.operands.get(1).getType().getSqlTypeName() == SqlTypeName.BIGINT) {
                    final RexNode index = visitedCall.operands.get(1);
                    final RexNode asInt = rex.makeCast(rex.getTypeFactory().createTypeWithNullability(
                            rex.getTypeFactory().createSqlType(SqlTypeName.INTEGER), index.getType().isNullable()),
                            index, true, false);
                    return visitedCall.clone(visitedCall.getType(), List.of(visitedCall.operands.get(0), asInt));
                }
                return visitedCall;
            }
        });
    }
}
