package io.meldb.txn.checkpoint;

import io.meldb.core.ReorderStats;
import io.meldb.core.MeldPipeline;
import io.meldb.core.Snapshot;

/**
 * The committed-state handle: the last committed state (LCS) new transactions begin on, and the memory generation
 * it lives in (Hyder II §5.3; meld paper App. A for generations). The meld stage publishes each new LCS; a
 * checkpoint replaces the generation; sessions pin the generation of their snapshot so it is not freed under them.
 * Publishing takes a lock instead of allocating a snapshot object per commit on the meld thread; readers build
 * their own. Also the meld totals of the generations already retired, so counters survive compactions.
 */
public final class CommittedState {
    /** A snapshot and the generation it is pinned in, until {@link #unpin}. */
    public record Pinned(Snapshot snapshot, Generation generation) {
    }

    private final Object lock = new Object();
    /** Replaced at every checkpoint; read by every stage (volatile), swapped under {@link #lock}. */
    private volatile Generation generation;
    private long lcsRoot;
    private long lcsCsn;
    /** CSN of the newest state the meld stage has published; deserializer and premeld threads wait on it. */
    private volatile long meldedCsn;
    private final MeldTotals retired = new MeldTotals();
    /** The reorder window's counters of the generations compaction retired (each pipeline counts its own). */
    private final ReorderStats retiredReorder = new ReorderStats();
    private long generations;
    /** Generations whose memory is not freed yet: the current one plus retired ones a session still pins. */
    private int liveGenerations = 1;

    public CommittedState(final Generation first) {
        this.generation = first;
        this.lcsRoot = first.pipeline().lcs().root();
        this.lcsCsn = first.pipeline().lcsCsn();
        this.meldedCsn = lcsCsn;
    }

    /** The generation melding works in now. */
    public Generation current() {
        return generation;
    }

    public long meldedCsn() {
        return meldedCsn;
    }

    /** The LCS, pinned: its generation stays until {@link #unpin}. */
    public Pinned pin() {
        synchronized (lock) {
            final Generation g = generation;
            g.sessions++;
            return new Pinned(new Snapshot(lcsRoot, lcsCsn), g);
        }
    }

    public void unpin(final Generation g) {
        synchronized (lock) {
            g.sessions--;
            if (g.retired && g.sessions == 0) {
                free(g);
            }
        }
    }

    /** Meld stage: the state at {@code csn} with root {@code root} is the new LCS. */
    public void publish(final long root, final long csn) {
        synchronized (lock) {
            lcsRoot = root;
            lcsCsn = csn;
        }
        meldedCsn = csn;
    }

    /** Checkpoint: melding goes on in {@code next}, whose LCS is the same state; the old generation retires. */
    void replace(final Generation next) {
        final MeldPipeline old = generation.pipeline();
        retired.add(old);
        retiredReorder.add(old.reorderStats());
        final Snapshot nextLcs = next.pipeline().lcs();
        synchronized (lock) {
            final Generation previous = generation;
            generation = next;
            liveGenerations++;
            lcsRoot = nextLcs.root();
            lcsCsn = nextLcs.csn();
            retire(previous);
        }
        generations++;
    }

    /** After the pipeline threads stopped: the current generation is freed once its last session ends. */
    public void close() {
        synchronized (lock) {
            if (generation != null && !generation.retired) {
                retire(generation);
            }
        }
    }

    private void retire(final Generation g) {
        g.retired = true;
        if (g.sessions == 0) {
            free(g);
        }
    }

    private void free(final Generation g) {
        g.free();
        liveGenerations--;
    }

    /**
     * Generations whose node memory is still held: 1 in steady state, 2 for as long as a session that began before
     * the last checkpoint is open. More means sessions that outlive several checkpoints pin old memory.
     */
    public int liveGenerations() {
        synchronized (lock) {
            return liveGenerations;
        }
    }

    /** Meld totals over every generation so far (read by meters; racy reads of plain counters are fine). */
    public MeldTotals totals() {
        return retired.plus(generation.pipeline());
    }

    /** The reorder window's counters over every generation so far (read by meters, racily like {@link #totals}). */
    public ReorderStats reorderTotals() {
        final ReorderStats totals = new ReorderStats();
        totals.add(retiredReorder);
        totals.add(generation.pipeline().reorderStats());
        return totals;
    }

    /** Node-memory generations this server has started (1 + checkpoints taken). */
    public long generations() {
        return generations + 1;
    }
}
