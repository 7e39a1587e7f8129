package io.meldb.txn.checkpoint;

import io.meldb.core.Arena;
import io.meldb.core.CheckpointWriter;
import io.meldb.core.MeldPipeline;
import io.meldb.core.NodeDirectory;
import io.meldb.core.NodeMemory;
import io.meldb.core.StateCopier;
import io.meldb.core.StateHash;
import io.meldb.txn.CheckpointManifest;
import io.meldb.txn.ServerContext;

import java.util.function.BooleanSupplier;

/**
 * Builds the next memory generation off the meld thread (meld paper App. A-B), on the compaction thread:
 * {@link #copyCheckpoint} copies the checkpointed states (immutable: copy-on-write) from the current generation into
 * new memory; {@link #catchUp} copies the states melded since, which the current generation goes on producing
 * meanwhile (only their new nodes); {@link #finish}, while the meld thread waits at a block boundary, copies the last
 * few and makes the new generation current; {@link #write} then serializes the checkpoint from the new generation's
 * copy and streams it to the log, while melding goes on there. The checkpoint's content is fixed by its CSN alone,
 * whatever melding did meanwhile; the generation switch comes at a point that depends on timing, and changes
 * nothing meld decides (every node keeps its identity and content).
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
    /** The checkpointed states' roots in the new generation. */
    private final long[] copied;
    private final StateCopier copier;
    /** States after the checkpoint copied so far: up to this CSN. */
    private long copiedThrough;
    private long nodesWritten;
    private long bytesWritten;
    private Generation generation;
    /**
     * How far meld may run ahead of a state being copied before the old pipeline's ring of recent state roots may
     * have overwritten it: the ring holds at least twice the states retained, and at least 1,024; the margin covers
     * a held group or window, which meld writes before it publishes.
     */
    private final long ringSafeLag;

    GenerationBuilder(final ServerContext ctx, final Generation old, final CheckpointManifest manifest,
                      final long[] roots) {
        this.ctx = ctx;
        this.old = old;
        this.oldPipeline = old.pipeline();
        this.manifest = manifest;
        this.roots = roots;
        // sized for twice the generation it replaces, so it does not rehash (and allocate, maybe on the meld thread)
        // while it fills up again, also when the next compaction runs beside meld for a while
        this.directory = new NodeDirectory(2 * old.directory().size());
        this.copied = new long[roots.length];
        java.util.Arrays.fill(copied, MeldPipeline.NO_STATE);
        this.copier = new StateCopier(arena, directory);
        this.copiedThrough = manifest.lcsCsn();
        this.ringSafeLag = Math.max(1024, 2 * (ctx.cluster().maxSnapshotAge() + 1)) - 256;
    }

    /** Copies every checkpointed state into the new generation; false if {@code stop} said to give up. */
    boolean copyCheckpoint(final BooleanSupplier stop) {
        for (int i = 0; i < roots.length; i++) {
            if (stop.getAsBoolean()) {
                return false;
            }
            if (roots[i] != MeldPipeline.NO_STATE) {
                copied[i] = copier.copyState(roots[i]);
            }
        }
        return true;
    }

    /**
     * After {@link #finish}: serializes the checkpointed states from the new generation's copy (the nodes a
     * checkpoint of the old one holds, byte for byte) and streams them to {@code append}. Melding goes on in the
     * new generation meanwhile; it only adds nodes. False if {@code stop} said to give up.
     */
    boolean write(final CheckpointAppender.Stream append, final BooleanSupplier stop) {
        final CheckpointWriter writer = new CheckpointWriter(ctx.config().checkpointChunkBytes(), append::chunk);
        for (int i = 0; i < copied.length; i++) {
            if (stop.getAsBoolean()) {
                return false;
            }
            if (copied[i] != MeldPipeline.NO_STATE) {
                writer.writeState(copied[i]);
            }
        }
        writer.finish();
        append.finish();
        nodesWritten = writer.nodesWritten();
        bytesWritten = writer.bytesWritten();
        return true;
    }

    /**
     * Copies the states the old generation has published since, up to {@code throughCsn}, while melding goes on.
     * A state's root is read from the old pipeline's ring of recent states, which meld overwrites only a ring's
     * length later; false if the copy fell that far behind (the compaction is then given up).
     */
    boolean catchUp(final long throughCsn) {
        // states too old for the generation to keep at the switch are never copied
        final long oldestKept = throughCsn + 1 - Math.max(ctx.cluster().maxSnapshotAge(),
            ctx.cluster().meldConfig().premeldLag() + 2);
        for (long c = Math.max(copiedThrough + 1, oldestKept); c <= throughCsn; c++) {
            final long root = oldPipeline.stateRootAt(c);
            if (ctx.state().meldedCsn() - c >= ringSafeLag) {
                return false;
            }
            if (root != MeldPipeline.NO_STATE) {
                copier.copyState(root);
            }
        }
        copiedThrough = Math.max(copiedThrough, throughCsn);
        return true;
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
        final long[] stateRoots = new long[(int) (lcs - base + 1)];
        for (long c = base; c <= lcs; c++) {
            if (c <= manifest.lcsCsn()) {
                stateRoots[(int) (c - base)] = copied[(int) (c - checkpointBase)];
                continue;
            }
            // a state catchUp copied costs one lookup here; one it missed (a racy read of the ring) is copied now
            final long root = oldPipeline.stateRootAt(c);
            stateRoots[(int) (c - base)] = root == MeldPipeline.NO_STATE ? root : copier.copyState(root);
        }
        copiedThrough = lcs;
        final Generation next = Generation.restored(ctx.cluster(), directory, arena, base, stateRoots,
            old.decodeThreads());
        if (NodeMemory.CHECKS && StateHash.of(next.pipeline().lcs().root())
            != StateHash.of(oldPipeline.lcs().root())) {
            this.generation = next; // freed here, not by abandon
            next.free();
            throw new IllegalStateException("compaction changed the state at csn " + lcs);
        }
        this.generation = next;
        ctx.state().replace(next);
        return next;
    }

    /** Frees what was built if it never became a generation. */
    void abandon() {
        if (generation == null) {
            arena.close();
        }
    }

    /** The generation {@link #finish} made current. */
    Generation generation() {
        return generation;
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

    long bytesCopied() {
        return copier.bytesCopied();
    }
}
