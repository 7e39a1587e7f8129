package io.meldb.core;

import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;
import java.util.List;

/**
 * Serializes a transaction's intention tree into an intention record (meld paper App. E and §4.1; Hyder II §5.2:
 * "an intention tree is serialized ... via a post-order tree traversal"). Layout in {@link IntentionFormat}.
 *
 * <p>The intention is the set of nodes the transaction owns (VN still 0, {@link Transaction#owned}); every other
 * node it points to is committed and is referred to by VN. Post order puts children before parents, so the reader
 * can build the tree bottom-up in one pass and derive each node's VN from its position.
 *
 * <p>The traversal runs first and records the owned nodes and their children's indices; then one pass writes the
 * record. Only a transaction whose running size bound ({@link Transaction#intentionBytesBound()}) is over the limit
 * is measured exactly before that, so that an intention over the limit is rejected before a byte is written.
 * Work arrays are reused across calls. Not thread-safe: one encoder per executor thread.
 */
public final class IntentionEncoder {
    /** Traversal stack; bit 0 of an entry marks "children already pushed" (node handles are 8-byte aligned). */
    private long[] stack = new long[64];
    /** Post-order indices of finished subtrees not yet claimed by their parent. */
    private int[] pending = new int[64];
    private long[] order = new long[256];
    private int[] leftIndex = new int[256];
    private int[] rightIndex = new int[256];

    /** Nodes the reused work arrays have room for (they grow with the largest intention encoded). */
    public int capacity() {
        return order.length;
    }

    /**
     * Writes the intention of {@code txn} at offset 0 of {@code dst}, up to the format's limit.
     *
     * @see #encode(Transaction, int, ExpandableDirectByteBuffer, int, int)
     */
    public int encode(final Transaction txn, final int intentionFlags, final ExpandableDirectByteBuffer dst) {
        return encode(txn, intentionFlags, dst, 0, IntentionFormat.MAX_RECORD_LENGTH);
    }

    /**
     * Writes the intention of {@code txn} at {@code offset} of {@code dst} (a server puts its log header in
     * front without copying the record).
     *
     * @param intentionFlags {@link Intention} flags (one byte)
     * @param maxLength      largest record accepted, at most {@link IntentionFormat#MAX_RECORD_LENGTH}
     * @return the record length
     * @throws IllegalArgumentException if the transaction owns no node, the record would exceed
     *                                  {@code maxLength}, or the tree refers to a version its snapshot cannot
     *                                  contain
     */
    public int encode(final Transaction txn, final int intentionFlags, final ExpandableDirectByteBuffer dst,
                      final int offset, final int maxLength) {
        if ((intentionFlags & ~0xFF) != 0) {
            throw new IllegalArgumentException("intention flags 0x" + Integer.toHexString(intentionFlags)
                + " do not fit a byte");
        }
        if (maxLength < 1 || maxLength > IntentionFormat.MAX_RECORD_LENGTH || offset < 0
            || (long) offset + maxLength > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("offset " + offset + " and limit " + maxLength + " out of range");
        }
        final long root = txn.root();
        if (!Transaction.owned(root)) {
            throw new IllegalArgumentException("the transaction owns no node: a transaction without writes needs no"
                + " intention");
        }
        final long snapshotCsn = txn.snapshot().csn();
        if (snapshotCsn < 0 || snapshotCsn >= IntentionFormat.MAX_CSN) {
            throw new IllegalArgumentException("snapshot csn " + snapshotCsn + " out of range");
        }
        final List<RangeDependency> ranges = txn.ranges();
        final int rangeCount = ranges.size();
        if (rangeCount > IntentionFormat.MAX_RANGES) {
            throw new IllegalArgumentException("intention has " + rangeCount + " range dependencies, more than "
                + IntentionFormat.MAX_RANGES);
        }

        final int nodeCount = collect(root, snapshotCsn);
        long size = -1;
        if (txn.intentionBytesBound() > maxLength) {
            // it may be too large: measured exactly first, so that it is refused before a byte is written
            size = exactSize(txn, nodeCount, snapshotCsn);
            if (size > maxLength) {
                throw new IllegalArgumentException("intention of " + size + " bytes exceeds the limit of "
                    + maxLength + " bytes");
            }
        }
        // else one pass: the transaction's running bound says it fits, so the record is written as it is measured
        // (sizing every node first walked the nodes twice for the same answer); the limit is checked as it goes
        final long limit = (long) offset + maxLength;
        // room for the whole record at once, then plain writes: growing the buffer was checked on every byte
        // (and the slack of a node's worst case, which writeNode checks before it writes)
        dst.checkLimit((int) (offset + (size >= 0 ? size : txn.intentionBytesBound()) + NODE_MAX_FIXED));
        final UnsafeBuffer out = this.out;
        out.wrap(dst.addressOffset(), dst.capacity());
        int pos = offset;
        out.putByte(pos++, IntentionFormat.VERSION); // made VERSION_EXTENDED below if a node has an extension
        out.putByte(pos++, (byte) txn.isolation().code());
        out.putByte(pos++, (byte) intentionFlags);
        pos = Varint.putLong(out, pos, snapshotCsn);
        pos = Varint.putInt(out, pos, nodeCount);
        pos = Varint.putInt(out, pos, rangeCount);
        for (int i = 0; i < rangeCount; i++) {
            pos = writeRange(out, pos, ranges.get(i));
        }
        extended = false;
        final long base = dst.addressOffset();
        final int capacity = dst.capacity();
        for (int i = 0; i < nodeCount; i++) {
            pos = writeNode(base, capacity, pos, i, snapshotCsn);
            if (pos > limit) {
                throw new IllegalStateException("intention exceeds the limit of " + maxLength + " bytes although"
                    + " its transaction's bound was " + txn.intentionBytesBound());
            }
        }
        if (extended) {
            out.putByte(offset, IntentionFormat.VERSION_EXTENDED);
        }
        if (size >= 0 && pos - offset != size) {
            throw new IllegalStateException("encoded " + (pos - offset) + " bytes but sized the record at " + size);
        }
        return pos - offset;
    }

