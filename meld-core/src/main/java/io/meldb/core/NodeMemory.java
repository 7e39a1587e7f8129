package io.meldb.core;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The off-heap memory that every node, key and payload lives in, addressed by {@code long} handles.
 *
 * <p>A handle is the absolute address of the bytes inside a 4 MiB segment owned by an {@link Arena}; handle 0
 * is null. Absolute addresses keep the meld loop to one memory access per field: an earlier version went through
 * a table of bounds-checked buffers and spent most of its time there (three loads and two range checks per
 * field). Segments are direct buffers kept reachable here, so their memory is never freed under a live handle.
 *
 * <p>Set {@code -Dmeldb.memory.checks=true} (the test suite does) to range-check every access against the
 * segments' address span: a wild handle then fails with an exception instead of reading arbitrary memory.
 */
public final class NodeMemory {
    /**
     * Segment size: 4 MiB. Every allocation up to this size is carved out of a pooled segment; a larger one (the
     * decoded copy of a large intention record) gets a dedicated segment of its own size, see
     * {@link #acquireLargeSegment(int)}.
     */
    public static final int SEGMENT_SIZE = 4 << 20;

    /** Range-check every access (tests); off in production, where the JIT removes the check entirely. */
    public static final boolean CHECKS = Boolean.getBoolean("meldb.memory.checks");

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private static final Object LOCK = new Object();
    private static ByteBuffer[] owners = new ByteBuffer[1024];
    private static long[] bases = new long[1024];
    private static int[] freeIds = new int[64];
    private static int freeCount;
    private static int nextId = 1;
    /** Ids of freed large segments, whose memory is gone: reused for the next large segment. */
    private static int[] freeLargeIds = new int[16];
    private static int freeLargeCount;
    private static int largeInUse;
    private static long largeBytesInUse;
    private static volatile long lowest = Long.MAX_VALUE;
    private static volatile long highest;

    private NodeMemory() {
    }

    /** Takes a fresh or recycled segment and returns its id; its contents are arbitrary ({@link Arena} zeroes). */
    static int acquireSegment() {
        synchronized (LOCK) {
            if (freeCount > 0) {
                return freeIds[--freeCount];
            }
            final int id = nextId++;
            if (id >= bases.length) {
                bases = java.util.Arrays.copyOf(bases, bases.length * 2);
                owners = java.util.Arrays.copyOf(owners, owners.length * 2);
            }
            final ByteBuffer memory = BufferUtil.allocateDirectAligned(SEGMENT_SIZE, 64);
            owners[id] = memory;
            final long base = BufferUtil.address(memory);
            bases[id] = base;
            lowest = Math.min(lowest, base);
            highest = Math.max(highest, base + SEGMENT_SIZE);
            return id;
        }
    }

    /**
     * Allocates a dedicated segment of {@code size} bytes (more than {@link #SEGMENT_SIZE}) and returns its id.
     * Large segments are not pooled: {@link #releaseLargeSegment} frees their memory at once, so a rare huge
     * transaction does not leave hundreds of megabytes behind. Their contents are arbitrary.
     */
    static int acquireLargeSegment(final int size) {
        if (size <= SEGMENT_SIZE) {
            throw new IllegalArgumentException("a large segment is larger than " + SEGMENT_SIZE + " bytes, not "
                + size);
        }
        // not allocateDirectAligned: that returns a slice, which the cleaner cannot free early
        final ByteBuffer memory = ByteBuffer.allocateDirect(size);
        if ((BufferUtil.address(memory) & 7) != 0) {
            throw new IllegalStateException("direct memory is not 8-byte aligned");
        }
        synchronized (LOCK) {
            final int id;
            if (freeLargeCount > 0) {
                id = freeLargeIds[--freeLargeCount];
            } else {
                id = nextId++;
                if (id >= bases.length) {
                    bases = java.util.Arrays.copyOf(bases, bases.length * 2);
                    owners = java.util.Arrays.copyOf(owners, owners.length * 2);
                }
            }
            owners[id] = memory;
            final long base = BufferUtil.address(memory);
            bases[id] = base;
            lowest = Math.min(lowest, base);
            highest = Math.max(highest, base + size);
            largeInUse++;
            largeBytesInUse += size;
            return id;
        }
    }

