package io.meldb.core;

/**
 * Where the reorder window's aborts come from (issue 21's diagnosis; seed 001 §3.2, §4.3): counters a
 * {@link MeldPipeline} with a window keeps, so a benchmark or a server's metrics can tell aborts reordering cannot
 * avoid (conflicts with intentions before the window) from those it decides (cycles inside the window), how big
 * windows are and why they closed, and what log order would have aborted on the same windows. Counts only, filled
 * on the meld thread; nothing here feeds back into a decision.
 */
public final class ReorderStats {
    /** Why a window closed. */
    public enum Close {
        /** It held W members. */
        FULL,
        /** The next intention's snapshot is not older than the window's first CSN (docs/meld.md's closing rule). */
        SNAPSHOT_INSIDE,
        /** A flush or checkpoint intention joined it last. */
        MARKER,
        /** The next record was rejected (malformed, fenced, an empty nudge). */
        REJECTED,
        /** An explicit {@link MeldPipeline#flush} (end of input, a quiet log). */
        FLUSH
    }

    private final long[] closes = new long[Close.values().length];
    long windows;
    long members;
    /** Members premeld had already aborted: a conflict with a state before the window. */
    long premeldAborts;
    /** Members pre-validation aborted: a conflict with an intention before the window. */
    long beforeWindowAborts;
    /** Members the feedback vertex set aborted: a cycle inside the window. */
    long cycleAborts;
    /** Members final meld aborted after the plan although pre-validation did not run or passed (edge-free members conflicting before the window). */
    long finalMeldAborts;
    /** In-window aborts log order would have had on the same windows, after the same pre-validation. */
    long logOrderCycleAborts;
    /** In-window aborts the feedback vertex set chose (whether or not the window fell back to log order). */
    long feedbackVertexSetAborts;
    /** Windows whose plan was no better than log order, so they were melded in log order. */
    long logOrderFallbacks;
    /** Members pairs that write a common key (a two-cycle no order removes). */
    long writeWritePairs;
    /** Dependency edges between members, write-write pairs counting twice. */
    long edges;

    /**
     * Adds {@code other}'s counts to these: a server sums the counters of the pipelines its memory generations had,
     * so its meters count from its start rather than from its last checkpoint. Not on the meld thread's path.
     */
    public void add(final ReorderStats other) {
        for (int i = 0; i < closes.length; i++) {
            closes[i] += other.closes[i];
        }
        windows += other.windows;
        members += other.members;
        premeldAborts += other.premeldAborts;
        beforeWindowAborts += other.beforeWindowAborts;
        cycleAborts += other.cycleAborts;
        finalMeldAborts += other.finalMeldAborts;
        logOrderCycleAborts += other.logOrderCycleAborts;
        feedbackVertexSetAborts += other.feedbackVertexSetAborts;
        logOrderFallbacks += other.logOrderFallbacks;
        writeWritePairs += other.writeWritePairs;
        edges += other.edges;
    }

    /** Mean members per closed window (0 before the first window closed). */
    public double meanSize() {
        return windows == 0 ? 0 : (double) members / windows;
    }

    void closed(final Close reason) {
        closes[reason.ordinal()]++;
    }

    public long closes(final Close reason) {
        return closes[reason.ordinal()];
    }

    public long windows() {
        return windows;
    }

    /** Members of all windows: divided by {@link #windows()}, the mean window size. */
    public long members() {
        return members;
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

    @Override
    public String toString() {
        final StringBuilder s = new StringBuilder();
        s.append("windows=").append(windows).append(" mean size=")
            .append(String.format(java.util.Locale.ROOT, "%.1f", meanSize()))
            .append(" closes{");
        for (final Close c : Close.values()) {
            s.append(' ').append(c.name().toLowerCase(java.util.Locale.ROOT)).append('=').append(closes[c.ordinal()]);
        }
        return s.append(" } aborts{ premeld=").append(premeldAborts).append(" before-window=").append(beforeWindowAborts)
            .append(" cycle=").append(cycleAborts).append(" final=").append(finalMeldAborts)
            .append(" } in-window aborts: fvs=").append(feedbackVertexSetAborts).append(" log-order=").append(logOrderCycleAborts).append(" fallbacks=")
            .append(logOrderFallbacks).append(" edges=").append(edges).append(" ww-pairs=").append(writeWritePairs)
            .toString();
    }
}
