package io.meldb.sql.calcite;

import io.meldb.sql.codec.BooleanText;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Reads text constants that become booleans as PostgreSQL's {@code boolin} does ({@link BooleanText}:
 * {@code 't'}, {@code 'yes'}, {@code 'on'}, {@code '1'} and the other spellings), where Calcite's cast reads only
 * {@code true} and {@code false}. A constant text cast to BOOLEAN anywhere in the plan (an explicit
 * {@code 'yes'::boolean}, the implicit cast of {@code WHERE flag = 't'}) becomes the boolean literal; text that is no boolean is 22P02, as PostgreSQL answers. Runs over the whole plan
 * before optimization, like {@link RealLiterals}.
 */
final class BooleanLiterals extends RelHomogeneousShuttle {
    @Override
    public RelNode visit(final RelNode other) {
        final RelNode visited = super.visit(other);
        final RexBuilder rexBuilder = visited.getCluster().getRexBuilder();
        return visited.accept(new RexShuttle() {
            @Override
            public RexNode visitCall(final RexCall call) {
                final RexCall visitedCall = (RexCall) super.visitCall(call);
                if (visitedCall.getKind() == SqlKind.CAST
                        && visitedCall.getType().getSqlTypeName() == SqlTypeName.BOOLEAN
                        && visitedCall.getOperands().get(0) instanceof RexLiteral literal
                        && literal.getType().getSqlTypeName().getFamily() == SqlTypeFamily.CHARACTER
                        && !literal.isNull()) {
                    return rexBuilder.makeLiteral(BooleanText.parse(literal.getValueAs(String.class)),
                            visitedCall.getType());
                }
                return visitedCall;
            }
        });
    }
}
