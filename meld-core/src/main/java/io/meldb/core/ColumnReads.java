package io.meldb.core;

/**
 * Column-granular reads against increments (issue 21; seed 002 §3.2's commutativity taken down to the bytes a read
 * used). A point read may say which bytes of the value it used, as a <em>byte mask</em>: bit {@code i} (0–62) is
 * byte {@code i} of the value, bit 63 every byte from 63 on. An increment ({@link Increment}) touches the bytes of
 * its field. Meld lets a read stand against a newer version of the key when every change since the version it read
 * was an increment of bytes outside its mask, because those increments leave the bytes it used (and the value's
 * length and existence) as it read them: the read is still valid at the point of the serial order meld melds it.
 *
 * <p>The committed side: a node whose content was made by applying increments carries a <em>history</em> right after
 * its payload (flag {@link Node#HISTORY}; big-endian): the content version of the last write that was not an
 * increment ({@code base}), then for each field incremented since, its byte mask and the version of its latest
 * increment:
 * <pre>
 *   base u64 | count u8 (1..MAX_FIELDS) | count x (mask u64 | version u64)
 * </pre>
 * A read of mask R that saw version {@code seen} still holds iff {@code base <= seen} and every field whose mask meets
 * R was last incremented at or before {@code seen}: exactly "no transaction after the read's snapshot wrote the key or
 * incremented a byte it used". Past {@link #MAX_FIELDS} fields, the new field joins the entry incremented longest ago
 * (the union of their bytes at the newer version: a read may then abort that need not, never the reverse). The history
 * belongs to the content, so every node that takes a payload takes its history with it (copy-on-write, meld's
 * copies, the codec and checkpoints carry it), and every replica holds the same history for the same version of a
 * key. A node without one has base = its own content version and no increments.
 *
 * <p>Mask 0 means "the whole row" (or not known), the rule before this class: a version check of the key.
 */
public final class ColumnReads {
    /** The whole value, or a read that did not say. */
    public static final long WHOLE_ROW = 0;
    /** The mask of every byte ({@code bytes(0, Integer.MAX_VALUE)}): a read of it is a read of the whole row. */
    public static final long EVERY_BYTE = -1L;
    /** Most fields a history tracks one by one. */
    public static final int MAX_FIELDS = 8;
    private static final int ENTRIES_AT = 9;
    private static final int ENTRY_BYTES = 16;
    private static final int REST = 63;

    private ColumnReads() {
    }

