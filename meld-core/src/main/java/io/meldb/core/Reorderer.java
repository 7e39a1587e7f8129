package io.meldb.core;

/**
 * Intra-window reordering (batching paper, seed 001 §3.2 and §4): given the members of one reorder window, all of
 * whose snapshots precede the window, decides which to abort and in which order meld takes the rest.
 *
 * <ol>
 *   <li>Dependency graph: an edge a → b ("a must be melded before b") when b writes a key that a read or wrote,
 *   or writes a key inside one of a's ranges. That is meld's own conflict test turned around: melding b before a
 *   would make a see b's newer content ({@code NCV > SCV}) and abort. A write-write pair gets both edges, so
 *   one of the two always aborts, as in log order.</li>
 *   <li>Pre-validation (§4.3): a member that touches the graph and already conflicts with the state before the
 *   window would abort in any order; it is aborted and left out of the graph.</li>
 *   <li>Feedback vertex set (§4.1) by the configured greedy algorithm and policy (§4.2); its members abort.</li>
 *   <li>The rest in topological order, ties (and every other choice) by log position.</li>
 * </ol>
 * The graph is a bit matrix (one {@code long} of successors and one of predecessors per member), so a window is
 * at most 64 intentions and planning allocates nothing once the key arrays have grown. Nothing here decides a
 * commit: meld still runs its exact conflict test in the chosen order, so a wrong edge could only cost an abort.
 */
public final class Reorderer {
    /** Hybrid: strongly connected components up to this size get the exact (brute-force) search. */
    public static final int EXACT_LIMIT = 10;

    private final ReorderConfig config;
    private final ReorderStats stats;
    private final WindowKeys keys = new WindowKeys();
    private final long[] out = new long[ReorderConfig.MAX_WINDOW];
    private final long[] in = new long[ReorderConfig.MAX_WINDOW];
    private final int[] restarts = new int[ReorderConfig.MAX_WINDOW];
    private final int[] order = new int[ReorderConfig.MAX_WINDOW];
    private int orderCount;
    private long aborted;
    private long beforeWindow;
    private long edges;

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

    public Reorderer(final ReorderConfig config) {
        this(config, new ReorderStats());
    }

    Reorderer(final ReorderConfig config, final ReorderStats stats) {
        this.config = config;
        this.stats = stats;
    }

