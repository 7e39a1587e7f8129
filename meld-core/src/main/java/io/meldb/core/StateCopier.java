package io.meldb.core;

import org.agrona.collections.Long2LongHashMap;

/**
 * Copies committed states from one memory generation into another, node by node (meld paper App. A: what a
 * checkpoint round trip through {@link CheckpointWriter} and {@link CheckpointLoader} produces, without the
 * bytes in between). A node whose VN the target directory already resolves is not copied again, nor is anything
 * below it: nodes are immutable once melded and a VN names one node, so that subtree is already there. Copying the
 * states melded after a checkpoint therefore costs only the nodes they created.
 *
 * <p>The source states must stay unchanged and their memory alive while the copy runs (they are committed states
 * of a generation that is not freed yet); the target arena and directory belong to the calling thread. Children
 * are copied before their parents, keys and payloads into the target arena, and the same fields are kept as a
 * checkpoint keeps: the stored flags and an increment history after the payload ({@link ColumnReads}), SCV, SSV,
 * and the derived fields recomputed. A
 * payload that several source nodes share (meld's path copies keep their original's payload bytes) is copied once
 * and shared again, where a checkpoint holds one copy per node: a row of the live states is in memory once.
 */
public final class StateCopier {
    private final Arena arena;
    private final NodeDirectory directory;
    /** Payloads of at least this many bytes are shared as in the source; smaller ones are cheaper to copy. */
    private static final int SHARE_PAYLOADS_FROM = 64;

    /** Source payload bytes already copied, to their copy. */
    private final Long2LongHashMap payloads = new Long2LongHashMap(0);
    private long nodesCopied;
    private long bytesCopied;

    public StateCopier(final Arena arena, final NodeDirectory directory) {
        this.arena = arena;
        this.directory = directory;
    }

    /** Copies every node reachable from {@code root} (0 = empty state) not yet in the target; returns its handle. */
    public long copyState(final long root) {
        return root == 0 ? 0 : copy(root);
    }

    /** The target's handle of an already copied state root (0 = empty state). */
    public long resolve(final long root) {
        if (root == 0) {
            return 0;
        }
        final long h = directory.lookup(Node.vn(root));
        if (h == 0) {
            throw new IllegalStateException("state root " + Versions.toString(Node.vn(root)) + " was not copied");
        }
        return h;
    }

    public long nodesCopied() {
        return nodesCopied;
    }

    public long bytesCopied() {
        return bytesCopied;
    }

    private long copy(final long n) {
        final long vn = Node.vn(n);
        final long existing = directory.lookup(vn);
        if (existing != 0) {
            return existing;
        }
        final long l = Node.left(n);
        final long r = Node.right(n);
        final long left = l == 0 ? 0 : copy(l);
        final long right = r == 0 ? 0 : copy(r);
        final int keyLength = Node.keyLength(n);
        final int payloadLength = Node.payloadLength(n);
        final int historyLength = ColumnReads.historyLength(n);
        final long c = arena.allocate(Node.SIZE);
        Node.key(c, bytes(Node.key(n), keyLength), keyLength);
        Node.payload(c, historyLength == 0 ? payload(Node.payload(n), payloadLength)
            : bytes(Node.payload(n), payloadLength + historyLength), payloadLength);
        Node.vn(c, vn);
        Node.scv(c, Node.scv(n));
        Node.ssv(c, Node.ssv(n));
        Node.flags(c, Node.flags(n) & (CheckpointWriter.STORED_FLAGS | Node.HISTORY));
        Node.left(c, left);
        Node.right(c, right);
        Node.updateDerived(c);
        directory.register(vn, c);
        nodesCopied++;
        bytesCopied += Node.SIZE + keyLength + historyLength;
        return c;
    }

    private long payload(final long from, final int length) {
        if (length < SHARE_PAYLOADS_FROM) {
            bytesCopied += length;
            return bytes(from, length);
        }
        final long shared = payloads.get(from);
        if (shared != 0) {
            return shared;
        }
        bytesCopied += length;
        final long to = bytes(from, length);
        payloads.put(from, to);
        return to;
    }

    private long bytes(final long from, final int length) {
        if (length == 0) {
            return 0;
        }
        final long to = arena.allocate(length);
        NodeMemory.copy(from, to, length);
        return to;
    }
}
