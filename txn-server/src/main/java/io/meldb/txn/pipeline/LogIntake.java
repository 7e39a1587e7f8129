package io.meldb.txn.pipeline;

import io.meldb.log.LogErrorException;
import io.meldb.log.LogException;
import io.meldb.log.client.BlockListener;
import io.meldb.log.client.LogService;
import io.meldb.txn.ServerContext;
import io.netty.buffer.ByteBuf;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Log intake (Hyder II §5.1): the log client's I/O thread copies each block, in log order, into a pooled buffer
 * and queues it for the reader thread; when the queue runs nearly full, reading the connection pauses until the
 * reader has drained it (back-pressure instead of unbounded buffering).
 *
 * <p>When the log's subscription delivers on a thread of its own ({@code LogService.deliversOnOwnThread()}, the
 * in-process log) and the pipeline is chained ({@link io.meldb.txn.ThreadingMode#CHAINED}), intake can instead hand
 * each block straight to the reader on that thread ({@link #subscribeDirect}): no copy, no queue, no reader
 * thread to wake, and the subscription reads the next block only once the reader is done with this one.
 */
final class LogIntake implements BlockListener {
    private static final Logger LOG = LoggerFactory.getLogger(LogIntake.class);
    /** Blocks queued between the log client's I/O thread and the reader thread before reading pauses. */
    static final int CAPACITY = 8192;

    /** One block between the I/O thread and the reader thread. */
    static final class Block {
        final byte[] bytes;
        long position;
        /** When the log delivered it ({@link io.meldb.txn.CommitPathProfile}). */
        long receivedNanos;

        Block(final int size) {
            bytes = new byte[size];
        }
    }

    private final ServerContext ctx;
    private final int blockSize;
    private final ArrayBlockingQueue<Block> inbox = new ArrayBlockingQueue<>(CAPACITY);
    private final ArrayBlockingQueue<Block> free = new ArrayBlockingQueue<>(CAPACITY + 1);
    private volatile LogService.Subscription subscription;
    private volatile boolean paused;
    /** Direct delivery: the reader's entry point, null when blocks are queued for a reader thread. */
    private DirectReader direct;
    /** Direct delivery: the subscription's thread, once it delivered (it then melds: allocation, liveness). */
    private volatile Thread directThread;
    private final UnsafeBuffer directView = new UnsafeBuffer(new byte[0]);
    /** Direct delivery: where a block the subscription holds off the heap, or a malformed one, is copied. */
    private byte[] directCopy;

    /** The reader, called on the subscription's own thread with each block in log order (direct delivery). */
    @FunctionalInterface
    interface DirectReader {
        /** {@code block} holds the block at offset 0 and is valid only during the call. */
        void onBlock(long position, DirectBuffer block, long receivedNanos);
    }

    LogIntake(final ServerContext ctx) {
        this.ctx = ctx;
        this.blockSize = ctx.cluster().blockSize();
        for (int i = 0; i < CAPACITY; i++) {
            free.add(new Block(blockSize));
        }
    }

    /** Starts reading the log at {@code from}, queueing blocks for a reader thread ({@link #poll}). */
    void subscribe(final long from) {
        subscription = ctx.log().subscribe(from, this);
    }

    /** Starts reading the log at {@code from}, each block handed to {@code reader} on the subscription's thread. */
    void subscribeDirect(final long from, final DirectReader reader) {
        this.direct = reader;
        subscription = ctx.log().subscribe(from, this);
    }

    @Override
    public void onBlock(final long position, final ByteBuf block) {
        if (direct != null) {
            deliverDirect(position, block);
            return;
        }
        Block b = free.poll();
        if (b == null) {
            b = new Block(blockSize);
        }
        if (block.readableBytes() != blockSize) {
            LOG.warn("log block {} has {} bytes, not the block size {}; skipped", position, block.readableBytes(),
                blockSize);
            Arrays.fill(b.bytes, (byte) 0);
        } else {
            block.getBytes(block.readerIndex(), b.bytes);
        }
        b.position = position;
        b.receivedNanos = System.nanoTime();
        if (!inbox.offer(b)) {
            // the pipeline is behind: stop reading the connection, then wait for room
            pause();
            try {
                inbox.put(b);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (inbox.remainingCapacity() < CAPACITY / 8) {
            pause();
        }
    }

    /**
     * Subscription thread: runs the reader on the block. An error stops the server, as a reader thread's does, and
     * every later block is ignored (the subscription would otherwise go on past a block the reader did not finish).
     */
    private void deliverDirect(final long position, final ByteBuf block) {
        if (ctx.stopped()) {
            return;
        }
        if (directThread == null) {
            directThread = Thread.currentThread();
        }
        final long receivedNanos = System.nanoTime();
        try {
            if (block.readableBytes() != blockSize) {
                LOG.warn("log block {} has {} bytes, not the block size {}; skipped", position, block.readableBytes(),
                    blockSize);
                Arrays.fill(directCopy(), (byte) 0);
                directView.wrap(directCopy);
            } else if (block.hasArray()) {
                directView.wrap(block.array(), block.arrayOffset() + block.readerIndex(), blockSize);
            } else {
                block.getBytes(block.readerIndex(), directCopy());
                directView.wrap(directCopy);
            }
            direct.onBlock(position, directView, receivedNanos);
        } catch (RuntimeException | Error e) {
            if (!ctx.closed()) {
                LOG.error("server {}: the log reader stopped", ctx.serverId(), e);
                ctx.fail("log reader error: " + e);
            }
        }
    }

    private byte[] directCopy() {
        if (directCopy == null) {
            directCopy = new byte[blockSize];
        }
        return directCopy;
    }

    /** The thread that delivered blocks directly to the reader, or null (queued delivery, or none yet). */
    Thread directThread() {
        return directThread;
    }

    @Override
    public void onError(final LogException error) {
        if (!ctx.closed()) {
            ctx.fail("the log subscription ended: " + error.getMessage()
                + (error instanceof LogErrorException ? " (restart the server to recover from a checkpoint)" : ""));
        }
    }

    private void pause() {
        if (!paused) {
            paused = true;
            ctx.metrics().stalled();
            subscription.pause();
        }
    }

    /** Reader thread: the next block, or null after {@code millis} without one. */
    Block poll(final long millis) throws InterruptedException {
        return inbox.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** Reader thread: done with {@code b}; reading resumes once the inbox has drained enough. */
    void recycle(final Block b) {
        free.offer(b);
        if (paused && inbox.size() < CAPACITY / 4) {
            paused = false;
            subscription.resume();
        }
    }

    int size() {
        return inbox.size();
    }

    void close() {
        if (subscription != null) {
            subscription.close();
        }
    }
}
