package io.meldb.txn.checkpoint;

import io.meldb.core.Arena;
import io.meldb.txn.CheckpointManifest;
import io.meldb.txn.LogCalls;
import io.meldb.txn.LogRecords;
import io.meldb.txn.RecordStream;
import io.meldb.txn.ServerContext;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Appends a serialized checkpoint to the log as checkpoint records (meld paper App. A: the checkpoint intention),
 * on this server's own block stream, then trims the log below the checkpoint before it (App. B). Runs on the
 * checkpoint thread.
 */
public final class CheckpointAppender {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointAppender.class);
    /** Where a chunk starts in its record: after the checkpoint record's header. */
    public static final int CHUNK_OFFSET = LogRecords.CHECKPOINT_HEADER;

    private final ServerContext ctx;
    private final RecordStream stream;
    /** Resume position of the newest checkpoint this server wrote (the next one trims below it). */
    private long previousCheckpointResume;

    public CheckpointAppender(final ServerContext ctx, final RecordStream stream) {
        this.ctx = ctx;
        this.stream = stream;
    }

    /**
     * Appends the checkpoint: {@code chunks} are its records as {@link #record} made them (a chunk behind room for
     * its header), each filled in and appended as it is; only the last, which carries the manifest too, is copied.
     */
    void append(final CheckpointManifest manifest, final List<UnsafeBuffer> chunks) {
        final byte[] manifestBytes = manifest.encode();
        final long checkpointId = ctx.incarnation() * 1_000_000L + manifest.lcsCsn() % 1_000_000L;
        long firstPosition = 0;
        for (int i = 0; i < chunks.size(); i++) {
            final boolean isLast = i == chunks.size() - 1;
            final UnsafeBuffer chunk = chunks.get(i);
            final int chunkLength = chunk.capacity() - CHUNK_OFFSET;
            final UnsafeBuffer record;
            if (isLast) {
                record = new UnsafeBuffer(new byte[chunk.capacity() + manifestBytes.length]);
                record.putBytes(CHUNK_OFFSET, chunk, CHUNK_OFFSET, chunkLength);
                record.putBytes(chunk.capacity(), manifestBytes);
            } else {
                record = chunk;
            }
            LogRecords.putCheckpointHeader(record, checkpointId, i, isLast, firstPosition, chunkLength);
            final List<CompletableFuture<Long>> blocks = stream.appendBlocks(record, record.capacity());
            // one chunk in flight at a time: its blocks go back to the stream's pool before the next chunk takes
            // any, where racing ahead put the whole checkpoint in flight, in blocks the pool could not hold
            LogCalls.join(blocks.get(blocks.size() - 1));
            if (i == 0) {
                firstPosition = LogCalls.join(blocks.get(0));
            }
        }
        LOG.info("server {}: checkpoint of csn {} ({} chunks) written from log position {}", ctx.serverId(),
            manifest.lcsCsn(), chunks.size(), firstPosition);
        if (ctx.config().trim() && previousCheckpointResume > 1) {
            final long trimmed = LogCalls.join(ctx.log().trim(previousCheckpointResume));
            LOG.info("server {}: trimmed the log below {}", ctx.serverId(), trimmed);
        }
        previousCheckpointResume = manifest.resumePosition();
    }

    /**
     * A checkpoint record for the chunk {@code b[offset, offset + length)}, in {@code memory}: the chunk at
     * {@link #CHUNK_OFFSET},
     * behind room for the record's header, which {@link #append} fills in. The compaction loads the chunk from
     * there, and the record goes to the log without another copy of the chunk.
     */
    public static UnsafeBuffer record(final Arena memory, final DirectBuffer b, final int offset, final int length) {
        final UnsafeBuffer record = new UnsafeBuffer(memory.allocate(CHUNK_OFFSET + length), CHUNK_OFFSET + length);
        record.putBytes(CHUNK_OFFSET, b, offset, length);
        return record;
    }
}