    /** The record's exact size, from the nodes {@link #collect} found. */
    private long exactSize(final Transaction txn, final int nodeCount, final long snapshotCsn) {
        final List<RangeDependency> ranges = txn.ranges();
        final int rangeCount = ranges.size();
        long size = 3 + Varint.sizeOf(snapshotCsn) + Varint.sizeOf(rangeCount) + Varint.sizeOf(nodeCount);
        for (int i = 0; i < rangeCount; i++) {
            final RangeDependency range = ranges.get(i);
            size += 1;
            if (range.lo() != null) {
                size += Varint.sizeOf(range.lo().length) + range.lo().length;
            }
            if (range.hi() != null) {
                size += Varint.sizeOf(range.hi().length) + range.hi().length;
            }
        }
        for (int i = 0; i < nodeCount; i++) {
            size += nodeSize(i, snapshotCsn);
        }
        return size;
    }

    /** Post-order traversal of the owned nodes into {@code order}; returns their number. */
    private int collect(final long root, final long snapshotCsn) {
        int sp = 0;
        int pendingCount = 0;
        int count = 0;
        stack[sp++] = root;
        while (sp > 0) {
            final long top = stack[sp - 1];
            if ((top & 1) == 0) {
                if ((top & 7) != 0) {
                    throw new IllegalStateException("node handle 0x" + Long.toHexString(top) + " is not aligned");
                }
                stack[sp - 1] = top | 1;
                final long right = Node.right(top);
                final long left = Node.left(top);
                if (sp + 2 > stack.length) {
                    stack = Arrays.copyOf(stack, stack.length * 2);
                }
                if (Transaction.owned(right)) {
                    stack[sp++] = right;
                }
                if (Transaction.owned(left)) {
                    stack[sp++] = left;
                }
                continue;
            }
            sp--;
            final long n = top & ~1L;
            final int right = Transaction.owned(Node.right(n)) ? pending[--pendingCount] : -1;
            final int left = Transaction.owned(Node.left(n)) ? pending[--pendingCount] : -1;
            if (count == IntentionFormat.MAX_NODES) {
                throw new IllegalArgumentException("intention has more than " + IntentionFormat.MAX_NODES + " nodes");
            }
            if (count == order.length) {
                order = Arrays.copyOf(order, count * 2);
                leftIndex = Arrays.copyOf(leftIndex, count * 2);
                rightIndex = Arrays.copyOf(rightIndex, count * 2);
            }
            check(n, snapshotCsn);
            order[count] = n;
            leftIndex[count] = left;
            rightIndex[count] = right;
            if (pendingCount == pending.length) {
                pending = Arrays.copyOf(pending, pending.length * 2);
            }
            pending[pendingCount++] = count;
            count++;
        }
        return count;
    }

