package io.meldb.core;

/**
 * A bump allocator over off-heap segments, owned by one thread (Hyder II §5.3: per-thread pools instead of
 * garbage collection). Nodes, keys and payloads are carved out of it and addressed by {@code long} handles.
 *
 * <p>{@link #reset()} makes every segment reusable at once without returning it, which is how a meld loop
 * (or a benchmark pass) reuses memory without touching the Java heap; {@link #close()} gives the segments back.
 * Allocations are zeroed.
 *
 * <p>Zeroing is lazy, {@value #ZERO_CHUNK} bytes at a time just ahead of the allocation point, for fresh and reused
 * segments alike. Besides spreading the cost, this is what keeps the stores into new nodes from missing the cache:
 * a chunk was just written when nodes are carved out of it, whereas a segment zeroed whole (4 MiB, twice the L2)
 * has been evicted again long before its last nodes are written, and every new node then waited for its lines.
 *
 * <p>An allocation larger than a segment (the decoded copy of an intention record of a large transaction) gets a
 * dedicated segment of its own size ({@link NodeMemory#acquireLargeSegment}), held until {@link #reset()} or
 * {@link #close()} frees it: the arena's owner decides when nothing points into it any more, exactly as for
 * pooled segments (a session arena at the end of its transaction, a decode arena with its generation). Such
 * allocations are rare and not on the steady-state path, so they may allocate.
 */
public final class Arena implements AutoCloseable {
    private int[] segmentIds = new int[8];
    private long[] segmentBases = new long[8];
    private int segmentCount;
    private int current = -1;
    private long base;
    private int position;
    /** The current segment is zero from {@link #position} up to here (0 while there is no current segment). */
    private int zeroedTo;
    /** Where the {@link #allocateTail} allocations of the current segment begin (they grow down from its end). */
    private int tail = NodeMemory.SEGMENT_SIZE;
    private long allocatedBytes;
    private int[] largeIds = new int[0];
    private int largeCount;
    private long largeBytes;

    /** Lazy zeroing granularity (see the class comment); divides the segment size. */
    static final int ZERO_CHUNK = 4096;

    /** Allocates {@code size} bytes, 8-byte aligned and zeroed. */
    public long allocate(final int size) {
        if (size <= 0 || size > NodeMemory.SEGMENT_SIZE) {
            return allocateLarge(size);
        }
        final int aligned = (size + 7) & ~7;
        final int end = position + aligned;
        if (end > zeroedTo) {
            return allocateSlow(aligned);
        }
        final long handle = base + position;
        position = end;
        allocatedBytes += aligned;
        return handle;
    }

    /**
     * Allocates {@code size} bytes, 8-byte aligned and <em>not</em> zeroed (the caller writes all of them), from the
     * end of the current segment downwards. Meld puts the values it computes (increments) here, so that the nodes it
     * allocates from the front stay one contiguous run ({@link NodeDirectory#registerRun}).
     */
    public long allocateTail(final int size) {
        final int aligned = (size + 7) & ~7;
        if (size <= 0 || aligned > NodeMemory.SEGMENT_SIZE / 4) {
            return allocate(size);
        }
        if (current < 0 || tail - aligned < position) {
            nextSegment();
        }
        tail -= aligned;
        zeroedTo = Math.min(zeroedTo, tail);
        allocatedBytes += aligned;
        return base + tail;
    }

    /** Allocation past the zeroed part: zeroes more of the segment, or moves to the next segment. */
    private long allocateSlow(final int aligned) {
        if (current < 0 || position + aligned > tail) {
            nextSegment();
        }
        final int end = position + aligned;
        if (end > zeroedTo) {
            final int to = Math.min(tail, (end + ZERO_CHUNK - 1) & -ZERO_CHUNK);
            NodeMemory.zero(base + zeroedTo, to - zeroedTo);
            zeroedTo = to;
        }
        final long handle = base + position;
        position = end;
        allocatedBytes += aligned;
        return handle;
    }

    /** A dedicated, zeroed segment for one allocation larger than {@link NodeMemory#SEGMENT_SIZE}. */
    private long allocateLarge(final int size) {
        if (size <= 0 || size > Integer.MAX_VALUE - 7) {
            throw new IllegalArgumentException("allocation of " + size + " bytes");
        }
        final int aligned = (size + 7) & ~7;
        final int id = NodeMemory.acquireLargeSegment(aligned);
        if (largeCount == largeIds.length) {
            largeIds = java.util.Arrays.copyOf(largeIds, Math.max(4, largeCount * 2));
        }
        largeIds[largeCount++] = id;
        final long handle = NodeMemory.base(id);
        NodeMemory.zero(handle, aligned);
        allocatedBytes += aligned;
        largeBytes += aligned;
        return handle;
    }

    private void freeLarge() {
        for (int i = 0; i < largeCount; i++) {
            NodeMemory.releaseLargeSegment(largeIds[i]);
        }
        largeCount = 0;
        largeBytes = 0;
    }

    /** Copies {@code bytes} into the arena and returns their handle (0 for an empty array). */
    public long copyOf(final byte[] bytes) {
        if (bytes.length == 0) {
            return 0;
        }
        final long handle = allocate(bytes.length);
        NodeMemory.putBytes(handle, bytes, 0, bytes.length);
        return handle;
    }

    private void nextSegment() {
        current++;
        if (current >= segmentCount) {
            if (segmentCount == segmentIds.length) {
                segmentIds = java.util.Arrays.copyOf(segmentIds, segmentCount * 2);
                segmentBases = java.util.Arrays.copyOf(segmentBases, segmentCount * 2);
            }
            final int id = NodeMemory.acquireSegment();
            segmentIds[segmentCount] = id;
            segmentBases[segmentCount] = NodeMemory.base(id);
            segmentCount++;
        }
        base = segmentBases[current];
        position = 0;
        zeroedTo = 0;
        tail = NodeMemory.SEGMENT_SIZE;
    }

    /** Forgets every allocation; segments are kept and zeroed as they are reused, large ones are freed. */
    public void reset() {
        if (largeCount > 0) {
            freeLarge();
        }
        current = -1;
        position = 0;
        zeroedTo = 0;
        allocatedBytes = 0;
    }

    /** Bytes handed out since creation or the last reset. */
    public long allocatedBytes() {
        return allocatedBytes;
    }

    /** Off-heap bytes this arena holds (whole segments, pooled and large). */
    public long reservedBytes() {
        return (long) segmentCount * NodeMemory.SEGMENT_SIZE + largeBytes;
    }

    @Override
    public void close() {
        for (int i = 0; i < segmentCount; i++) {
            NodeMemory.releaseSegment(segmentIds[i]);
        }
        segmentCount = 0;
        reset();
    }
}
