package io.meldb.txn.checkpoint;

import io.meldb.core.ReorderStats;

/**
 * The reorder window's counters ({@link ReorderStats}; seed 001 §3-4, issue 21) summed over memory generations:
 * each generation's pipeline keeps its own, and a compaction adds the retiring one's here, so the server's meters
 * count from the server's start rather than from the last checkpoint.
 */
public final class ReorderTotals {
    private final long[] closes = new long[ReorderStats.Close.values().length];
    private long windows;
    private long members;
    private long premeldAborts;
    private long beforeWindowAborts;
    private long cycleAborts;
    private long finalMeldAborts;
    private long logOrderCycleAborts;
    private long feedbackVertexSetAborts;
    private long logOrderFallbacks;
    private long writeWritePairs;
    private long edges;

    void add(final ReorderStats s) {
        for (final ReorderStats.Close c : ReorderStats.Close.values()) {
            closes[c.ordinal()] += s.closes(c);
        }
        windows += s.windows();
        members += s.members();
        premeldAborts += s.premeldAborts();
        beforeWindowAborts += s.beforeWindowAborts();
        cycleAborts += s.cycleAborts();
        finalMeldAborts += s.finalMeldAborts();
        logOrderCycleAborts += s.logOrderCycleAborts();
        feedbackVertexSetAborts += s.feedbackVertexSetAborts();
        logOrderFallbacks += s.logOrderFallbacks();
        writeWritePairs += s.writeWritePairs();
        edges += s.edges();
    }

    /** These totals plus the live counts of {@code current}, as a new object. */
    ReorderTotals plus(final ReorderStats current) {
        final ReorderTotals t = new ReorderTotals();
        t.add(current);
        for (int i = 0; i < closes.length; i++) {
            t.closes[i] += closes[i];
        }
        t.windows += windows;
        t.members += members;
        t.premeldAborts += premeldAborts;
        t.beforeWindowAborts += beforeWindowAborts;
        t.cycleAborts += cycleAborts;
        t.finalMeldAborts += finalMeldAborts;
        t.logOrderCycleAborts += logOrderCycleAborts;
        t.feedbackVertexSetAborts += feedbackVertexSetAborts;
        t.logOrderFallbacks += logOrderFallbacks;
        t.writeWritePairs += writeWritePairs;
        t.edges += edges;
        return t;
    }

    public long closes(final ReorderStats.Close reason) {
        return closes[reason.ordinal()];
    }

    public long windows() {
        return windows;
    }

    /** Members of all windows: divided by {@link #windows()}, the mean window size. */
    public long members() {
        return members;
    }

    /** Mean members per closed window (0 before the first window closed). */
    public double meanSize() {
        return windows == 0 ? 0 : (double) members / windows;
    }

    public long premeldAborts() {
        return premeldAborts;
    }

    public long beforeWindowAborts() {
        return beforeWindowAborts;
    }

    public long cycleAborts() {
        return cycleAborts;
    }

    public long finalMeldAborts() {
        return finalMeldAborts;
    }

    public long logOrderCycleAborts() {
        return logOrderCycleAborts;
    }

    public long feedbackVertexSetAborts() {
        return feedbackVertexSetAborts;
    }

    public long logOrderFallbacks() {
        return logOrderFallbacks;
    }

    public long writeWritePairs() {
        return writeWritePairs;
    }

    public long edges() {
        return edges;
    }
}