    /**
     * The mask of value bytes {@code [from, to)}; {@code to} = {@link Integer#MAX_VALUE} for "to the end of the
     * value". Bytes from 63 on share bit 63. An empty range gives {@link #WHOLE_ROW}'s 0 only if nothing else is added.
     */
    public static long bytes(final int from, final int to) {
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("byte range [" + from + ", " + to + ")");
        }
        long mask = 0;
        final int last = Math.min(to, REST);
        for (int i = Math.min(from, REST); i < last; i++) {
            mask |= 1L << i;
        }
        if (to > REST) {
            mask |= 1L << REST;
        }
        return mask;
    }

    /** The bytes an increment of a {@code width}-byte field at {@code offset} writes. */
    static long touched(final int offset, final int width) {
        return bytes(offset, offset + width);
    }

    /** Bytes of history after {@code n}'s payload (0 without {@link Node#HISTORY}). */
    static int historyLength(final long n) {
        return (Node.flags(n) & Node.HISTORY) != 0 ? historyLength(Node.payload(n), Node.payloadLength(n)) : 0;
    }

    /** Bytes of the history that starts after a payload of {@code length} bytes at {@code payload}. */
    static int historyLength(final long payload, final int length) {
        return ENTRIES_AT + ENTRY_BYTES * (NodeMemory.getByte(payload, length + 8) & 0xFF);
    }

    /** The fields a history of {@code length} bytes holds, or -1 if no history is that long. */
    static int fieldsOf(final int length) {
        final int fields = (length - ENTRIES_AT) / ENTRY_BYTES;
        return length >= ENTRIES_AT + ENTRY_BYTES && fields <= MAX_FIELDS
            && length == ENTRIES_AT + ENTRY_BYTES * fields ? fields : -1;
    }

    /** The base version of {@code n}'s content: of the last write that was not an increment. */
    static long base(final long n) {
        return (Node.flags(n) & Node.HISTORY) != 0
            ? NodeMemory.getLongBigEndian(Node.payload(n), Node.payloadLength(n)) : Node.ncv(n);
    }

    /**
     * Meld's conflict test for intention node {@code p} (flags {@code pFlags}) against the state's node {@code m} of
     * the same key: the state's content is newer than what {@code p} saw, and, for a read that named its bytes
     * (alone or with an increment), newer in a byte it named or in a write that was not an increment. A write keeps
     * the row-level test; an increment without a read checks no version (it depends on existence only).
     */
    static boolean conflicts(final int pFlags, final long p, final long m) {
        if ((pFlags & (Node.ALTERED | Node.DEPENDS_ON)) == 0
            || (pFlags & (Node.INCREMENT | Node.DEPENDS_ON)) == Node.INCREMENT) {
            return false;
        }
        final long seen = Node.scv(p);
        if (Node.ncv(m) <= seen) {
            return false;
        }
        final long columns = Node.columns(p);
        if (columns == WHOLE_ROW || (pFlags & (Node.ALTERED | Node.INCREMENT)) == Node.ALTERED
            || (Node.flags(m) & Node.HISTORY) == 0) {
            return true;
        }
        final long h = Node.payload(m);
        final int at = Node.payloadLength(m);
        if (NodeMemory.getLongBigEndian(h, at) > seen) {
            return true;
        }
        final int fields = NodeMemory.getByte(h, at + 8) & 0xFF;
        for (int i = 0; i < fields; i++) {
            final int e = at + ENTRIES_AT + i * ENTRY_BYTES;
            if ((NodeMemory.getLongBigEndian(h, e) & columns) != 0 && NodeMemory.getLongBigEndian(h, e + 8) > seen) {
                return true;
            }
        }
        return false;
    }

    /** Bytes of the history a value made from committed node {@code m} by an increment of {@code touched} carries. */
    static int historyLengthAfter(final long m, final long touched) {
        if ((Node.flags(m) & Node.HISTORY) == 0) {
            return ENTRIES_AT + ENTRY_BYTES;
        }
        final long h = Node.payload(m);
        final int at = Node.payloadLength(m);
        final int fields = NodeMemory.getByte(h, at + 8) & 0xFF;
        for (int i = 0; i < fields; i++) {
            if (NodeMemory.getLongBigEndian(h, at + ENTRIES_AT + i * ENTRY_BYTES) == touched) {
                return ENTRIES_AT + ENTRY_BYTES * fields;
            }
        }
        return ENTRIES_AT + ENTRY_BYTES * Math.min(fields + 1, MAX_FIELDS);
    }

    /**
     * Writes, after the {@code length}-byte value at {@code payload}, the history of the content that an increment of
     * {@code touched} bytes made from committed node {@code m} at version {@code version}; {@link #historyLengthAfter}
     * bytes.
     */
    static void writeHistory(final long payload, final int length, final long m, final long touched,
                             final long version) {
        if ((Node.flags(m) & Node.HISTORY) == 0) {
            NodeMemory.putLongBigEndian(payload, length, Node.ncv(m));
            NodeMemory.putByte(payload, length + 8, (byte) 1);
            NodeMemory.putLongBigEndian(payload, length + ENTRIES_AT, touched);
            NodeMemory.putLongBigEndian(payload, length + ENTRIES_AT + 8, version);
            return;
        }
        final long h = Node.payload(m);
        final int at = Node.payloadLength(m);
        final int old = historyLength(h, at);
        NodeMemory.copy(h + at, payload + length, old);
        final int fields = NodeMemory.getByte(h, at + 8) & 0xFF;
        int slot = -1;
        int oldest = 0;
        for (int i = 0; i < fields; i++) {
            final int e = length + ENTRIES_AT + i * ENTRY_BYTES;
            if (NodeMemory.getLongBigEndian(payload, e) == touched) {
                slot = i;
            }
            if (NodeMemory.getLongBigEndian(payload, e + 8)
                < NodeMemory.getLongBigEndian(payload, length + ENTRIES_AT + oldest * ENTRY_BYTES + 8)) {
                oldest = i;
            }
        }
        long mask = touched;
        if (slot < 0 && fields < MAX_FIELDS) {
            slot = fields;
            NodeMemory.putByte(payload, length + 8, (byte) (fields + 1));
        } else if (slot < 0) {
            slot = oldest;
            mask |= NodeMemory.getLongBigEndian(payload, length + ENTRIES_AT + oldest * ENTRY_BYTES);
        }
        NodeMemory.putLongBigEndian(payload, length + ENTRIES_AT + slot * ENTRY_BYTES, mask);
        NodeMemory.putLongBigEndian(payload, length + ENTRIES_AT + slot * ENTRY_BYTES + 8, version);
    }
}
