package io.meldb.sql.calcite;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.Program;

import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's aggregates over exact numbers: sum of bigint is numeric (it cannot overflow), and avg, variance and
 * stddev of integers and numerics are numeric with PostgreSQL's scales ({@link PgNumerics}); Calcite computes them in
 * the argument's type (avg of 1 and 2 is 1). A pass over the plan, before Calcite's rules reduce avg to sum and count,
 * casts the argument of each such call to numeric in a projection below the aggregate and puts MeldDB's operator
 * ({@link PgNumericOperators}) in place of avg, variance and stddev.
 */
public final class NumericAggregates extends RelShuttleImpl {
    private NumericAggregates() {
    }

    /** The pass as a planning program. */
    public static Program program() {
        return (planner, rel, traits, materializations, lattices) -> rel.accept(new NumericAggregates());
    }

    @Override
    public RelNode visit(final LogicalAggregate aggregate) {
        final LogicalAggregate visited = (LogicalAggregate) super.visit(aggregate);
        final RelNode input = visited.getInput();
        final List<RelDataTypeField> fields = input.getRowType().getFieldList();
        boolean changed = false;
        for (AggregateCall call : visited.getAggCallList()) {
            changed |= replacement(call, fields) != null;
        }
        if (!changed) {
            return visited;
        }
        final RexBuilder rex = visited.getCluster().getRexBuilder();
        final List<RexNode> projects = new ArrayList<>(rex.identityProjects(input.getRowType()));
        final List<String> names = new ArrayList<>(input.getRowType().getFieldNames());
        final int[] castOf = new int[fields.size()];
        java.util.Arrays.fill(castOf, -1);
        final List<AggregateCall> calls = new ArrayList<>();
        for (AggregateCall call : visited.getAggCallList()) {
            final SqlAggFunction function = replacement(call, fields);
            if (function == null) {
                calls.add(call);
                continue;
            }
            final int arg = call.getArgList().get(0);
            if (castOf[arg] < 0) {
                final RelDataType numeric = PgNumericType.of(rex.getTypeFactory(), fields.get(arg).getType()
                        .isNullable());
                castOf[arg] = projects.size();
                projects.add(rex.makeCast(numeric, rex.makeInputRef(input, arg)));
                names.add("$numeric" + arg);
            }
            calls.add(AggregateCall.create(call.getParserPosition(), function, call.isDistinct(),
                    call.isApproximate(), call.ignoreNulls(), call.rexList, List.of(castOf[arg]), call.filterArg,
                    call.distinctKeys, call.collation, call.getType(), call.getName()));
        }
        final RelNode project = LogicalProject.create(input, List.of(), projects, names, java.util.Set.of());
        return visited.copy(visited.getTraitSet(), project, visited.getGroupSet(), visited.getGroupSets(), calls);
    }

    /** The function that computes {@code call} as PostgreSQL does, or null when Calcite's is PostgreSQL's. */
    private static SqlAggFunction replacement(final AggregateCall call, final List<RelDataTypeField> fields) {
        if (call.getArgList().size() != 1) {
            return null;
        }
        final RelDataType arg = fields.get(call.getArgList().get(0)).getType();
        if (!SqlTypeUtil.isExactNumeric(arg)) {
            return null;
        }
        return switch (call.getAggregation().getKind()) {
            case SUM -> arg.getSqlTypeName() == SqlTypeName.BIGINT ? call.getAggregation() : null;
            case AVG -> PgNumericOperators.AVG;
            case VAR_SAMP -> PgNumericOperators.VAR_SAMP;
            case VAR_POP -> PgNumericOperators.VAR_POP;
            case STDDEV_SAMP -> PgNumericOperators.STDDEV_SAMP;
            case STDDEV_POP -> PgNumericOperators.STDDEV_POP;
            default -> null;
        };
    }
}
