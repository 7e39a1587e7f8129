package io.meldb.log.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * Reusable block buffers for {@link LogService#append(ByteBuf)} (Hyder II §5.1: a server appends fixed-size
 * intention blocks): the log releases an appended buffer once it no longer reads it (after the write, or once sent
 * over the network), and the release puts it back here instead of leaving it to the garbage collector, so a
 * steady stream of appends allocates no block memory.
 *
 * <p>Each buffer is a heap {@link ByteBuf} of exactly one block, with its array open to the writer
 * ({@link ByteBuf#array()}). {@link #take()} hands one out with a reference count of 1; every {@code retain} adds
 * one and every {@code release} takes one, and the release that reaches 0 returns it to the pool (the pool keeps
 * at most {@code capacity}; the rest go to the garbage collector). Unlike Netty's own buffers a released one is
 * not made inaccessible: a holder must not touch it after its last release, exactly as with any {@code ByteBuf}.
 *
 * <p>Thread-safe: buffers are taken by the appending thread and given back by whichever thread the log finishes on.
 * The free list is an array under a monitor (no allocation per take or give; the two sides rarely meet).
 */
public final class BlockBufferPool {
    private final int blockSize;
    private final Block[] free;
    private int freeCount;
    private long created;

    public BlockBufferPool(final int blockSize, final int capacity) {
        if (blockSize <= 0 || capacity <= 0) {
            throw new IllegalArgumentException("block size " + blockSize + " and capacity " + capacity
                + " must be positive");
        }
        this.blockSize = blockSize;
        this.free = new Block[capacity];
    }

    public int blockSize() {
        return blockSize;
    }

    /** A block buffer, reference count 1, reader index 0 and writer index at the block's end; contents undefined. */
    public ByteBuf take() {
        Block b = null;
        synchronized (this) {
            if (freeCount > 0) {
                b = free[--freeCount];
                free[freeCount] = null;
            } else {
                created++;
            }
        }
        if (b == null) {
            b = new Block(this, blockSize);
        }
        b.handOut();
        return b;
    }

    /** Buffers created so far (taken while none was free): constant once the pool covers the appends in flight. */
    public synchronized long created() {
        return created;
    }

    /** Buffers waiting to be taken. */
    public synchronized int free() {
        return freeCount;
    }

    private void giveBack(final Block b) {
        synchronized (this) {
            if (freeCount < free.length) {
                free[freeCount++] = b;
            }
        }
    }

    /**
     * One pooled block. Its reference count is kept here, not in Netty's (which cannot be reset once it reaches 0):
     * Netty's stays at 1 for the object's life, so the buffer is always accessible to its holder.
     */
    private static final class Block extends UnpooledHeapByteBuf {
        private static final AtomicIntegerFieldUpdater<Block> REFS =
            AtomicIntegerFieldUpdater.newUpdater(Block.class, "refs");
        private final BlockBufferPool pool;
        private volatile int refs;

        Block(final BlockBufferPool pool, final int size) {
            super(UnpooledByteBufAllocator.DEFAULT, new byte[size], size);
            this.pool = pool;
        }

        void handOut() {
            refs = 1;
            setIndex(0, capacity());
        }

        @Override
        public int refCnt() {
            return refs;
        }

        @Override
        public ByteBuf retain() {
            return retain(1);
        }

        @Override
        public ByteBuf retain(final int increment) {
            if (increment <= 0) {
                throw new IllegalArgumentException("increment " + increment);
            }
            int r;
            do {
                r = refs;
                if (r <= 0) {
                    throw new io.netty.util.IllegalReferenceCountException(r, increment);
                }
            } while (!REFS.compareAndSet(this, r, r + increment));
            return this;
        }

        @Override
        public boolean release() {
            return release(1);
        }

        @Override
        public boolean release(final int decrement) {
            if (decrement <= 0) {
                throw new IllegalArgumentException("decrement " + decrement);
            }
            int r;
            do {
                r = refs;
                if (r < decrement) {
                    throw new io.netty.util.IllegalReferenceCountException(r, -decrement);
                }
            } while (!REFS.compareAndSet(this, r, r - decrement));
            if (r == decrement) {
                pool.giveBack(this);
                return true;
            }
            return false;
        }

        @Override
        public ByteBuf touch() {
            return this;
        }

        @Override
        public ByteBuf touch(final Object hint) {
            return this;
        }

        @Override
        protected void deallocate() {
            // never reached: Netty's own count is not used (see the class comment)
        }
    }
}