    /** Frees a large segment's memory; the caller guarantees nothing reachable still points into it. */
    static void releaseLargeSegment(final int id) {
        final ByteBuffer memory;
        synchronized (LOCK) {
            memory = owners[id];
            if (memory == null) {
                throw new IllegalStateException("large segment " + id + " released twice");
            }
            owners[id] = null;
            bases[id] = 0;
            largeInUse--;
            largeBytesInUse -= memory.capacity();
            if (freeLargeCount == freeLargeIds.length) {
                freeLargeIds = java.util.Arrays.copyOf(freeLargeIds, freeLargeCount * 2);
            }
            freeLargeIds[freeLargeCount++] = id;
        }
        // under CHECKS the freed range stays inside [lowest, highest): the check is coarse, not use-after-free proof
        BufferUtil.free(memory);
    }

    /** Large segments currently allocated (for memory metrics and tests). */
    public static int largeSegmentsInUse() {
        synchronized (LOCK) {
            return largeInUse;
        }
    }

    /** Bytes held by large segments currently allocated. */
    public static long largeBytesInUse() {
        synchronized (LOCK) {
            return largeBytesInUse;
        }
    }

    /** Base address of a segment. */
    static long base(final int id) {
        synchronized (LOCK) {
            return bases[id];
        }
    }

    /** Returns a segment for reuse; the caller guarantees nothing reachable still points into it. */
    static void releaseSegment(final int id) {
        synchronized (LOCK) {
            if (freeCount == freeIds.length) {
                freeIds = java.util.Arrays.copyOf(freeIds, freeIds.length * 2);
            }
            freeIds[freeCount++] = id;
        }
    }

    /** Off-heap bytes handed out to arenas now: pooled segments in use plus large segments. */
    public static long bytesInUse() {
        synchronized (LOCK) {
            return (long) (nextId - 1 - freeCount - freeLargeCount - largeInUse) * SEGMENT_SIZE + largeBytesInUse;
        }
    }

    /** Number of segment ids ever created, pooled and large (for memory metrics and tests). */
    public static int segmentsCreated() {
        synchronized (LOCK) {
            return nextId - 1;
        }
    }

    /** Number of pooled ({@link #SEGMENT_SIZE}) segments currently handed out to arenas. */
    public static int segmentsInUse() {
        synchronized (LOCK) {
            return nextId - 1 - freeCount - freeLargeCount - largeInUse;
        }
    }

    /** Kept tiny (the check is out of line) so every accessor inlines even at call sites the JIT deems cold. */
    private static long at(final long handle, final int field, final int length) {
        final long address = handle + field;
        if (CHECKS) {
            check(handle, field, length);
        }
        return address;
    }

    private static void check(final long handle, final int field, final int length) {
        final long address = handle + field;
        if (handle == 0 || address < lowest || address + length > highest) {
            throw new IllegalStateException("handle 0x" + Long.toHexString(handle) + "+" + field
                + " is outside node memory");
        }
    }

    public static long getLong(final long handle, final int field) {
        return UnsafeApi.getLong(at(handle, field, 8));
    }

    public static void putLong(final long handle, final int field, final long value) {
        UnsafeApi.putLong(at(handle, field, 8), value);
    }

    public static int getInt(final long handle, final int field) {
        return UnsafeApi.getInt(at(handle, field, 4));
    }

    public static void putInt(final long handle, final int field, final int value) {
        UnsafeApi.putInt(at(handle, field, 4), value);
    }

    public static byte getByte(final long handle, final int index) {
        return UnsafeApi.getByte(at(handle, index, 1));
    }

    public static void putByte(final long handle, final int index, final byte value) {
        UnsafeApi.putByte(at(handle, index, 1), value);
    }

    /** Reads 8 bytes as a big-endian (key-order) long. */
    public static long getLongBigEndian(final long handle, final int index) {
        final long v = UnsafeApi.getLong(at(handle, index, 8));
        return LITTLE_ENDIAN ? Long.reverseBytes(v) : v;
    }

    /** Writes 8 bytes as a big-endian long. */
    public static void putLongBigEndian(final long handle, final int index, final long value) {
        UnsafeApi.putLong(at(handle, index, 8), LITTLE_ENDIAN ? Long.reverseBytes(value) : value);
    }

    public static void putBytes(final long handle, final byte[] src, final int srcOffset, final int length) {
        if (length > 0) {
            UnsafeApi.copyMemory(src, BufferUtil.ARRAY_BASE_OFFSET + srcOffset, null, at(handle, 0, length), length);
        }
    }

    public static void getBytes(final long handle, final byte[] dst, final int dstOffset, final int length) {
        if (length > 0) {
            UnsafeApi.copyMemory(null, at(handle, 0, length), dst, BufferUtil.ARRAY_BASE_OFFSET + dstOffset, length);
        }
    }

