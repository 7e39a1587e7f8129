package io.meldb.txn.checkpoint;

import io.meldb.core.NodeMemory;

/**
 * When node memory calls for a compaction (meld paper App. B: a checkpoint starts a fresh memory generation). A
 * compaction beside meld holds three things at its peak: the old generation, the copy of the live states, and what
 * meld adds to the old generation meanwhile, which is copied into the new one too. So a compaction starts once
 * that peak, projected from the last compaction, would reach the node-memory limit, and not only after a fixed
 * growth: started later, its copy ran the server into the limit and updates were refused. And a server that is at
 * the limit (refusing updates, so melding nothing new) compacts whatever its generation holds beyond the live
 * states without waiting for new melds, retrying a compaction that was given up, so it admits updates again by
 * itself. Decides only when to compact, which changes nothing meld decides (compaction keeps every node's
 * identity), so reading clocks and memory estimates here is fine.
 */
public final class CompactionTrigger {
    /** At the limit, a compaction must free at least this much (one node-memory segment). */
    static final long MIN_GAIN = 4L << 20;
    /**
     * Before the limit, a compaction waits for this much growth, and for half its copy: copying the live states
     * more often than that costs more than it saves (and with 4 MiB segments reserved per arena a generation's
     * growth is coarse for small ones).
     */
    static final long MIN_PROJECTED_GAIN = 16L << 20;
    /** The least growth assumed during a compaction, before one has been measured. */
    static final long MIN_DURING = 8L << 20;
    /** A compaction that was given up at the limit is tried again after this long, melds or not. */
    static final long RETRY_NANOS = 500_000_000L;

    private final long limit;
    /** Bytes the old generation grew while the last compaction ran (compaction thread writes, reader reads). */
    private volatile long grownDuringLast;
    /**
     * Share of a generation's growth that was still live at its compaction (measured at the last switch): while
     * the snapshot-age window fills up, most of what is melded stays live and the copy grows with it; once it is
     * full, about as much ages out as comes in. 1 until measured.
     */
    private volatile double liveShare = 1;
    /** When the last compaction was given up (0 = the last one switched). */
    private volatile long failedAtNanos;

    CompactionTrigger(final long limit) {
        this.limit = limit;
    }

    /** The node-memory limit admission refuses updates at. */
    public long limit() {
        return limit;
    }

    /**
     * Reader thread, at a block boundary: whether the current generation {@code g} should be compacted now for
     * memory's sake. {@code thresholdBytes} is {@code --checkpoint-bytes}; {@code newStates} whether anything was
     * melded since the last checkpoint started.
     */
    boolean due(final Generation g, final long thresholdBytes, final boolean newStates) {
        final long failedAt = failedAtNanos;
        if (failedAt != 0 && System.nanoTime() - failedAt < RETRY_NANOS) {
            return false;
        }
        final long inUse = NodeMemory.bytesInUse();
        final long grown = g.grownBytes();
        if (inUse >= limit) {
            // updates are refused, so nothing new may come to meld: compact what the generation holds beyond its
            // live states now (also at the state a compaction was given up at), without waiting for new melds
            return grown >= MIN_GAIN;
        }
        if (!newStates) {
            return false;
        }
        // the copy of the live states: what the generation was loaded with, and the share of its growth that the
        // last compaction found still live
        final long copy = g.loadedBytes() + (long) (liveShare * grown);
        final long during = Math.max(MIN_DURING, grownDuringLast);
        // a sixteenth of the limit for what the projection misses: sessions' workspaces, the reader's next blocks
        if (grown >= Math.max(MIN_PROJECTED_GAIN, copy / 2) && inUse + copy + 2 * during + limit / 16 >= limit) {
            return true;
        }
        return g.compactionDue(thresholdBytes);
    }

    /**
     * Compaction thread: the generation switched. The old one had been loaded with {@code loaded} bytes and had
     * grown {@code grown} in all, {@code grownDuring} of it while the compaction ran; {@code copied} bytes of it
     * were live.
     */
    void switched(final long loaded, final long grown, final long grownDuring, final long copied) {
        grownDuringLast = Math.max(0, grownDuring);
        if (grown > 0) {
            liveShare = Math.min(1, Math.max(0, (double) (copied - loaded) / grown));
        }
        failedAtNanos = 0;
    }

    /** Compaction thread: a compaction was given up (its copy did not fit, or fell behind meld). */
    void failed() {
        failedAtNanos = Math.max(1, System.nanoTime());
    }
}
