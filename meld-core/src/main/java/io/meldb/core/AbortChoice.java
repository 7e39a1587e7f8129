package io.meldb.core;

/**
 * Which members of a reorder window abort, given its dependency graph (batching paper, seed 001 §4.1–4.2): a
 * feedback vertex set by the configured greedy algorithm and policy, then repaired and compared with log order.
 *
 * <ul>
 *   <li>Feedback vertex set (§4.1): {@code scc} (Algorithm 1), {@code sort} (Algorithm 2, k = 1) or {@code hybrid}
 *   (SCC-based, exact search on components of at most {@link Reorderer#EXACT_LIMIT} vertices), ranked by the
 *   policy (§4.2): largest in-degree × out-degree, or that divided by 2^restarts.</li>
 *   <li>Repair: greedy removal often takes more than needed, so each removed member (most restarted first under the
 *   tail-latency policy, else in log order) is put back if the graph stays acyclic with it.</li>
 *   <li>Never worse than log order: the members log order would abort on the same graph (each, in log order,
 *   aborts iff it must precede an earlier member that committed), repaired the same way, are the alternative,
 *   taken unless the feedback vertex set costs less by the policy's measure. On dense graphs (high contention)
 *   the greedy algorithms can lose to log order's own greedy choice.</li>
 * </ul>
 * The graph is the {@link Reorderer}'s bit matrix, shared, not copied: {@code out[v]} has bit w for an edge v → w
 * (v must be melded before w), {@code in[w]} the reverse. Every tie goes to log position (the later member
 * aborts). Nothing here allocates.
 */
final class AbortChoice {
    private final ReorderConfig config;
    private final ReorderStats stats;
    private final long[] out;
    private final long[] in;
    private final int[] restarts;

    /** Worklist of vertex sets (disjoint, so never more than 64) for the SCC-based algorithms. */
    private final long[] work = new long[ReorderConfig.MAX_WINDOW + 1];
    private int workCount;
    /** Tarjan's state. */
    private final int[] index = new int[ReorderConfig.MAX_WINDOW];
    private final int[] low = new int[ReorderConfig.MAX_WINDOW];
    private final int[] stack = new int[ReorderConfig.MAX_WINDOW];
    private int stackSize;
    private long onStack;
    private int nextIndex;

    AbortChoice(final ReorderConfig config, final ReorderStats stats, final long[] out, final long[] in,
                final int[] restarts) {
        this.config = config;
        this.stats = stats;
        this.out = out;
        this.in = in;
        this.restarts = restarts;
    }

    /** The abort set among {@code survivors}: the repaired feedback vertex set, or log order's if no costlier. */
    long choose(final long survivors) {
        final long fvs = feedbackVertexSet(survivors);
        final long logOrder = logOrderAborts(survivors);
        stats.logOrderCycleAborts += Long.bitCount(logOrder);
        stats.feedbackVertexSetAborts += Long.bitCount(fvs);
        final long fvsRepaired = repair(survivors, fvs);
        final long logOrderRepaired = repair(survivors, logOrder);
        if (cost(logOrderRepaired) <= cost(fvsRepaired)) {
            stats.logOrderFallbacks++;
            return logOrderRepaired;
        }
        return fvsRepaired;
    }

    /**
     * The members log order aborts among {@code g} by the graph alone: each, in log order, aborts iff it must be
     * melded before an earlier member that committed (that member wrote what it read or wrote).
     */
    private long logOrderAborts(final long g) {
        long committed = 0;
        long lost = 0;
        for (long rest = g; rest != 0; rest &= rest - 1) {
            final int v = Long.numberOfTrailingZeros(rest);
            if ((out[v] & committed) != 0) {
                lost |= 1L << v;
            } else {
                committed |= 1L << v;
            }
        }
        return lost;
    }

    /**
     * Puts members of {@code removed} back into {@code g} one by one while the graph stays acyclic: a member can
     * return iff none of its successors among the kept members reaches one of its predecessors. Under the
     * tail-latency policy the most restarted members are tried first, otherwise (and among equals) log order.
     */
    private long repair(final long g, final long removed) {
        long kept = g & ~removed;
        long rest = removed;
        while (rest != 0) {
            final int v = nextToRestore(rest);
            rest &= ~(1L << v);
            if (!reaches(out[v] & kept, in[v] & kept, kept)) {
                kept |= 1L << v;
            }
        }
        return g & ~kept;
    }

    private int nextToRestore(final long candidates) {
        if (config.policy() != ReorderConfig.Policy.TAIL_LATENCY) {
            return Long.numberOfTrailingZeros(candidates);
        }
        int best = -1;
        for (long rest = candidates; rest != 0; rest &= rest - 1) {
            final int v = Long.numberOfTrailingZeros(rest);
            if (best < 0 || restarts[v] > restarts[best]) {
                best = v;
            }
        }
        return best;
    }

    /** True if some vertex of {@code from} reaches some vertex of {@code to} along edges inside {@code g}. */
    private boolean reaches(final long from, final long to, final long g) {
        long seen = from;
        long frontier = from;
        while (frontier != 0) {
            if ((seen & to) != 0) {
                return true;
            }
            long next = 0;
            for (long rest = frontier; rest != 0; rest &= rest - 1) {
                next |= out[Long.numberOfTrailingZeros(rest)] & g;
            }
            frontier = next & ~seen;
            seen |= next;
        }
        return (seen & to) != 0;
    }

