package io.meldb.core;

/**
 * A bump allocator over off-heap segments, owned by one thread (Hyder II §5.3: per-thread pools instead of
 * garbage collection). Nodes, keys and payloads are carved out of it and addressed by {@code long} handles.
 *
 * <p>{@link #reset()} makes every segment reusable at once without returning it, which is how a meld loop
 * (or a benchmark pass) reuses memory without touching the Java heap; {@link #close()} gives the segments back.
 * Allocations are zeroed.
 */
public final class Arena implements AutoCloseable {
    private int[] segmentIds = new int[8];
    private long[] segmentBases = new long[8];
    private int segmentCount;
    private int current = -1;
    private long base;
    private int position;
    private long allocatedBytes;

    /** Allocates {@code size} bytes, 8-byte aligned and zeroed. */
    public long allocate(final int size) {
        if (size <= 0 || size > NodeMemory.SEGMENT_SIZE) {
            throw new IllegalArgumentException("allocation of " + size + " bytes does not fit a segment");
        }
        final int aligned = (size + 7) & ~7;
        if (current < 0 || position + aligned > NodeMemory.SEGMENT_SIZE) {
            nextSegment();
        }
        final long handle = base + position;
        position += aligned;
        allocatedBytes += aligned;
        return handle;
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
        if (current < segmentCount) {
            NodeMemory.zero(segmentBases[current], NodeMemory.SEGMENT_SIZE);
        } else {
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
    }

    /** Forgets every allocation; segments are kept and zeroed as they are reused. */
    public void reset() {
        current = -1;
        position = 0;
        allocatedBytes = 0;
    }

    /** Bytes handed out since creation or the last reset. */
    public long allocatedBytes() {
        return allocatedBytes;
    }

    /** Off-heap bytes this arena holds (whole segments). */
    public long reservedBytes() {
        return (long) segmentCount * NodeMemory.SEGMENT_SIZE;
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
