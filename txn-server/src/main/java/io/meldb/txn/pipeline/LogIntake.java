package io.meldb.txn.pipeline;

import io.meldb.log.LogErrorException;
import io.meldb.log.LogException;
import io.meldb.log.client.BlockListener;
import io.meldb.log.client.LogService;
import io.meldb.txn.ServerContext;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Log intake (Hyder II §5.1): the log client's I/O thread copies each block, in log order, into a pooled buffer
 * and queues it for the reader thread; when the queue runs nearly full, reading the connection pauses until the
 * reader has drained it (back-pressure instead of unbounded buffering).
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

    LogIntake(final ServerContext ctx) {
        this.ctx = ctx;
        this.blockSize = ctx.cluster().blockSize();
        for (int i = 0; i < CAPACITY; i++) {
            free.add(new Block(blockSize));
        }
    }

    /** Starts reading the log at {@code from}. */
    void subscribe(final long from) {
        subscription = ctx.log().subscribe(from, this);
    }

    @Override
    public void onBlock(final long position, final ByteBuf block) {
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
