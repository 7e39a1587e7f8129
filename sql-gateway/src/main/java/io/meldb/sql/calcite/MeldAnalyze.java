package io.meldb.sql.calcite;

import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
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
import org.apache.calcite.tools.Program;

import java.util.ArrayList;
import java.util.List;

/**
 * EXPLAIN ANALYZE's probe: sits above one operator of the chosen plan and counts the rows, starts and time of
 * the operator below it into the statement's {@link OperatorStats}. {@link #program} puts one above every
 * operator; only statements run under EXPLAIN ANALYZE are planned with it, so ordinary statements pay nothing.
 */
public final class MeldAnalyze extends SingleRel implements EnumerableRel {
    private final OperatorStats stats;
    private final int operator;

    private MeldAnalyze(final RelOptCluster cluster, final RelTraitSet traits, final RelNode input,
                        final OperatorStats stats, final int operator) {
        super(cluster, traits, input);
        this.stats = stats;
        this.operator = operator;
    }

    @Override
    public RelNode copy(final RelTraitSet traitSet, final List<RelNode> inputs) {
        return new MeldAnalyze(getCluster(), traitSet, inputs.get(0), stats, operator);
    }

    @Override
    public Result implement(final EnumerableRelImplementor implementor, final Prefer pref) {
        final Result child = implementor.visitChild(this, 0, (EnumerableRel) input, pref);
        final BlockBuilder builder = new BlockBuilder();
        final Expression stash = implementor.stash(stats, OperatorStats.class);
        // some operators (a hash aggregate, a sort) compute their answer when the plan is built, not when read
        builder.add(Expressions.statement(Expressions.call(MeldTableScan.runtimeMethod(MeldAnalyze.class, "built"),
                stash, Expressions.constant(operator))));
        final Expression rows = builder.append("measured", child.block);
        builder.add(Expressions.return_(null, Expressions.call(
                MeldTableScan.runtimeMethod(MeldAnalyze.class, "counted"), stash, Expressions.constant(operator),
                rows)));
        return implementor.result(PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), child.format, false),
                builder.toBlock());
    }

    /** Called by the generated code before operator {@code op}'s inputs are built. */
    public static void built(final OperatorStats stats, final int op) {
        stats.building(op, System.nanoTime());
    }

    /** Called by the generated code: {@code rows}, counted and timed into {@code stats} as operator {@code op}. */
    public static <T> Enumerable<T> counted(final OperatorStats stats, final int op, final Enumerable<T> rows) {
        stats.built(op, System.nanoTime());
        return new AbstractEnumerable<>() {
            @Override
            public Enumerator<T> enumerator() {
                final long start = System.nanoTime();
                stats.started(op);
                final Enumerator<T> in = rows.enumerator();
                stats.spent(op, System.nanoTime() - start);
                return new Enumerator<>() {
                    @Override
                    public T current() {
                        return in.current();
                    }

                    @Override
                    public boolean moveNext() {
                        final long t = System.nanoTime();
                        final boolean more = in.moveNext();
                        stats.spent(op, System.nanoTime() - t);
                        if (more) {
                            stats.produced(op);
                        }
                        return more;
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

    /** The program step that puts a probe above every operator of the chosen plan, registering them in order. */
    public static Program program(final OperatorStats stats) {
        return (planner, rel, traits, materializations, lattices) -> wrap(rel, 0, stats);
    }

    private static RelNode wrap(final RelNode rel, final int depth, final OperatorStats stats) {
        if (rel instanceof MeldBudget) {
            // the budget's charge is no operator of the plan: measure what it charges
            return rel.copy(rel.getTraitSet(), List.of(wrap(rel.getInput(0), depth, stats)));
        }
        final int operator = stats.register(rel, depth);
        final List<RelNode> inputs = new ArrayList<>(rel.getInputs().size());
        for (RelNode input : rel.getInputs()) {
            inputs.add(wrap(input, depth + 1, stats));
        }
        final RelNode copied = inputs.isEmpty() ? rel : rel.copy(rel.getTraitSet(), inputs);
        return new MeldAnalyze(copied.getCluster(), copied.getTraitSet(), copied, stats, operator);
    }
}
