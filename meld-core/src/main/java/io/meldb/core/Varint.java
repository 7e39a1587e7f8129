package io.meldb.core;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Unsigned LEB128 variable-length integers over Agrona buffers: seven bits a byte, low group first, the high bit
 * set on every byte but the last. The meld paper (§4.3) gets its per-node metadata under 30 bytes with this
 * encoding; Agrona has none that works on a {@link DirectBuffer} at an index.
 *
 * <p>Readers accept only the canonical (shortest) encoding, so every value has exactly one byte string and a
 * record's length is a function of its content: a corrupted continuation bit cannot silently re-frame the rest.
 */
public final class Varint {
    /** Longest encoding of a 64-bit value. */
    public static final int MAX_LONG_BYTES = 10;
    /** Longest encoding of a 32-bit value. */
    public static final int MAX_INT_BYTES = 5;

    private Varint() {
    }

    /** Bytes needed to encode {@code value} (treated as unsigned). */
    public static int sizeOf(final long value) {
        return value == 0 ? 1 : (64 - Long.numberOfLeadingZeros(value) + 6) / 7;
    }

    /** Bytes needed to encode {@code value} (treated as unsigned 32 bits). */
    public static int sizeOf(final int value) {
        return sizeOf(value & 0xFFFF_FFFFL);
    }

    /** Writes {@code value} (unsigned) at {@code index}; returns the index just past it. */
    public static int putLong(final MutableDirectBuffer buffer, final int index, final long value) {
        int i = index;
        long v = value;
        while ((v & ~0x7FL) != 0) {
            buffer.putByte(i++, (byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buffer.putByte(i++, (byte) v);
        return i;
    }

    /**
     * Writes {@code value} (unsigned) at memory {@code address}, unchecked (the caller reserved the room); returns
     * the address just past it. For the intention encoder, whose record is plain memory it bounds once per node.
     */
    public static long putLong(final long address, final long value) {
        long at = address;
        long v = value;
        while ((v & ~0x7FL) != 0) {
            org.agrona.UnsafeApi.putByte(at++, (byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        org.agrona.UnsafeApi.putByte(at++, (byte) v);
        return at;
    }

    /** Writes {@code value} (unsigned 32 bits) at {@code index}; returns the index just past it. */
    public static int putInt(final MutableDirectBuffer buffer, final int index, final int value) {
        return putLong(buffer, index, value & 0xFFFF_FFFFL);
    }

    /**
     * Length in bytes of the varint at {@code index}, or -1 if it is not a well-formed canonical varint that ends
     * before {@code limit}: truncated, longer than {@code maxBytes}, overflowing 64 bits, or padded with a
     * redundant zero group.
     */
    public static int decodeLength(final DirectBuffer buffer, final int index, final int limit, final int maxBytes) {
        final int end = Math.min(limit, index + Math.min(maxBytes, MAX_LONG_BYTES));
        for (int i = index; i < end; i++) {
            final int b = buffer.getByte(i) & 0xFF;
            if ((b & 0x80) == 0) {
                final int n = i - index + 1;
                if (n > 1 && b == 0) {
                    return -1;
                }
                if (n == MAX_LONG_BYTES && b > 1) {
                    return -1;
                }
                return n;
            }
        }
        return -1;
    }

    /** Value of a varint already validated by {@link #decodeLength}. */
    public static long getLong(final DirectBuffer buffer, final int index) {
        long value = 0;
        int shift = 0;
        int i = index;
        while (true) {
            final int b = buffer.getByte(i++) & 0xFF;
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
            shift += 7;
        }
    }
}
