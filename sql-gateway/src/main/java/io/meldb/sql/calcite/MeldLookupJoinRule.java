package io.meldb.sql.calcite;

import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.SqlType;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexPermuteInputsShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilderFactory;
import org.apache.calcite.util.mapping.Mappings;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns a join whose one side is a MeldDB table, joined on (a prefix of) its primary key or of one of its
 * indexes, into a {@link MeldLookupJoin} that looks the table's rows up per row of the other side. The table side
 * may be the scan itself, a filter over it (whose key equalities with literals or parameters join the key, the
 * rest stay as a filter) and a projection of its columns. The join's other conditions stay as a filter above.
 * INNER joins take the table from either side; LEFT and SEMI joins from the right, when nothing but the key
 * equalities conditions the table's rows.
 */
public final class MeldLookupJoinRule extends RelRule<MeldLookupJoinRule.Config> {
    public static final MeldLookupJoinRule INSTANCE = new MeldLookupJoinRule(Config.DEFAULT);

    private MeldLookupJoinRule(final Config config) {
        super(config);
    }

    /** A table side of a join: the scan, an optional filter over it, and the table column of each field. */
    private record TableSide(MeldTableScan scan, List<RexNode> filter, int[] columns) {
    }

    @Override
    public void onMatch(final RelOptRuleCall call) {
        final Join join = call.rel(0);
        final JoinRelType type = join.getJoinType();
        if (type != JoinRelType.INNER && type != JoinRelType.LEFT && type != JoinRelType.SEMI) {
            return;
        }
        final TableSide right = tableSide(join.getRight());
        if (right != null) {
            final RelNode rel = build(call.builder(), join, join.getLeft(), right, false);
            if (rel != null) {
                call.transformTo(rel);
                return;
            }
        }
        if (type == JoinRelType.INNER) {
            final TableSide left = tableSide(join.getLeft());
            if (left != null) {
                final RelNode rel = build(call.builder(), join, join.getRight(), left, true);
                if (rel != null) {
                    call.transformTo(rel);
                }
            }
        }
    }

