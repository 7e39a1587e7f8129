package io.meldb.core;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reorder window's abort choice on bare dependency graphs ({@link AbortChoice} through
 * {@link Reorderer#planGraph}): whatever the algorithm and policy, the kept members are acyclic and melded in a
 * topological order, no aborted member could have been kept, and the choice never costs more than log order's
 * aborts on the same graph.
 */
class AbortChoiceTest {

    @Test
    void choiceIsAcyclicMaximalDeterministicAndNeverWorseThanLogOrderOnRandomGraphs() {
        final SplittableRandom rnd = new SplittableRandom(21);
        long chosen = 0;
        long logOrder = 0;
        for (int run = 0; run < 3_000; run++) {
            final int n = 2 + rnd.nextInt(63);
            final double density = rnd.nextDouble() * (rnd.nextBoolean() ? 0.1 : 0.6);
            final long[] succ = new long[n];
            final int[] restarts = new int[n];
            for (int a = 0; a < n; a++) {
                restarts[a] = rnd.nextInt(4) == 0 ? rnd.nextInt(6) : 0;
                for (int b = 0; b < n; b++) {
                    if (a != b && rnd.nextDouble() < density) {
                        succ[a] |= 1L << b;
                    }
                }
            }
            final ReorderConfig config = new ReorderConfig(64, ReorderConfig.Algorithm.values()[run % 3],
                ReorderConfig.Policy.values()[(run / 3) % 2]);
            final Reorderer r = new Reorderer(config);
            r.planGraph(succ, n, restarts);
            final long aborted = r.aborted();
            final long all = n == 64 ? -1L : (1L << n) - 1;
            assertEquals(Long.bitCount(all & ~aborted), r.orderCount(), "every kept member is ordered");
            long placed = 0;
            for (int k = 0; k < r.orderCount(); k++) {
                final int v = r.order(k);
                for (long later = succ[v] & placed; later != 0; later &= later - 1) {
                    throw new AssertionError("run " + run + ": " + v + " must precede "
                        + Long.numberOfTrailingZeros(later) + " but is melded after it");
                }
                placed |= 1L << v;
            }
            for (long rest = aborted; rest != 0; rest &= rest - 1) {
                final int v = Long.numberOfTrailingZeros(rest);
                assertTrue(cyclic(succ, (all & ~aborted) | 1L << v),
                    "run " + run + " (" + config + "): member " + v + " was aborted but could have been kept");
            }
            final long lost = logOrderAborts(succ, n);
            if (config.policy() == ReorderConfig.Policy.MIN_ABORTS) {
                assertTrue(Long.bitCount(aborted) <= Long.bitCount(lost),
                    "run " + run + ": " + Long.bitCount(aborted) + " aborts, log order " + Long.bitCount(lost));
            } else {
                assertTrue(weight(aborted, restarts) <= weight(lost, restarts), "run " + run + ": restart weight");
            }
            chosen += Long.bitCount(aborted);
            logOrder += Long.bitCount(lost);
            final Reorderer again = new Reorderer(config);
            again.planGraph(succ, n, restarts);
            assertEquals(aborted, again.aborted(), "deterministic");
        }
        assertTrue(chosen < logOrder, "over all graphs reordering aborts fewer: " + chosen + " vs " + logOrder);
    }

    @Test
    void aDenseGraphWhereTheGreedyStepLosesFallsBackToLogOrder() {
        // a complete graph over 6 members: any order keeps exactly one, so log order (the first) is chosen
        final int n = 6;
        final long[] succ = new long[n];
        for (int a = 0; a < n; a++) {
            succ[a] = ((1L << n) - 1) & ~(1L << a);
        }
        for (final ReorderConfig.Algorithm algorithm : ReorderConfig.Algorithm.values()) {
            final ReorderStats stats = new ReorderStats();
            final Reorderer r = new Reorderer(new ReorderConfig(8, algorithm, ReorderConfig.Policy.MIN_ABORTS), stats);
            r.planGraph(succ, n, new int[n]);
            assertEquals(1, r.orderCount());
            assertEquals(0, r.order(0), algorithm + ": log order keeps the first member");
            assertEquals(1, stats.logOrderFallbacks());
        }
    }

    @Test
    void aReadWriteCycleKeepsAllButOneAndTheRepairPutsBackWhatGreedyTookTooMuch() {
        // 0 → 1 → 2 → 0 (read-write cycle) plus 3 ↔ 0 (write-write): aborting 0 alone breaks both cycles
        final long[] succ = {1L << 1 | 1L << 3, 1L << 2, 1L, 1L};
        final Reorderer r = new Reorderer(new ReorderConfig(8, ReorderConfig.Algorithm.SORT,
            ReorderConfig.Policy.MIN_ABORTS));
        r.planGraph(succ, 4, new int[4]);
        assertEquals(1, Long.bitCount(r.aborted()), "one abort");
        assertFalse(cyclic(succ, 0b1111 & ~r.aborted()));
    }

    /** Log order on the graph: a member aborts iff it must precede an earlier member that committed. */
    private static long logOrderAborts(final long[] succ, final int n) {
        long committed = 0;
        long lost = 0;
        for (int v = 0; v < n; v++) {
            if ((succ[v] & committed) != 0) {
                lost |= 1L << v;
            } else {
                committed |= 1L << v;
            }
        }
        return lost;
    }

    private static long weight(final long set, final int[] restarts) {
        long w = 0;
        for (long rest = set; rest != 0; rest &= rest - 1) {
            w += 1L << restarts[Long.numberOfTrailingZeros(rest)];
        }
        return w;
    }

    /** True if the subgraph on {@code g} has a cycle: repeatedly drop vertices without a successor inside g. */
    private static boolean cyclic(final long[] succ, long g) {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (long rest = g; rest != 0; rest &= rest - 1) {
                final int v = Long.numberOfTrailingZeros(rest);
                if ((succ[v] & g) == 0) {
                    g &= ~(1L << v);
                    changed = true;
                }
            }
        }
        return g != 0;
    }
}
