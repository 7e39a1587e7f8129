package io.meldb.txn.checkpoint;

import io.meldb.core.MeldPipeline;
import io.meldb.core.NodeMemory;
import io.meldb.txn.CheckpointManifest;
import io.meldb.txn.ServerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Checkpoints and memory generations without stopping meld (meld paper App. A-B; issue 21). The meld stage calls
 * {@link #start} at a block boundary where its LCS is the checkpoint's state: it notes the roots of the states to
 * keep (committed states are immutable) and returns at once. The compaction thread then copies them into a new
 * generation's memory ({@link GenerationBuilder}), and the states melded meanwhile. Once it has caught up,
 * {@link #readyToSwitch} tells the log reader, which stops at its next block boundary (or when the log is quiet); the
 * meld stage calls {@link #switchGeneration} there and waits only while the last few states are copied and the new
 * generation is made current. Then the checkpoint thread serializes the checkpoint from the new generation's copy
 * (pinning it) and streams it to the log, chunk by chunk, while melding goes on. The meld thread allocates nothing for any of
 * it, and no checkpoint is held whole on the heap.
 */
public final class Checkpointer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);
    /** The compaction thread offers the switch once fewer states than this are left to copy. */
    private static final long SWITCH_LAG = 32;
    private static final long CATCH_UP_PARK_NANOS = 500_000;

    private static final int IDLE = 0;
    private static final int COPYING = 1;
    private static final int READY = 2;

    private final ServerContext ctx;
    private final CheckpointAppender appender;
    private final Thread worker;
    /** Serializes checkpoints from the generation they started and appends them to the log. */
    private final ExecutorService writer;
    private volatile boolean appending;
    /** The CSN of the last checkpoint written to the log (a compaction at the same state writes none). */
    private volatile long writtenCsn = -1;
    private final CompactionTrigger trigger;
    /** Compactions still to be given up by the test hook {@code TxnServerConfig.failedCompactions} (this thread). */
    private int toFail;
    /** Per-chunk pause of the log append (a test hook; 0 in service). */
    private final long chunkDelayMillis;

    private volatile int phase = IDLE;
    private volatile boolean startRequested;
    private volatile boolean switchRequested;
    /** Set by the compaction thread when a requested switch is over (made or given up). */
    private volatile boolean switchOver;
    private volatile boolean closed;
    private volatile Thread meldThread;

    // the checkpoint asked for, written by the meld thread before startRequested (a volatile write)
    private long[] startRoots;
    private int startCount;
    private long startBase;
    private long startPosition;
    private long startResume;
    private Map<Integer, Long> startFences;

    public Checkpointer(final ServerContext ctx, final CheckpointAppender appender) {
        this.ctx = ctx;
        this.appender = appender;
        this.chunkDelayMillis = ctx.config().checkpointChunkDelayMillis();
        this.trigger = new CompactionTrigger(NodeMemoryLimit.resolve(ctx.config().maxNodeMemory()));
        this.toFail = ctx.config().failedCompactions();
        // the most states a checkpoint holds: the snapshot-age limit, or premeld's reach, and a held group member
        this.startRoots = new long[(int) Math.max(ctx.cluster().maxSnapshotAge(),
            ctx.cluster().meldConfig().premeldLag() + 1) + 4];
        this.worker = new Thread(this::work, "meldb-compaction-" + ctx.serverId());
        worker.setDaemon(true);
        worker.start();
        this.writer = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "meldb-checkpoint-" + ctx.serverId());
            t.setDaemon(true);
            return t;
        });
    }

    /** Whether a checkpoint is under way (the reader asks for no other until it is over). */
    public boolean busy() {
        return phase != IDLE || startRequested;
    }

    /**
     * Log reader, at a block boundary: whether node memory calls for a compaction now ({@link CompactionTrigger};
     * {@code thresholdBytes} is {@code --checkpoint-bytes}, {@code newStates} whether anything was melded since the
     * last checkpoint started).
     */
    public boolean memoryDue(final long thresholdBytes, final boolean newStates) {
        return trigger.due(ctx.state().current(), thresholdBytes, newStates);
    }

    /** Whether the new generation has caught up with meld closely enough to be switched to. */
    public boolean readyToSwitch() {
        return phase == READY && !switchRequested;
    }

    /**
     * Meld thread, at a block boundary where {@code pipeline}'s LCS is materialized and nothing is held: starts a
     * checkpoint of the LCS as of log {@code position} (reading resumes at {@code resumePosition}, {@code fences}
     * as of there). Returns false if one is under way.
     */
    public boolean start(final MeldPipeline pipeline, final long position, final long resumePosition,
                         final Map<Integer, Long> fences) {
        if (busy() || closed) {
            return false;
        }
        // every state a later intention may have as its snapshot, and every state premeld may still need
        final long base = Math.min(pipeline.oldestStateNeeded(),
            Math.max(pipeline.baseCsn(), pipeline.lcsCsn() + 1 - ctx.cluster().maxSnapshotAge()));
        final int count = (int) (pipeline.lcsCsn() - base + 1);
        if (count > startRoots.length) {
            startRoots = new long[count]; // not expected: sized for the most states a checkpoint holds
        }
        for (int i = 0; i < count; i++) {
            startRoots[i] = pipeline.stateRootAt(base + i);
        }
        startCount = count;
        startBase = base;
        startPosition = position;
        startResume = resumePosition;
        startFences = fences;
        startRequested = true;
        LockSupport.unpark(worker);
        return true;
    }

    /**
     * Meld thread, at a block boundary where its LCS is materialized and nothing is held, after
     * {@link #readyToSwitch}: waits while the compaction thread copies the last states and makes the new generation
     * current, and returns the generation melding continues in (the old one if the compaction was given up).
     */
    public Generation switchGeneration() {
        meldThread = Thread.currentThread();
        switchOver = false;
        switchRequested = true;
        LockSupport.unpark(worker);
        while (!switchOver) {
            if (phase == IDLE) {
                // the compaction was given up after it offered the switch: melding goes on where it is
                switchRequested = false;
                break;
            }
            if (ctx.stopped()) {
                throw new IllegalStateException("the server stopped during a generation switch");
            }
            LockSupport.parkNanos(this, 100_000);
        }
        return ctx.state().current();
    }

    // ------------------------------------------------------------------------------------- compaction thread

    private void work() {
        while (!closed) {
            if (!startRequested) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
                continue;
            }
            final long[] roots = java.util.Arrays.copyOf(startRoots, startCount);
            final CheckpointManifest manifest = new CheckpointManifest(startBase, vns(roots), startPosition,
                startResume, startFences);
            switchRequested = false;
            phase = COPYING;
            startRequested = false;
            try {
                checkpoint(manifest, roots);
            } catch (OutOfMemoryError e) {
                // the copy of the live states did not fit: melding goes on in the old generation (nothing of the
                // new one was published), admission keeps refusing updates by node memory, and the next try waits
                // until the generation has grown further
                ctx.state().current().compactionFailed();
                ctx.metrics().compactionFailed();
                trigger.failed();
                LOG.warn("server {}: compaction skipped, the copy of the live states did not fit in memory ({}); "
                    + "melding goes on in the current generation", ctx.serverId(), e.getMessage());
            } catch (RuntimeException | Error e) {
                if (!closed) {
                    LOG.error("server {}: the checkpoint of csn {} failed", ctx.serverId(), manifest.lcsCsn(), e);
                    ctx.fail("checkpoint failed: " + e);
                }
            } finally {
                phase = IDLE;
                endSwitch();
            }
        }
    }

    private static long[] vns(final long[] roots) {
        final long[] vns = new long[roots.length];
        for (int i = 0; i < roots.length; i++) {
            vns[i] = CheckpointManifest.vnOf(roots[i]);
        }
        return vns;
    }

    private void checkpoint(final CheckpointManifest manifest, final long[] roots) {
        final long started = System.nanoTime();
        final long gcBefore = gcNanos();
        final Generation old = ctx.state().current();
        final long oldGrownAtStart = old.grownBytes();
        LOG.info("server {}: compaction for the checkpoint of csn {} started, {} MiB of node memory in use (limit {}"
            + " MiB)", ctx.serverId(), manifest.lcsCsn(), NodeMemory.bytesInUse() >> 20, trigger.limit() >> 20);
        final GenerationBuilder builder = new GenerationBuilder(ctx, old, manifest, roots);
        try {
            if (!builder.copyCheckpoint(() -> closed)) {
                return;
            }
            if (toFail > 0) {
                toFail--;
                throw new OutOfMemoryError("test hook: the compaction's copy did not fit");
            }
            final long copiedAt = System.nanoTime();
            ctx.metrics().checkpointPhase("copy", copiedAt - started);
            // copy what meld did meanwhile, until close enough to switch; keep copying while the switch waits for
            // a block boundary
            while (true) {
                if (closed) {
                    return;
                }
                if (switchRequested) {
                    final long switchStart = System.nanoTime();
                    final long before = builder.copiedThrough();
                    builder.finish();
                    trigger.switched(old.loadedBytes(), old.grownBytes(), old.grownBytes() - oldGrownAtStart,
                        builder.bytesCopied());
                    // not READY any more before the meld thread goes on, or the reader would ask for another switch
                    phase = IDLE;
                    endSwitch();
                    ctx.metrics().generationSwitched(manifest.lcsCsn(), builder.copiedThrough());
                    ctx.metrics().checkpointPhase("switch", System.nanoTime() - switchStart);
                    ctx.metrics().checkpointPhase("catch-up", switchStart - copiedAt);
                    LOG.info("server {}: generation switched at csn {} for the checkpoint of csn {} ({} states"
                        + " copied at the switch; {} nodes, {} MB copied in all)", ctx.serverId(),
                        builder.copiedThrough(), manifest.lcsCsn(), builder.copiedThrough() - before,
                        builder.nodesCopied(), builder.bytesCopied() >> 20);
                    break;
                }
                if (!builder.catchUp(ctx.state().meldedCsn())) {
                    ctx.metrics().compactionFailed();
                    trigger.failed();
                    LOG.warn("server {}: compaction for the checkpoint of csn {} skipped: its copy fell a ring of"
                        + " states behind meld", ctx.serverId(), manifest.lcsCsn());
                    return;
                }
                if (ctx.state().meldedCsn() - builder.copiedThrough() < SWITCH_LAG) {
                    phase = READY;
                }
                LockSupport.parkNanos(this, CATCH_UP_PARK_NANOS);
            }
        } finally {
            builder.abandon();
            endSwitch();
        }
        // melding goes on in the new generation while its copy of the checkpointed states goes to the log, on a
        // thread of its own so that the next compaction need not wait for the log (a write still running when the
        // next checkpoint is due means that one is not appended)
        ctx.metrics().checkpointPhase("gc", gcNanos() - gcBefore);
        if (ctx.config().writeCheckpoints() && ctx.refencing() == null && !appending
            && manifest.lcsCsn() > writtenCsn) {
            final Generation written = builder.generation();
            ctx.state().pinCurrent(written);
            appending = true;
            writer.execute(() -> {
                try {
                    final long writeStart = System.nanoTime();
                    LOG.info("server {}: writing the checkpoint of csn {} to the log", ctx.serverId(),
                        manifest.lcsCsn());
                    if (builder.write(appender.open(manifest, chunkDelayMillis), () -> closed)) {
                        final long now = System.nanoTime();
                        ctx.metrics().checkpointPhase("write", now - writeStart);
                        ctx.metrics().checkpointWritten(builder.nodesWritten(), builder.bytesWritten(), now - started);
                        writtenCsn = manifest.lcsCsn();
                    }
                } catch (RuntimeException | Error e) {
                    if (!closed) {
                        LOG.error("server {}: writing the checkpoint of csn {} failed", ctx.serverId(),
                            manifest.lcsCsn(), e);
                    }
                } finally {
                    appending = false;
                    ctx.state().unpin(written);
                }
            });
        }
    }

    /** Wakes a meld thread waiting in {@link #switchGeneration}, if one is. */
    private void endSwitch() {
        if (switchRequested) {
            switchRequested = false;
            switchOver = true;
            final Thread t = meldThread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Collector time of the JVM so far (all collectors), to see what a checkpoint's garbage costs. */
    static long gcNanos() {
        long millis = 0;
        for (java.lang.management.GarbageCollectorMXBean gc
                : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            millis += Math.max(0, gc.getCollectionTime());
        }
        return millis * 1_000_000L;
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(worker);
        writer.shutdown();
        try {
            // the compaction thread reads the current generation's memory: it must be done before that is freed
            // (the checkpoint writer pins the generation it reads)
            worker.join(TimeUnit.SECONDS.toMillis(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
