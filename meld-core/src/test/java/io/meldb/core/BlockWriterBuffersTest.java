package io.meldb.core;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A {@link BlockWriter} that frames each block in a buffer of its {@link BlockBuffers} (Hyder II §5.1). */
class BlockWriterBuffersTest {
    private static final int BLOCK = 512;

    @Test
    void blocksFramedInDirtyBuffersOfTheirOwnEqualThoseOfTheReusedArrayByteForByte() {
        final List<byte[]> reused = new ArrayList<>();
        final BlockWriter plain = new BlockWriter(BLOCK, 7, (b, o, l) -> {
            final byte[] copy = new byte[l];
            b.getBytes(o, copy);
            reused.add(copy);
        });
        final List<byte[]> handedOut = new ArrayList<>();
        final List<byte[]> sunk = new ArrayList<>();
        final BlockWriter pooled = new BlockWriter(BLOCK, 7, (b, o, l) -> {
            assertSame(handedOut.get(handedOut.size() - 1), b.byteArray(), "the block is the buffer handed out");
            assertEquals(0, o);
            sunk.add(b.byteArray());
        }, () -> {
            final byte[] dirty = new byte[BLOCK + 16];
            Arrays.fill(dirty, (byte) 0x5A); // what a recycled buffer holds: none of it may leak into the block
            handedOut.add(dirty);
            return dirty;
        });
        final Random random = new Random(11);
        for (int i = 0; i < 200; i++) {
            final byte[] record = new byte[1 + random.nextInt(random.nextBoolean() ? 40 : 3 * BLOCK)];
            random.nextBytes(record);
            plain.append(new UnsafeBuffer(record), 0, record.length);
            pooled.append(new UnsafeBuffer(record), 0, record.length);
            if (random.nextInt(4) == 0) {
                plain.flush();
                pooled.flush();
            }
        }
        plain.flush();
        pooled.flush();
        assertEquals(reused.size(), sunk.size());
        assertEquals(sunk.size(), handedOut.size(), "one buffer per block, asked for when the block starts");
        for (int i = 0; i < sunk.size(); i++) {
            assertArrayEquals(reused.get(i), Arrays.copyOf(sunk.get(i), BLOCK), "block " + i);
        }
    }

    @Test
    void aBufferShorterThanABlockIsRefused() {
        final BlockWriter w = new BlockWriter(BLOCK, 0, (b, o, l) -> { }, () -> new byte[BLOCK - 1]);
        assertThrows(IllegalStateException.class, () -> w.append(new UnsafeBuffer(new byte[8]), 0, 8));
    }
}
