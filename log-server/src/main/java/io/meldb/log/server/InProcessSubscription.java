package io.meldb.log.server;

import io.meldb.log.client.BlockListener;
import io.meldb.log.client.LogService;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A subscription of an {@link InProcessLog} (the feed of a transaction server's log reader, Hyder II §5.1): one
 * thread reads every block from the start position on straight from the store and hands it to the listener, in
 * order, each position once; then parks until the store's tail listener (on the writer thread) says the log grew.
 *
 * <p>It answers as a network subscription does: a start below the trim point, or reaching a position trimmed
 * meanwhile, ends it with {@link ErrorCode#TRIMMED}; a failed read of storage is retried from the same position
 * with backoff (the network subscription reconnects); any other error ends it. {@link #pause()} stops delivery
 * after the block under way, as a network subscription stops reading its socket.
 *
 * <p>Wake-ups are lost never: the thread announces that it sleeps, rechecks the tail, and only then parks, while
 * {@link #wake()} runs after the tail advanced and unparks it if it announced; a full fence on each side orders the
 * two (Dekker). The block buffer is reused, so delivery allocates nothing per block.
 */
final class InProcessSubscription implements LogService.Subscription {
    private static final Logger LOG = LoggerFactory.getLogger(InProcessSubscription.class);
    /** Safety bound of a park; the tail listener wakes the thread when there is something to deliver. */
    private static final long MAX_PARK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Retries of a failed storage read, as the network subscription's reconnect backoff. */
    private static final long RETRY_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long RETRY_MAX_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final InProcessLog log;
    private final LogStore store;
    private final BlockListener listener;
    private final Thread thread;
    private volatile long next;
    private volatile boolean paused;
    private volatile boolean closed;
    /** The thread is parked or about to park: {@link #wake()} must unpark it. */
    private volatile boolean sleeping;
    /** Written by the subscription's thread only. */
    private volatile long deliveredFromMemory;

    InProcessSubscription(InProcessLog log, LogStore store, long from, BlockListener listener) {
        this.log = log;
        this.store = store;
        this.listener = listener;
        this.next = from;
        this.thread = new Thread(this::run, "log-inproc-sub");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    @Override
    public long nextPosition() {
        return next;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
        wake();
    }

    /** Any thread, after the tail advanced (or the trim point moved, or a flag changed): unparks a sleeping feed. */
    void wake() {
        VarHandle.fullFence();
        if (sleeping) {
            LockSupport.unpark(thread);
        }
    }

    private boolean nothingToDo() {
        return paused || next >= store.tail();
    }

    private void run() {
        LogReader reader = null;
        long retryNanos = RETRY_MIN_NANOS;
        try {
            LogErrorException refused = refusal();
            if (refused != null) {
                end(refused);
                return;
            }
            ByteBuf block = Unpooled.buffer(store.blockSize(), store.blockSize());
            while (!closed) {
                if (nothingToDo()) {
                    sleeping = true;
                    VarHandle.fullFence();
                    if (nothingToDo() && !closed) {
                        LockSupport.parkNanos(this, MAX_PARK_NANOS);
                    }
                    sleeping = false;
                    continue;
                }
                long position = next;
                block.clear();
                try {
                    if (!fromMemory(position, block)) {
                        if (reader == null) {
                            reader = store.openReader();
                        }
                        reader.read(position, block);
                    }
                } catch (LogErrorException e) {
                    if (e.code() != ErrorCode.STORAGE_FAILURE) {
                        end(e);
                        return;
                    }
                    reader = retryLater(reader, e, position, retryNanos);
                    retryNanos = Math.min(retryNanos * 2, RETRY_MAX_NANOS);
                    continue;
                } catch (RuntimeException | InternalError e) {
                    // an InternalError is a mapped page that could not be read (a SIGBUS): a storage failure
                    reader = retryLater(reader, e, position, retryNanos);
                    retryNanos = Math.min(retryNanos * 2, RETRY_MAX_NANOS);
                    continue;
                }
                retryNanos = RETRY_MIN_NANOS;
                if (closed) {
                    break;
                }
                try {
                    listener.onBlock(position, block);
                } catch (RuntimeException e) {
                    LOG.warn("subscription listener failed at position {}", position, e);
                }
                next = position + 1;
            }
        } catch (RuntimeException | Error e) {
            LOG.error("in-process subscription at position {} stopped", next, e);
            end(new LogErrorException(ErrorCode.STORAGE_FAILURE, "the subscription stopped: " + e, e));
        } finally {
            if (reader != null) {
                reader.close();
            }
        }
    }

    /**
     * Copies the block at {@code position} into {@code block} from the log's memory if it still holds it (it was
     * appended in this process a moment ago): no read of the store and no checksum of a copy just made.
     */
    private boolean fromMemory(long position, ByteBuf block) {
        if (position < store.trimPoint()) {
            return false; // trimmed meanwhile: the store's read answers TRIMMED, as for any position
        }
        ByteBuf held = log.heldBlock(position);
        if (held == null) {
            return false;
        }
        try {
            block.writeBytes(held, held.readerIndex(), held.readableBytes());
        } finally {
            held.release();
        }
        deliveredFromMemory++;
        return true;
    }

    /** Blocks delivered from the log's memory rather than read from the store (tests, benchmarks). */
    long deliveredFromMemory() {
        return deliveredFromMemory;
    }

    /** What the log server answers a SUBSCRIBE from {@link #next} with instead of blocks, or null. */
    private LogErrorException refusal() {
        long from = next;
        if (!store.isCreated()) {
            return new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
        }
        if (from < 0) {
            return new LogErrorException(ErrorCode.BAD_ARGUMENT, "negative position " + from);
        }
        if (from != 0 && from < store.trimPoint()) {
            return new LogErrorException(ErrorCode.TRIMMED, "position " + from + " was trimmed (trim point "
                    + store.trimPoint() + ")");
        }
        return null;
    }

    /** A read of storage failed: drops the reader and waits before reading {@code position} again. */
    private LogReader retryLater(LogReader reader, Throwable e, long position, long delayNanos) {
        LOG.warn("in-process subscription: reading position {} failed ({}); retrying in {} ms", position, e.toString(),
                TimeUnit.NANOSECONDS.toMillis(delayNanos));
        if (reader != null) {
            reader.close();
        }
        LockSupport.parkNanos(this, delayNanos);
        return null;
    }

    /** Subscription thread: ends for good and tells the listener. */
    private void end(LogException e) {
        if (closed) {
            return;
        }
        closed = true;
        log.subscriptionClosed(this);
        try {
            listener.onError(e);
        } catch (RuntimeException ex) {
            LOG.warn("subscription listener failed", ex);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        log.subscriptionClosed(this);
        if (Thread.currentThread() == thread) {
            return;
        }
        LockSupport.unpark(thread);
        try {
            thread.join(1000);
            if (thread.isAlive()) {
                // a listener blocked handing a block on (a full queue whose consumer has stopped): interrupt it
                thread.interrupt();
                thread.join(4000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
