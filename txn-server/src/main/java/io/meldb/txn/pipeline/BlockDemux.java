package io.meldb.txn.pipeline;

import io.meldb.core.BlockFormat;
import io.meldb.core.BlockReader;
import io.meldb.core.CorruptBlockException;
import io.meldb.core.RecordHandler;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first stage of a server's log reader (Hyder II §5.1-5.2): blocks arrive in log order from every writer
 * interleaved; each writer's stream is reassembled by a {@link BlockReader} of its own, and records reach the
 * handler in the order of their last block, which is the log order of intentions.
 *
 * <p>Every reader joins its stream in resync mode, so reading can start at any position (recovery). A block a
 * reader rejects (garbage from a broken client, or the torn end of a record whose writer died mid-append) is
 * dropped and that writer's stream resynchronized at the next record start; every replica sees the same blocks,
 * so every replica drops the same ones. It also tracks, per writer, where the record in progress started, which
 * a checkpoint needs as its resume position.
 */
public final class BlockDemux {
    private static final Logger LOG = LoggerFactory.getLogger(BlockDemux.class);

    private final int blockSize;
    private final RecordHandler handler;
    private final Int2ObjectHashMap<Stream> streams = new Int2ObjectHashMap<>();
    private long blocksDropped;

    private static final class Stream {
        final BlockReader reader;
        /** Position of the block where the record in progress started, or 0. */
        long inProgressSince;

        Stream(final BlockReader reader) {
            this.reader = reader;
        }
    }

    public BlockDemux(final int blockSize, final RecordHandler handler) {
        this.blockSize = blockSize;
        this.handler = handler;
    }

    public long blocksDropped() {
        return blocksDropped;
    }

    public void onBlock(final DirectBuffer block, final int offset, final long position) {
        final int writer = BlockFormat.writer(block, offset);
        Stream s = streams.get(writer);
        if (s == null) {
            s = new Stream(new BlockReader(blockSize, handler));
            s.reader.resync();
            streams.put(writer, s);
        }
        final BlockReader r = s.reader;
        final boolean wasInProgress = r.recordInProgress();
        final long before = r.recordsDelivered();
        try {
            r.onBlock(block, offset, blockSize, position);
        } catch (CorruptBlockException e) {
            blocksDropped++;
            LOG.warn("dropping log block {} of writer {}: {}", position, writer, e.getMessage());
            r.resync();
            s.inProgressSince = 0;
            return;
        }
        if (!r.recordInProgress()) {
            s.inProgressSince = 0;
        } else if (!wasInProgress || r.recordsDelivered() > before) {
            s.inProgressSince = position;
        }
    }

    /** Where reading must resume so that every record in progress now is read whole; {@code next} if none. */
    public long resumePosition(final long next) {
        long min = next;
        for (Stream s : streams.values()) {
            if (s.inProgressSince != 0) {
                min = Math.min(min, s.inProgressSince);
            }
        }
        return min;
    }

    /** A writer restarted (a fence): whatever its old incarnation left half-written is dropped. */
    public void resync(final int writer) {
        final Stream s = streams.get(writer);
        if (s != null) {
            s.reader.resync();
            s.inProgressSince = 0;
        }
    }
}
