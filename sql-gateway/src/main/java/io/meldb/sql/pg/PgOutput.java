package io.meldb.sql.pg;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The answers of one connection on their way out: one pooled buffer that the worker fills and hands to the
 * channel in one write when the protocol says to flush. A large result does not pile up in memory: once the
 * channel's outbound buffer passes its high water mark, the worker waits until the client has read enough.
 */
final class PgOutput {
    private final Channel channel;
    private final Object writable = new Object();
    private ByteBuf buffer;
    /** Write tasks that ran, for the next flush on the event loop (touched only there): no allocation per flush. */
    private final ArrayDeque<WriteLater> spareTasks = new ArrayDeque<>(2);

    PgOutput(final Channel channel) {
        this.channel = channel;
    }

    /** A write queued behind the event loop's earlier tasks; recycled once it ran. */
    private final class WriteLater implements Runnable {
        private ByteBuf pending;

        @Override
        public void run() {
            final ByteBuf b = pending;
            pending = null;
            spareTasks.push(this);
            channel.writeAndFlush(b, channel.voidPromise());
        }
    }

    /** The buffer to append messages to. */
    ByteBuf buffer() {
        if (buffer == null) {
            buffer = channel.alloc().ioBuffer(4096);
        }
        return buffer;
    }

    /** Sends what has collected. */
    void flush() {
        final ByteBuf b = buffer;
        buffer = null;
        if (b == null || !b.isReadable()) {
            if (b != null) {
                b.release();
            }
            return;
        }
        if (channel.eventLoop().inEventLoop()) {
            // behind any answer a worker handed to the event loop before: the task queue keeps them in order
            WriteLater task = spareTasks.poll();
            if (task == null) {
                task = new WriteLater();
            }
            task.pending = b;
            channel.eventLoop().execute(task);
        } else {
            channel.writeAndFlush(b, channel.voidPromise());
        }
    }

    /** Sends what has collected and waits while the client is behind in reading (or until it goes away). */
    void flushAndAwaitWritable() {
        flush();
        if (channel.eventLoop().inEventLoop()) {
            return; // never block the I/O thread: Netty buffers the rest
        }
        synchronized (writable) {
            while (channel.isActive() && !channel.isWritable()) {
                try {
                    writable.wait(TimeUnit.SECONDS.toMillis(1));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the client was reading", e);
                }
            }
        }
        if (!channel.isActive()) {
            throw new IllegalStateException("the client closed the connection");
        }
    }

    /** The channel's writability or activity changed (from its event loop). */
    void wakeUp() {
        synchronized (writable) {
            writable.notifyAll();
        }
    }

    /** Drops whatever has not been sent (the connection is gone). */
    void discard() {
        if (buffer != null) {
            buffer.release();
            buffer = null;
        }
    }
}
