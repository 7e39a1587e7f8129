package io.meldb.core;

/**
 * The numeric field of a value an increment adds to (seed 002 §3.2): meld-core's own minimal field addressing, so
 * meld can apply a delta to a value without knowing the row format above it.
 *
 * <p>The field is a big-endian two's-complement integer of {@code width} bytes (2, 4 or 8) at byte {@code offset} of
 * the value. With {@code presenceByte} the byte just before it must be 1 (a 0 there means the field is null, and
 * adding to a null aborts). The result of an increment must lie in {@code [min, max]}; otherwise the increment
 * aborts, it never wraps. The caller guarantees the field sits at that offset in every value of the key, because meld
 * checks only the length, the presence byte and the range.
 */
public record IntField(int offset, int width, boolean presenceByte, long min, long max) {
    public IntField {
        if (width != 2 && width != 4 && width != 8) {
            throw new IllegalArgumentException("field width must be 2, 4 or 8 bytes, not " + width);
        }
        if (offset < (presenceByte ? 1 : 0)) {
            throw new IllegalArgumentException("field offset " + offset + " leaves no room for its presence byte");
        }
        final long lowest = width == 8 ? Long.MIN_VALUE : -(1L << (8 * width - 1));
        final long highest = width == 8 ? Long.MAX_VALUE : (1L << (8 * width - 1)) - 1;
        if (min > max || min < lowest || max > highest) {
            throw new IllegalArgumentException("bounds [" + min + ", " + max + "] do not fit " + width + " bytes");
        }
    }

    /** A signed 64-bit field at {@code offset}, without a presence byte, bounded only by its width. */
    public static IntField int64(final int offset) {
        return new IntField(offset, 8, false, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** A signed field of {@code width} bytes, bounded only by its width. */
    public static IntField of(final int offset, final int width, final boolean presenceByte) {
        final long lowest = width == 8 ? Long.MIN_VALUE : -(1L << (8 * width - 1));
        final long highest = width == 8 ? Long.MAX_VALUE : (1L << (8 * width - 1)) - 1;
        return new IntField(offset, width, presenceByte, lowest, highest);
    }
}
