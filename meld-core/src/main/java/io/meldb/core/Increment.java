package io.meldb.core;

import java.nio.ByteBuffer;

/**
 * The increment descriptor and its application (seed 002 §3.2 "commutative operations", §4.4 deferred execution
 * inside the certifier). An {@link Node#INCREMENT} node's payload is the value its transaction sees (its snapshot's
 * value with its own delta applied) followed by this descriptor:
 *
 * <pre>
 *   offset u32 | width u8 | flags u8 (bit 0: presence byte) | delta i64 | min i64 | max i64     (big-endian, 30 bytes)
 * </pre>
 *
 * Final meld does not compare versions for such a node: it checks that the last committed value has the field
 * ({@link #check}) and writes committed value + delta ({@link #apply}), so concurrent increments of one key commute.
 * Both run inside meld and allocate nothing on the heap.
 */
public final class Increment {
    public static final int DESCRIPTOR_LENGTH = 30;
    private static final int DELTA_AT = 6;
    private static final int MIN_AT = 14;
    private static final int MAX_AT = 22;
    private static final int PRESENCE = 1;

    private Increment() {
    }

    /** The value the transaction sees after adding {@code delta} to {@code field} of {@code value}, with the descriptor. */
    static byte[] first(final byte[] value, final IntField field, final long delta) {
        final long result = addChecked(fieldOf(value, value.length, field), delta, field);
        final ByteBuffer out = ByteBuffer.allocate(value.length + DESCRIPTOR_LENGTH);
        out.put(value);
        writeField(out.array(), field.offset(), field.width(), result);
        out.putInt(field.offset()).put((byte) field.width()).put((byte) (field.presenceByte() ? PRESENCE : 0))
            .putLong(delta).putLong(field.min()).putLong(field.max());
        return out.array();
    }

    /**
     * {@link #first} of node {@code n}'s value, read from node memory and written into {@code arena}: the same
     * bytes, with no array on the heap (the SQL fast path's UPDATE ... SET c = c + ?). Answers the new payload's
     * handle; its length is the value's plus {@link #DESCRIPTOR_LENGTH}. Nothing is allocated when it throws.
     */
    static long firstInArena(final Arena arena, final long n, final IntField field, final long delta) {
        final int length = Node.valueLength(n);
        final long value = Node.payload(n);
        final long result = addChecked(fieldOf(value, length, field), delta, field);
        final long out = arena.allocate(length + DESCRIPTOR_LENGTH);
        NodeMemory.copy(value, out, length);
        putBigEndian(out, field.offset(), field.width(), result);
        putBigEndian(out, length, 4, field.offset());
        NodeMemory.putByte(out, length + 4, (byte) field.width());
        NodeMemory.putByte(out, length + 5, (byte) (field.presenceByte() ? PRESENCE : 0));
        putBigEndian(out, length + DELTA_AT, 8, delta);
        putBigEndian(out, length + MIN_AT, 8, field.min());
        putBigEndian(out, length + MAX_AT, 8, field.max());
        return out;
    }

    /**
     * A further increment of increment node {@code n}'s payload, read from node memory and written into {@code arena};
     * the visible value and the recorded delta both grow by {@code delta}. Answers the new payload's handle (of {@code
     * n}'s payload length), or 0, having allocated nothing, if {@code field} is not the recorded field.
     */
    static long againInArena(final Arena arena, final long n, final IntField field, final long delta) {
        final int length = Node.payloadLength(n);
        final long payload = Node.payload(n);
        final int valueLength = length - DESCRIPTOR_LENGTH;
        final long d = payload + valueLength;
        if (descriptorInt(d) != field.offset() || NodeMemory.getByte(d, 4) != field.width()
            || ((NodeMemory.getByte(d, 5) & PRESENCE) != 0) != field.presenceByte()
            || NodeMemory.getLongBigEndian(d, MIN_AT) != field.min()
            || NodeMemory.getLongBigEndian(d, MAX_AT) != field.max()) {
            return 0;
        }
        final long result = addChecked(fieldOf(payload, valueLength, field), delta, field);
        final long total;
        try {
            total = Math.addExact(NodeMemory.getLongBigEndian(d, DELTA_AT), delta);
        } catch (ArithmeticException e) {
            throw new IncrementException(AbortReason.INCREMENT_OUT_OF_RANGE, "the transaction's total delta overflows");
        }
        final long out = arena.allocate(length);
        NodeMemory.copy(payload, out, length);
        putBigEndian(out, field.offset(), field.width(), result);
        putBigEndian(out, valueLength + DELTA_AT, 8, total);
        return out;
    }

    /** {@link #fieldOf(byte[], int, IntField)} of a value in node memory. */
    private static long fieldOf(final long value, final int length, final IntField field) {
        if (length < field.offset() + field.width()) {
            throw new IncrementException(AbortReason.INCREMENT_NO_FIELD, "the value has " + length
                + " bytes; the field needs " + (field.offset() + field.width()));
        }
        if (field.presenceByte() && NodeMemory.getByte(value, field.offset() - 1) != 1) {
            throw new IncrementException(AbortReason.INCREMENT_NULL, "the field is null");
        }
        return readField(value, field.offset(), field.width());
    }

    private static void putBigEndian(final long handle, final int at, final int width, final long v) {
        for (int i = 0; i < width; i++) {
            NodeMemory.putByte(handle, at + i, (byte) (v >>> (8 * (width - 1 - i))));
        }
    }

