package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

import java.math.BigDecimal;
import java.util.List;

/**
 * Refuses a constant that becomes a REAL out of float's range, as PostgreSQL's float4 does ("value out of range:
 * overflow", 22003): Calcite's generated code would cast 1e300 to Infinity and store it. Runs over the whole plan
 * before optimization (VALUES rows and every node's expressions). A REAL computed from a non-constant expression is
 * not checked here (written in docs/sql.md).
 */
final class RealLiterals extends RelHomogeneousShuttle {
    private static final BigDecimal MAX = new BigDecimal(Float.MAX_VALUE);
    private static final BigDecimal MIN_NONZERO = new BigDecimal(Float.MIN_VALUE);

    private static final RexVisitorImpl<Void> CHECK = new RexVisitorImpl<>(true) {
        @Override
        public Void visitLiteral(final RexLiteral literal) {
            if (isReal(literal.getType().getSqlTypeName())) {
                check(literal);
            }
            return null;
        }

        @Override
        public Void visitCall(final RexCall call) {
            if (call.getKind() == SqlKind.CAST && isReal(call.getType().getSqlTypeName())
                    && call.getOperands().get(0) instanceof RexLiteral literal) {
                check(literal);
            }
            return super.visitCall(call);
        }
    };

    @Override
    public RelNode visit(final RelNode other) {
        final RelNode visited = super.visit(other);
        if (visited instanceof Values values) {
            for (List<RexLiteral> row : values.getTuples()) {
                for (int i = 0; i < row.size(); i++) {
                    if (isReal(values.getRowType().getFieldList().get(i).getType().getSqlTypeName())) {
                        check(row.get(i));
                    }
                }
            }
        }
        visited.accept(new org.apache.calcite.rex.RexShuttle() {
            @Override
            public RexNode visitCall(final RexCall call) {
                call.accept(CHECK);
                return call;
            }

            @Override
            public RexNode visitLiteral(final RexLiteral literal) {
                literal.accept(CHECK);
                return literal;
            }
        });
        return visited;
    }

    private static boolean isReal(final SqlTypeName type) {
        return type == SqlTypeName.REAL || type == SqlTypeName.FLOAT;
    }

    private static void check(final RexLiteral literal) {
        final BigDecimal v;
        if (SqlTypeUtil.isNumeric(literal.getType())) {
            v = literal.getValueAs(BigDecimal.class);
        } else if (SqlTypeUtil.isCharacter(literal.getType())) {
            // text cast to real: 'NaN' and 'Infinity' are reals, and text that is no number is the cast's to refuse
            final String text = literal.getValueAs(String.class);
            BigDecimal parsed;
            try {
                parsed = text == null ? null : new BigDecimal(text.trim());
            } catch (NumberFormatException e) {
                parsed = null;
            }
            v = parsed;
        } else {
            v = null;
        }
        if (v == null) {
            return;
        }
        final BigDecimal abs = v.abs();
        if (abs.compareTo(MAX) > 0) {
            throw new SqlStateException("22003", "value out of range: overflow (" + v + " does not fit in real)");
        }
        if (abs.signum() != 0 && abs.compareTo(MIN_NONZERO) < 0) {
            throw new SqlStateException("22003", "value out of range: underflow (" + v + " does not fit in real)");
        }
    }
}
