package io.meldb.log.server;

import io.meldb.log.client.BlockListener;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogService;
import io.meldb.log.client.LogStatus;
import io.meldb.log.ConfigBlock;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogConnectionException;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.meldb.log.LogTimeoutException;
import io.meldb.log.protocol.LogProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The log service (Hyder II §5.1) for a transaction server in the same process as the log's store: the embedded
 * database's path to its log, with no socket, no frames and no I/O threads in between. It does against the
 * {@link LogStore} what {@link io.meldb.log.server.LogServer} does for a {@link LogClient}, with the same answers
 * and errors: CREATE checked against the server's block size, READ bounded like a READ frame, subscriptions that
 * deliver each position once, in order, from storage ({@link InProcessSubscription}), and appends that wait for a
 * permit once {@code maxInFlight} are unanswered (the client's backpressure; the store's queue is unbounded).
 *
 * <p>The store stays its owner's ({@link io.meldb.log.server.LogServer} or a test): closing this ends its
 * subscriptions and refuses later requests; appends already handed to the store still complete. The log id is the
 * store's own, so the client-side check for a swapped log behind an address has nothing to check here.
 *
 * <p>Threads: appends complete on the store's writer thread; reads run on the caller's thread; creates and trims,
 * which write and fsync the store's metadata file, on a thread of this class's that exists only while there is such
 * work (an interrupt, say of a checkpoint thread stopped with {@code shutdownNow}, closes a {@code FileChannel} in
 * use by the interrupted thread, and must not fail the store's I/O; over the network the I/O never ran on the
 * caller's thread either); each subscription delivers on a thread of its own, which parks while there is nothing
 * to deliver.
 */
public final class InProcessLog implements LogService {
    /** As {@link LogClientOptions}: unanswered appends at most, and how long one waits for a permit. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 4096;
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final LogStore store;
    private final int serverBlockSize;
    private final int maxInFlight;
    private final long timeoutNanos;
    private final Semaphore permits;
    /** Copy-on-write, so that the store's writer thread wakes them without allocating an iterator per batch. */
    private volatile InProcessSubscription[] subscriptions = new InProcessSubscription[0];
    private final LogStore.TailListener wakeSubscriptions = tail -> {
        for (InProcessSubscription s : subscriptions) {
            s.wake();
        }
    };
    /** Runs creates and trims; its one thread ends after a few idle seconds. */
    private final ThreadPoolExecutor admin = new ThreadPoolExecutor(0, 1, 5, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "log-inproc-admin");
                t.setDaemon(true);
                return t;
            });
    private volatile boolean closed;
    /** The blocks appended last, which the subscriptions deliver without reading the store. */
    private final RecentBlocks recent = new RecentBlocks();

    private InProcessLog(LogStore store, int serverBlockSize, int maxInFlight, Duration requestTimeout) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight " + maxInFlight + " must be positive");
        }
        this.store = store;
        this.serverBlockSize = serverBlockSize;
        this.maxInFlight = maxInFlight;
        this.timeoutNanos = requestTimeout.toNanos();
        this.permits = new Semaphore(maxInFlight);
        store.addTailListener(wakeSubscriptions);
    }

    /**
     * The log in {@code store}. {@code serverBlockSize}: the only block size {@link #create} accepts, as a log
     * server refuses others (its {@code --block-size}); 0 accepts any.
     */
    public static InProcessLog over(LogStore store, int serverBlockSize) {
        return over(store, serverBlockSize, DEFAULT_MAX_IN_FLIGHT, DEFAULT_REQUEST_TIMEOUT);
    }

    public static InProcessLog over(LogStore store, int serverBlockSize, int maxInFlight, Duration requestTimeout) {
        return new InProcessLog(store, serverBlockSize, maxInFlight, requestTimeout);
    }

    @Override
    public CompletableFuture<Void> create(int blockSize, byte[] config) {
        if (serverBlockSize > 0 && blockSize != serverBlockSize) {
            return CompletableFuture.failedFuture(new LogErrorException(ErrorCode.CREATE_MISMATCH, "this server serves "
                    + "blocks of " + serverBlockSize + " bytes (--block-size); refusing a log of " + blockSize
                    + "-byte blocks"));
        }
        byte[] copy = config.clone();
        return onAdminThread(() -> {
            store.create(blockSize, copy);
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> append(byte[] block) {
        return append(Unpooled.wrappedBuffer(block));
    }

    /** The store's writer thread releases {@code block} once written (or refused): see {@link LogStore#append}. */
    @Override
    public CompletableFuture<Long> append(ByteBuf block) {
        if (closed) {
            block.release();
            return CompletableFuture.failedFuture(new LogConnectionException("the in-process log is closed"));
        }
        if (!acquirePermit()) {
            block.release();
            return CompletableFuture.failedFuture(new LogTimeoutException(maxInFlight + " appends to the in-process log"
                    + " are in flight and none finished within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"));
        }
        Append a = new Append(permits, recent);
        // a refusal (closing store, failed storage, wrong size) comes back through the callback too
        store.append(block, a);
        return a.future;
    }

    private boolean acquirePermit() {
        if (permits.tryAcquire()) {
            return true;
        }
        try {
            return permits.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * On the calling thread, with a reader of its own: at least one block (so that a position past the tail or
     * trimmed answers its error), at most a READ frame's worth, never past the tail; an error after the first block
     * answers the blocks before it.
     */
    @Override
    public CompletableFuture<List<byte[]>> read(long position, int count) {
        try {
            checkOpen();
            if (count <= 0) {
                throw new LogErrorException(ErrorCode.BAD_ARGUMENT, "READ count " + count + " must be positive");
            }
            if (!store.isCreated()) {
                throw new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
            }
            int blockSize = store.blockSize();
            long available = store.tail() - position;
            int n = (int) Math.max(1, Math.min(Math.min(count, LogProtocol.maxReadCount(blockSize)), available));
            List<byte[]> blocks = new ArrayList<>(n);
            ByteBuf out = Unpooled.buffer(blockSize, blockSize);
            try (LogReader reader = store.openReader()) {
                for (int i = 0; i < n; i++) {
                    out.clear();
                    reader.read(position + i, out);
                    byte[] block = new byte[blockSize];
                    out.getBytes(0, block);
                    blocks.add(block);
                }
            } catch (LogErrorException e) {
                if (blocks.isEmpty()) {
                    throw e;
                }
            } catch (RuntimeException | InternalError e) {
                // as the server answers it: an InternalError is a mapped page that could not be read (a SIGBUS)
                if (blocks.isEmpty()) {
                    throw new LogErrorException(ErrorCode.STORAGE_FAILURE, "reading position " + position + " failed: "
                            + e, e);
                }
            }
            return CompletableFuture.completedFuture(blocks);
        } catch (LogErrorException | LogConnectionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<byte[]> config() {
        return read(0, 1).thenApply(blocks -> ConfigBlock.decodeConfig(blocks.get(0)));
    }

    @Override
    public CompletableFuture<LogStatus> status() {
        if (closed) {
            return CompletableFuture.failedFuture(new LogConnectionException("the in-process log is closed"));
        }
        return CompletableFuture.completedFuture(new LogStatus(store.tail(), store.trimPoint(), store.blockSize(),
                store.logId()));
    }

    @Override
    public CompletableFuture<Long> trim(long position) {
        if (position < 1) {
            return CompletableFuture.failedFuture(new LogErrorException(ErrorCode.BAD_ARGUMENT, "trim position "
                    + position + " must be at least 1"));
        }
        return onAdminThread(() -> {
            long trimPoint = store.trim(position);
            // a subscription waiting below the new trim point learns of it now, not at the next append
            wakeSubscriptions.tailAdvanced(store.tail());
            return trimPoint;
        });
    }

    /** Runs {@code op} on the admin thread; the future completes there. */
    private <T> CompletableFuture<T> onAdminThread(Supplier<T> op) {
        CompletableFuture<T> f = new CompletableFuture<>();
        if (closed) {
            f.completeExceptionally(new LogConnectionException("the in-process log is closed"));
            return f;
        }
        try {
            admin.execute(() -> {
                try {
                    f.complete(op.get());
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new LogConnectionException("the in-process log is closed"));
        }
        return f;
    }

    @Override
    public LogService.Subscription subscribe(long from, BlockListener listener) {
        checkOpen();
        InProcessSubscription s = new InProcessSubscription(this, store, from, listener);
        synchronized (this) {
            InProcessSubscription[] now = Arrays.copyOf(subscriptions, subscriptions.length + 1);
            now[now.length - 1] = s;
            subscriptions = now;
        }
        s.start();
        return s;
    }

    /** Each subscription has a thread of its own ({@link InProcessSubscription}). */
    @Override
    public boolean deliversOnOwnThread() {
        return true;
    }

    synchronized void subscriptionClosed(InProcessSubscription s) {
        List<InProcessSubscription> now = new ArrayList<>(Arrays.asList(subscriptions));
        now.remove(s);
        subscriptions = now.toArray(new InProcessSubscription[0]);
    }

    @Override
    public UUID logId() {
        return store.logId();
    }

    /** Blocks the open subscriptions delivered from memory rather than from the store ({@link RecentBlocks}). */
    public long deliveredFromMemory() {
        long n = 0;
        for (InProcessSubscription s : subscriptions) {
            n += s.deliveredFromMemory();
        }
        return n;
    }

    /** Appends handed to the store and not yet answered. */
    public int inFlight() {
        return maxInFlight - permits.availablePermits();
    }

    private void checkOpen() {
        if (closed) {
            throw new LogConnectionException("the in-process log is closed");
        }
    }

    /**
     * Ends the subscriptions and a create or trim under way (waiting for their threads), and refuses later requests;
     * the store stays open.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        admin.shutdown(); // a create or trim under way finishes
        store.removeTailListener(wakeSubscriptions);
        for (InProcessSubscription s : subscriptions) {
            s.close();
        }
        recent.clear();
        try {
            // the owner closes the store next: a create or trim must not be cut off half-way
            admin.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The block at {@code position} if this log still holds it in memory, with a reference to release; else null. */
    ByteBuf heldBlock(long position) {
        return recent.retain(position);
    }

    /**
     * One append's completion, on the store's writer thread (or the caller's, if the store refused at once). The
     * block, once the store is done with it, stays referenced until it is stored, then goes to {@link RecentBlocks}.
     */
    private static final class Append implements LogStore.AppendCallback {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        private final Semaphore permits;
        private final RecentBlocks recent;
        private ByteBuf block;

        Append(Semaphore permits, RecentBlocks recent) {
            this.permits = permits;
            this.recent = recent;
        }

        @Override
        public void blockDone(ByteBuf done) {
            block = done;
        }

        @Override
        public void appended(long position) {
            permits.release();
            if (block != null) {
                // before the subscriptions are woken for this position (the store's tail listeners run after this)
                recent.put(position, block);
                block = null;
            }
            future.complete(position);
        }

        @Override
        public void failed(LogErrorException error) {
            permits.release();
            if (block != null) {
                block.release();
                block = null;
            }
            future.completeExceptionally(error);
        }
    }
}