    private static long fieldOf(final byte[] value, final int length, final IntField field) {
        if (length < field.offset() + field.width()) {
            throw new IncrementException(AbortReason.INCREMENT_NO_FIELD, "the value has " + length
                + " bytes; the field needs " + (field.offset() + field.width()));
        }
        if (field.presenceByte() && value[field.offset() - 1] != 1) {
            throw new IncrementException(AbortReason.INCREMENT_NULL, "the field is null");
        }
        long v = value[field.offset()];
        for (int i = 1; i < field.width(); i++) {
            v = v << 8 | (value[field.offset() + i] & 0xFF);
        }
        return v;
    }

    private static long addChecked(final long value, final long delta, final IntField field) {
        final long sum = value + delta;
        if (((value ^ sum) & (delta ^ sum)) < 0 || sum < field.min() || sum > field.max()) {
            throw new IncrementException(AbortReason.INCREMENT_OUT_OF_RANGE, value + " + " + delta
                + " is out of the field's range [" + field.min() + ", " + field.max() + "]");
        }
        return sum;
    }

    private static void writeField(final byte[] value, final int offset, final int width, final long v) {
        for (int i = 0; i < width; i++) {
            value[offset + i] = (byte) (v >>> (8 * (width - 1 - i)));
        }
    }

    /**
     * Whether increment node {@code inc} applies to committed node {@code m} (same key): {@link AbortReason#NONE}, or
     * why not.
     */
    static int check(final long inc, final long m) {
        if (Node.tombstone(m)) {
            return AbortReason.INCREMENT_ABSENT;
        }
        final long d = descriptor(inc);
        final int offset = descriptorInt(d);
        final int width = NodeMemory.getByte(d, 4);
        final long payload = Node.payload(m);
        if (Node.payloadLength(m) < offset + width) {
            return AbortReason.INCREMENT_NO_FIELD;
        }
        if ((NodeMemory.getByte(d, 5) & PRESENCE) != 0 && NodeMemory.getByte(payload, offset - 1) != 1) {
            return AbortReason.INCREMENT_NULL;
        }
        final long value = readField(payload, offset, width);
        final long delta = NodeMemory.getLongBigEndian(d, DELTA_AT);
        final long sum = value + delta;
        if (((value ^ sum) & (delta ^ sum)) < 0 || sum < NodeMemory.getLongBigEndian(d, MIN_AT)
            || sum > NodeMemory.getLongBigEndian(d, MAX_AT)) {
            return AbortReason.INCREMENT_OUT_OF_RANGE;
        }
        return AbortReason.NONE;
    }

    /**
     * Gives {@code out} the payload of {@code m} with the delta of {@code inc} added ({@link #check} passed), followed
     * by the new content's history ({@link ColumnReads}: {@code m}'s, plus this field's bytes); the caller flags
     * {@code out} {@link Node#HISTORY}.
     */
    static void apply(final Arena arena, final long inc, final long m, final long out) {
        final long d = descriptor(inc);
        final int offset = descriptorInt(d);
        final int width = NodeMemory.getByte(d, 4);
        final int length = Node.payloadLength(m);
        final long source = Node.payload(m);
        final long touched = ColumnReads.touched(offset, width);
        final long payload = arena.allocateTail(length + ColumnReads.historyLengthAfter(m, touched));
        NodeMemory.copy(source, payload, length);
        ColumnReads.writeHistory(payload, length, m, touched, Node.vn(out));
        final long sum = readField(source, offset, width) + NodeMemory.getLongBigEndian(d, DELTA_AT);
        for (int i = 0; i < width; i++) {
            NodeMemory.putByte(payload, offset + i, (byte) (sum >>> (8 * (width - 1 - i))));
        }
        Node.payload(out, payload, length);
    }

    private static long descriptor(final long inc) {
        return Node.payload(inc) + Node.payloadLength(inc) - DESCRIPTOR_LENGTH;
    }

    private static int descriptorInt(final long d) {
        return (NodeMemory.getByte(d, 0) & 0xFF) << 24 | (NodeMemory.getByte(d, 1) & 0xFF) << 16
            | (NodeMemory.getByte(d, 2) & 0xFF) << 8 | NodeMemory.getByte(d, 3) & 0xFF;
    }

    private static long readField(final long payload, final int offset, final int width) {
        long v = NodeMemory.getByte(payload, offset);
        for (int i = 1; i < width; i++) {
            v = v << 8 | (NodeMemory.getByte(payload, offset + i) & 0xFF);
        }
        return v;
    }

    /** True if {@code payload} (of {@code length} bytes) can be an increment node's: a well-formed descriptor. */
    static boolean wellFormed(final long payload, final int length) {
        if (length < DESCRIPTOR_LENGTH) {
            return false;
        }
        final long d = payload + length - DESCRIPTOR_LENGTH;
        final int offset = descriptorInt(d);
        final int width = NodeMemory.getByte(d, 4);
        final int flags = NodeMemory.getByte(d, 5);
        if (offset < ((flags & PRESENCE) != 0 ? 1 : 0) || (width != 2 && width != 4 && width != 8)
            || (flags & ~PRESENCE) != 0) {
            return false;
        }
        final long min = NodeMemory.getLongBigEndian(d, MIN_AT);
        final long max = NodeMemory.getLongBigEndian(d, MAX_AT);
        final long highest = width == 8 ? Long.MAX_VALUE : (1L << (8 * width - 1)) - 1;
        return min <= max && min >= -highest - 1 && max <= highest;
    }
}
