package io.meldb.txn.pipeline;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A block boundary where the reader wants the meld stage to start a checkpoint of the state at {@code csn} (meld
 * paper App. A), or, with {@link #switchGeneration}, to switch to the generation a running checkpoint has built.
 * The meld stage does either only when its LCS is {@code csn} and group meld or a reorder window holds nothing,
 * and completes {@link #result} either way. The reader goes on at once after a start; it waits for a switch (the
 * intentions after it must be decoded into the new generation).
 */
final class CheckpointMarker extends PipelineMessage {
    final long position;
    final long resumePosition;
    final Map<Integer, Long> fences;
    final long csn;
    final boolean switchGeneration;
    final CompletableFuture<Boolean> result = new CompletableFuture<>();
    /** How long the meld thread waited for the switch (written before {@link #result} completes). */
    long meldWaitNanos;

    private CheckpointMarker(final long position, final long resumePosition, final Map<Integer, Long> fences,
                             final long csn, final boolean switchGeneration) {
        this.position = position;
        this.resumePosition = resumePosition;
        this.fences = fences;
        this.csn = csn;
        this.switchGeneration = switchGeneration;
    }

    /** Start a checkpoint of the state at {@code csn}, as of log {@code position}. */
    static CheckpointMarker start(final long position, final long resumePosition, final Map<Integer, Long> fences,
                                  final long csn) {
        return new CheckpointMarker(position, resumePosition, fences, csn, false);
    }

    /** Switch to the new generation here (the LCS at {@code csn}). */
    static CheckpointMarker switchAt(final long position, final long csn) {
        return new CheckpointMarker(position, 0, null, csn, true);
    }
}
