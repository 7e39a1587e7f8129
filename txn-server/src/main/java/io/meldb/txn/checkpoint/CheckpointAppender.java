package io.meldb.txn.checkpoint;

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

    private final ServerContext ctx;
    private final RecordStream stream;
    /** Resume position of the newest checkpoint this server wrote (the next one trims below it). */
    private long previousCheckpointResume;

    public CheckpointAppender(final ServerContext ctx, final RecordStream stream) {
        this.ctx = ctx;
        this.stream = stream;
    }

    void append(final CheckpointManifest manifest, final List<byte[]> chunks) {
        final byte[] manifestBytes = manifest.encode();
        final long checkpointId = ctx.incarnation() * 1_000_000L + manifest.lcsCsn() % 1_000_000L;
        long firstPosition = 0;
        CompletableFuture<Long> last = null;
        for (int i = 0; i < chunks.size(); i++) {
            final boolean isLast = i == chunks.size() - 1;
            final byte[] chunk = chunks.get(i);
            final int length = LogRecords.CHECKPOINT_HEADER + chunk.length + (isLast ? manifestBytes.length : 0);
            final UnsafeBuffer record = new UnsafeBuffer(new byte[length]);
            LogRecords.putCheckpointHeader(record, checkpointId, i, isLast, firstPosition, chunk.length);
            record.putBytes(LogRecords.CHECKPOINT_HEADER, chunk);
            if (isLast) {
                record.putBytes(LogRecords.CHECKPOINT_HEADER + chunk.length, manifestBytes);
            }
            final List<CompletableFuture<Long>> blocks = stream.appendBlocks(record, length);
            last = blocks.get(blocks.size() - 1);
            if (i == 0) {
                firstPosition = LogCalls.join(blocks.get(0));
            }
        }
        LogCalls.join(last);
        LOG.info("server {}: checkpoint of csn {} ({} chunks) written from log position {}", ctx.serverId(),
            manifest.lcsCsn(), chunks.size(), firstPosition);
        if (ctx.config().trim() && previousCheckpointResume > 1) {
            final long trimmed = LogCalls.join(ctx.log().trim(previousCheckpointResume));
            LOG.info("server {}: trimmed the log below {}", ctx.serverId(), trimmed);
        }
        previousCheckpointResume = manifest.resumePosition();
    }

    static byte[] copy(final DirectBuffer b, final int offset, final int length) {
        final byte[] bytes = new byte[length];
        b.getBytes(offset, bytes);
        return bytes;
    }
}