    /**
     * The lookup join, its residual filter and the projection back to the join's fields; null when no key of the
     * table is joined on. {@code swapped}: the table is the join's left input.
     */
    private static RelNode build(final RelBuilder builder, final Join join, final RelNode outer,
                                 final TableSide side, final boolean swapped) {
        final TableDef def = side.scan().meldTable().def();
        final int outerWidth = outer.getRowType().getFieldCount();
        final int leftWidth = join.getLeft().getRowType().getFieldCount();
        final int joinWidth = leftWidth + join.getRight().getRowType().getFieldCount();
        // where each field of the join's input row lands in the lookup join's row (outer fields, then table's)
        final int[] target = new int[joinWidth];
        for (int i = 0; i < joinWidth; i++) {
            final boolean tableField = swapped ? i < leftWidth : i >= leftWidth;
            final int local = swapped ? (tableField ? i : i - leftWidth) : (tableField ? i - leftWidth : i);
            target[i] = tableField ? outerWidth + side.columns()[local] : local;
        }
        final List<RexNode> conjuncts = RelOptUtil.conjunctions(join.getCondition());
        // per table column: the outer field joined to it, or -1
        final int[] joined = new int[def.columns().size()];
        final int[] joinedBy = new int[def.columns().size()];
        java.util.Arrays.fill(joined, -1);
        for (int i = 0; i < conjuncts.size(); i++) {
            if (conjuncts.get(i) instanceof RexCall c && c.getKind() == SqlKind.EQUALS
                    && c.getOperands().get(0) instanceof RexInputRef a
                    && c.getOperands().get(1) instanceof RexInputRef b) {
                final int ta = target[a.getIndex()];
                final int tb = target[b.getIndex()];
                final int column = ta >= outerWidth ? ta - outerWidth : tb >= outerWidth ? tb - outerWidth : -1;
                final int outerField = ta < outerWidth ? ta : tb < outerWidth ? tb : -1;
                if (column >= 0 && outerField >= 0 && joined[column] < 0
                        && sameType(def, column, outer.getRowType().getFieldList().get(outerField).getType())) {
                    joined[column] = outerField;
                    joinedBy[column] = i;
                }
            }
        }
        // per table column: a literal or parameter the filter equates it with
        final RexNode[] fixed = new RexNode[def.columns().size()];
        final int[] fixedBy = new int[def.columns().size()];
        for (int i = 0; i < side.filter().size(); i++) {
            final RexNode f = side.filter().get(i);
            if (f instanceof RexCall c && c.getKind() == SqlKind.EQUALS) {
                final RexNode x = c.getOperands().get(0);
                final RexNode y = c.getOperands().get(1);
                final RexInputRef ref = x instanceof RexInputRef r ? r : y instanceof RexInputRef r2 ? r2 : null;
                final RexNode value = ref == x ? y : x;
                if (ref != null && fixed[ref.getIndex()] == null && constantFor(def, ref.getIndex(), value)) {
                    fixed[ref.getIndex()] = value;
                    fixedBy[ref.getIndex()] = i;
                }
            }
        }
        // the key that takes the most leading columns, at least one of them joined
        String bestIndex = null;
        int[] bestColumns = null;
        int bestLength = 0;
        for (int k = -1; k < def.indexes().size(); k++) {
            final String name = k < 0 ? null : def.indexes().get(k).name();
            final int[] columns = k < 0 ? def.primaryKey() : def.indexes().get(k).columns();
            int n = 0;
            boolean anyJoined = false;
            while (n < columns.length && (joined[columns[n]] >= 0 || fixed[columns[n]] != null)) {
                anyJoined |= joined[columns[n]] >= 0;
                n++;
            }
            final boolean whole = k < 0 && n == columns.length;
            final int score = n * 2 + (whole ? 1 : 0);
            if (anyJoined && score > bestLength) {
                bestLength = score;
                bestIndex = name;
                bestColumns = java.util.Arrays.copyOf(columns, n);
            }
        }
        if (bestColumns == null) {
            return null;
        }
        final int[] keySources = new int[bestColumns.length];
        final List<RexNode> constants = new ArrayList<>();
        final boolean[] usedJoin = new boolean[conjuncts.size()];
        final boolean[] usedFilter = new boolean[side.filter().size()];
        for (int i = 0; i < bestColumns.length; i++) {
            final int column = bestColumns[i];
            if (joined[column] >= 0) {
                keySources[i] = joined[column];
                usedJoin[joinedBy[column]] = true;
            } else {
                keySources[i] = -1 - constants.size();
                constants.add(fixed[column]);
                usedFilter[fixedBy[column]] = true;
            }
        }
        final List<RexNode> residual = new ArrayList<>();
        final Mappings.TargetMapping mapping = Mappings.target(i -> target[i], joinWidth,
                outerWidth + def.columns().size());
        for (int i = 0; i < conjuncts.size(); i++) {
            if (!usedJoin[i]) {
                residual.add(conjuncts.get(i).accept(new RexPermuteInputsShuttle(mapping, join.getLeft(),
                        join.getRight())));
            }
        }
        final Mappings.TargetMapping shift = Mappings.offsetTarget(Mappings.createIdentity(def.columns().size()),
                outerWidth, outerWidth + def.columns().size());
        for (int i = 0; i < side.filter().size(); i++) {
            if (!usedFilter[i]) {
                residual.add(RexUtil.apply(shift, side.filter().get(i)));
            }
        }
        final JoinRelType type = join.getJoinType();
        if (type != JoinRelType.INNER && !residual.isEmpty()) {
            return null; // the lookup itself would have to apply them
        }
        final RelNode outerInput = convert(outer, outer.getTraitSet().replace(EnumerableConvention.INSTANCE));
        final MeldLookupJoin lookup = MeldLookupJoin.create(outerInput, side.scan().getTable(),
                side.scan().meldTable(), bestIndex, keySources, constants, type);
        builder.push(lookup).filter(residual);
        if (type == JoinRelType.SEMI) {
            return builder.build();
        }
        final List<RexNode> fields = new ArrayList<>(joinWidth);
        for (int i = 0; i < joinWidth; i++) {
            fields.add(builder.field(target[i]));
        }
        return builder.project(fields, join.getRowType().getFieldNames(), true).convert(join.getRowType(), false)
                .build();
    }

