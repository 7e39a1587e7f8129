package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.core.Arena;
import io.meldb.core.BlockFormat;
import io.meldb.core.BlockReader;
import io.meldb.core.CheckpointLoader;
import io.meldb.core.CorruptBlockException;
import io.meldb.core.IntentionFormatException;
import io.meldb.core.MeldPipeline;
import io.meldb.core.NodeDirectory;
import io.meldb.log.client.LogService;
import io.meldb.log.client.LogStatus;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Recovery from the log alone (meld paper App. A): find the newest complete checkpoint intention by scanning
 * backwards from the tail, load its nodes with their original identities, and say from which states and which
 * log position the pipeline resumes. With no checkpoint in the log, the server starts from the empty state at
 * position 1; if the log has been trimmed and holds no complete checkpoint, it cannot recover and says so.
 */
final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);
    private static final int BATCH = 64;

    /** manifest null: start from the empty state. roots: handles for {@link MeldPipeline}'s restore. */
    record Result(NodeDirectory directory, Arena arena, CheckpointManifest manifest, long[] roots, long nodes,
                  long position) {
    }

    private Recovery() {
    }

    static Result run(final LogService log, final ClusterConfig cluster) {
        final LogStatus status = LogCalls.join(log.status());
        final long lowest = Math.max(1, status.trimPoint());
        final int blockSize = cluster.blockSize();
        long high = status.tail() - 1;
        while (high >= lowest) {
            final long from = Math.max(lowest, high - BATCH + 1);
            final List<byte[]> blocks = readAll(log, from, (int) (high - from + 1));
            for (int i = blocks.size() - 1; i >= 0; i--) {
                final long position = from + i;
                final UnsafeBuffer b = new UnsafeBuffer(blocks.get(i));
                if (!isLastCheckpointChunkStart(b, blockSize)) {
                    continue;
                }
                final Result r = load(log, cluster, b, position, status.tail());
                if (r != null) {
                    return r;
                }
            }
            high = from - 1;
        }
        if (lowest > 1) {
            throw new TxnException(TxnError.UNAVAILABLE, "the log is trimmed below position " + lowest
                + " and holds no complete checkpoint to recover from");
        }
        return new Result(new NodeDirectory(), null, null, null, 0, 0);
    }

    private static List<byte[]> readAll(final LogService log, final long from, final int count) {
        final java.util.ArrayList<byte[]> out = new java.util.ArrayList<>(count);
        while (out.size() < count) {
            final List<byte[]> got = LogCalls.join(log.read(from + out.size(), count - out.size()));
            if (got.isEmpty()) {
                break;
            }
            out.addAll(got);
        }
        return out;
    }

    /** A block of a server's stream in which the last chunk of a checkpoint record starts, at offset 0. */
    private static boolean isLastCheckpointChunkStart(final DirectBuffer b, final int blockSize) {
        if (BlockFormat.magic(b, 0) != BlockFormat.MAGIC || BlockFormat.writer(b, 0) == LogRecords.CONTROL_WRITER
            || BlockFormat.firstRecordOffset(b, 0) != 0) {
            return false;
        }
        final int used = BlockFormat.usedLength(b, 0);
        final int record = BlockFormat.HEADER_LENGTH + BlockFormat.RECORD_LENGTH_FIELD;
        if (used < BlockFormat.RECORD_LENGTH_FIELD + LogRecords.CHECKPOINT_HEADER || used > blockSize) {
            return false;
        }
        return b.getByte(record) == LogRecords.CHECKPOINT && LogRecords.checkpointLast(b, record);
    }

    private static Result load(final LogService log, final ClusterConfig cluster, final DirectBuffer lastStart,
                               final long lastStartPosition, final long tail) {
        final int record = BlockFormat.HEADER_LENGTH + BlockFormat.RECORD_LENGTH_FIELD;
        final long id = LogRecords.checkpointId(lastStart, record);
        final int chunks = LogRecords.checkpointChunk(lastStart, record) + 1;
        final long firstPosition = chunks == 1 ? lastStartPosition
            : LogRecords.checkpointFirstChunkPosition(lastStart, record);
        final int writer = BlockFormat.writer(lastStart, 0);
        final NodeDirectory directory = new NodeDirectory();
        final Arena arena = new Arena();
        final CheckpointLoader loader = new CheckpointLoader(arena, directory);
        final CheckpointManifest[] manifest = new CheckpointManifest[1];
        final int[] next = {0};
        final BlockReader reader = new BlockReader(cluster.blockSize(), (buf, off, len, pos) -> {
            if (manifest[0] != null || len < LogRecords.CHECKPOINT_HEADER || buf.getByte(off) != LogRecords.CHECKPOINT
                || LogRecords.checkpointId(buf, off) != id) {
                return;
            }
            final int chunk = LogRecords.checkpointChunk(buf, off);
            if (chunk != next[0]) {
                throw new IntentionFormatException("checkpoint " + id + ": chunk " + chunk + " where chunk "
                    + next[0] + " was expected");
            }
            next[0]++;
            final int chunkLength = LogRecords.checkpointChunkLength(buf, off);
            if (chunkLength < 0 || LogRecords.CHECKPOINT_HEADER + chunkLength > len) {
                throw new IntentionFormatException("checkpoint " + id + ": chunk " + chunk + " is truncated");
            }
            loader.load(buf, off + LogRecords.CHECKPOINT_HEADER, chunkLength);
            if (LogRecords.checkpointLast(buf, off)) {
                final int at = off + LogRecords.CHECKPOINT_HEADER + chunkLength;
                final byte[] m = new byte[off + len - at];
                buf.getBytes(at, m);
                manifest[0] = CheckpointManifest.decode(m);
            }
        });
        reader.resync();
        try {
            long position = firstPosition;
            while (manifest[0] == null && position < tail) {
                final List<byte[]> blocks = readAll(log, position, (int) Math.min(BATCH, tail - position));
                if (blocks.isEmpty()) {
                    break;
                }
                for (int i = 0; i < blocks.size() && manifest[0] == null; i++) {
                    final UnsafeBuffer b = new UnsafeBuffer(blocks.get(i));
                    if (BlockFormat.writer(b, 0) == writer) {
                        reader.onBlock(b, 0, cluster.blockSize(), position + i);
                    }
                }
                position += blocks.size();
            }
        } catch (CorruptBlockException | IntentionFormatException | IllegalStateException e) {
            LOG.warn("checkpoint {} ending at log position {} is unusable ({}); looking for an older one", id,
                lastStartPosition, e.getMessage());
            arena.close();
            return null;
        }
        if (manifest[0] == null) {
            LOG.warn("checkpoint {} ending at log position {} is incomplete; looking for an older one", id,
                lastStartPosition);
            arena.close();
            return null;
        }
        final CheckpointManifest m = manifest[0];
        return new Result(directory, arena, m, m.roots(loader), loader.nodesLoaded(), firstPosition);
    }
}