    /** Rejects a node the format cannot represent faithfully (a bug in whoever built the tree). */
    private static void check(final long n, final long snapshotCsn) {
        final int flags = Node.flags(n);
        if ((flags & ~(IntentionFormat.NODE_FLAGS_MASK | IntentionFormat.DERIVED_NODE_FLAGS | Node.INCREMENT
            | Node.HISTORY | Node.PAYLOAD_SHARED)) != 0) {
            throw new IllegalArgumentException("node has unknown flags 0x" + Integer.toHexString(flags));
        }
        if (Node.height(n) < 1) {
            throw new IllegalArgumentException("node has height " + Node.height(n));
        }
        checkVersion(Node.scv(n), snapshotCsn, "SCV");
        checkVersion(Node.ssv(n), snapshotCsn, "SSV");
        final long left = Node.left(n);
        if (left != 0 && !Transaction.owned(left)) {
            checkVersion(Node.vn(left), snapshotCsn, "left child");
        }
        final long right = Node.right(n);
        if (right != 0 && !Transaction.owned(right)) {
            checkVersion(Node.vn(right), snapshotCsn, "right child");
        }
        final long source = Node.sharedPayloadSource(n);
        if (source != 0) {
            checkVersion(source, snapshotCsn, "payload source");
        }
    }

    private static void checkVersion(final long v, final long snapshotCsn, final String what) {
        if (v == 0) {
            return;
        }
        final long csn = Versions.csnOf(v);
        if (csn < 1 || csn > snapshotCsn) {
            throw new IllegalArgumentException(what + " " + Versions.toString(v) + " is not in snapshot "
                + snapshotCsn);
        }
    }

    private static int versionSize(final long v, final long snapshotCsn) {
        return Varint.sizeOf(snapshotCsn - Versions.csnOf(v)) + Varint.sizeOf(v & IntentionFormat.VN_LOW_MASK);
    }

    private int pointerSize(final long child, final int childIndex, final int ownIndex, final long snapshotCsn) {
        if (childIndex >= 0) {
            return Varint.sizeOf(ownIndex - childIndex);
        }
        return child == 0 ? 0 : versionSize(Node.vn(child), snapshotCsn);
    }

    private static int pointerKind(final long child, final int childIndex) {
        if (childIndex >= 0) {
            return IntentionFormat.POINTER_LOCAL;
        }
        return child == 0 ? IntentionFormat.POINTER_NULL : IntentionFormat.POINTER_EXTERNAL;
    }

    /** Whether a node of the record being encoded has an extension byte (the record is then version 2). */
    private boolean extended;

    /**
     * The extension bits of node {@code n} ({@link IntentionFormat#EXT_MASK}), 0 for none; {@code source} is the VN
     * its payload refers to ({@link #payloadReference}), 0 for none.
     */
    private static int extension(final long n, final long source) {
        if (source != 0) {
            return IntentionFormat.EXT_PAYLOAD_REF;
        }
        final int flags = Node.flags(n);
        return ((flags & Node.HISTORY) != 0 ? IntentionFormat.EXT_HISTORY : 0)
            | ((flags & Node.DEPENDS_ON) != 0 && Node.columns(n) != ColumnReads.WHOLE_ROW ? IntentionFormat.EXT_COLUMNS : 0);
    }

    /**
     * The VN of the committed node whose payload node {@code n} is written as a reference to, or 0 to write the
     * payload: an unchanged path copy ({@link Node#sharedPayloadSource}) whose reference is {@link #referenced
     * shorter}.
     */
    private static long payloadReference(final long n, final long snapshotCsn) {
        final long source = Node.sharedPayloadSource(n);
        return source != 0 && referenced(n, referenceSize(source, snapshotCsn)) ? source : 0;
    }

