package io.meldb.core;

/**
 * The open reorder window of a {@link MeldPipeline} (seed 001 §3): the consecutive intentions collected since the
 * last decided one, each as final meld would take it (its premeld output, or null if premeld aborted it).
 *
 * <p>Which intentions share a window is a pure function of the log, so every replica forms the same windows: a
 * window closes when it holds W members; before an intention whose snapshot is not older than the window's first
 * CSN (it read a state inside or after the window's start, so it cannot be reordered against the members: it
 * opens the next window); and before a rejected record, a flush or checkpoint intention, or an explicit
 * {@link MeldPipeline#flush} (which servers call only at points the log fixes, e.g. a nudge record).
 */
final class ReorderWindow {
    private final int capacity;
    private final long[] csns = new long[ReorderConfig.MAX_WINDOW];
    private final Intention[] members = new Intention[ReorderConfig.MAX_WINDOW];
    private int count;

    ReorderWindow(final ReorderConfig config) {
        this.capacity = config.window();
    }

    boolean open() {
        return count > 0;
    }

    boolean full() {
        return count == capacity;
    }

    int count() {
        return count;
    }

    long firstCsn() {
        return csns[0];
    }

    long lastCsn() {
        return csns[count - 1];
    }

    long csn(final int i) {
        return csns[i];
    }

    Intention[] members() {
        return members;
    }

    /** True if {@code intention} may join: its snapshot precedes the window's first CSN. */
    boolean admits(final Intention intention) {
        return count == 0 || intention.snapshotCsn < csns[0];
    }

    /** Adds the next member in log order; {@code current} is null if it already aborted. */
    void add(final long csn, final Intention current) {
        csns[count] = csn;
        members[count] = current;
        count++;
    }

    void clear() {
        for (int i = 0; i < count; i++) {
            members[i] = null;
        }
        count = 0;
    }
}