    /** What the policy minimizes over an abort set: its size, or (tail latency) Σ 2^restarts, then its size. */
    private long cost(final long set) {
        if (config.policy() != ReorderConfig.Policy.TAIL_LATENCY) {
            return Long.bitCount(set);
        }
        long cost = 0;
        for (long rest = set; rest != 0; rest &= rest - 1) {
            cost += 1L << Math.min(restarts[Long.numberOfTrailingZeros(rest)], 40);
        }
        return cost * (ReorderConfig.MAX_WINDOW + 1) + Long.bitCount(set);
    }

    private long feedbackVertexSet(final long vertices) {
        long fvs = 0;
        long g = trim(vertices);
        if (g == 0) {
            return 0;
        }
        if (config.algorithm() == ReorderConfig.Algorithm.SORT) {
            while (g != 0) {
                final int v = select(g);
                fvs |= 1L << v;
                g = trim(g & ~(1L << v));
            }
            return fvs;
        }
        workCount = 0;
        pushComponents(g);
        while (workCount > 0) {
            final long s = work[--workCount];
            if (config.algorithm() == ReorderConfig.Algorithm.HYBRID && Long.bitCount(s) <= Reorderer.EXACT_LIMIT) {
                fvs |= exact(s);
            } else {
                final int v = select(s);
                fvs |= 1L << v;
                pushComponents(trim(s & ~(1L << v)));
            }
        }
        return fvs;
    }

    /** Removes, until none is left, vertices with no predecessor or no successor inside {@code g}: no cycle passes them. */
    private long trim(long g) {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (long rest = g; rest != 0; rest &= rest - 1) {
                final int v = Long.numberOfTrailingZeros(rest);
                if ((out[v] & g) == 0 || (in[v] & g) == 0) {
                    g &= ~(1L << v);
                    changed = true;
                }
            }
        }
        return g;
    }

    /** The vertex the policy ranks first for removal in {@code g}; ties go to the later log position. */
    private int select(final long g) {
        int best = -1;
        double bestRank = -1;
        for (long rest = g; rest != 0; rest &= rest - 1) {
            final int v = Long.numberOfTrailingZeros(rest);
            final long prod = (long) Long.bitCount(in[v] & g) * Long.bitCount(out[v] & g);
            double rank = prod;
            if (config.policy() == ReorderConfig.Policy.TAIL_LATENCY) {
                rank = Math.scalb((double) prod, -restarts[v]);
            }
            if (rank >= bestRank) {
                bestRank = rank;
                best = v;
            }
        }
        return best;
    }

    /** Pushes every strongly connected component of {@code g} with more than one vertex (Tarjan). */
    private void pushComponents(final long g) {
        if (g == 0) {
            return;
        }
        nextIndex = 0;
        stackSize = 0;
        onStack = 0;
        for (long rest = g; rest != 0; rest &= rest - 1) {
            index[Long.numberOfTrailingZeros(rest)] = -1;
        }
        for (long rest = g; rest != 0; rest &= rest - 1) {
            final int v = Long.numberOfTrailingZeros(rest);
            if (index[v] < 0) {
                strongConnect(v, g);
            }
        }
    }

    private void strongConnect(final int v, final long g) {
        index[v] = nextIndex;
        low[v] = nextIndex;
        nextIndex++;
        stack[stackSize++] = v;
        onStack |= 1L << v;
        for (long succ = out[v] & g; succ != 0; succ &= succ - 1) {
            final int w = Long.numberOfTrailingZeros(succ);
            if (index[w] < 0) {
                strongConnect(w, g);
                low[v] = Math.min(low[v], low[w]);
            } else if ((onStack >>> w & 1) != 0) {
                low[v] = Math.min(low[v], index[w]);
            }
        }
        if (low[v] == index[v]) {
            long component = 0;
            int w;
            do {
                w = stack[--stackSize];
                onStack &= ~(1L << w);
                component |= 1L << w;
            } while (w != v);
            if (Long.bitCount(component) > 1) {
                work[workCount++] = component;
            }
        }
    }

    /**
     * Exact minimum-cost feedback vertex set of a small component: every subset, the cheapest whose removal leaves
     * no cycle. Cost: the subset's size (fewest aborts) or the sum of 2^restarts (tail latency, capped), then
     * size; among equals, the subset of later log positions.
     */
    private long exact(final long s) {
        final int n = Long.bitCount(s);
        long bestSubset = s;
        long bestCost = Long.MAX_VALUE;
        int bestSize = n;
        for (int mask = 1; mask < (1 << n); mask++) {
            final long subset = expand(s, mask);
            final int size = Integer.bitCount(mask);
            long cost = size;
            if (config.policy() == ReorderConfig.Policy.TAIL_LATENCY) {
                cost = 0;
                for (long rest = subset; rest != 0; rest &= rest - 1) {
                    cost += 1L << Math.min(restarts[Long.numberOfTrailingZeros(rest)], 40);
                }
            }
            if (cost > bestCost || (cost == bestCost && (size > bestSize
                || size == bestSize && Long.compareUnsigned(subset, bestSubset) <= 0))) {
                continue;
            }
            if (trim(s & ~subset) == 0) {
                bestSubset = subset;
                bestCost = cost;
                bestSize = size;
            }
        }
        return bestSubset;
    }

    /** The vertices of {@code s} selected by the bits of {@code mask} (bit i = i-th lowest vertex of s). */
    private static long expand(final long s, final int mask) {
        long subset = 0;
        long rest = s;
        for (int i = 0; rest != 0; i++, rest &= rest - 1) {
            if ((mask >>> i & 1) != 0) {
                subset |= Long.lowestOneBit(rest);
            }
        }
        return subset;
    }
}
