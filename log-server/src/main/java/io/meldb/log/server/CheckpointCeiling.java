package io.meldb.log.server;

import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.ByteOrder;

/**
 * How far the log may be trimmed: the resume position of the newest complete checkpoint in the log (meld paper
 * App. A and B). A TRIM above it would leave a recovering txn-server with no checkpoint to start from, so the log
 * server refuses it whoever sends it ({@link LogServerHandler}).
 *
 * <p>The log server otherwise treats blocks as opaque; this class reads just enough of the txn-server's format to
 * find checkpoints. It mirrors {@code io.meldb.core.BlockFormat} (block header, records framed by a little-endian
 * int length, spanning a writer's blocks), {@code io.meldb.txn.LogRecords} (the CHECKPOINT record header) and
 * {@code io.meldb.txn.CheckpointManifest} (big-endian manifest after the last chunk); the txn-server's
 * {@code CheckpointTrimTest} checks the two sides agree. The last chunk of a checkpoint starts at the beginning of
 * a block (the txn-server flushes before and after each chunk), and nothing else of its writer comes between that
 * block and the end of the record.
 *
 * <p>Work happens only when a TRIM asks ({@link #ceiling()}), on one thread: the blocks appended since the last
 * look are scanned backwards for the newest last-chunk block, and its record is read forward to the manifest. A
 * checkpoint whose record is not complete yet (another server writing one) is skipped and looked at again next
 * time. Not thread-safe: confined to the thread TRIMs are decided on.
 */
final class CheckpointCeiling {
    // io.meldb.core.BlockFormat
    static final int BLOCK_MAGIC = 0x4D454C44;
    static final int BLOCK_HEADER = 20;
    static final int WRITER_OFFSET = 6;
    static final int USED_LENGTH_OFFSET = 8;
    static final int FIRST_RECORD_OFFSET = 12;
    static final int MAX_RECORD_LENGTH = 64 << 20;
    // io.meldb.txn.LogRecords
    static final int CONTROL_WRITER = 0;
    static final byte CHECKPOINT = 3;
    static final int CHECKPOINT_HEADER = 1 + 8 + 4 + 1 + 8 + 4;

    private final LogStore store;
    private LogReader reader;
    /** Every block below this was looked at. */
    private long scannedTo = 1;
    private long ceiling = 1;
    /** A checkpoint found incomplete: scanning starts there again next time. */
    private long recheckFrom = Long.MAX_VALUE;

    CheckpointCeiling(LogStore store) {
        this.store = store;
    }

    /** The resume position of the newest complete checkpoint, or 1 (nothing may be trimmed) when there is none. */
    long ceiling() {
        long tail = store.tail();
        long low = Math.max(Math.max(1, store.trimPoint()), Math.min(scannedTo, recheckFrom));
        recheckFrom = Long.MAX_VALUE;
        ByteBuf block = Unpooled.buffer(store.blockSize()).order(ByteOrder.BIG_ENDIAN);
        if (reader == null) {
            reader = store.openReader();
        }
        try {
            for (long p = tail - 1; p >= low; p--) {
                block.clear();
                reader.read(p, block);
                if (!isLastChunkStart(block)) {
                    continue;
                }
                long resume = resumeOf(block, p, tail);
                if (resume > 0) {
                    ceiling = Math.max(ceiling, resume);
                    break;
                }
                recheckFrom = Math.min(recheckFrom, p);
            }
            scannedTo = tail;
        } finally {
            block.release();
        }
        return ceiling;
    }

    void close() {
        if (reader != null) {
            reader.close();
            reader = null;
        }
    }

    private static boolean isLastChunkStart(ByteBuf b) {
        if (b.readableBytes() < BLOCK_HEADER + 4 + CHECKPOINT_HEADER || b.getIntLE(0) != BLOCK_MAGIC
                || b.getShortLE(WRITER_OFFSET) == CONTROL_WRITER || b.getIntLE(FIRST_RECORD_OFFSET) != 0) {
            return false;
        }
        int record = BLOCK_HEADER + 4;
        return b.getByte(record) == CHECKPOINT && b.getByte(record + 13) != 0;
    }

    /** Reads the checkpoint record starting in {@code first} to its manifest: its resume position, or 0 if incomplete. */
    private long resumeOf(ByteBuf first, long position, long tail) {
        long length = first.getIntLE(BLOCK_HEADER) & 0xFFFFFFFFL;
        if (length < CHECKPOINT_HEADER || length > MAX_RECORD_LENGTH) {
            return 0;
        }
        short writer = first.getShortLE(WRITER_OFFSET);
        byte[] record = new byte[(int) length];
        int have = copyPayload(first, 4, record, 0);
        ByteBuf block = Unpooled.buffer(store.blockSize());
        try {
            for (long p = position + 1; have < record.length && p < tail; p++) {
                block.clear();
                reader.read(p, block);
                if (block.getIntLE(0) == BLOCK_MAGIC && block.getShortLE(WRITER_OFFSET) == writer) {
                    have += copyPayload(block, 0, record, have);
                }
            }
        } finally {
            block.release();
        }
        if (have < record.length) {
            return 0;
        }
        ByteBuf r = Unpooled.wrappedBuffer(record);
        int chunkLength = r.getIntLE(22);
        int manifest = CHECKPOINT_HEADER + chunkLength;
        if (chunkLength < 0 || manifest + 16 > record.length || r.getInt(manifest) != 1) {
            return 0;
        }
        long states = r.getInt(manifest + 12) & 0xFFFFFFFFL;
        long at = manifest + 16 + 8 * states + 8;
        if (at + 8 > record.length) {
            return 0;
        }
        return r.getLong((int) at);
    }

    /** Copies a block's payload from {@code skip} bytes in, as much as {@code out} still takes; returns how much. */
    private static int copyPayload(ByteBuf block, int skip, byte[] out, int at) {
        int used = block.getIntLE(USED_LENGTH_OFFSET);
        int n = Math.max(0, Math.min(used - skip, Math.min(out.length - at, block.readableBytes() - BLOCK_HEADER - skip)));
        block.getBytes(BLOCK_HEADER + skip, out, at, n);
        return n;
    }
}