    /**
     * Plans one window: {@code members[i]} is the intention meld would take for the i-th member in log order
     * (null if it already aborted, e.g. in premeld); {@code stateRoot} is the state before the window.
     * Afterwards {@link #orderCount()} members are to be melded in {@link #order(int)} order and
     * {@link #aborted()} holds (as a bit per member) those aborted here.
     */
    public void plan(final Intention[] members, final int count, final long stateRoot, final Meld validator) {
        keys.clear();
        for (int i = 0; i < count; i++) {
            keys.add(members[i]);
            out[i] = 0;
            in[i] = 0;
            restarts[i] = members[i] == null ? 0 : members[i].restarts();
        }
        final long all = count == 64 ? -1L : (1L << count) - 1;
        long live = 0;
        for (int i = 0; i < count; i++) {
            if (members[i] != null) {
                live |= 1L << i;
            }
        }
        edges = 0;
        for (int a = 0; a < count; a++) {
            for (int b = a + 1; b < count; b++) {
                if ((live >>> a & 1) != 0 && (live >>> b & 1) != 0) {
                    link(members, a, b);
                }
            }
        }
        aborted = 0;
        beforeWindow = 0;
        stats.edges += edges;
        if (edges != 0) {
            for (int i = 0; i < count; i++) {
                if ((out[i] | in[i]) != 0 && !viable(members[i], i, stateRoot, validator)) {
                    beforeWindow |= 1L << i;
                }
            }
            final long survivors = live & ~beforeWindow;
            final long fvs = feedbackVertexSet(survivors);
            final long logOrder = logOrderAborts(survivors);
            stats.beforeWindowAborts += Long.bitCount(beforeWindow);
            stats.logOrderCycleAborts += Long.bitCount(logOrder);
            stats.feedbackVertexSetAborts += Long.bitCount(fvs);
            aborted = beforeWindow | fvs;
            stats.cycleAborts += Long.bitCount(aborted & ~beforeWindow);
        }
        topologicalOrder(live & ~aborted & all);
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

    public int orderCount() {
        return orderCount;
    }

    /** The member (log-order index within the window) to meld {@code k}-th. */
    public int order(final int k) {
        return order[k];
    }

    /** Members aborted by pre-validation or as part of the feedback vertex set, one bit each. */
    public long aborted() {
        return aborted;
    }

    /** Members pre-validation aborted (a conflict with an intention before the window), one bit each. */
    public long beforeWindow() {
        return beforeWindow;
    }

    /** Dependency edges found in the last window (for metrics and tests). */
    public long edges() {
        return edges;
    }

    /** True if the last plan had an edge from member {@code a} to member {@code b}. */
    boolean edge(final int a, final int b) {
        return (out[a] >>> b & 1) != 0;
    }

    private void addEdge(final int from, final int to) {
        if ((out[from] >>> to & 1) == 0) {
            out[from] |= 1L << to;
            in[to] |= 1L << from;
            edges++;
        }
    }

    /** Adds the edges between members a and b: a merge of their key-ordered node lists, then their ranges. */
    private void link(final Intention[] members, final int a, final int b) {
        int i = keys.from(a);
        final int iEnd = keys.to(a);
        int j = keys.from(b);
        final int jEnd = keys.to(b);
        boolean writeWrite = false;
        while (i < iEnd && j < jEnd) {
            final long x = keys.node(i);
            final long y = keys.node(j);
            final int c = Node.compareKeys(x, y);
            if (c < 0) {
                i++;
            } else if (c > 0) {
                j++;
            } else {
                final boolean ab = WindowKeys.writes(y) && WindowKeys.versionChecked(x);
                final boolean ba = WindowKeys.writes(x) && WindowKeys.versionChecked(y);
                if (ab) {
                    addEdge(a, b);
                }
                if (ba) {
                    addEdge(b, a);
                }
                if (ab && ba && WindowKeys.writes(x) && WindowKeys.writes(y) && !writeWrite) {
                    writeWrite = true;
                    stats.writeWritePairs++;
                }
                i++;
                j++;
            }
        }
        if (members[a].rangeCount > 0 && (out[a] >>> b & 1) == 0 && writesInRanges(b, members[a])) {
            addEdge(a, b);
        }
        if (members[b].rangeCount > 0 && (out[b] >>> a & 1) == 0 && writesInRanges(a, members[b])) {
            addEdge(b, a);
        }
    }

    /** True if member {@code writer} writes a key inside one of {@code reader}'s ranges. */
    private boolean writesInRanges(final int writer, final Intention reader) {
        for (int k = keys.from(writer); k < keys.to(writer); k++) {
            final long n = keys.node(k);
            if (WindowKeys.writes(n)) {
                for (int r = 0; r < reader.rangeCount; r++) {
                    if (WindowKeys.inRange(n, reader.ranges + (long) r * Intention.RANGE_SIZE)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Pre-validation against the state before the window: meld's test for every key the member wrote or read
     * (the state's content is newer than what it saw) and for its ranges. A subtree whose newest content is not
     * newer than the member's snapshot is not descended.
     */
    private boolean viable(final Intention m, final int member, final long stateRoot, final Meld validator) {
        if (stateRoot == 0 || Versions.csnOf(Node.maxCv(stateRoot)) <= m.snapshotCsn) {
            return true;
        }
        for (int k = keys.from(member); k < keys.to(member); k++) {
            final long p = keys.node(k);
            long x = stateRoot;
            while (x != 0 && Versions.csnOf(Node.maxCv(x)) > m.snapshotCsn) {
                final int c = Node.compareKeys(p, x);
                if (c == 0) {
                    if (WindowKeys.versionChecked(p) && Node.ncv(x) > Node.scv(p)) {
                        return false;
                    }
                    break;
                }
                x = c < 0 ? Node.left(x) : Node.right(x);
            }
        }
        return !validator.rangesConflict(m, stateRoot);
    }

    // ---- feedback vertex set (§4.1) -------------------------------------------------------------------------

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
            if (config.algorithm() == ReorderConfig.Algorithm.HYBRID && Long.bitCount(s) <= EXACT_LIMIT) {
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

    /** Kahn's algorithm over {@code g}, the lowest log position first among the ready members. */
    private void topologicalOrder(long g) {
        orderCount = 0;
        while (g != 0) {
            long ready = 0;
            for (long rest = g; rest != 0; rest &= rest - 1) {
                final int v = Long.numberOfTrailingZeros(rest);
                if ((in[v] & g) == 0) {
                    ready = 1L << v;
                    break;
                }
            }
            if (ready == 0) {
                throw new IllegalStateException("a cycle survived the feedback vertex set");
            }
            final int v = Long.numberOfTrailingZeros(ready);
            order[orderCount++] = v;
            g &= ~ready;
        }
    }
}
