package io.meldb.log.storage;

import io.meldb.log.Durability;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore.AppendCallback;
import io.meldb.log.LogStore.TailListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The log's one writer thread (Hyder II §5.1; docs/log-server.md, "Durability"): drains up to {@code maxBatch}
 * appends, writes them, makes them durable as configured, and only then publishes the new tail and runs the
 * callbacks, so every acknowledged block survives a {@code kill -9} (Chronicle marks an excerpt complete only after
 * its bytes are written). Jobs that must see the writer's state (writing position 0) run on it between appends.
 * A write that faults (the disk filled faster than the {@link DiskGuard}'s reserve) fails the store with
 * {@link ErrorCode#STORAGE_FAILURE} instead of killing the thread.
 */
final class LogWriter {
    private static final Logger LOG = LoggerFactory.getLogger(LogWriter.class);
    /**
     * How long an idle writer waits for an append before it looks again; a safety bound only, since
     * {@link #close()} wakes it. (It was 20 ms, 50 wake-ups a second of an otherwise idle database.)
     */
    private static final long IDLE_POLL_MILLIS = 1000;

    private final StoreState state;
    private final SingleChronicleQueue queue;
    private final RollCycle rollCycle;
    private final PositionIndex index;
    private final DiskGuard guard;
    private final QueueFileForcer forcer;
    private final PageToucher toucher;
    private final Path queueDir;
    private final int maxBatch;
    private final boolean fsync;

    private final LinkedBlockingQueue<WriterTask> pending = new LinkedBlockingQueue<>();
    /** Appends take the read side; close takes the write side so no append can slip in after the final drain. */
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private volatile boolean closing;
    private Thread thread;
    private final CompletableFuture<Void> started = new CompletableFuture<>();

    // ---- state owned by the writer thread ----
    private ExcerptWriter excerpts;
    private long nextPosition;
    private final List<Append> written = new ArrayList<>();

    LogWriter(StoreState state, SingleChronicleQueue queue, PositionIndex index, DiskGuard guard,
              QueueFileForcer forcer, PageToucher toucher, Path queueDir, StoreOptions options) {
        this.state = state;
        this.queue = queue;
        this.rollCycle = queue.rollCycle();
        this.index = index;
        this.guard = guard;
        this.forcer = forcer;
        this.toucher = toucher;
        this.queueDir = queueDir;
        this.maxBatch = options.maxBatch();
        this.fsync = options.durability() == Durability.FSYNC;
        this.nextPosition = state.tail;
    }

    /** Starts the thread and waits until it has its appender (and has written a position 0 a crash left out). */
    void start(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
        started.join();
    }

    boolean isClosing() {
        return closing;
    }

    void append(ByteBuf block, AppendCallback callback) {
        LogErrorException refusal = null;
        closeLock.readLock().lock();
        try {
            if (closing) {
                refusal = new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log store is closing");
            } else if (state.failure != null) {
                refusal = state.failure;
            } else {
                pending.add(new Append(block, callback));
                return;
            }
        } finally {
            closeLock.readLock().unlock();
        }
        callback.blockDone(block);
        callback.failed(refusal);
    }

    /** Writes position 0 (the configuration block of {@code m}) on the writer thread and waits for it. */
    void writeConfig(LogMeta m) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        submit(new WriterJob(() -> writeConfigExcerpt(m), done));
        done.join();
    }

    private void submit(WriterTask task) {
        closeLock.readLock().lock();
        try {
            if (closing) {
                throw new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log store is closing");
            }
            pending.add(task);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    /** Writer thread: position 0, made durable whatever the mode, then published. */
    private void writeConfigExcerpt(LogMeta m) {
        if (nextPosition != 0) {
            return;
        }
        excerpts.write(0, Unpooled.wrappedBuffer(m.configBlock));
        nextPosition = 1;
        forcer.force();
        state.tail = 1;
        for (TailListener l : state.tailListeners()) {
            l.tailAdvanced(1);
        }
    }

    private void run() {
        try {
            excerpts = new ExcerptWriter(queue.createAppender(), rollCycle, index, forcer);
            if (state.meta != null && nextPosition == 0) {
                // CREATE wrote log.meta but the process died before position 0 reached the queue
                writeConfigExcerpt(state.meta);
            }
        } catch (Throwable t) {
            started.completeExceptionally(t);
            return;
        }
        started.complete(null);

        List<WriterTask> batch = new ArrayList<>(maxBatch);
        while (true) {
            WriterTask first;
            try {
                first = pending.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (first == null) {
                if (closing) {
                    break;
                }
                continue;
            }
            batch.add(first);
            pending.drainTo(batch, maxBatch - 1);
            guard.check();
            for (int i = 0, n = batch.size(); i < n; i++) {
                WriterTask task = batch.get(i);
                if (task instanceof Append a) {
                    writeAppend(a);
                } else {
                    completeWritten();
                    ((WriterJob) task).runOnWriter();
                }
            }
            completeWritten();
            if (toucher != null && excerpts.currentCycle() != Integer.MIN_VALUE) {
                toucher.writerAt(excerpts.currentCycle(), excerpts.writePosition());
            }
            batch.clear();
            if (closing && pending.isEmpty()) {
                break; // everything submitted before close() is done (close() queues a task to get here)
            }
        }
        completeWritten();
        forcer.close();
        excerpts.close();
    }

    private void writeAppend(Append a) {
        ByteBuf block = a.block;
        LogErrorException refusal = null;
        try {
            LogMeta m = state.meta;
            if (state.failure != null) {
                refusal = state.failure;
            } else if (guard.refusal() != null) {
                refusal = guard.refusal();
            } else if (m == null) {
                refusal = new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
            } else if (block.readableBytes() != m.blockSize) {
                refusal = new LogErrorException(ErrorCode.BLOCK_SIZE, "block of " + block.readableBytes()
                        + " bytes, the log's block size is " + m.blockSize);
            } else {
                long position = nextPosition;
                excerpts.write(position, block);
                guard.written(block.readableBytes() + ExcerptWriter.EXCERPT_OVERHEAD);
                nextPosition = position + 1;
                a.position = position;
                written.add(a);
            }
        } catch (RuntimeException | Error e) {
            // an Error too: a write to a mapped page the file system cannot back (a full disk the reserve did not
            // foresee) arrives as an InternalError, and a writer thread that died would leave every append hanging
            LogErrorException f = new LogErrorException(ErrorCode.STORAGE_FAILURE, "writing to " + queueDir + " failed"
                    + (e instanceof InternalError ? " (a write to the memory-mapped queue file faulted: the disk is full or failing)" : "")
                    + "; the store accepts no more appends until restarted", e);
            LOG.error("log storage failed", e);
            state.failure = f;
            refusal = f;
        } finally {
            // before the refusal: a callback may hand both to another thread together
            a.callback.blockDone(block);
        }
        if (refusal != null) {
            a.callback.failed(refusal);
        }
    }

    /** Writer thread: makes the appends written so far durable as configured, publishes them, acknowledges them. */
    private void completeWritten() {
        if (written.isEmpty()) {
            return;
        }
        if (fsync) {
            try {
                forcer.force();
            } catch (RuntimeException e) {
                LogErrorException f = new LogErrorException(ErrorCode.STORAGE_FAILURE,
                        "forcing " + queueDir + " to disk failed; the store accepts no more appends until restarted", e);
                LOG.error("log storage failed", e);
                state.failure = f;
                for (int i = 0, n = written.size(); i < n; i++) {
                    written.get(i).callback.failed(f);
                }
                written.clear();
                return;
            }
        } else {
            forcer.forget();
        }
        state.tail = nextPosition;
        for (int i = 0, n = written.size(); i < n; i++) {
            Append a = written.get(i);
            try {
                a.callback.appended(a.position);
            } catch (RuntimeException e) {
                LOG.warn("append callback failed", e);
            }
        }
        written.clear();
        long t = state.tail;
        TailListener[] listeners = state.tailListeners();
        for (int i = 0; i < listeners.length; i++) {
            TailListener l = listeners[i];
            try {
                l.tailAdvanced(t);
            } catch (RuntimeException e) {
                LOG.warn("tail listener failed", e);
            }
        }
    }

    /**
     * Stops taking tasks, lets the thread finish everything submitted before, and fails what is left with
     * {@link ErrorCode#SHUTTING_DOWN}. False if it was already closing.
     */
    boolean close() {
        closeLock.writeLock().lock();
        try {
            if (closing) {
                return false;
            }
            closing = true;
        } finally {
            closeLock.writeLock().unlock();
        }
        // wakes an idle writer, which then sees the closing flag without waiting out its poll
        pending.add(new WriterJob(() -> { }, new CompletableFuture<>()));
        if (thread != null) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LogErrorException closed = new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log store closed");
        for (WriterTask t; (t = pending.poll()) != null; ) {
            if (t instanceof Append a) {
                a.callback.blockDone(a.block);
                a.callback.failed(closed);
            } else {
                ((WriterJob) t).done.completeExceptionally(closed);
            }
        }
        return true;
    }

    private interface WriterTask {
    }

    private static final class Append implements WriterTask {
        final ByteBuf block;
        final AppendCallback callback;
        long position;

        Append(ByteBuf block, AppendCallback callback) {
            this.block = block;
            this.callback = callback;
        }
    }

    private static final class WriterJob implements WriterTask {
        final Runnable job;
        final CompletableFuture<Void> done;

        WriterJob(Runnable job, CompletableFuture<Void> done) {
            this.job = job;
            this.done = done;
        }

        void runOnWriter() {
            try {
                job.run();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }
    }
}
