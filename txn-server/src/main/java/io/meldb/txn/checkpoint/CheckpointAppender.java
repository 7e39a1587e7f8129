package io.meldb.txn.checkpoint;

import io.meldb.txn.CheckpointManifest;
import io.meldb.txn.LogCalls;
import io.meldb.txn.LogRecords;
import io.meldb.txn.RecordStream;
import io.meldb.txn.ServerContext;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Appends a checkpoint to the log as checkpoint records (meld paper App. A: the checkpoint intention) on this
 * server's own block stream while it is being serialized, chunk by chunk, then trims the log below the checkpoint
 * before it (App. B). Runs on the compaction thread. Only a few chunks are held at a time (the one waiting to learn
 * whether it is the last, which carries the manifest, and those the log has not acknowledged yet), so a checkpoint
 * of hundreds of MB never sits on the heap.
 */
public final class CheckpointAppender {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointAppender.class);
    /** Chunks appended and not yet acknowledged before the next one waits for the oldest. */
    private static final int IN_FLIGHT_CHUNKS = 16;

    private final ServerContext ctx;
    private final RecordStream stream;
    /** Resume position of the newest checkpoint this server wrote (the next one trims below it). */
    private long previousCheckpointResume;

    public CheckpointAppender(final ServerContext ctx, final RecordStream stream) {
        this.ctx = ctx;
        this.stream = stream;
    }

    /**
     * Starts appending the checkpoint {@code manifest} describes; its chunks follow in order. {@code
     * chunkDelayMillis} pauses after each chunk (a test hook that makes a write last; 0 in service).
     */
    Stream open(final CheckpointManifest manifest, final long chunkDelayMillis) {
        return new Stream(manifest, chunkDelayMillis);
    }

    /**
     * One checkpoint being appended: {@link #chunk} for each chunk, then {@link #finish}. An append the log refuses
     * or loses ends it: the block stream may hold half a record, so the server re-fences ({@code StreamHealer}),
     * and the rest of the checkpoint is not appended (the new generation is built all the same; a checkpoint in
     * the log is only for recovery, and recovery skips an incomplete one).
     */
    final class Stream {
        private final CheckpointManifest manifest;
        private final byte[] manifestBytes;
        private final long checkpointId;
        /** The last chunk received, appended once the next one shows it was not the last. */
        private final ExpandableArrayBuffer held = new ExpandableArrayBuffer(1 << 16);
        private final ExpandableArrayBuffer record = new ExpandableArrayBuffer(1 << 16);
        private final ArrayDeque<CompletableFuture<Long>> inFlight = new ArrayDeque<>();
        private int heldLength = -1;
        private int chunks;
        private long firstPosition;

        private final long chunkDelayMillis;
        private final long incarnation;
        private boolean failed;

        private Stream(final CheckpointManifest manifest, final long chunkDelayMillis) {
            this.manifest = manifest;
            this.chunkDelayMillis = chunkDelayMillis;
            this.incarnation = ctx.incarnation();
            this.manifestBytes = manifest.encode();
            this.checkpointId = ctx.incarnation() * 1_000_000L + manifest.lcsCsn() % 1_000_000L;
        }

        /** The next chunk (copied: the caller reuses its buffer). */
        void chunk(final DirectBuffer chunk, final int offset, final int length) {
            if (failed) {
                return;
            }
            try {
                if (heldLength >= 0) {
                    appendHeld(false);
                }
            } catch (RuntimeException e) {
                failed(e);
                return;
            }
            held.putBytes(0, chunk, offset, length);
            heldLength = length;
        }

        private void failed(final RuntimeException e) {
            failed = true;
            LOG.warn("server {}: appending the checkpoint of csn {} failed: {}", ctx.serverId(), manifest.lcsCsn(),
                e.toString());
            ctx.streamBroken(incarnation, "appending a checkpoint failed: " + e.getMessage());
        }

        /** Appends the last chunk with the manifest, waits until the log holds all of it, and trims. */
        void finish() {
            if (failed) {
                return;
            }
            try {
                appendLast();
            } catch (RuntimeException e) {
                failed(e);
            }
        }

        private void appendLast() {
            if (heldLength < 0) {
                // an empty checkpoint: one chunk of no nodes carries the manifest
                held.putInt(0, 0);
                heldLength = Integer.BYTES;
            }
            appendHeld(true);
            while (!inFlight.isEmpty()) {
                LogCalls.join(inFlight.poll());
            }
            LOG.info("server {}: checkpoint of csn {} ({} chunks) written from log position {}", ctx.serverId(),
                manifest.lcsCsn(), chunks, firstPosition);
            if (ctx.config().trim() && previousCheckpointResume > 1) {
                final long trimmed = LogCalls.join(ctx.log().trim(previousCheckpointResume));
                LOG.info("server {}: trimmed the log below {}", ctx.serverId(), trimmed);
            }
            previousCheckpointResume = manifest.resumePosition();
        }

        private void appendHeld(final boolean last) {
            final int length = LogRecords.CHECKPOINT_HEADER + heldLength + (last ? manifestBytes.length : 0);
            record.checkLimit(length);
            LogRecords.putCheckpointHeader(record, checkpointId, chunks, last, firstPosition, heldLength);
            record.putBytes(LogRecords.CHECKPOINT_HEADER, held, 0, heldLength);
            if (last) {
                record.putBytes(LogRecords.CHECKPOINT_HEADER + heldLength, manifestBytes);
            }
            // the stream copies the record into its blocks before it returns, so both buffers are free again
            final List<CompletableFuture<Long>> blocks = stream.appendBlocks(record, length);
            if (chunks == 0) {
                firstPosition = LogCalls.join(blocks.get(0));
            }
            chunks++;
            heldLength = -1;
            inFlight.add(blocks.get(blocks.size() - 1));
            while (inFlight.size() > IN_FLIGHT_CHUNKS) {
                LogCalls.join(inFlight.poll());
            }
            if (chunkDelayMillis > 0) {
                try {
                    Thread.sleep(chunkDelayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