    /**
     * Whether node {@code n}'s payload ({@link #payloadSize}) is written as a reference of {@code referenceSize}
     * bytes: when that saves at least {@link #MIN_REFERENCE_SAVING} bytes, enough to be worth the directory lookup
     * that resolves it. The transaction's size bound makes the same choice. Most payloads decide by their length;
     * only a short one reads its increment history's length, in the payload's memory.
     */
    static boolean referenced(final long n, final int referenceSize) {
        final int length = Node.payloadLength(n);
        final int needed = referenceSize + MIN_REFERENCE_SAVING;
        return Varint.sizeOf(length) + length >= needed || payloadSize(n) >= needed;
    }

    static final int MIN_REFERENCE_SAVING = 16;

    /** Bytes of a payload reference to the node with VN {@code sourceVn} (its extension byte included). */
    static int referenceSize(final long sourceVn, final long snapshotCsn) {
        return 1 + versionSize(sourceVn, snapshotCsn);
    }

    /** Bytes of {@code n}'s payload written out: length, bytes, and an increment history with its extension byte. */
    static int payloadSize(final long n) {
        final int length = Node.payloadLength(n);
        return Varint.sizeOf(length) + length + ((Node.flags(n) & Node.HISTORY) != 0 ? 1 + ColumnReads.historyLength(n) : 0);
    }

    private long nodeSize(final int i, final long snapshotCsn) {
        final long n = order[i];
        long size = 2 + Varint.sizeOf(Node.height(n));
        final long source = payloadReference(n, snapshotCsn);
        final int ext = extension(n, source);
        if (source != 0) {
            size += referenceSize(source, snapshotCsn);
        } else if (ext != 0) {
            size += 1 + ColumnReads.historyLength(n)
                + ((ext & IntentionFormat.EXT_COLUMNS) != 0 ? Varint.sizeOf(Node.columns(n)) : 0);
        }
        final long scv = Node.scv(n);
        if (scv != 0) {
            size += versionSize(scv, snapshotCsn);
        }
        final long ssv = Node.ssv(n);
        if (ssv != 0) {
            size += versionSize(ssv, snapshotCsn);
        }
        size += Varint.sizeOf(Node.keyLength(n)) + Node.keyLength(n);
        if (!Node.tombstone(n) && source == 0) {
            size += Varint.sizeOf(Node.payloadLength(n)) + Node.payloadLength(n);
        }
        size += pointerSize(Node.left(n), leftIndex[i], i, snapshotCsn);
        size += pointerSize(Node.right(n), rightIndex[i], i, snapshotCsn);
        return size;
    }

    /**
     * Most bytes a node takes besides its key, payload and history: flags, kinds and extension bytes, the height
     * varint, three version references (SCV, SSV, payload) and two pointers of at most 14 bytes each, the key and
     * payload length varints, and a column mask varint.
     */
    private static final int NODE_MAX_FIXED = 3 + Varint.MAX_INT_BYTES + 5 * 14 + 2 * Varint.MAX_INT_BYTES
        + Varint.MAX_LONG_BYTES;

