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
    /** How many times answers were handed to the channel: what was written before a flush may have been read. */
    private int flushes;
    /** Write tasks that ran, for the next flush on the event loop (touched only there): no allocation per flush. */
    private final ArrayDeque<WriteLater> spareTasks = new ArrayDeque<>(2);

    PgOutput(final Channel channel) {
        this.channel = channel;
    }

    /**
     * Writes queued behind the event loop's earlier tasks, flushed together: answers flushed on the event loop in
     * one turn of it (pgjdbc's "BEGIN" Query and the first statement behind it arrive in one read) leave in one
     * gathering write. Recycled once it ran.
     */
    private final class WriteLater implements Runnable {
        private final ByteBuf[] pending = new ByteBuf[MAX_BATCH];
        private int count;

        @Override
        public void run() {
            if (queued == this) {
                queued = null;
            }
            final int n = count;
            for (int i = 0; i < n; i++) {
                channel.write(pending[i], channel.voidPromise());
                pending[i] = null;
            }
            count = 0;
            spareTasks.push(this);
            channel.flush();
        }
    }

    /** Answers one queued write may take before the next one is queued. */
    private static final int MAX_BATCH = 8;
    /**
     * The write task queued on the event loop that has not run yet, which a later answer of the same turn joins;
     * cleared by a worker's write, so that nothing joins a task queued before it (the order on the wire is the
     * order of the flushes).
     */
    private volatile WriteLater queued;

    /** The buffer to append messages to. */
    ByteBuf buffer() {
        if (buffer == null) {
            buffer = channel.alloc().ioBuffer(4096);
        }
        return buffer;
    }

    /** How many times {@link #flush} ran: a mark taken in the buffer holds only while this stays the same. */
    int flushes() {
        return flushes;
    }

    /** Sends what has collected. */
    void flush() {
        flushes++;
        final ByteBuf b = buffer;
        buffer = null;
        if (b == null || !b.isReadable()) {
            if (b != null) {
                b.release();
            }
            return;
        }
        if (channel.eventLoop().inEventLoop()) {
            final WriteLater joined = queued;
            if (joined != null && joined.count < MAX_BATCH) {
                joined.pending[joined.count++] = b;
                return;
            }
            // behind any answer a worker handed to the event loop before: the task queue keeps them in order
            WriteLater task = spareTasks.poll();
            if (task == null) {
                task = new WriteLater();
            }
            task.pending[task.count++] = b;
            queued = task;
            channel.eventLoop().execute(task);
        } else {
            queued = null;
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
