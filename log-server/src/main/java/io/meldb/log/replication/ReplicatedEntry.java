package io.meldb.log.replication;

import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * The three kinds of Raft entry of the replicated log: CREATE (block size, log id, cluster configuration: what
 * position 0 holds, with the id chosen once by the proposer so every replica holds the same) and APPEND (one or
 * more blocks, so that a batch of appends travels as one Raft entry: one block per entry measured 5.5x slower) and
 * TRIM (a position: every replica releases the same prefix).
 * Positions are not in the entry: every replica numbers the blocks as it applies them, in log order.
 */
public final class ReplicatedEntry {
    static final byte CREATE = 1;
    static final byte APPEND = 2;
    static final byte TRIM = 3;

    private ReplicatedEntry() {
    }

    public static byte[] create(final int blockSize, final UUID logId, final byte[] config) {
        return ByteBuffer.allocate(1 + 4 + 16 + config.length).put(CREATE).putInt(blockSize)
            .putLong(logId.getMostSignificantBits()).putLong(logId.getLeastSignificantBits()).put(config).array();
    }

    /** {@code blocks}: whole blocks of the log's block size, back to back. */
    public static byte[] append(final byte[] blocks) {
        return ByteBuffer.allocate(1 + blocks.length).put(APPEND).put(blocks).array();
    }

    /** Releases positions below {@code position} on every replica (clamped to what the replica applied before it). */
    public static byte[] trim(final long position) {
        return ByteBuffer.allocate(1 + 8).put(TRIM).putLong(position).array();
    }

    static byte type(final ByteBuffer entry) {
        return entry.get(entry.position());
    }

    /** A CREATE entry's fields; {@code entry} positioned at its type byte. */
    record Create(int blockSize, UUID logId, byte[] config) {
        static Create decode(final ByteBuffer entry) {
            final ByteBuffer b = entry.duplicate();
            b.get();
            final int blockSize = b.getInt();
            final UUID id = new UUID(b.getLong(), b.getLong());
            final byte[] config = new byte[b.remaining()];
            b.get(config);
            return new Create(blockSize, id, config);
        }
    }
}
