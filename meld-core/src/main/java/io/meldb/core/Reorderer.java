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
 *   <li>The abort set ({@link AbortChoice}): a feedback vertex set by the configured greedy algorithm and policy
 *   (§4.1–4.2), repaired, or log order's own aborts on the same graph if those cost no more.</li>
 *   <li>The rest in topological order, ties (and every other choice) by log position.</li>
 * </ol>
 * The graph is a bit matrix (one {@code long} of successors and one of predecessors per member), so a window is
 * at most 64 intentions and planning allocates nothing once the key arrays have grown. Nothing here decides a
 * commit: meld still runs its exact conflict test in the chosen order, so a wrong edge could only cost an abort.
 */
public final class Reorderer {
    /** Hybrid: strongly connected components up to this size get the exact (brute-force) search. */
    public static final int EXACT_LIMIT = 10;

    private final ReorderStats stats;
    private final WindowKeys keys = new WindowKeys();
    private final long[] out = new long[ReorderConfig.MAX_WINDOW];
    private final long[] in = new long[ReorderConfig.MAX_WINDOW];
    private final int[] restarts = new int[ReorderConfig.MAX_WINDOW];
    private final int[] order = new int[ReorderConfig.MAX_WINDOW];
    /** Per member a: bit b set once a write-write pair (a, b) has been counted. */
    private final long[] writeWrite = new long[ReorderConfig.MAX_WINDOW];
    private int orderCount;
    private long aborted;
    private long beforeWindow;
    private long edges;
    private final AbortChoice choice;

    public Reorderer(final ReorderConfig config) {
        this(config, new ReorderStats());
    }

    Reorderer(final ReorderConfig config, final ReorderStats stats) {
        this.stats = stats;
        this.choice = new AbortChoice(config, stats, out, in, restarts);
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
        linkAll(members, count, live);
        aborted = 0;
        beforeWindow = 0;
        stats.edges += edges;
        if (edges != 0) {
            for (int i = 0; i < count; i++) {
                if ((out[i] | in[i]) != 0 && !viable(members[i], i, stateRoot, validator)) {
                    beforeWindow |= 1L << i;
                }
            }
            stats.beforeWindowAborts += Long.bitCount(beforeWindow);
            aborted = beforeWindow | choice.choose(live & ~beforeWindow);
            stats.cycleAborts += Long.bitCount(aborted & ~beforeWindow);
        }
        topologicalOrder(live & ~aborted & all);
    }

    /**
     * Plans a window given as a bare graph ({@code successors[i]}: bit j set for an edge i → j), for tests of the
     * choice itself: no pre-validation, every member live.
     */
    void planGraph(final long[] successors, final int count, final int[] restartCounts) {
        for (int i = 0; i < count; i++) {
            out[i] = successors[i];
            in[i] = 0;
            restarts[i] = restartCounts[i];
        }
        for (int i = 0; i < count; i++) {
            for (long rest = successors[i]; rest != 0; rest &= rest - 1) {
                in[Long.numberOfTrailingZeros(rest)] |= 1L << i;
            }
        }
        final long all = count == 64 ? -1L : (1L << count) - 1;
        beforeWindow = 0;
        aborted = choice.choose(all);
        topologicalOrder(all & ~aborted);
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

    /**
     * Adds every edge of the window: the members' nodes in one key order ({@link WindowKeys#sortByKey}), then for
     * each key shared by several members the edges between each pair of them; then the range edges of members
     * that hold ranges.
     */
    private void linkAll(final Intention[] members, final int count, final long live) {
        keys.sortByKey();
        java.util.Arrays.fill(writeWrite, 0, count, 0L);
        final int n = keys.size();
        int i = 0;
        while (i < n) {
            final long x = keys.sortedNode(i);
            int j = i + 1;
            while (j < n && Node.compareKeys(x, keys.sortedNode(j)) == 0) {
                j++;
            }
            for (int p = i; p < j; p++) {
                for (int q = p + 1; q < j; q++) {
                    linkKey(keys.sortedOwner(p), keys.sortedNode(p), keys.sortedOwner(q), keys.sortedNode(q));
                }
            }
            i = j;
        }
        for (int r = 0; r < count; r++) {
            if ((live >>> r & 1) == 0 || members[r].rangeCount == 0) {
                continue;
            }
            for (int w = 0; w < count; w++) {
                if (w != r && (live >>> w & 1) != 0 && (out[r] >>> w & 1) == 0 && writesInRanges(w, members[r])) {
                    addEdge(r, w);
                }
            }
        }
    }

    /** The edges between members a and b (a before b in log order) from their nodes {@code x} and {@code y} of one key. */
    private void linkKey(final int a, final long x, final int b, final long y) {
        final boolean ab = WindowKeys.writes(y) && WindowKeys.versionChecked(x);
        final boolean ba = WindowKeys.writes(x) && WindowKeys.versionChecked(y);
        if (ab) {
            addEdge(a, b);
        }
        if (ba) {
            addEdge(b, a);
        }
        if (ab && ba && WindowKeys.writes(x) && WindowKeys.writes(y) && (writeWrite[a] >>> b & 1) == 0) {
            writeWrite[a] |= 1L << b;
            stats.writeWritePairs++;
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
                    if (ColumnReads.conflicts(Node.flags(p), p, x)) {
                        return false;
                    }
                    break;
                }
                x = c < 0 ? Node.left(x) : Node.right(x);
            }
        }
        return !validator.rangesConflict(m, stateRoot);
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
