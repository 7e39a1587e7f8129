package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.meldb.wire.FrameFormat;
import io.meldb.log.protocol.LogFrame;
import io.meldb.log.protocol.LogProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.SystemPropertyUtil;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One SUBSCRIBE: pushes every block from {@code from} on, in log order, straight from storage (Hyder II §5.1: each
 * transaction server's log reader consumes the whole log).
 *
 * <p>A push round reads up to {@link #MAX_PER_ROUND} blocks on the connection's read thread (a block that has left
 * the page cache waits for the disk there, not on the event loop) and hands them to the event loop, which writes and
 * flushes them. One round is in flight at a time: the next is scheduled only once the event loop has written this
 * one, so the blocks read but not yet written never exceed one round.
 *
 * <p>Flow control is the channel's writability: a round reads only as many blocks as fit below the high water mark of
 * what is queued for the connection (at least one while it is writable). A slow subscriber therefore holds at most
 * about one water mark of server memory; the rest waits in the store, and when the channel drains ({@code channelWritabilityChanged})
 * the subscription continues from its own position, catching up from storage however far behind it is. New blocks
 * wake it through the store's tail listener. A subscriber whose next position is trimmed away gets a TRIMMED error
 * and the subscription ends.
 *
 * <p>Threads: {@link #next} and the reader belong to the read thread, the writes and {@link #close()} to the event
 * loop; {@link #wake()} may be called anywhere and {@link #lag(long)} reads {@link #next} for metrics.
 */
final class ServerSubscription {
    /** Blocks read per round before handing them to the event loop. */
    private static final int MAX_PER_ROUND = 64;
    /** A PUSH frame's bytes besides its block: frame header and the block's position. */
    private static final int PUSH_OVERHEAD = FrameFormat.HEADER_LENGTH + Long.BYTES;
    /**
     * Netty's estimate of its bookkeeping per buffer queued on a channel, which counts towards the write buffer
     * water marks. The encoder queues two buffers per PUSH (header and block): left out of the round's sizing, 60
     * frames overshot the high water mark by 11 KB more than the one frame a round may.
     */
    private static final int ENTRY_OVERHEAD =
            SystemPropertyUtil.getInt("io.netty.transport.outboundBufferEntrySizeOverhead", 96);

    private final LogServerHandler handler;
    private final ChannelHandlerContext ctx;
    /** The connection's event loop (see {@link LogServerHandler}). */
    private final EventExecutor loop;
    private final EventExecutor readExecutor;
    private final LogStore store;
    private final long id;
    /** A round is scheduled or in flight: set by {@link #wake()}, cleared when the round is done. */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable readRound = this::readRound;
    /** Read thread: opened by the first round, so that it belongs to the read thread. */
    private LogReader reader;
    private volatile long next;
    private volatile boolean closed;

    ServerSubscription(LogServerHandler handler, ChannelHandlerContext ctx, EventExecutor loop, EventExecutor readExecutor,
                       LogStore store, long id, long from) {
        this.handler = handler;
        this.ctx = ctx;
        this.loop = loop;
        this.readExecutor = readExecutor;
        this.store = store;
        this.id = id;
        this.next = from;
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

    /** Any thread: schedule a push round unless one is scheduled or in flight. */
    void wake() {
        if (!closed && scheduled.compareAndSet(false, true)) {
            try {
                readExecutor.execute(readRound);
            } catch (RejectedExecutionException e) {
                scheduled.set(false);
            }
        }
    }

    /** Read thread: reads what the channel has room for and hands it to the event loop. */
    private void readRound() {
        Channel ch = ctx.channel();
        if (closed || !ch.isActive()) {
            closeReader();
            scheduled.set(false);
            return;
        }
        long tail = store.tail();
        int blockSize = store.blockSize();
        // no further than the channel has room for: a round overshoots the high water mark by less than one frame
        long room = ch.bytesBeforeUnwritable();
        long frame = blockSize + PUSH_OVERHEAD + 2L * ENTRY_OVERHEAD;
        int limit = (int) Math.min(MAX_PER_ROUND, (room + frame - 1) / frame);
        ByteBuf[] bodies = null;
        int count = 0;
        LogErrorException failure = null;
        try {
            if (reader == null) {
                reader = store.openReader();
            }
            while (next < tail && count < limit) {
                long position = next;
                ByteBuf body = LogFrame.pushBody(ctx.alloc(), position, blockSize);
                try {
                    reader.read(position, body);
                } catch (RuntimeException | InternalError e) {
                    body.release();
                    throw e;
                }
                if (bodies == null) {
                    bodies = new ByteBuf[(int) Math.min(limit, tail - position)];
                }
                bodies[count++] = body;
                next = position + 1;
            }
        } catch (LogErrorException e) {
            failure = e;
        } catch (RuntimeException | InternalError e) {
            // an InternalError is a mapped page that could not be read (a SIGBUS): end the subscription with an answer
            failure = new LogErrorException(ErrorCode.STORAGE_FAILURE, "reading position " + next + " failed: " + e, e);
        }
        if (count == 0 && failure == null) {
            roundDone();
            return;
        }
        ByteBuf[] round = bodies;
        int n = count;
        LogErrorException ended = failure;
        try {
            loop.execute(() -> write(round, n, ended));
        } catch (RejectedExecutionException e) {
            for (int i = 0; i < n; i++) {
                round[i].release();
            }
            closed = true;
            closeReader();
        }
    }

    /** Event loop: writes one round, then ends the subscription on a failure or asks for the next round. */
    private void write(ByteBuf[] round, int n, LogErrorException failure) {
        if (closed) {
            for (int i = 0; i < n; i++) {
                round[i].release();
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            ctx.write(new LogFrame(LogProtocol.PUSH, id, round[i]), ctx.voidPromise());
        }
        if (n > 0) {
            handler.pushed(n);
            ctx.flush();
        }
        if (failure != null) {
            end(failure.code(), failure.getMessage());
            return;
        }
        roundDone();
    }

    /** Read thread or event loop: lets the next wake-up schedule a round, and schedules one if work is waiting. */
    private void roundDone() {
        scheduled.set(false);
        if (!closed && next < store.tail() && ctx.channel().isWritable()) {
            wake();
        }
    }

    /** Event loop. */
    private void end(ErrorCode code, String message) {
        handler.answerError(id, code, "subscription ended: " + message);
        ctx.flush();
        close();
        handler.subscriptionEnded(this);
    }

    /** Event loop: no more rounds; the reader is closed on the read thread. */
    void close() {
        if (!closed) {
            closed = true;
            try {
                readExecutor.execute(this::closeReader);
            } catch (RejectedExecutionException e) {
                // the server is stopping: closing the store closes the reader
            }
        }
    }

    /** Read thread. */
    private void closeReader() {
        if (reader != null) {
            reader.close();
            reader = null;
        }
    }
}
