package io.meldb.txn.checkpoint;

import io.meldb.core.Arena;
import io.meldb.core.CheckpointLoader;
import io.meldb.core.CheckpointWriter;
import io.meldb.core.MeldPipeline;
import io.meldb.core.NodeDirectory;
import io.meldb.core.NodeMemory;
import io.meldb.core.StateCopier;
import io.meldb.core.StateHash;
import io.meldb.txn.CheckpointManifest;
import io.meldb.txn.ServerContext;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Builds the next memory generation off the meld thread (meld paper App. A-B), in three steps on the compaction
 * thread: {@link #write} serializes the checkpointed states (immutable: copy-on-write) and streams each chunk both
 * into the new generation's memory and to the log append; {@link #catchUp} copies the states melded since, which
 * the old generation goes on producing meanwhile, node by node (only their new nodes); {@link #finish}, while the
 * meld thread waits at a block boundary, copies the last few and makes the new generation current. The checkpoint's
 * content is fixed by its CSN alone, whatever melding did meanwhile; the generation switch comes later, at a point
 * that depends on timing, and changes nothing meld decides (every node keeps its identity).
 */
final class GenerationBuilder {
    private final ServerContext ctx;
    private final Generation old;
    private final MeldPipeline oldPipeline;
    private final CheckpointManifest manifest;
    /** Handles, in the old generation, of the checkpointed states' roots ({@link MeldPipeline#NO_STATE} kept). */
    private final long[] roots;
    private final NodeDirectory directory;
    private final Arena arena = new Arena();
    private final CheckpointLoader loader;
    private final StateCopier copier;
    /** States after the checkpoint copied so far: up to this CSN. */
    private long copiedThrough;
    private long nodesWritten;
    private long bytesWritten;
    private boolean done;

    GenerationBuilder(final ServerContext ctx, final Generation old, final CheckpointManifest manifest,
                      final long[] roots) {
        this.ctx = ctx;
        this.old = old;
        this.oldPipeline = old.pipeline();
        this.manifest = manifest;
        this.roots = roots;
        // sized like the generation it replaces, so it does not rehash (and allocate) while it fills up again
        this.directory = new NodeDirectory(old.directory().size());
        this.loader = new CheckpointLoader(arena, directory);
        this.copier = new StateCopier(arena, directory);
        this.copiedThrough = manifest.lcsCsn();
    }

    /**
     * Serializes every checkpointed state, loads each chunk into the new generation and hands it to
     * {@code append} (null: not appended). Returns false if {@code stop} said to give up half way.
     */
    boolean write(final CheckpointAppender.Stream append, final java.util.function.BooleanSupplier stop) {
        final CheckpointWriter writer = new CheckpointWriter(ctx.config().checkpointChunkBytes(), (b, o, l) -> {
            loader.load(b, o, l);
            if (append != null) {
                append.chunk(b, o, l);
            }
        });
        for (int i = 0; i < roots.length; i++) {
            if (stop.getAsBoolean()) {
                return false;
            }
            if (roots[i] != MeldPipeline.NO_STATE) {
                writer.writeState(roots[i]);
            }
        }
        writer.finish();
        if (append != null) {
            append.finish();
        }
        nodesWritten = writer.nodesWritten();
        bytesWritten = writer.bytesWritten();
        return true;
    }

    /**
     * Copies the states the old generation has published since, up to {@code throughCsn}, while melding goes on.
     * Returns how many states it looked at. A state's root is read from the old pipeline's ring of recent states,
     * which meld overwrites only a snapshot-age limit later; a copy that falls that far behind gives up.
     */
    long catchUp(final long throughCsn) {
        final long from = copiedThrough;
        for (long c = copiedThrough + 1; c <= throughCsn; c++) {
            final long root = oldPipeline.stateRootAt(c);
            if (ctx.state().meldedCsn() - c >= ctx.cluster().maxSnapshotAge()) {
                throw new IllegalStateException("the copy of state " + c + " fell a snapshot-age limit behind meld");
            }
            if (root != MeldPipeline.NO_STATE) {
                copier.copyState(root);
            }
            copiedThrough = c;
        }
        return copiedThrough - from;
    }

    /**
     * Meld thread waiting, its LCS materialized and nothing held: copies what is left, builds the new generation
     * holding every state later intentions may have as snapshot or premeld state, and makes it current.
     */
    Generation finish() {
        final long lcs = oldPipeline.lcsCsn();
        final long checkpointBase = manifest.baseCsn();
        final long base = Math.max(checkpointBase, Math.min(oldPipeline.oldestStateNeeded(),
            Math.max(oldPipeline.baseCsn(), lcs + 1 - ctx.cluster().maxSnapshotAge())));
        final long[] next = new long[(int) (lcs - base + 1)];
        for (long c = base; c <= lcs; c++) {
            final long root = c <= manifest.lcsCsn() ? roots[(int) (c - checkpointBase)] : oldPipeline.stateRootAt(c);
            // a state catchUp copied costs one lookup here; one it missed (a racy read of the ring) is copied now
            next[(int) (c - base)] = root == MeldPipeline.NO_STATE ? MeldPipeline.NO_STATE : copier.copyState(root);
        }
        copiedThrough = lcs;
        final Generation generation = Generation.restored(ctx.cluster(), directory, arena, base, next,
            old.decodeThreads());
        if (NodeMemory.CHECKS && StateHash.of(generation.pipeline().lcs().root())
            != StateHash.of(oldPipeline.lcs().root())) {
            generation.free();
            throw new IllegalStateException("compaction changed the state at csn " + lcs);
        }
        done = true;
        ctx.state().replace(generation);
        return generation;
    }

    /** Frees what was built if it never became a generation. */
    void abandon() {
        if (!done) {
            arena.close();
        }
    }

    long copiedThrough() {
        return copiedThrough;
    }

    long nodesWritten() {
        return nodesWritten;
    }

    long bytesWritten() {
        return bytesWritten;
    }

    long nodesCopied() {
        return copier.nodesCopied();
    }
}