    /**
     * Writes node {@code i} at {@code start} of the record in memory at {@code base} ({@code capacity} bytes), with
     * one bounds check for the whole node and plain stores after it: the encoder's share of a commit is these
     * stores, and a checked, virtual store per byte doubled it.
     */
    private int writeNode(final long base, final int capacity, final int start, final int i, final long snapshotCsn) {
        final long n = order[i];
        final int keyLength = Node.keyLength(n);
        final int payloadLength = Node.payloadLength(n);
        final int historyLength = ColumnReads.historyLength(n);
        final long left = Node.left(n);
        final long right = Node.right(n);
        final long scv = Node.scv(n);
        final long ssv = Node.ssv(n);
        final int flags = Node.flags(n);
        final int kinds = pointerKind(left, leftIndex[i]) << IntentionFormat.LEFT_KIND_SHIFT
            | pointerKind(right, rightIndex[i]) << IntentionFormat.RIGHT_KIND_SHIFT
            | (scv != 0 ? IntentionFormat.HAS_SCV : 0)
            | (ssv != 0 ? IntentionFormat.HAS_SSV : 0)
            | ((flags & Node.INCREMENT) != 0 ? IntentionFormat.INCREMENT : 0);
        final long source = payloadReference(n, snapshotCsn);
        final int ext = extension(n, source);
        if (ext != 0) {
            extended = true;
        }
        // a referenced payload (and its history) is not written: the transaction's bound did not count it either
        final long written = source != 0 || (flags & Node.TOMBSTONE) != 0 ? 0 : (long) payloadLength + historyLength;
        if ((long) start + NODE_MAX_FIXED + keyLength + written > capacity) {
            throw new IllegalStateException("node " + i + " of the intention does not fit the " + capacity
                + " bytes reserved for its record");
        }
        long at = base + start;
        UnsafeApi.putByte(at++, (byte) (flags & IntentionFormat.NODE_FLAGS_MASK));
        UnsafeApi.putByte(at++, (byte) (ext != 0 ? kinds | IntentionFormat.EXTENDED : kinds));
        if (ext != 0) {
            UnsafeApi.putByte(at++, (byte) ext);
        }
        at = Varint.putLong(at, Node.height(n));
        if (scv != 0) {
            at = putVersion(at, scv, snapshotCsn);
        }
        if (ssv != 0) {
            at = putVersion(at, ssv, snapshotCsn);
        }
        at = putBytes(at, Node.key(n), keyLength);
        if (source != 0) {
            at = putVersion(at, source, snapshotCsn);
        } else if ((flags & Node.TOMBSTONE) == 0) {
            at = putBytes(at, Node.payload(n), payloadLength);
        }
        if ((ext & IntentionFormat.EXT_HISTORY) != 0) {
            copy(Node.payload(n) + payloadLength, at, historyLength);
            at += historyLength;
        }
        if ((ext & IntentionFormat.EXT_COLUMNS) != 0) {
            at = Varint.putLong(at, Node.columns(n));
        }
        at = putPointer(at, left, leftIndex[i], i, snapshotCsn);
        at = putPointer(at, right, rightIndex[i], i, snapshotCsn);
        return (int) (at - base);
    }

    private static long putVersion(final long at, final long v, final long snapshotCsn) {
        return Varint.putLong(Varint.putLong(at, snapshotCsn - Versions.csnOf(v)), v & IntentionFormat.VN_LOW_MASK);
    }

    private static long putPointer(final long at, final long child, final int childIndex, final int ownIndex,
                                   final long snapshotCsn) {
        if (childIndex >= 0) {
            return Varint.putLong(at, ownIndex - childIndex);
        }
        return child == 0 ? at : putVersion(at, Node.vn(child), snapshotCsn);
    }

    private static long putBytes(final long address, final long handle, final int length) {
        final long at = Varint.putLong(address, length);
        copy(handle, at, length);
        return at + length;
    }

    /** Copies node memory (checked like any read of it) into the record's memory (not node memory). */
    private static void copy(final long from, final long to, final int length) {
        if (length > 0) {
            if (NodeMemory.CHECKS) {
                NodeMemory.getByte(from, length - 1);
            }
            UnsafeApi.copyMemory(from, to, length);
        }
    }

    /** Reused view of the destination's memory while a record is written. */
    private final org.agrona.concurrent.UnsafeBuffer out = new org.agrona.concurrent.UnsafeBuffer(0, 0);

    private static int writeRange(final UnsafeBuffer dst, final int start, final RangeDependency range) {
        final byte[] lo = range.lo();
        final byte[] hi = range.hi();
        final int flags = (lo == null ? Intention.RANGE_LO_UNBOUNDED : 0)
            | (range.loInclusive() ? Intention.RANGE_LO_INCLUSIVE : 0)
            | (hi == null ? Intention.RANGE_HI_UNBOUNDED : 0)
            | (range.hiInclusive() ? Intention.RANGE_HI_INCLUSIVE : 0);
        int pos = start;
        dst.putByte(pos++, (byte) flags);
        if (lo != null) {
            pos = Varint.putInt(dst, pos, lo.length);
            dst.putBytes(pos, lo);
            pos += lo.length;
        }
        if (hi != null) {
            pos = Varint.putInt(dst, pos, hi.length);
            dst.putBytes(pos, hi);
            pos += hi.length;
        }
        return pos;
    }
}
