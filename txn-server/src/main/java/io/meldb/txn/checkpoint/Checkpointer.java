package io.meldb.txn.checkpoint;

import io.meldb.core.Arena;
import io.meldb.core.CheckpointLoader;
import io.meldb.core.CheckpointWriter;
import io.meldb.core.MeldPipeline;
import io.meldb.core.NodeDirectory;
import io.meldb.core.NodeMemory;
import io.meldb.core.Snapshot;
import io.meldb.core.StateHash;
import io.meldb.txn.CheckpointManifest;
import io.meldb.txn.ServerContext;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Checkpoints and memory generations (meld paper App. A-B). Asked by the meld stage at a block boundary with
 * nothing held by group meld, it serializes the states a recovering server needs, on its compaction thread while
 * the meld thread waits (so those allocations stay off the meld thread), loads them into a new
 * {@link Generation} that the meld stage continues in, and hands the serialized checkpoint to the
 * {@link CheckpointAppender}, which appends it on a thread of its own while melding goes on.
 */
public final class Checkpointer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

    private final ServerContext ctx;
    private final CheckpointAppender appender;
    /** Serializes and reloads checkpoints (while the meld thread waits), apart from appending them. */
    private final ExecutorService compactionExecutor;
    private final ExecutorService checkpointExecutor;
    private volatile boolean appending;
    /**
     * The VNs a checkpoint has written, reused by every checkpoint (compaction thread only): it keeps the capacity
     * of the largest, about as many nodes as the next (the states retained change slowly between checkpoints).
     */
    private final LongHashSet written = new LongHashSet(1 << 17);

    public Checkpointer(final ServerContext ctx, final CheckpointAppender appender) {
        this.ctx = ctx;
        this.appender = appender;
        this.compactionExecutor = daemon("meldb-compaction-" + ctx.serverId());
        this.checkpointExecutor = daemon("meldb-checkpoint-" + ctx.serverId());
    }

    private static ExecutorService daemon(final String name) {
        return Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Meld thread: checkpoints the current generation's LCS as of log {@code position} (reading resumes at
     * {@code resumePosition}, {@code fences} as of there) and returns the generation melding continues in.
     */
    public Generation checkpoint(final long position, final long resumePosition, final Map<Integer, Long> fences) {
        try {
            CompletableFuture.runAsync(() -> write(position, resumePosition, fences), compactionExecutor).join();
        } catch (CompletionException e) {
            if (!(e.getCause() instanceof OutOfMemoryError oom)) {
                throw e;
            }
            // the copy of the live states did not fit: melding goes on in the old generation (nothing of the new
            // one was published), admission keeps refusing updates by node memory, and the next try waits until
            // the generation has grown further
            final Generation current = ctx.state().current();
            current.compactionFailed();
            ctx.metrics().compactionFailed();
            LOG.warn("server {}: compaction skipped, the copy of the live states did not fit in memory ({}); "
                + "melding goes on in the current generation", ctx.serverId(), oom.getMessage());
        }
        return ctx.state().current();
    }

    private void write(final long position, final long resumePosition, final Map<Integer, Long> fences) {
        final long started = System.nanoTime();
        // each chunk is serialized into its log record, behind the room its header takes (CheckpointAppender), off
        // the heap: tens of MiB that live until the checkpoint is appended, which the collector would copy along
        final Arena chunkMemory = new Arena();
        final List<UnsafeBuffer> chunks = new ArrayList<>();
        final CheckpointWriter cw = new CheckpointWriter(ctx.config().checkpointChunkBytes(),
            (b, o, l) -> chunks.add(CheckpointAppender.record(chunkMemory, b, o, l)), written);
        boolean handedOver = false;
        try {
            handedOver = serializeAndCompact(cw, chunkMemory, chunks, position, resumePosition, fences, started);
        } finally {
            if (!handedOver) {
                chunkMemory.close();
            }
        }
    }

    /** The rest of {@link #write}; true if the appender took over {@code chunkMemory} (and closes it). */
    private boolean serializeAndCompact(final CheckpointWriter cw, final Arena chunkMemory, final List<UnsafeBuffer> chunks,
                          final long position, final long resumePosition, final Map<Integer, Long> fences,
                          final long started) {
        final MeldPipeline pipeline = ctx.state().current().pipeline();
        // every state a later intention may have as its snapshot, and every state premeld may still need
        final long base = Math.min(pipeline.oldestStateNeeded(),
            Math.max(pipeline.baseCsn(), pipeline.lcsCsn() + 1 - ctx.cluster().maxSnapshotAge()));
        final int count = (int) (pipeline.lcsCsn() - base + 1);
        final long[] rootVns = new long[count];
        for (int i = 0; i < count; i++) {
            final long root = pipeline.stateRootAt(base + i);
            if (root != MeldPipeline.NO_STATE) {
                cw.writeState(root);
            }
            rootVns[i] = CheckpointManifest.vnOf(root);
        }
        cw.finish();
        if (chunks.isEmpty()) {
            // a chunk of no nodes (its count, zeroed like every arena allocation)
            final int length = CheckpointAppender.CHUNK_OFFSET + Integer.BYTES;
            chunks.add(new UnsafeBuffer(chunkMemory.allocate(length), length));
        }
        final CheckpointManifest manifest = new CheckpointManifest(base, rootVns, position, resumePosition, fences);
        compact(manifest, chunks, cw.nodesWritten());
        ctx.metrics().checkpointWritten(cw.nodesWritten(), cw.bytesWritten(), System.nanoTime() - started);
        if (ctx.config().writeCheckpoints() && !appending && ctx.refencing() == null) {
            appending = true;
            final long checkpointIncarnation = ctx.incarnation();
            checkpointExecutor.execute(() -> {
                try {
                    appender.append(manifest, chunks);
                } catch (RuntimeException ex) {
                    LOG.warn("server {}: appending the checkpoint of csn {} failed: {}", ctx.serverId(),
                        manifest.lcsCsn(), ex.toString());
                    ctx.streamBroken(checkpointIncarnation, "appending a checkpoint failed: " + ex.getMessage());
                } finally {
                    chunkMemory.close();
                    appending = false;
                }
            });
            return true;
        }
        return false;
    }

    /**
     * Loads the checkpoint just serialized into fresh memory and continues melding there; the old generation is
     * freed when its last session ends. The checkpoint holds every state from the cluster's snapshot-age limit on,
     * so every intention not rejected as too old points only at nodes the new generation holds, with the same
     * identities: melding goes on exactly as on a server that never compacted.
     */
    private void compact(final CheckpointManifest manifest, final List<UnsafeBuffer> chunks, final long nodes) {
        final Generation current = ctx.state().current();
        // sized for the nodes it loads one by one and like the generation it replaces (whose runs count once), so it
        // rehashes (and allocates) neither while it loads nor while it fills up again
        final NodeDirectory directory = new NodeDirectory((int) Math.min(1 << 28,
            nodes + current.directory().size()));
        final Arena loadArena = new Arena();
        final CheckpointLoader loader = new CheckpointLoader(loadArena, directory);
        try {
            for (UnsafeBuffer chunk : chunks) {
                loader.load(chunk, CheckpointAppender.CHUNK_OFFSET, chunk.capacity() - CheckpointAppender.CHUNK_OFFSET);
            }
        } catch (OutOfMemoryError e) {
            loadArena.close(); // nothing points into it yet
            throw e;
        }
        final Generation next = Generation.restored(ctx.cluster(), directory, loadArena, manifest,
            manifest.roots(loader), current.decodeThreads());
        final Snapshot nextLcs = next.pipeline().lcs();
        if (NodeMemory.CHECKS && StateHash.of(nextLcs.root()) != StateHash.of(current.pipeline().lcs().root())) {
            throw new IllegalStateException("compaction changed the state at csn " + nextLcs.csn());
        }
        ctx.state().replace(next);
    }

    @Override
    public void close() {
        checkpointExecutor.shutdownNow();
        compactionExecutor.shutdownNow();
    }
}