    /** Copies {@code length} bytes of {@code src} from {@code srcIndex} into node memory, with no array between. */
    public static void putBytes(final long handle, final org.agrona.DirectBuffer src, final int srcIndex,
                                final int length) {
        if (length > 0) {
            src.boundsCheck(srcIndex, length);
            UnsafeApi.copyMemory(src.byteArray(), src.addressOffset() + srcIndex, null, at(handle, 0, length), length);
        }
    }

    /** Copies {@code length} bytes of node memory into {@code dst} at {@code dstIndex}, which must have room. */
    public static void getBytes(final long handle, final org.agrona.MutableDirectBuffer dst, final int dstIndex,
                                final int length) {
        if (length > 0) {
            dst.boundsCheck(dstIndex, length);
            UnsafeApi.copyMemory(null, at(handle, 0, length), dst.byteArray(), dst.addressOffset() + dstIndex, length);
        }
    }

    /** Copies {@code length} bytes between two places in node memory. */
    public static void copy(final long from, final long to, final int length) {
        UnsafeApi.copyMemory(at(from, 0, length), at(to, 0, length), length);
    }

    /**
     * Zeroes {@code length} bytes. Whole words are cleared by a plain store loop: on JDK 17
     * {@code Unsafe.setMemory} is a native call whose transition cost about as much as the 4 KiB
     * {@link Arena} chunk it clears (3–4% of a meld in a profile).
     */
    public static void zero(final long handle, final int length) {
        final long address = at(handle, 0, length);
        final int words = (address & 7) == 0 ? length >>> 3 : 0;
        for (int i = 0; i < words; i++) {
            UnsafeApi.putLong(address + ((long) i << 3), 0L);
        }
        final int done = words << 3;
        if (done < length) {
            UnsafeApi.setMemory(address + done, length - done, (byte) 0);
        }
    }

    public static byte[] toArray(final long handle, final int length) {
        final byte[] bytes = new byte[length];
        getBytes(handle, bytes, 0, length);
        return bytes;
    }

    /**
     * The first 8 bytes of a key as a big-endian long, zero-padded: comparing two prefixes unsigned orders keys
     * exactly as comparing their first 8 bytes does (see {@link Node#compareKeys}).
     */
    public static long prefix(final long key, final int length) {
        if (length >= 8) {
            return getLongBigEndian(key, 0);
        }
        long p = 0;
        for (int i = 0; i < length; i++) {
            p |= (getByte(key, i) & 0xFFL) << (56 - 8 * i);
        }
        return p;
    }

    /** Bytes 8 to 16 of a key in node memory, big-endian, zero-padded (the second half of a node's key prefix). */
    public static long prefix2(final long key, final int length) {
        if (length >= 16) {
            return getLongBigEndian(key, 8);
        }
        long p = 0;
        for (int i = 8; i < length; i++) {
            p |= (getByte(key, i) & 0xFFL) << (56 - 8 * (i - 8));
        }
        return p;
    }

    /** Bytes 8 to 16 of a heap key, as {@link #prefix2(long, int)}. */
    public static long prefix2(final byte[] key) {
        long p = 0;
        for (int i = 8; i < Math.min(16, key.length); i++) {
            p |= (key[i] & 0xFFL) << (56 - 8 * (i - 8));
        }
        return p;
    }

    /** The prefix of a heap key, as {@link #prefix(long, int)}. */
    public static long prefix(final byte[] key) {
        long p = 0;
        final int n = Math.min(8, key.length);
        for (int i = 0; i < n; i++) {
            p |= (key[i] & 0xFFL) << (56 - 8 * i);
        }
        return p;
    }

    /** Unsigned lexicographic comparison of two byte strings in node memory, the order of the whole tree. */
    public static int compare(final long a, final int aLength, final long b, final int bLength) {
        final int min = Math.min(aLength, bLength);
        int i = 0;
        for (; i + 8 <= min; i += 8) {
            final long x = getLongBigEndian(a, i);
            final long y = getLongBigEndian(b, i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < min; i++) {
            final int x = getByte(a, i) & 0xFF;
            final int y = getByte(b, i) & 0xFF;
            if (x != y) {
                return x - y;
            }
        }
        return aLength - bLength;
    }

    /** Unsigned lexicographic comparison of a heap key with a key in node memory, from byte {@code from}. */
    public static int compare(final byte[] a, final long b, final int bLength, final int from) {
        final int min = Math.min(a.length, bLength);
        for (int i = from; i < min; i++) {
            final int x = a[i] & 0xFF;
            final int y = getByte(b, i) & 0xFF;
            if (x != y) {
                return x - y;
            }
        }
        return a.length - bLength;
    }

    /** Unsigned lexicographic comparison of a heap key with a key in node memory. */
    public static int compare(final byte[] a, final long b, final int bLength) {
        return compare(a, b, bLength, 0);
    }
}
