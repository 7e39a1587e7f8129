package io.meldb.sql.calcite;

import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableHashJoin;
import org.apache.calcite.adapter.enumerable.EnumerableIntersect;
import org.apache.calcite.adapter.enumerable.EnumerableMinus;
import org.apache.calcite.adapter.enumerable.EnumerableNestedLoopJoin;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.EnumerableSort;
import org.apache.calcite.adapter.enumerable.EnumerableUnion;
import org.apache.calcite.adapter.enumerable.EnumerableWindow;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.tools.Program;

import java.util.ArrayList;
import java.util.List;

/**
 * Charges the rows that flow into an operator that keeps them (the built side of a hash join, the inner side of
 * a RIGHT or FULL nested-loop join, a sort, a window, a distinct set operation) to the statement's
 * {@link StatementMemory}. Charges add up over the statement: a kept input that is read again (under a
 * nested-loop join) counts again, so the estimate errs on the high side.
 * {@link #program()} puts one under every such input of the chosen plan.
 */
public final class MeldBudget extends SingleRel implements EnumerableRel {
    private MeldBudget(final RelOptCluster cluster, final RelTraitSet traits, final RelNode input) {
        super(cluster, traits, input);
    }

    @Override
    public RelNode copy(final RelTraitSet traitSet, final List<RelNode> inputs) {
        return new MeldBudget(getCluster(), traitSet, inputs.get(0));
    }

    @Override
    public Result implement(final EnumerableRelImplementor implementor, final Prefer pref) {
        final Result child = implementor.visitChild(this, 0, (EnumerableRel) input, pref);
        final BlockBuilder builder = new BlockBuilder();
        final Expression rows = builder.append("kept", child.block);
        builder.add(Expressions.return_(null, Expressions.call(
                MeldTableScan.runtimeMethod(MeldBudget.class, "charged"), DataContext.ROOT, rows)));
        return implementor.result(PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), child.format, false),
                builder.toBlock());
    }

    /** Called by the generated code: the rows, each charged to the statement's budget as it passes. */
    public static <T> Enumerable<T> charged(final DataContext root, final Enumerable<T> rows) {
        final SchemaPlus schema = root.getRootSchema();
        final MeldRootSchema meld = schema == null ? null : schema.unwrap(MeldRootSchema.class);
        if (meld == null) {
            return rows;
        }
        final StatementMemory memory = meld.context().memory();
        return new AbstractEnumerable<>() {
            @Override
            public Enumerator<T> enumerator() {
                final Enumerator<T> in = rows.enumerator();
                return new Enumerator<>() {
                    @Override
                    public T current() {
                        return in.current();
                    }

                    @Override
                    public boolean moveNext() {
                        if (!in.moveNext()) {
                            return false;
                        }
                        memory.charge(in.current());
                        return true;
                    }

                    @Override
                    public void reset() {
                        in.reset();
                    }

                    @Override
                    public void close() {
                        in.close();
                    }
                };
            }
        };
    }

    /** The program step that wraps the kept inputs of the chosen plan. */
    public static Program program() {
        return (planner, rel, traits, materializations, lattices) -> wrap(rel);
    }

    private static RelNode wrap(final RelNode rel) {
        final List<RelNode> inputs = new ArrayList<>(rel.getInputs().size());
        boolean changed = false;
        for (int i = 0; i < rel.getInputs().size(); i++) {
            final RelNode input = rel.getInput(i);
            RelNode next = wrap(input);
            if (kept(rel, i)) {
                next = new MeldBudget(next.getCluster(), next.getTraitSet(), next);
            }
            changed |= next != input;
            inputs.add(next);
        }
        return changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    }

    /** Whether {@code rel} keeps the rows of its input {@code i} in memory. */
    private static boolean kept(final RelNode rel, final int i) {
        if (rel instanceof EnumerableHashJoin) {
            return i == 1; // the built side
        }
        if (rel instanceof EnumerableNestedLoopJoin j) {
            // INNER, LEFT, SEMI and ANTI stream the inner side again per outer row; RIGHT and FULL keep it
            return i == 1 && j.getJoinType().generatesNullsOnLeft();
        }
        if (rel instanceof EnumerableUnion u) {
            return !u.all;
        }
        return rel instanceof EnumerableSort || rel instanceof EnumerableWindow || rel instanceof EnumerableMinus
                || rel instanceof EnumerableIntersect;
    }
}
