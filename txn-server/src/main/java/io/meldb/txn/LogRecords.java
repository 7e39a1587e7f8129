package io.meldb.txn;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The records a txn-server puts into the log, each framed into intention blocks by a
 * {@link io.meldb.core.BlockWriter}. Every record starts with a type byte:
 *
 * <pre>
 *  INTENTION   | type=1 | serverId i32 | incarnation i64 | sequence i64 | intention (io.meldb.core.IntentionFormat) |
 *  FENCE       | type=2 | serverId i32 |            written alone in one block by writer 0; its incarnation is the
 *                                                   block's position
 *  FENCE (by)  | type=2 | serverId i32 | fencer incarnation i64 |   appended by another server that was asked for
 *                                                   the outcome of one of serverId's transactions: it proves that
 *                                                   nothing serverId's older incarnations append later can commit
 *  CHECKPOINT  | type=3 | checkpointId i64 | chunk i32 | last u8 | firstChunkPosition i64 | chunkLength i32 |
 *              | chunk bytes ({@link io.meldb.core.CheckpointWriter}) | manifest, last chunk only ({@link CheckpointManifest}) |
 * </pre>
 * Only INTENTION records consume a CSN (meld paper §3: the CSN orders intentions); the others are invisible to
 * meld. Little-endian like the block format.
 */
public final class LogRecords {
    public static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    public static final byte INTENTION = 1;
    public static final byte FENCE = 2;
    public static final byte CHECKPOINT = 3;

    public static final int INTENTION_HEADER = 1 + 4 + 8 + 8;
    public static final int FENCE_LENGTH = 1 + 4;
    /** A fence one server appends for another (see {@link TxnServer#awaitOutcome}). */
    public static final int FOREIGN_FENCE_LENGTH = FENCE_LENGTH + 8;
    public static final int CHECKPOINT_HEADER = 1 + 8 + 4 + 1 + 8 + 4;

    /** Writer id of the control stream that carries fences: every record in it fits one block. */
    public static final int CONTROL_WRITER = 0;

    private LogRecords() {
    }

    public static void putIntentionHeader(final MutableDirectBuffer b, final int serverId, final long incarnation,
                                   final long sequence) {
        b.putByte(0, INTENTION);
        b.putInt(1, serverId, ORDER);
        b.putLong(5, incarnation, ORDER);
        b.putLong(13, sequence, ORDER);
    }

    public static int serverId(final DirectBuffer b, final int offset) {
        return b.getInt(offset + 1, ORDER);
    }

    public static long incarnation(final DirectBuffer b, final int offset) {
        return b.getLong(offset + 5, ORDER);
    }

    public static long sequence(final DirectBuffer b, final int offset) {
        return b.getLong(offset + 13, ORDER);
    }

    public static void putCheckpointHeader(final MutableDirectBuffer b, final long checkpointId, final int chunk,
                                    final boolean last, final long firstChunkPosition, final int chunkLength) {
        b.putByte(0, CHECKPOINT);
        b.putLong(1, checkpointId, ORDER);
        b.putInt(9, chunk, ORDER);
        b.putByte(13, (byte) (last ? 1 : 0));
        b.putLong(14, firstChunkPosition, ORDER);
        b.putInt(22, chunkLength, ORDER);
    }

    public static int checkpointChunkLength(final DirectBuffer b, final int offset) {
        return b.getInt(offset + 22, ORDER);
    }

    public static long checkpointId(final DirectBuffer b, final int offset) {
        return b.getLong(offset + 1, ORDER);
    }

    public static int checkpointChunk(final DirectBuffer b, final int offset) {
        return b.getInt(offset + 9, ORDER);
    }

    public static boolean checkpointLast(final DirectBuffer b, final int offset) {
        return b.getByte(offset + 13) != 0;
    }

    public static long checkpointFirstChunkPosition(final DirectBuffer b, final int offset) {
        return b.getLong(offset + 14, ORDER);
    }
}
