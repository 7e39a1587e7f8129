package io.meldb.log.client;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The block buffers a log append gives back on release ({@link BlockBufferPool}). */
class BlockBufferPoolTest {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void theLastReleaseReturnsTheBufferAndTheNextTakeReusesIt() {
        final BlockBufferPool pool = new BlockBufferPool(512, 4);
        final ByteBuf a = pool.take();
        assertEquals(512, a.readableBytes());
        assertEquals(512, a.array().length);
        a.retain(); // e.g. a network write that keeps it until sent
        assertFalse(a.release());
        assertEquals(0, pool.free());
        assertTrue(a.release());
        assertEquals(1, pool.free());
        assertSame(a, pool.take());
        assertEquals(1, pool.created());
    }

    @Test
    void aReleaseTooManyIsRefusedAndDoesNotReturnTheBufferTwice() {
        final BlockBufferPool pool = new BlockBufferPool(64, 4);
        final ByteBuf a = pool.take();
        a.release();
        assertThrows(IllegalReferenceCountException.class, a::release);
        assertThrows(IllegalReferenceCountException.class, a::retain);
        assertEquals(1, pool.free());
    }

    @Test
    void thePoolKeepsAtMostItsCapacity() {
        final BlockBufferPool pool = new BlockBufferPool(64, 2);
        final ByteBuf[] taken = {pool.take(), pool.take(), pool.take()};
        for (ByteBuf b : taken) {
            b.release();
        }
        assertEquals(2, pool.free());
        assertEquals(3, pool.created());
    }

    @Test
    void takingAndReleasingInSteadyStateAllocatesNothing() {
        final BlockBufferPool pool = new BlockBufferPool(8192, 8);
        final long thread = Thread.currentThread().getId();
        cycle(pool, 20_000); // warm-up: compiled
        // the least of a few measurements: a JIT recompilation during one (an OSR switch, a deoptimization) allocates
        // a little on this thread, which is not the pool's; one new 8 KB buffer per take would be 800 MB every time
        long bytes = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 5 && bytes >= 1024; attempt++) {
            final long before = THREADS.getThreadAllocatedBytes(thread);
            cycle(pool, 100_000);
            bytes = Math.min(bytes, THREADS.getThreadAllocatedBytes(thread) - before);
        }
        assertTrue(bytes < 1024, bytes + " B allocated by 100,000 takes and releases");
        assertEquals(3, pool.created());
    }

    private static void cycle(final BlockBufferPool pool, final int n) {
        for (int i = 0; i < n; i++) {
            final ByteBuf a = pool.take();
            final ByteBuf b = pool.take();
            final ByteBuf c = pool.take();
            a.setByte(i & 8191, i);
            a.release();
            c.release();
            b.release();
        }
    }
}
