package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableHashJoin;
import org.apache.calcite.adapter.enumerable.EnumerableIntersect;
import org.apache.calcite.adapter.enumerable.EnumerableMinus;
import org.apache.calcite.adapter.enumerable.EnumerableNestedLoopJoin;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.EnumerableRepeatUnion;
import org.apache.calcite.adapter.enumerable.EnumerableSort;
import org.apache.calcite.adapter.enumerable.EnumerableTableSpool;
import org.apache.calcite.adapter.enumerable.EnumerableUnion;
import org.apache.calcite.adapter.enumerable.EnumerableValues;
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
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.tools.Program;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sits under the inputs of the operators of the chosen plan, as the statement's guard: every row that flows
 * into an operator first checks the statement's cancel flag (CancelRequest, statement_timeout,
 * {@code pg_cancel_backend}, a closed client, JDBC {@code Statement.cancel}), so an operator that loops without
 * producing rows of a table scan (a recursive union, a join, a sort, an aggregate over a series) stops at its next
 * input row with 57014. The rows that flow into an operator that keeps them (the built side of a hash join, the
 * inner side of a RIGHT or FULL nested-loop join, a sort, a window, a distinct set operation, a recursive
 * union's working table and, without ALL, every row it has produced) are also charged to the statement's
 * {@link StatementMemory}. Charges add up over the statement: a kept input that is read again (under a
 * nested-loop join) counts again, so the estimate errs on the high side; a recursive union's working table
 * gives back what an iteration two before the current one charged, as Calcite's spool keeps two.
 * {@link #program()} puts one under every input of the chosen plan but a MeldDB table scan (which checks the
 * flag itself at every row) and a VALUES list. A guard that charges nothing does not show in EXPLAIN.
 */
public final class MeldBudget extends SingleRel implements EnumerableRel {
    /** What the guard does besides checking the cancel flag. */
    enum Charge {
        /** Nothing. */
        NONE,
        /** Charges every row. */
        KEPT,
        /** Charges every row, and gives back what the enumeration before the previous one charged. */
        GENERATIONS
    }

    private final Charge charge;

    private MeldBudget(final RelOptCluster cluster, final RelTraitSet traits, final RelNode input,
                       final Charge charge) {
        super(cluster, traits, input);
        this.charge = charge;
    }

    @Override
    public RelNode copy(final RelTraitSet traitSet, final List<RelNode> inputs) {
        return new MeldBudget(getCluster(), traitSet, inputs.get(0), charge);
    }

    @Override
    public void explain(final RelWriter pw) {
        if (charge == Charge.NONE) {
            input.explain(pw); // a cancel check is no operator of the plan
        } else {
            super.explain(pw);
        }
    }

    @Override
    public Result implement(final EnumerableRelImplementor implementor, final Prefer pref) {
        final Result child = implementor.visitChild(this, 0, (EnumerableRel) input, pref);
        final BlockBuilder builder = new BlockBuilder();
        final Expression rows = builder.append(charge == Charge.NONE ? "guarded" : "kept", child.block);
        final String method = switch (charge) {
            case NONE -> "guarded";
            case KEPT -> "charged";
            case GENERATIONS -> "chargedByGeneration";
        };
        builder.add(Expressions.return_(null, Expressions.call(
                MeldTableScan.runtimeMethod(MeldBudget.class, method), DataContext.ROOT, rows)));
        return implementor.result(PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), child.format, false),
                builder.toBlock());
    }

    /** Called by the generated code: the rows, the statement's cancel flag checked before each. */
    public static <T> Enumerable<T> guarded(final DataContext root, final Enumerable<T> rows) {
        return wrap(root, rows, Charge.NONE);
    }

    /** Called by the generated code: the rows, each charged to the statement's budget as it passes. */
    public static <T> Enumerable<T> charged(final DataContext root, final Enumerable<T> rows) {
        return wrap(root, rows, Charge.KEPT);
    }

    /**
     * Called by the generated code under a recursive union's spool: the rows, each charged, and what the
     * enumeration before the previous one charged given back when a new one starts.
     */
    public static <T> Enumerable<T> chargedByGeneration(final DataContext root, final Enumerable<T> rows) {
        return wrap(root, rows, Charge.GENERATIONS);
    }

    private static <T> Enumerable<T> wrap(final DataContext root, final Enumerable<T> rows, final Charge charge) {
        final SchemaPlus schema = root.getRootSchema();
        final MeldRootSchema meld = schema == null ? null : schema.unwrap(MeldRootSchema.class);
        final AtomicBoolean flag = DataContext.Variable.CANCEL_FLAG.get(root);
        final AtomicBoolean calcite = flag != null ? flag : new AtomicBoolean();
        if (meld == null) {
            return rows;
        }
        final MeldTxnContext context = meld.context();
        final StatementMemory memory = charge == Charge.NONE ? null : context.memory();
        return new AbstractEnumerable<>() {
            /** Bytes charged by the enumeration before the last one, and by the last one (GENERATIONS). */
            private long previous;
            private long last;

            @Override
            public Enumerator<T> enumerator() {
                if (charge == Charge.GENERATIONS) {
                    memory.release(previous);
                    previous = last;
                    last = 0;
                }
                final Enumerator<T> in = rows.enumerator();
                return new Enumerator<>() {
                    @Override
                    public T current() {
                        return in.current();
                    }

                    @Override
                    public boolean moveNext() {
                        if (context.cancelled() || calcite.get()) {
                            throw cancelled();
                        }
                        if (!in.moveNext()) {
                            // Calcite's working table of a recursive union ends quietly when its flag is set
                            if (calcite.get()) {
                                throw cancelled();
                            }
                            return false;
                        }
                        if (memory != null) {
                            final long bytes = memory.charge(in.current());
                            if (charge == Charge.GENERATIONS) {
                                last += bytes;
                            }
                        }
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

    /** The error of a statement stopped by its cancel flag (the PostgreSQL front end names a timeout itself). */
    static SqlStateException cancelled() {
        return new SqlStateException("57014", "canceling statement due to user request");
    }

    /** The program step that guards the inputs of the chosen plan. */
    public static Program program() {
        return (planner, rel, traits, materializations, lattices) -> wrap(rel);
    }

    private static RelNode wrap(final RelNode rel) {
        final List<RelNode> inputs = new ArrayList<>(rel.getInputs().size());
        boolean changed = false;
        for (int i = 0; i < rel.getInputs().size(); i++) {
            final RelNode input = rel.getInput(i);
            RelNode next = wrap(input);
            final Charge charge = charge(rel, i);
            // only between enumerable operators: an EnumerableInterpreter's input is in Bindable convention
            if (rel instanceof EnumerableRel && input instanceof EnumerableRel && (charge != Charge.NONE
                    || !(input instanceof MeldTableScan || input instanceof EnumerableValues
                    || input instanceof MeldValues))) {
                next = new MeldBudget(next.getCluster(), next.getTraitSet(), next, charge);
            }
            changed |= next != input;
            inputs.add(next);
        }
        return changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    }

    /** What {@code rel} keeps of the rows of its input {@code i} in memory. */
    private static Charge charge(final RelNode rel, final int i) {
        if (rel instanceof EnumerableHashJoin) {
            return i == 1 ? Charge.KEPT : Charge.NONE; // the built side
        }
        if (rel instanceof EnumerableNestedLoopJoin j) {
            // INNER, LEFT, SEMI and ANTI stream the inner side again per outer row; RIGHT and FULL keep it
            return i == 1 && j.getJoinType().generatesNullsOnLeft() ? Charge.KEPT : Charge.NONE;
        }
        if (rel instanceof EnumerableUnion u) {
            return u.all ? Charge.NONE : Charge.KEPT;
        }
        if (rel instanceof EnumerableRepeatUnion u) {
            return u.all ? Charge.NONE : Charge.KEPT; // without ALL, every row produced (to drop duplicates)
        }
        if (rel instanceof EnumerableTableSpool) {
            return Charge.GENERATIONS; // a recursive union's working table: the last iteration's rows
        }
        return rel instanceof EnumerableSort || rel instanceof EnumerableWindow || rel instanceof EnumerableMinus
                || rel instanceof EnumerableIntersect ? Charge.KEPT : Charge.NONE;
    }
}
