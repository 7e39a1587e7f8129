package io.meldb.core;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The off-heap memory that every node, key and payload lives in, addressed by {@code long} handles.
 *
 * <p>A handle is {@code segment << 32 | offset}: the id of a fixed-size off-heap segment and a byte offset
 * inside it. Handle {@code 0} is null (segment 0 is never handed out). Segments belong to an {@link Arena};
 * the table here only maps ids to buffers so that any thread can read a node another thread created, once
 * the creating thread has published it (the pipeline hand-off gives the happens-before edge).
 *
 * <p>Reads go through {@link UnsafeBuffer}, so a bad handle is an exception, not a crashed JVM.
 */
public final class NodeMemory {
    /** Segment size: 4 MiB. A single allocation (node, or key/payload bytes) must fit in one segment. */
    public static final int SEGMENT_SIZE = 4 << 20;

    private static final Object LOCK = new Object();
    private static volatile UnsafeBuffer[] segments = new UnsafeBuffer[1024];
    private static int[] freeIds = new int[64];
    private static int freeCount;
    private static int nextId = 1;

    private NodeMemory() {
    }

    /** Takes a fresh (or recycled) segment and returns its id. */
    static int acquireSegment() {
        synchronized (LOCK) {
            final int id;
            if (freeCount > 0) {
                id = freeIds[--freeCount];
                final UnsafeBuffer buffer = segments[id];
                buffer.setMemory(0, SEGMENT_SIZE, (byte) 0);
                return id;
            }
            id = nextId++;
            UnsafeBuffer[] table = segments;
            if (id >= table.length) {
                final UnsafeBuffer[] grown = new UnsafeBuffer[table.length * 2];
                System.arraycopy(table, 0, grown, 0, table.length);
                table = grown;
            }
            final ByteBuffer memory = BufferUtil.allocateDirectAligned(SEGMENT_SIZE, 64);
            table[id] = new UnsafeBuffer(memory);
            segments = table;
            return id;
        }
    }

    /** Returns a segment for reuse; the caller guarantees nothing reachable still points into it. */
    static void releaseSegment(final int id) {
        synchronized (LOCK) {
            if (freeCount == freeIds.length) {
                final int[] grown = new int[freeIds.length * 2];
                System.arraycopy(freeIds, 0, grown, 0, freeCount);
                freeIds = grown;
            }
            freeIds[freeCount++] = id;
        }
    }

    /** Number of segments ever created (for memory metrics and tests). */
    public static int segmentsCreated() {
        synchronized (LOCK) {
            return nextId - 1;
        }
    }

    /** Number of segments currently handed out to arenas. */
    public static int segmentsInUse() {
        synchronized (LOCK) {
            return nextId - 1 - freeCount;
        }
    }

    public static long handle(final int segment, final int offset) {
        return ((long) segment << 32) | (offset & 0xFFFF_FFFFL);
    }

    public static UnsafeBuffer buffer(final long handle) {
        return segments[(int) (handle >>> 32)];
    }

    public static int offset(final long handle) {
        return (int) handle;
    }

    public static long getLong(final long handle, final int field) {
        return segments[(int) (handle >>> 32)].getLong((int) handle + field);
    }

    public static void putLong(final long handle, final int field, final long value) {
        segments[(int) (handle >>> 32)].putLong((int) handle + field, value);
    }

    public static int getInt(final long handle, final int field) {
        return segments[(int) (handle >>> 32)].getInt((int) handle + field);
    }

    public static void putInt(final long handle, final int field, final int value) {
        segments[(int) (handle >>> 32)].putInt((int) handle + field, value);
    }

    public static byte getByte(final long handle, final int index) {
        return segments[(int) (handle >>> 32)].getByte((int) handle + index);
    }

    public static void putBytes(final long handle, final byte[] src, final int srcOffset, final int length) {
        segments[(int) (handle >>> 32)].putBytes((int) handle, src, srcOffset, length);
    }

    public static void getBytes(final long handle, final byte[] dst, final int dstOffset, final int length) {
        segments[(int) (handle >>> 32)].getBytes((int) handle, dst, dstOffset, length);
    }

    public static byte[] toArray(final long handle, final int length) {
        final byte[] bytes = new byte[length];
        if (length > 0) {
            getBytes(handle, bytes, 0, length);
        }
        return bytes;
    }

    /**
     * Unsigned lexicographic comparison of two byte strings in node memory, the order of the whole tree.
     */
    public static int compare(final long a, final int aLength, final long b, final int bLength) {
        final UnsafeBuffer ab = segments[(int) (a >>> 32)];
        final UnsafeBuffer bb = segments[(int) (b >>> 32)];
        final int ao = (int) a;
        final int bo = (int) b;
        final int min = Math.min(aLength, bLength);
        int i = 0;
        for (; i + 8 <= min; i += 8) {
            final long x = ab.getLong(ao + i, java.nio.ByteOrder.BIG_ENDIAN);
            final long y = bb.getLong(bo + i, java.nio.ByteOrder.BIG_ENDIAN);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < min; i++) {
            final int x = ab.getByte(ao + i) & 0xFF;
            final int y = bb.getByte(bo + i) & 0xFF;
            if (x != y) {
                return x - y;
            }
        }
        return aLength - bLength;
    }

    /** Unsigned lexicographic comparison of a heap key with a key in node memory. */
    public static int compare(final byte[] a, final long b, final int bLength) {
        final UnsafeBuffer bb = segments[(int) (b >>> 32)];
        final int bo = (int) b;
        final int min = Math.min(a.length, bLength);
        for (int i = 0; i < min; i++) {
            final int x = a[i] & 0xFF;
            final int y = bb.getByte(bo + i) & 0xFF;
            if (x != y) {
                return x - y;
            }
        }
        return a.length - bLength;
    }
}
