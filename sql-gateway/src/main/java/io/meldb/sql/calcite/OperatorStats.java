package io.meldb.sql.calcite;

import org.apache.calcite.rel.RelNode;

import java.util.ArrayList;
import java.util.List;

/**
 * What EXPLAIN ANALYZE measures of one execution: per operator of the chosen plan, the rows it produced, how many
 * times it was started (loops: the inner side of a nested loop runs once per outer row) and the time spent
 * inside it, its inputs included (PostgreSQL's "actual time"). {@link MeldAnalyze} counts; this class keeps the
 * operators in plan order (pre-order) with their depth, for printing.
 */
public final class OperatorStats {
    private final List<RelNode> operators = new ArrayList<>();
    private final List<Integer> depths = new ArrayList<>();
    private long[] rows = new long[0];
    private long[] loops = new long[0];
    private long[] nanos = new long[0];
    private long[] buildStart = new long[0];

    /** Registers {@code rel}, at {@code depth} below the root; answers its index. */
    int register(final RelNode rel, final int depth) {
        operators.add(rel);
        depths.add(depth);
        final int n = operators.size();
        rows = java.util.Arrays.copyOf(rows, n);
        loops = java.util.Arrays.copyOf(loops, n);
        nanos = java.util.Arrays.copyOf(nanos, n);
        buildStart = java.util.Arrays.copyOf(buildStart, n);
        return n - 1;
    }

    /** Operator {@code operator}'s inputs start being built (for operators that compute when built). */
    void building(final int operator, final long now) {
        buildStart[operator] = now;
    }

    /** Operator {@code operator} is built: the time since {@link #building} is its. */
    void built(final int operator, final long now) {
        nanos[operator] += now - buildStart[operator];
    }

    void started(final int operator) {
        loops[operator]++;
    }

    void produced(final int operator) {
        rows[operator]++;
    }

    void spent(final int operator, final long ns) {
        nanos[operator] += ns;
    }

    public int size() {
        return operators.size();
    }

    public RelNode operator(final int i) {
        return operators.get(i);
    }

    public int depth(final int i) {
        return depths.get(i);
    }

    public long rows(final int i) {
        return rows[i];
    }

    public long loops(final int i) {
        return loops[i];
    }

    public long nanos(final int i) {
        return nanos[i];
    }
}
