package io.meldb.core;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * Turns an intention record back into an intention tree in node memory (meld paper App. E and §4.1; the
 * "pre-deserialization" of §5 that runs ahead of meld). Layout in {@link IntentionFormat}.
 *
 * <p>The record is copied once into the arena and keys, payloads and range bounds point into that copy, so
 * decoding allocates nodes but never copies a key twice; a payload written as a reference
 * ({@link IntentionFormat#EXT_PAYLOAD_REF}) points at the referenced committed node's payload. Each node gets its VN from the intention's CSN and its
 * post-order index; children are either earlier nodes of the record (by index) or committed nodes found by VN in
 * the {@link NodeDirectory}. Post order means children are complete before their parent, so the derived subtree
 * fields are computed in the same pass.
 *
 * <p>Everything is validated, including that the nodes form exactly one tree in canonical post order (each local
 * right child is the node just before its parent, each local left child ends just before the right subtree, and
 * the last node's subtree covers the whole record): a record that passes cannot describe a DAG or stray nodes.
 * Nodes are registered in the directory only after the whole record parsed, so a rejected record
 * ({@link IntentionFormatException}) leaves the directory untouched; its arena bytes are simply not reused until
 * the arena is reset. Not thread-safe: one decoder per thread, each with its own arena.
 */
public final class IntentionDecoder {
    private final Arena arena;
    private final NodeDirectory directory;
    /** Decoded node handles by post-order index. */
    private long[] handles = new long[256];
    /** Subtree sizes by post-order index, for the canonical post-order check. */
    private int[] sizes = new int[256];

    /** Reused view over the record's copy in node memory. */
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private UnsafeBuffer buffer;
    private int start;
    private int pos;
    private int limit;
    private long copy;
    private long csn;

    public IntentionDecoder(final Arena arena, final NodeDirectory directory) {
        if (arena == null || directory == null) {
            throw new NullPointerException(arena == null ? "arena" : "directory");
        }
        this.arena = arena;
        this.directory = directory;
    }

    /**
     * The snapshot CSN of an encoded intention, read without decoding it (a server rejects intentions whose
     * snapshot is older than the cluster's snapshot-age limit before resolving any pointer).
     */
    public static long snapshotCsnOf(final DirectBuffer record, final int offset) {
        return Varint.getLong(record, offset + IntentionFormat.VARINT_HEADER_OFFSET);
    }

    /**
     * Decodes one record as the intention with the given CSN and registers its nodes.
     *
     * @param csn the intention's ordinal in the log (1, 2, 3, ...), counted by the caller
     * @throws IntentionFormatException if the record is malformed
     * @throws NodeNotResidentException if it points to a node this replica does not hold
     */
    public Intention decode(final DirectBuffer record, final int offset, final int length, final long csn,
                            final Intention into) {
        if (csn < 1 || csn > IntentionFormat.MAX_CSN) {
            throw new IllegalArgumentException("csn " + csn + " out of range 1.." + IntentionFormat.MAX_CSN);
        }
        this.csn = csn;
        if (length < IntentionFormat.MIN_HEADER_BYTES + IntentionFormat.MIN_NODE_BYTES) {
            throw new IntentionFormatException("intention csn " + csn + ": record of " + length
                + " bytes is too short");
        }
        if (length > IntentionFormat.MAX_RECORD_LENGTH) {
            throw new IntentionFormatException("intention csn " + csn + ": record of " + length
                + " bytes exceeds the format's limit of " + IntentionFormat.MAX_RECORD_LENGTH + " bytes");
        }
        copy = arena.allocate(length);
        view.wrap(copy, length);
        buffer = view;
        start = 0;
        buffer.putBytes(start, record, offset, length);
        pos = start;
        limit = start + length;
        try {
            return parse(into);
        } finally {
            buffer = null;
        }
    }

    private Intention parse(final Intention into) {
        final int version = readByte("format version");
        if (version != IntentionFormat.VERSION && version != IntentionFormat.VERSION_EXTENDED) {
            throw fail("unsupported format version " + version);
        }
        kindsMask = version == IntentionFormat.VERSION ? IntentionFormat.POINTER_KINDS_MASK
            : IntentionFormat.POINTER_KINDS_MASK_EXTENDED;
        final int isolationCode = readByte("isolation");
        final Isolation isolation;
        try {
            isolation = Isolation.fromCode(isolationCode);
        } catch (final IllegalArgumentException ex) {
            throw fail("unknown isolation code " + isolationCode);
        }
        final int flags = readByte("intention flags");
        final long snapshotCsn = readLong("snapshot csn");
        if (snapshotCsn < 0 || snapshotCsn >= csn) {
            throw fail("snapshot csn " + snapshotCsn + " is not older than the intention");
        }
        final int nodeCount = readInt("node count");
        if (nodeCount < 1) {
            throw fail("no nodes");
        }
        if (nodeCount > IntentionFormat.MAX_NODES) {
            throw fail(nodeCount + " nodes, more than " + IntentionFormat.MAX_NODES);
        }
        final int rangeCount = readInt("range count");
        if ((long) nodeCount * IntentionFormat.MIN_NODE_BYTES + rangeCount > limit - pos) {
            throw fail(nodeCount + " nodes and " + rangeCount + " ranges cannot fit the remaining " + (limit - pos)
                + " bytes");
        }
        if (rangeCount > IntentionFormat.MAX_RANGES) {
            throw fail(rangeCount + " ranges, more than " + IntentionFormat.MAX_RANGES);
        }

        final long ranges = rangeCount == 0 ? 0 : arena.allocate(rangeCount * Intention.RANGE_SIZE);
        for (int i = 0; i < rangeCount; i++) {
            final int rangeFlags = readByte("range flags");
            if ((rangeFlags & ~IntentionFormat.RANGE_FLAGS_MASK) != 0) {
                throw fail("range " + i + " has unknown flags 0x" + Integer.toHexString(rangeFlags));
            }
            int loLength = 0;
            long lo = 0;
            if ((rangeFlags & Intention.RANGE_LO_UNBOUNDED) == 0) {
                loLength = readLength("range lower bound", "range lower bound length");
                lo = bytesHere(loLength);
            }
            int hiLength = 0;
            long hi = 0;
            if ((rangeFlags & Intention.RANGE_HI_UNBOUNDED) == 0) {
                hiLength = readLength("range upper bound", "range upper bound length");
                hi = bytesHere(hiLength);
            }
            Intention.writeRange(ranges, i, lo, loLength, hi, hiLength, snapshotCsn, rangeFlags);
        }

        if (handles.length < nodeCount) {
            final int capacity = Math.max(nodeCount, handles.length * 2);
            handles = Arrays.copyOf(handles, capacity);
            sizes = Arrays.copyOf(sizes, capacity);
        }
        for (int i = 0; i < nodeCount; i++) {
            handles[i] = readNode(i, snapshotCsn);
        }
        if (pos != limit) {
            throw fail((limit - pos) + " trailing bytes after the last node");
        }
        if (sizes[nodeCount - 1] != nodeCount) {
            throw fail("the last node is not the root of all " + nodeCount + " nodes (its subtree has "
                + sizes[nodeCount - 1] + ")");
        }

        long lowest = Long.MAX_VALUE;
        long highest = 0;
        boolean contiguous = true;
        final long first = handles[0];
        for (int i = 0; i < nodeCount; i++) {
            final long h = handles[i];
            contiguous &= h == first + (long) i * Node.SIZE;
            lowest = Math.min(lowest, h);
            highest = Math.max(highest, h);
        }
        if (contiguous) {
            directory.registerRun(Versions.vn(csn, Versions.KIND_PERSISTED, 0), first, nodeCount);
        } else {
            for (int i = 0; i < nodeCount; i++) {
                directory.register(Versions.vn(csn, Versions.KIND_PERSISTED, i), handles[i]);
            }
        }
        return into.set(csn, csn, snapshotCsn, handles[nodeCount - 1], nodeCount, isolation, flags, ranges,
            rangeCount).span(lowest, highest, nodeCount);
    }

    /** The pointer-kinds bits the record's version allows. */
    private int kindsMask;

    private long readNode(final int i, final long snapshotCsn) {
        final int flags = readByte("node flags");
        if ((flags & ~IntentionFormat.NODE_FLAGS_MASK) != 0) {
            throw fail("node " + i + " has unknown flags 0x" + Integer.toHexString(flags));
        }
        final int kinds = readByte("pointer kinds");
        final int leftKind = (kinds >>> IntentionFormat.LEFT_KIND_SHIFT) & IntentionFormat.POINTER_KIND_MASK;
        final int rightKind = (kinds >>> IntentionFormat.RIGHT_KIND_SHIFT) & IntentionFormat.POINTER_KIND_MASK;
        if ((kinds & ~kindsMask) != 0 || leftKind == IntentionFormat.POINTER_KIND_MASK
            || rightKind == IntentionFormat.POINTER_KIND_MASK) {
            throw fail("node " + i + " has invalid pointer kinds 0x" + Integer.toHexString(kinds));
        }
        final int ext = (kinds & IntentionFormat.EXTENDED) != 0 ? readByte("extension") : 0;
        if ((kinds & IntentionFormat.EXTENDED) != 0 && (ext == 0 || (ext & ~IntentionFormat.EXT_MASK) != 0)) {
            throw fail("node " + i + " has invalid extension bits 0x" + Integer.toHexString(ext));
        }
        final int height = readInt("height");
        final long scv = (kinds & IntentionFormat.HAS_SCV) != 0 ? readVersion(snapshotCsn, "SCV") : 0;
        final long ssv = (kinds & IntentionFormat.HAS_SSV) != 0 ? readVersion(snapshotCsn, "SSV") : 0;
        final int keyLength = readLength("key", "key length");
        final long key = bytesHere(keyLength);
        int payloadLength = 0;
        long payload = 0;
        boolean sharedHistory = false;
        if ((ext & IntentionFormat.EXT_PAYLOAD_REF) != 0) {
            if (ext != IntentionFormat.EXT_PAYLOAD_REF || (kinds & IntentionFormat.INCREMENT) != 0
                || (flags & (Node.ALTERED | Node.DEPENDS_ON | Node.TOMBSTONE)) != 0 || scv == 0) {
                throw fail("node " + i + " has a payload reference but is not an unaltered, unread copy of a value");
            }
            final long source = readExternal(snapshotCsn);
            if (Node.tombstone(source) || Node.ncv(source) != scv) {
                throw fail("node " + i + " has a payload reference to " + Versions.toString(Node.vn(source))
                    + ", whose content is not its SCV " + Versions.toString(scv));
            }
            payload = Node.payload(source);
            payloadLength = Node.payloadLength(source);
            sharedHistory = (Node.flags(source) & Node.HISTORY) != 0;
        } else if ((flags & Node.TOMBSTONE) == 0) {
            payloadLength = readLength("payload", "payload length");
            payload = bytesHere(payloadLength);
        }
        final boolean increment = (kinds & IntentionFormat.INCREMENT) != 0;
        if (increment && ((flags & (Node.ALTERED | Node.TOMBSTONE)) != Node.ALTERED
            || !Increment.wellFormed(payload, payloadLength))) {
            throw fail("node " + i + " is an increment without an altered value and a well-formed descriptor");
        }
        final boolean history = (ext & IntentionFormat.EXT_HISTORY) != 0;
        if (history) {
            if ((flags & (Node.ALTERED | Node.TOMBSTONE)) != 0 || scv == 0) {
                throw fail("node " + i + " has an increment history but is not an unaltered copy of a live value");
            }
            final int historyLength = limit - pos >= 9 ? 9 + 16 * (buffer.getByte(pos + 8) & 0xFF) : -1;
            if (historyLength < 0 || ColumnReads.fieldsOf(historyLength) < 1 || limit - pos < historyLength) {
                throw fail("node " + i + " has a malformed or truncated increment history");
            }
            if (payloadLength == 0) {
                // the history must follow a payload in memory: an empty payload points at it
                payload = copy + (pos - start);
            }
            final long base = buffer.getLong(pos, java.nio.ByteOrder.BIG_ENDIAN);
            if (base <= 0 || base > scv) {
                throw fail("node " + i + " has history base " + Versions.toString(base) + " newer than its content "
                    + Versions.toString(scv));
            }
            for (int e = pos + 9; e < pos + historyLength; e += 16) {
                final long version = buffer.getLong(e + 8, java.nio.ByteOrder.BIG_ENDIAN);
                if (buffer.getLong(e, java.nio.ByteOrder.BIG_ENDIAN) == 0 || version <= base || version > scv) {
                    throw fail("node " + i + " has an increment history entry outside (base, content version]");
                }
            }
            pos += historyLength;
        }
        long columns = ColumnReads.WHOLE_ROW;
        if ((ext & IntentionFormat.EXT_COLUMNS) != 0) {
            columns = readLong("column mask");
            if (columns == ColumnReads.WHOLE_ROW || (flags & Node.DEPENDS_ON) == 0) {
                throw fail("node " + i + " has a column mask without a read of some columns");
            }
        }

        final int leftIndex = leftKind == IntentionFormat.POINTER_LOCAL ? readLocal(i) : -1;
        final long leftExternal = leftKind == IntentionFormat.POINTER_EXTERNAL ? readExternal(snapshotCsn) : 0;
        final int rightIndex = rightKind == IntentionFormat.POINTER_LOCAL ? readLocal(i) : -1;
        final long rightExternal = rightKind == IntentionFormat.POINTER_EXTERNAL ? readExternal(snapshotCsn) : 0;
        int size = 1;
        if (rightIndex >= 0) {
            if (rightIndex != i - 1) {
                throw fail("node " + i + " has its right child at index " + rightIndex + ", not " + (i - 1)
                    + " as post order requires");
            }
            size += sizes[rightIndex];
        }
        if (leftIndex >= 0) {
            final int expected = i - size;
            if (leftIndex != expected) {
                throw fail("node " + i + " has its left child at index " + leftIndex + ", not " + expected
                    + " as post order requires");
            }
            size += sizes[leftIndex];
        }
        sizes[i] = size;

        final long n = arena.allocate(Node.SIZE);
        Node.key(n, key, keyLength);
        Node.payload(n, payload, payloadLength);
        Node.vn(n, Versions.vn(csn, Versions.KIND_PERSISTED, i));
        Node.scv(n, scv);
        Node.ssv(n, ssv);
        Node.flags(n, flags | (increment ? Node.INCREMENT : 0) | (history || sharedHistory ? Node.HISTORY : 0));
        Node.columns(n, columns);
        Node.left(n, leftIndex >= 0 ? handles[leftIndex] : leftExternal);
        Node.right(n, rightIndex >= 0 ? handles[rightIndex] : rightExternal);
        Node.updateDerived(n);
        Node.markExternalChildren(n, leftKind == IntentionFormat.POINTER_EXTERNAL,
            rightKind == IntentionFormat.POINTER_EXTERNAL);
        if (Node.height(n) != height) {
            throw fail("node " + i + " has height " + height + " but its children give " + Node.height(n));
        }
        return n;
    }

    private int readLocal(final int i) {
        final int delta = readInt("local pointer");
        if (delta < 1 || delta > i) {
            throw fail("node " + i + " has local pointer delta " + delta + " outside 1.." + i);
        }
        return i - delta;
    }

    private long readExternal(final long snapshotCsn) {
        final long vn = readVersion(snapshotCsn, "external pointer");
        final long handle = directory.lookup(vn);
        if (handle == 0) {
            throw new NodeNotResidentException(csn, vn);
        }
        return handle;
    }

    /** A version stored relative to the snapshot; the CSN it names must be in 1..snapshotCsn. */
    private long readVersion(final long snapshotCsn, final String what) {
        final long delta = readLong(what);
        final long low = readLong(what);
        if (delta < 0 || delta >= snapshotCsn) {
            throw fail(what + " csn delta " + delta + " does not name a csn in 1.." + snapshotCsn);
        }
        if (low > IntentionFormat.VN_LOW_MASK) {
            throw fail(what + " index 0x" + Long.toHexString(low) + " exceeds 24 bits");
        }
        return ((snapshotCsn - delta) << IntentionFormat.VN_CSN_SHIFT) | low;
    }

    /** Handle of the next {@code length} bytes of the record copy (0 for none), and skips them. */
    private long bytesHere(final int length) {
        final long handle = length == 0 ? 0 : copy + (pos - start);
        pos += length;
        return handle;
    }

    private int readByte(final String what) {
        if (pos >= limit) {
            throw fail("record ends before the " + what);
        }
        return buffer.getByte(pos++) & 0xFF;
    }

    private long readLong(final String what) {
        final int n = Varint.decodeLength(buffer, pos, limit, Varint.MAX_LONG_BYTES);
        if (n < 0) {
            throw fail("malformed or truncated varint for the " + what);
        }
        final long value = Varint.getLong(buffer, pos);
        pos += n;
        return value;
    }

    private int readInt(final String what) {
        final int n = Varint.decodeLength(buffer, pos, limit, Varint.MAX_INT_BYTES);
        if (n < 0) {
            throw fail("malformed or truncated varint for the " + what);
        }
        final long value = Varint.getLong(buffer, pos);
        if (value > Integer.MAX_VALUE) {
            throw fail(what + " " + value + " exceeds an int");
        }
        pos += n;
        return (int) value;
    }

    /**
     * A byte-string length that must fit in the rest of the record. Both names are constants: concatenating them
     * here cost a String per key and payload decoded.
     */
    private int readLength(final String what, final String whatLength) {
        final int length = readInt(whatLength);
        if (length > limit - pos) {
            throw fail(what + " length " + length + " exceeds the remaining " + (limit - pos) + " bytes");
        }
        return length;
    }

    private IntentionFormatException fail(final String problem) {
        return new IntentionFormatException("intention csn " + csn + ": " + problem + " (at record offset "
            + (pos - start) + ")");
    }
}
