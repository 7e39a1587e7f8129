package io.meldb.core;

import org.agrona.DirectBuffer;

/**
 * Loads the chunks {@link CheckpointWriter} wrote (meld paper App. A, recovery): recreates each node with its
 * original VN and metadata in {@code arena}, links it to its children through the directory, and registers it.
 * Chunks must be loaded in the order they were written. Malformed input throws
 * {@link IntentionFormatException}.
 */
public final class CheckpointLoader {
    private final Arena arena;
    private final NodeDirectory directory;
    private long nodesLoaded;

    public CheckpointLoader(final Arena arena, final NodeDirectory directory) {
        this.arena = arena;
        this.directory = directory;
    }

    public long nodesLoaded() {
        return nodesLoaded;
    }

    /** The handle of the node with this VN (0 for VN 0), which must have been loaded. */
    public long resolve(final long vn) {
        if (vn == 0) {
            return 0;
        }
        final long h = directory.lookup(vn);
        if (h == 0) {
            throw new IntentionFormatException("checkpoint refers to node " + Versions.toString(vn)
                + " before loading it");
        }
        return h;
    }

    public void load(final DirectBuffer chunk, final int offset, final int length) {
        if (length < Integer.BYTES) {
            throw new IntentionFormatException("checkpoint chunk of " + length + " bytes");
        }
        final int end = offset + length;
        final int count = chunk.getInt(offset, CheckpointWriter.ORDER);
        int at = offset + Integer.BYTES;
        for (int i = 0; i < count; i++) {
            if (at + CheckpointWriter.NODE_FIXED_BYTES > end) {
                throw new IntentionFormatException("checkpoint chunk truncated in node " + i + " of " + count);
            }
            final long vn = chunk.getLong(at, CheckpointWriter.ORDER);
            final long scv = chunk.getLong(at + 8, CheckpointWriter.ORDER);
            final long ssv = chunk.getLong(at + 16, CheckpointWriter.ORDER);
            final int flags = chunk.getByte(at + 32) & 0xFF;
            final int height = chunk.getInt(at + 33, CheckpointWriter.ORDER);
            final long leftVn = chunk.getLong(at + 37, CheckpointWriter.ORDER);
            final long rightVn = chunk.getLong(at + 45, CheckpointWriter.ORDER);
            final int keyLength = chunk.getInt(at + 53, CheckpointWriter.ORDER);
            at += 57;
            if (vn == 0 || (flags & ~(CheckpointWriter.STORED_FLAGS | CheckpointWriter.HISTORY_FLAG)) != 0 || keyLength < 0 || at + keyLength + 4 > end) {
                throw new IntentionFormatException("checkpoint node " + i + " is malformed");
            }
            final long key = copy(chunk, at, keyLength);
            at += keyLength;
            final int payloadLength = chunk.getInt(at, CheckpointWriter.ORDER);
            at += 4;
            if (payloadLength < 0 || at + payloadLength > end) {
                throw new IntentionFormatException("checkpoint node " + i + " has a bad payload length");
            }
            int history = 0;
            if ((flags & CheckpointWriter.HISTORY_FLAG) != 0) {
                history = at + payloadLength + 9 <= end
                    ? 9 + 16 * (chunk.getByte(at + payloadLength + 8) & 0xFF) : -1;
                if (history < 0 || ColumnReads.fieldsOf(history) < 1 || at + payloadLength + history > end) {
                    throw new IntentionFormatException("checkpoint node " + i + " has a bad increment history");
                }
            }
            final long payload = copy(chunk, at, payloadLength + history);
            at += payloadLength + history;

            final long n = arena.allocate(Node.SIZE);
            Node.key(n, key, keyLength);
            Node.payload(n, payload, payloadLength);
            Node.vn(n, vn);
            Node.scv(n, scv);
            Node.ssv(n, ssv);
            Node.flags(n, (flags & CheckpointWriter.STORED_FLAGS) | (history != 0 ? Node.HISTORY : 0));
            Node.left(n, resolve(leftVn));
            Node.right(n, resolve(rightVn));
            Node.updateDerived(n);
            if (Node.height(n) != height) {
                throw new IntentionFormatException("checkpoint node " + Versions.toString(vn) + " has height "
                    + height + " but its children give " + Node.height(n));
            }
            directory.register(vn, n);
            nodesLoaded++;
        }
        if (at != end) {
            throw new IntentionFormatException("checkpoint chunk has " + (end - at) + " bytes after its nodes");
        }
    }

    private long copy(final DirectBuffer from, final int offset, final int length) {
        if (length == 0) {
            return 0;
        }
        final long h = arena.allocate(length);
        NodeMemory.putBytes(h, from, offset, length);
        return h;
    }
}