    /** Whether an outer field of {@code type} may give the key value of {@code column} (same kind of value). */
    private static boolean sameType(final TableDef def, final int column,
                                    final org.apache.calcite.rel.type.RelDataType type) {
        final SqlType columnType = def.columns().get(column).type().type();
        if (columnType == SqlType.CHAR) {
            return false; // blank-padded comparisons stay with the join
        }
        return switch (type.getSqlTypeName()) {
            case SMALLINT, INTEGER, BIGINT -> columnType == SqlType.SMALLINT || columnType == SqlType.INTEGER
                    || columnType == SqlType.BIGINT;
            case VARCHAR, CHAR -> columnType == SqlType.VARCHAR;
            case BOOLEAN -> columnType == SqlType.BOOLEAN;
            case DATE -> columnType == SqlType.DATE;
            case DECIMAL -> columnType == SqlType.DECIMAL
                    && type.getScale() == def.columns().get(column).type().scale();
            default -> false;
        };
    }

    /** Whether {@code value} is a literal or parameter that {@link MeldTableScan} can use as {@code column}'s key. */
    private static boolean constantFor(final TableDef def, final int column, final RexNode value) {
        final RexNode v = MeldFilterRule.stripCast(value);
        if (def.columns().get(column).type().type() == SqlType.CHAR) {
            return false;
        }
        if (v instanceof RexDynamicParam) {
            return true;
        }
        return v instanceof RexLiteral literal && !literal.isNull()
                && MeldFilterRule.literalValue(literal, def.columns().get(column).type()) != null;
    }

    /** The table side of a join input: scan, filter over scan, or a projection of columns over either. */
    private static TableSide tableSide(final RelNode input) {
        final RelNode rel = original(input);
        if (rel instanceof MeldTableScan scan && scan.spec().isFull()) {
            return new TableSide(scan, List.of(), identity(scan.getRowType().getFieldCount()));
        }
        if (rel instanceof Filter filter && original(filter.getInput()) instanceof MeldTableScan scan
                && scan.spec().isFull() && !RexUtil.containsCorrelation(filter.getCondition())) {
            return new TableSide(scan, RelOptUtil.conjunctions(filter.getCondition()),
                    identity(scan.getRowType().getFieldCount()));
        }
        if (rel instanceof Project project) {
            final int[] columns = new int[project.getProjects().size()];
            for (int i = 0; i < columns.length; i++) {
                if (!(project.getProjects().get(i) instanceof RexInputRef ref)) {
                    return null;
                }
                columns[i] = ref.getIndex();
            }
            final TableSide below = tableSide(project.getInput());
            if (below == null || below.columns().length != below.scan().getRowType().getFieldCount()) {
                return null;
            }
            return new TableSide(below.scan(), below.filter(), columns);
        }
        return null;
    }

    /** The rel a Volcano subset started from (the planner's inputs are subsets). */
    private static RelNode original(final RelNode input) {
        if (input instanceof RelSubset subset) {
            final RelNode original = subset.getOriginal();
            return original == null ? subset.getBest() : original;
        }
        return input;
    }

    private static int[] identity(final int n) {
        final int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = i;
        }
        return out;
    }

    /** Rule configuration: any logical join. */
    public record Config(RelBuilderFactory relBuilderFactory, String description, OperandTransform operandSupplier)
            implements RelRule.Config {
        static final Config DEFAULT = new Config(RelBuilder.proto(org.apache.calcite.plan.Contexts.empty()),
                "MeldLookupJoinRule", b0 -> b0.operand(LogicalJoin.class).anyInputs());

        @Override
        public Config withRelBuilderFactory(final RelBuilderFactory factory) {
            return new Config(factory, description, operandSupplier);
        }

        @Override
        public Config withDescription(final String newDescription) {
            return new Config(relBuilderFactory, newDescription, operandSupplier);
        }

        @Override
        public Config withOperandSupplier(final OperandTransform transform) {
            return new Config(relBuilderFactory, description, transform);
        }

        @Override
        public MeldLookupJoinRule toRule() {
            return new MeldLookupJoinRule(this);
        }
    }
}
