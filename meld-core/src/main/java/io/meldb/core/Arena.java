package io.meldb.core;

/**
 * A bump allocator over off-heap segments, owned by one thread (Hyder II §5.3: per-thread pools instead of
 * garbage collection). Nodes, keys and payloads are carved out of it and addressed by {@code long} handles.
 *
 * <p>{@link #reset()} makes every segment reusable at once without returning it, which is how a meld loop
 * (or a benchmark pass) reuses memory without touching the Java heap; {@link #close()} gives the segments back.
 */
public final class Arena implements AutoCloseable {
    private int[] segmentIds = new int[8];
    private int segmentCount;
    private int current = -1;
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
        final int segment = segmentIds[current];
        final long handle = NodeMemory.handle(segment, position);
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
            NodeMemory.buffer(NodeMemory.handle(segmentIds[current], 0)).setMemory(0, NodeMemory.SEGMENT_SIZE, (byte) 0);
        } else {
            if (segmentCount == segmentIds.length) {
                final int[] grown = new int[segmentIds.length * 2];
                System.arraycopy(segmentIds, 0, grown, 0, segmentCount);
                segmentIds = grown;
            }
            segmentIds[segmentCount++] = NodeMemory.acquireSegment();
        }
        position = 8; // offset 0 of segment n is a valid handle only for n > 0, but keep a gap for readability
    }

    /** Forgets every allocation; segments are kept and zeroed lazily as they are reused. */
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
