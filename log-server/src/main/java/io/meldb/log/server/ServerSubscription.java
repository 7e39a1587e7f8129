package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.meldb.log.protocol.LogFrame;
import io.meldb.log.protocol.LogProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One SUBSCRIBE: pushes every block from {@code from} on, in log order, straight from storage (Hyder II §5.1: each
 * transaction server's log reader consumes the whole log).
 *
 * <p>Flow control is the channel's writability: blocks are read from the store and written only while the
 * connection is writable, i.e. while less than the high water mark is queued for it. A slow subscriber therefore
 * holds at most about one water mark of server memory; the rest waits in the store, and when the channel drains
 * ({@code channelWritabilityChanged}) the subscription continues from its own position, catching up from storage
 * however far behind it is. New blocks wake it through the store's tail listener. A subscriber whose next position
 * is trimmed away gets a TRIMMED error and the subscription ends.
 *
 * <p>All state is touched on the connection's event loop, except {@link #wake()} (any thread) and
 * {@link #lag(long)} (metrics).
 */
final class ServerSubscription {
    /** Blocks pushed per event-loop task before yielding to the connection's other work. */
    private static final int MAX_PER_ROUND = 64;

    private final LogServerHandler handler;
    private final ChannelHandlerContext ctx;
    private final LogStore store;
    private final long id;
    private final LogReader reader;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable pumpTask = this::pump;
    private volatile long next;
    private volatile boolean closed;

    ServerSubscription(LogServerHandler handler, ChannelHandlerContext ctx, LogStore store, long id, long from) {
        this.handler = handler;
        this.ctx = ctx;
        this.store = store;
        this.id = id;
        this.next = from;
        this.reader = store.openReader();
    }

    long id() {
        return id;
    }

    Channel channel() {
        return ctx.channel();
    }

    long lag(long tail) {
        return closed ? 0 : Math.max(0, tail - next);
    }

    /** Any thread: schedule a push round unless one is pending. */
    void wake() {
        if (!closed && scheduled.compareAndSet(false, true)) {
            try {
                ctx.executor().execute(pumpTask);
            } catch (RejectedExecutionException e) {
                scheduled.set(false);
            }
        }
    }

    /** Event loop: push while there is something to push and the channel is writable. */
    void pump() {
        scheduled.set(false);
        if (closed) {
            return;
        }
        Channel ch = ctx.channel();
        if (!ch.isActive()) {
            return;
        }
        long tail = store.tail();
        int blockSize = store.blockSize();
        int sent = 0;
        while (next < tail && ch.isWritable() && sent < MAX_PER_ROUND) {
            long position = next;
            ByteBuf body = LogFrame.pushBody(ctx.alloc(), position, blockSize);
            try {
                reader.read(position, body);
            } catch (LogErrorException e) {
                body.release();
                end(e.code(), e.getMessage());
                break;
            }
            ctx.write(new LogFrame(LogProtocol.PUSH, id, body), ctx.voidPromise());
            next = position + 1;
            sent++;
        }
        if (sent > 0) {
            handler.pushed(sent);
            ctx.flush();
        }
        if (!closed && next < store.tail() && ch.isWritable()) {
            wake();
        }
    }

    private void end(ErrorCode code, String message) {
        handler.answerError(id, code, "subscription ended: " + message);
        ctx.flush();
        close();
        handler.subscriptionEnded(this);
    }

    void close() {
        if (!closed) {
            closed = true;
            reader.close();
        }
    }
}
