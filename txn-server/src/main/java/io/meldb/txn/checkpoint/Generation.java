package io.meldb.txn.checkpoint;

import io.meldb.core.Arena;
import io.meldb.core.IntentionCopier;
import io.meldb.core.IntentionDecoder;
import io.meldb.core.MeldPipeline;
import io.meldb.core.NodeDirectory;
import io.meldb.txn.CheckpointManifest;
import io.meldb.txn.ClusterConfig;

/**
 * All node memory of one span of the server's life: the nodes loaded from a checkpoint and everything decoded
 * and melded since, with the meld pipeline working in it. A checkpoint starts a new generation holding only the
 * live states; the old one is freed once no session reads a snapshot in it any more. This is how memory stays
 * bounded: the same mechanism as recovery (meld paper App. A), run in memory.
 */
public final class Generation {
    private final NodeDirectory directory;
    private final Arena loadArena;
    private final Arena decodeArena = new Arena();
    private final MeldPipeline pipeline;
    /** The decoder of a reader that decodes in line (threading mode SHARED). */
    private final IntentionDecoder decoder;
    /** Copies this server's own intentions from their trees, in the reader's arena (reader thread only). */
    private final IntentionCopier copier;
    /** One arena and decoder per deserializer thread (per-thread pools, Hyder II §5.3). */
    private final Arena[] workerArenas;
    private final IntentionDecoder[] workerDecoders;
    /** Sessions and status calls reading a snapshot in it (guarded by {@link CommittedState}'s lock). */
    int sessions;
    boolean retired;
    /** Node memory the generation started with (the checkpoint it was loaded from); see {@link #grownBytes}. */
    private final long loadedBytes;

    Generation(final NodeDirectory directory, final Arena loadArena, final MeldPipeline pipeline,
               final int decodeThreads) {
        this.directory = directory;
        this.loadArena = loadArena;
        this.pipeline = pipeline;
        this.decoder = new IntentionDecoder(decodeArena, directory);
        this.copier = new IntentionCopier(decodeArena, directory);
        this.workerArenas = new Arena[decodeThreads];
        this.workerDecoders = new IntentionDecoder[decodeThreads];
        for (int i = 0; i < decodeThreads; i++) {
            workerArenas[i] = new Arena();
            workerDecoders[i] = new IntentionDecoder(workerArenas[i], directory);
        }
        this.loadedBytes = loadArena == null ? 0 : loadArena.reservedBytes();
    }

    /** The byte-triggered compaction waits until the generation has grown past this (after a failed one). */
    private volatile long retryAfterGrownBytes;

    /** A compaction out of this generation did not fit in memory: the next byte-triggered one waits for 64 MiB more. */
    void compactionFailed() {
        retryAfterGrownBytes = grownBytes() + (64L << 20);
    }

    /** Whether growth alone should start a compaction now (see {@code TxnServerConfig.checkpointBytes}). */
    public boolean compactionDue(final long thresholdBytes) {
        final long grown = grownBytes();
        return grown >= Math.max(thresholdBytes, loadedBytes) && grown >= retryAfterGrownBytes;
    }

    /** Node memory loaded from the checkpoint the generation started from. */
    public long loadedBytes() {
        return loadedBytes;
    }

    /**
     * Node memory decoded and melded into this generation since it started: what a compaction could give back
     * (beyond the live states). Read by the log reader from fields other threads write, so an estimate: it only
     * decides when to compact, which changes no meld decision (compaction keeps every node's identity).
     */
    public long grownBytes() {
        long bytes = decodeArena.reservedBytes() + pipeline.reservedBytes();
        for (Arena a : workerArenas) {
            bytes += a.reservedBytes();
        }
        if (loadArena != null) {
            bytes += loadArena.reservedBytes();
        }
        return bytes - loadedBytes;
    }

    /** The first generation of a server that starts from the empty state. */
    public static Generation empty(final ClusterConfig cluster, final NodeDirectory directory, final Arena arena,
                                   final int decodeThreads) {
        return new Generation(directory, arena,
            new MeldPipeline(cluster.meldConfig(), directory).retainStates(cluster.maxSnapshotAge() + 1L),
            decodeThreads);
    }

    /** A generation that starts from a checkpoint (after recovery, or after a compaction). */
    public static Generation restored(final ClusterConfig cluster, final NodeDirectory directory,
                                      final Arena loadArena, final CheckpointManifest manifest, final long[] roots,
                                      final int decodeThreads) {
        return new Generation(directory, loadArena,
            new MeldPipeline(cluster.meldConfig(), directory, manifest.baseCsn(), roots)
                .retainStates(cluster.maxSnapshotAge() + 1L), decodeThreads);
    }

    public MeldPipeline pipeline() {
        return pipeline;
    }

    NodeDirectory directory() {
        return directory;
    }

    /** The in-line decoder (reader thread only). */
    public IntentionDecoder decoder() {
        return decoder;
    }

    /** The log reader's copier of this server's own intentions (reader thread only; see OwnIntentions). */
    public IntentionCopier copier() {
        return copier;
    }

    /** The decoder of deserializer thread {@code worker} (that thread only). */
    public IntentionDecoder workerDecoder(final int worker) {
        return workerDecoders[worker];
    }

    int decodeThreads() {
        return workerDecoders.length;
    }

    void free() {
        pipeline.close();
        decodeArena.close();
        for (Arena a : workerArenas) {
            a.close();
        }
        if (loadArena != null) {
            loadArena.close();
        }
    }
}
