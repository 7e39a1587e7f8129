package io.meldb.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Arena#allocateTail}: values from the segment's end leave the front allocations contiguous and intact. */
class ArenaTailTest {
    @Test
    void tailAllocationsKeepFrontAllocationsContiguousAndNeverOverlapThem() {
        try (Arena arena = new Arena()) {
            long previous = arena.allocate(Node.SIZE);
            int breaks = 0;
            long lowestTail = Long.MAX_VALUE;
            for (int i = 0; i < 200_000; i++) {
                final long tail = arena.allocateTail(13);
                NodeMemory.putLong(tail, 0, -1L);
                NodeMemory.putLong(tail, 8, -1L);
                lowestTail = Math.min(lowestTail, tail);
                final long node = arena.allocate(Node.SIZE);
                for (int b = 0; b < Node.SIZE; b += 8) {
                    assertEquals(0L, NodeMemory.getLong(node, b), "front allocations are zeroed, untouched by the tail");
                }
                if (node != previous + Node.SIZE) {
                    breaks++;
                    assertTrue(tail > node || tail + 16 <= node, "a new segment: the tail value lies elsewhere");
                }
                previous = node;
            }
            // 200,000 x (96 + 16) bytes span about 5.3 segments of 4 MiB: the run breaks only at segment changes
            assertTrue(breaks >= 5 && breaks <= 6, "run breaks: " + breaks);
            assertTrue(lowestTail > 0);
        }
    }
}
