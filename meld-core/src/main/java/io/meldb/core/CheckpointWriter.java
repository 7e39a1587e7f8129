package io.meldb.core;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.collections.LongHashSet;

import java.nio.ByteOrder;

/**
 * Serializes committed states for a checkpoint intention (meld paper App. A): every node reachable from a set of
 * state roots, once each, in post order, with its identity (VN) and all the metadata meld reads, so that a server
 * loading it with {@link CheckpointLoader} holds nodes indistinguishable from the ones its peers melded, and later
 * intentions' pointers (by VN) resolve to them. Ephemeral nodes are written like persisted ones: this is the
 * "copy of all ephemeral nodes reachable from LCS" the appendix asks for.
 *
 * <p>Output is cut into chunks of about {@code chunkBytes}; a node refers to its children by VN, and children
 * precede parents, so chunks load one after another with no state but the node directory.
 *
 * <pre>
 *  chunk | nodeCount i32 | node* |
 *  node  | vn i64 | scv i64 | ssv i64 | reserved i64 (0) | flags u8 | height i32 | leftVn i64 | rightVn i64 |
 *        | keyLength i32 | key | payloadLength i32 | payload | [history, 16 bytes, if flags has HISTORY_FLAG] |
 *        (little-endian; VN 0 = no child; the history as in memory, see ColumnReads)
 * </pre>
 * Not a hot path: runs on a checkpoint thread over an immutable state.
 */
public final class CheckpointWriter {
    /** Receives each finished chunk; the buffer is reused afterwards. */
    @FunctionalInterface
    public interface ChunkSink {
        void onChunk(DirectBuffer chunk, int offset, int length);
    }

    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    /** Logged node flags; derived ones are recomputed on load. */
    static final int STORED_FLAGS = IntentionFormat.NODE_FLAGS_MASK;
    /** In the stored flags byte: {@link Node#HISTORY}, 16 bytes after the payload. */
    static final int HISTORY_FLAG = 0x80;
    static final int NODE_FIXED_BYTES = 8 * 4 + 1 + 4 + 8 * 2 + 4 + 4;

    private final int chunkBytes;
    private final ChunkSink sink;
    private final ExpandableDirectByteBuffer buffer = new ExpandableDirectByteBuffer(1 << 16);
    private final LongHashSet written;
    private int pos;
    private int count;
    private long nodesWritten;
    private long bytesWritten;

    public CheckpointWriter(final int chunkBytes, final ChunkSink sink) {
        this(chunkBytes, sink, 1 << 10);
    }

    /**
     * A writer expecting about {@code expectedNodes} nodes, so that the set of those written need not grow (and
     * reallocate) while it writes them.
     */
    public CheckpointWriter(final int chunkBytes, final ChunkSink sink, final int expectedNodes) {
        this(chunkBytes, sink, new LongHashSet((int) Math.min(1 << 30, Math.max(16, (long) (expectedNodes / 0.65f) + 1))));
    }

    /**
     * A writer that keeps the VNs it has written in {@code written}, which it clears first: a server reuses one set
     * for all its checkpoints, sized by the largest, where a new one per checkpoint was tens of MiB of heap each time
     * (one allocation large enough to start the collector's concurrent cycle).
     */
    public CheckpointWriter(final int chunkBytes, final ChunkSink sink, final LongHashSet written) {
        if (chunkBytes < 1024) {
            throw new IllegalArgumentException("chunk size " + chunkBytes + " below 1024");
        }
        this.chunkBytes = chunkBytes;
        this.sink = sink;
        written.clear();
        this.written = written;
        this.pos = Integer.BYTES;
    }

    /** Writes every node reachable from {@code root} not written before by this writer (0 = empty state). */
    public void writeState(final long root) {
        if (root != 0) {
            write(root);
        }
    }

    /** Emits the last, partly filled chunk. */
    public void finish() {
        if (count > 0) {
            emit();
        }
    }

    public long nodesWritten() {
        return nodesWritten;
    }

    public long bytesWritten() {
        return bytesWritten;
    }

    private void write(final long n) {
        final long vn = Node.vn(n);
        if (written.contains(vn)) {
            return;
        }
        final long l = Node.left(n);
        final long r = Node.right(n);
        if (l != 0) {
            write(l);
        }
        if (r != 0) {
            write(r);
        }
        written.add(vn);
        final int keyLength = Node.keyLength(n);
        final int payloadLength = Node.payloadLength(n);
        final boolean history = (Node.flags(n) & Node.HISTORY) != 0;
        final int historyLength = ColumnReads.historyLength(n);
        final int size = NODE_FIXED_BYTES + keyLength + payloadLength + historyLength;
        if (count > 0 && pos + size > chunkBytes) {
            emit();
        }
        buffer.putLong(pos, vn, ORDER);
        buffer.putLong(pos + 8, Node.scv(n), ORDER);
        buffer.putLong(pos + 16, Node.ssv(n), ORDER);
        buffer.putLong(pos + 24, 0, ORDER); // was App. B's OldestDescendant, which no node keeps any more
        buffer.putByte(pos + 32, (byte) ((Node.flags(n) & STORED_FLAGS) | (history ? HISTORY_FLAG : 0)));
        buffer.putInt(pos + 33, Node.height(n), ORDER);
        buffer.putLong(pos + 37, l == 0 ? 0 : Node.vn(l), ORDER);
        buffer.putLong(pos + 45, r == 0 ? 0 : Node.vn(r), ORDER);
        int at = pos + 53;
        buffer.putInt(at, keyLength, ORDER);
        at += 4;
        putBytes(at, Node.key(n), keyLength);
        at += keyLength;
        buffer.putInt(at, payloadLength, ORDER);
        at += 4;
        putBytes(at, Node.payload(n), payloadLength + historyLength);
        pos = at + payloadLength + historyLength;
        count++;
        nodesWritten++;
    }

    private void putBytes(final int at, final long from, final int length) {
        if (length > 0) {
            buffer.checkLimit(at + length);
            NodeMemory.getBytes(from, buffer, at, length);
        }
    }

    private void emit() {
        buffer.putInt(0, count, ORDER);
        sink.onChunk(buffer, 0, pos);
        bytesWritten += pos;
        pos = Integer.BYTES;
        count = 0;
    }
}
