package io.meldb.txn.pipeline;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A block boundary where the reader wants a checkpoint of the state at {@code csn} (meld paper App. A); the meld
 * stage takes it unless group meld holds an intention there, and completes {@code result} either way while the
 * reader waits (the new generation must start from exactly this state).
 */
final class CheckpointMarker extends PipelineMessage {
    final long position;
    final long resumePosition;
    final Map<Integer, Long> fences;
    final long csn;
    final CompletableFuture<Boolean> result = new CompletableFuture<>();

    CheckpointMarker(final long position, final long resumePosition, final Map<Integer, Long> fences,
                     final long csn) {
        this.position = position;
        this.resumePosition = resumePosition;
        this.fences = fences;
        this.csn = csn;
    }
}
