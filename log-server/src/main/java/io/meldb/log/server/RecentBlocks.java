package io.meldb.log.server;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The blocks an {@link InProcessLog} appended last, still in memory by position, so that its subscriptions deliver
 * them without reading them back from the store (Hyder II §5.1: the log reader of the server that appended a block
 * gets it at once; the store's copy, written and checksummed as any other, is for recovery, replicas and remote
 * subscribers). A position not held (older than the last {@link #SLOTS}, appended by another process, or raced
 * away) is read from the store as before.
 *
 * <p>The appended buffer itself is held, by reference count: the writer thread hands each block's reference over
 * with {@link #put} and the slot releases it when a later position takes the slot. A reader takes its own
 * reference with {@link #retain}, which checks the slot's position before and after: positions only grow, so a
 * slot that still names the position after the reader's retain held that very buffer all along, and the reader's
 * reference keeps its bytes (a pooled buffer is rewritten only after its last release).
 */
final class RecentBlocks {
    /** Blocks held: enough for a subscription that keeps up; one that falls behind reads the store. */
    static final int SLOTS = 64;
    private static final int MASK = SLOTS - 1;

    private final AtomicLongArray positions = new AtomicLongArray(SLOTS);
    private final AtomicReferenceArray<ByteBuf> blocks = new AtomicReferenceArray<>(SLOTS);

    RecentBlocks() {
        for (int i = 0; i < SLOTS; i++) {
            positions.set(i, -1);
        }
    }

    /** Writer thread: {@code block} (whose reference this takes over) is stored at {@code position}. */
    void put(final long position, final ByteBuf block) {
        final int i = (int) position & MASK;
        positions.set(i, -1); // before the buffer changes: a reader that sees the old position rejects what it took
        final ByteBuf old = blocks.getAndSet(i, block);
        positions.set(i, position);
        if (old != null) {
            old.release();
        }
    }

    /**
     * The block at {@code position} with a reference of the caller's (to be released), or null if it is not held.
     */
    ByteBuf retain(final long position) {
        final int i = (int) position & MASK;
        if (positions.get(i) != position) {
            return null;
        }
        final ByteBuf b = blocks.get(i);
        if (b == null) {
            return null;
        }
        try {
            b.retain();
        } catch (IllegalReferenceCountException e) {
            return null; // released meanwhile: the slot has moved on
        }
        if (positions.get(i) != position) {
            b.release();
            return null;
        }
        return b;
    }

    /** Releases every block held (the log is closing). */
    void clear() {
        for (int i = 0; i < SLOTS; i++) {
            positions.set(i, -1);
            final ByteBuf old = blocks.getAndSet(i, null);
            if (old != null) {
                old.release();
            }
        }
    }
}
