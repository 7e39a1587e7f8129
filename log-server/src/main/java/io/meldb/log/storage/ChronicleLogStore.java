package io.meldb.log.storage;

import io.meldb.log.ConfigBlock;
import io.meldb.log.Durability;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.core.time.SystemTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.RollingResourcesCache;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

/**
 * The log service's storage (Hyder II §5.1) on Chronicle Queue: one excerpt per block, one writer thread, trim
 * by deleting whole queue files (meld paper App. B).
 *
 * <h2>Positions across roll cycles</h2>
 * Chronicle numbers excerpts by (cycle, sequence within the cycle), and cycles follow the clock, so its index is
 * not a dense position. Every excerpt therefore stores its own position ({@link StoredBlock}), and the store
 * keeps a map {@code first position of a queue file -> cycle}: since this store is the queue's only writer and
 * sequences are dense inside a cycle, position {@code p} lives at {@code (c, p - first(c))} for the cycle
 * {@code c} whose first position is the greatest one {@code <= p}. The map has one entry per queue file and is
 * rebuilt at startup by reading the first excerpt of each file, so opening costs one read per file, not one per
 * block. We prefer this to fixing one roll cycle per file with our own index: it keeps Chronicle's own indexing
 * and file management, and the stored positions let recovery check density (each file must start where the
 * previous one ended) and let reads check that the excerpt found is the one asked for.
 *
 * <h2>Appends and durability</h2>
 * {@link #append} hands the block to the writer thread, which drains up to {@code maxBatch} appends, writes
 * them, makes them durable as configured, and only then publishes the new tail and runs the callbacks. In
 * {@link Durability#FSYNC} mode the batch's queue file is forced to the device once per batch (group commit).
 * We force the file rather than call Chronicle's {@code ExcerptAppender.sync()} (which, with
 * {@code syncMode(SyncMode.SYNC)}, msyncs the appender's current mapped chunk): a batch that crosses a chunk or
 * roll-cycle boundary would leave its first blocks to the lazy msync on chunk release, after the acknowledgement.
 * {@code SyncMode.SYNC} is still set so released chunks are msynced as well.
 *
 * <h2>Crash recovery</h2>
 * Chronicle marks an excerpt complete only after its bytes are written, and rewrites an incomplete last excerpt
 * left by a killed writer, so after {@code kill -9} the queue ends with the last complete excerpt; every
 * acknowledged block is among them because acknowledgement follows the write. An unacknowledged block is either
 * there whole (it was written, the answer was lost) or absent.
 *
 * <h2>A full disk</h2>
 * Writes go through memory-mapped files, and a write to a page the file system cannot allocate is a SIGBUS, which
 * the JVM turns into an {@code InternalError} at best. So the writer keeps a reserve of free space
 * ({@link StoreOptions#minFreeSpace()}): below it, appends are refused with {@link ErrorCode#STORAGE_FULL} before
 * anything is written, and accepted again once space is freed. Should a write fault anyway (the disk filled faster
 * than the reserve), the store fails with {@link ErrorCode#STORAGE_FAILURE} instead of losing its writer thread.
 */
public final class ChronicleLogStore implements LogStore {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleLogStore.class);

    static final String QUEUE_DIR = "queue";
    static final String LOCK_FILE = "log.lock";
    static final String QUEUE_FILE_SUFFIX = ".cq4";
    /** Bytes an excerpt takes besides its block: Chronicle's header, the position and the checksum. */
    private static final int EXCERPT_OVERHEAD = 4 + Long.BYTES + Integer.BYTES;
    /**
     * How long an idle writer waits for an append before it looks again; a safety bound only, since
     * {@link #close()} wakes it. (It was 20 ms, 50 wake-ups a second of an otherwise idle database.)
     */
    private static final long IDLE_POLL_MILLIS = 1000;

    private final StoreOptions options;
    private final Path dir;
    private final Path queueDir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final SingleChronicleQueue queue;
    private final RollCycle rollCycle;
    private final RollingResourcesCache files;

    /** First position stored in each queue file -> that file's cycle. Written by the writer thread and by trim. */
    final ConcurrentSkipListMap<Long, Integer> cycles = new ConcurrentSkipListMap<>();

    private final Object metaLock = new Object();
    private volatile LogMeta meta;
    private volatile long tail;
    private volatile long trimPoint = 1;
    private volatile LogErrorException failure;
    /** The refusal in force while the disk is below {@link StoreOptions#minFreeSpace()}; set and cleared by the writer. */
    private volatile LogErrorException full;
    /** Free bytes on the log's disk ({@code statvfs}); tests substitute a probe. */
    private volatile LongSupplier freeSpace;

    private final LinkedBlockingQueue<WriterTask> pending = new LinkedBlockingQueue<>();
    /** Appends take the read side; close takes the write side so no append can slip in after the final drain. */
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private volatile boolean closing;
    private final Thread writer;
    private final CompletableFuture<Void> writerStarted = new CompletableFuture<>();

    private final PageToucher toucher;
    /** Copied on change, read by index: the writer tells them after every batch without allocating an iterator. */
    private volatile TailListener[] tailListeners = new TailListener[0];
    private final Set<ChronicleLogReader> readers = ConcurrentHashMap.newKeySet();

    // ---- state owned by the writer thread ----
    private ExcerptAppender appender;
    private long nextPosition;
    private final StoredBlock writerChecksum = new StoredBlock();
    private byte[] scratch = new byte[0];
    /** Writer thread: the position of the first excerpt in {@link #currentCycle}'s queue file. */
    private long currentCycleStart;
    /** Writer thread: the cycle last added to {@link #cyclesToForce} since it was cleared (saves a lookup per append). */
    private int lastCycleToForce = Integer.MIN_VALUE;
    private final List<Append> written = new ArrayList<>();
    private final Int2ObjectHashMap<FileChannel> cycleChannels = new Int2ObjectHashMap<>();
    private final IntHashSet cyclesToForce = new IntHashSet();
    private boolean newQueueFile;
    /** Writer thread: the queue file the last excerpt went to. */
    private int currentCycle = Integer.MIN_VALUE;
    /** Writer thread: bytes written between two reads of the free space (an eighth of the reserve, at least 1 MiB). */
    private final long spaceCheckEvery;
    private long writtenSinceSpaceCheck;

    private ChronicleLogStore(StoreOptions options) throws IOException {
        this.options = options;
        this.dir = options.dataDir().toAbsolutePath();
        this.queueDir = dir.resolve(QUEUE_DIR);
        Files.createDirectories(queueDir);
        File volume = dir.toFile();
        this.freeSpace = volume::getUsableSpace;
        this.spaceCheckEvery = Math.max(1L << 20, options.minFreeSpace() / 8);
        this.writtenSinceSpaceCheck = spaceCheckEvery;

        lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock l;
        try {
            l = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            l = null;
        }
        if (l == null) {
            lockChannel.close();
            throw new IOException(dir + " is in use by another log store (" + LOCK_FILE + " is locked)");
        }
        lock = l;

        SingleChronicleQueue q = null;
        try {
            QueueRecovery.removeHeaderlessQueueFiles(queueDir);
            meta = LogMeta.read(dir);
            if (meta != null) {
                trimPoint = Math.max(1, meta.trimPoint);
                if (meta.logId == null) {
                    // created by a version that drew no log id: draw it now, once
                    meta = meta.withLogId(UUID.randomUUID());
                    meta.write(dir);
                    LOG.info("log {} had no log id; it is now {}", dir, meta.logId);
                }
            }
            SingleChronicleQueueBuilder builder = SingleChronicleQueueBuilder.binary(queueDir.toFile())
                    .rollCycle(options.rollCycle())
                    .syncMode(options.durability() == Durability.FSYNC ? SyncMode.SYNC : SyncMode.NONE);
            QueueClock clock = new QueueClock(options.timeProvider() != null ? options.timeProvider()
                    : SystemTimeProvider.INSTANCE);
            builder.timeProvider(clock);
            q = builder.build();
            queue = q;
            rollCycle = q.rollCycle();
            int newest = q.lastCycle();
            if (newest != Integer.MIN_VALUE && newest >= 0) {
                clock.notBefore(q.epoch() + newest * (long) rollCycle.lengthInMillis());
            }
            files = new RollingResourcesCache(rollCycle, q.epoch(),
                    name -> new File(queueDir.toFile(), name + QUEUE_FILE_SUFFIX),
                    file -> file.getName().substring(0, file.getName().length() - QUEUE_FILE_SUFFIX.length()));
            tail = QueueRecovery.recover(queue, rollCycle, dir, meta, trimPoint, cycles);
            nextPosition = tail;
            LOG.info("opened log {}: {}, {} queue file(s), durability {}, roll cycle {}", dir,
                    meta == null ? "not created yet" : "log id " + meta.logId + ", block size " + meta.blockSize
                            + ", positions [" + trimPoint + ", " + tail + ")",
                    cycles.size(), options.durability().flag(), RollCycleNames.name(rollCycle));
        } catch (IOException | RuntimeException e) {
            if (q != null) {
                q.close();
            }
            lock.release();
            lockChannel.close();
            throw e;
        }

        toucher = options.pretouch() ? new PageToucher(this::fileOf, "log-pretouch-" + dir.getFileName()) : null;
        writer = new Thread(this::writerLoop, "log-writer-" + dir.getFileName());
        writer.setDaemon(true);
        writer.start();
        try {
            writerStarted.join();
        } catch (RuntimeException e) {
            close();
            throw new IOException("the log writer failed to start", e.getCause() != null ? e.getCause() : e);
        }
        deleteTrimmedFiles();
        long free = freeSpace();
        if (options.minFreeSpace() > 0 && free < options.minFreeSpace()) {
            LOG.warn("the disk holding {} has {} MiB free, below the {} MiB the log keeps in reserve (min free space): "
                    + "appends will be refused (STORAGE_FULL) until space is freed", dir, free >> 20,
                    options.minFreeSpace() >> 20);
        }
    }

    /** Opens (and recovers) the log in {@code options.dataDir()}, creating the directory if needed. */
    public static ChronicleLogStore open(StoreOptions options) throws IOException {
        return new ChronicleLogStore(options);
    }

    public StoreOptions options() {
        return options;
    }

    // ------------------------------------------------------------------------------------------------ create

    @Override
    public void create(int blockSize, byte[] config) {
        create(blockSize, config, UUID.randomUUID());
    }

    /**
     * As {@link #create(int, byte[])} with the log id given rather than drawn: every replica of a replicated log
     * must hold the same id (the id travels in the replicated CREATE, see io.meldb.log.replication).
     */
    public void create(int blockSize, byte[] config, UUID logId) {
        ConfigBlock.validate(blockSize, config);
        synchronized (metaLock) {
            LogMeta m = meta;
            if (m != null) {
                if (m.blockSize == blockSize && Arrays.equals(m.config, config)) {
                    return;
                }
                throw new LogErrorException(ErrorCode.CREATE_MISMATCH, "the log exists with block size " + m.blockSize
                        + " and a " + m.config.length + "-byte configuration; refusing block size " + blockSize
                        + (Arrays.equals(m.config, config) ? "" : " with a different " + config.length + "-byte configuration"));
            }
            LogMeta created = new LogMeta(blockSize, config, 1, logId);
            try {
                created.write(dir);
            } catch (IOException e) {
                throw new LogErrorException(ErrorCode.STORAGE_FAILURE, "cannot write " + dir.resolve(LogMeta.FILE_NAME), e);
            }
            meta = created;
            CompletableFuture<Void> done = new CompletableFuture<>();
            submit(new WriterJob(() -> writeConfigExcerpt(created), done));
            try {
                done.join();
            } catch (RuntimeException e) {
                throw e.getCause() instanceof LogErrorException le ? le
                        : new LogErrorException(ErrorCode.STORAGE_FAILURE, "cannot write position 0", e);
            }
        }
    }

    /** Writer thread: position 0, made durable whatever the mode, then published. */
    private void writeConfigExcerpt(LogMeta m) {
        if (nextPosition != 0) {
            return;
        }
        writeExcerpt(0, Unpooled.wrappedBuffer(m.configBlock));
        nextPosition = 1;
        forceWrittenFiles();
        tail = 1;
        for (TailListener l : tailListeners) {
            l.tailAdvanced(1);
        }
    }

    @Override
    public boolean isCreated() {
        return meta != null;
    }

    @Override
    public UUID logId() {
        LogMeta m = meta;
        return m == null ? null : m.logId;
    }

    @Override
    public int blockSize() {
        LogMeta m = meta;
        return m == null ? 0 : m.blockSize;
    }

    @Override
    public byte[] config() {
        LogMeta m = meta;
        return m == null ? null : m.config.clone();
    }

    byte[] configBlock() {
        LogMeta m = meta;
        return m == null ? null : m.configBlock;
    }

    // ------------------------------------------------------------------------------------------------ append

    @Override
    public void append(ByteBuf block, AppendCallback callback) {
        LogErrorException refusal = null;
        closeLock.readLock().lock();
        try {
            if (closing) {
                refusal = new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log store is closing");
            } else if (failure != null) {
                refusal = failure;
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

    private void writerLoop() {
        try {
            appender = queue.createAppender();
            if (meta != null && nextPosition == 0) {
                // CREATE wrote log.meta but the process died before position 0 reached the queue
                writeConfigExcerpt(meta);
            }
        } catch (Throwable t) {
            writerStarted.completeExceptionally(t);
            return;
        }
        writerStarted.complete(null);

        int maxBatch = options.maxBatch();
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
            checkFreeSpace();
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
            if (toucher != null && currentCycle != Integer.MIN_VALUE) {
                toucher.writerAt(currentCycle, appender.wire().bytes().writePosition());
            }
            batch.clear();
            if (closing && pending.isEmpty()) {
                break; // everything submitted before close() is done (close() queues a task to get here)
            }
        }
        completeWritten();
        for (FileChannel ch : cycleChannels.values()) {
            closeQuietly(ch);
        }
        appender.close();
    }

    private void writeAppend(Append a) {
        ByteBuf block = a.block;
        LogErrorException refusal = null;
        try {
            LogMeta m = meta;
            if (failure != null) {
                refusal = failure;
            } else if (full != null) {
                refusal = full;
            } else if (m == null) {
                refusal = new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
            } else if (block.readableBytes() != m.blockSize) {
                refusal = new LogErrorException(ErrorCode.BLOCK_SIZE, "block of " + block.readableBytes()
                        + " bytes, the log's block size is " + m.blockSize);
            } else {
                long position = nextPosition;
                writeExcerpt(position, block);
                writtenSinceSpaceCheck += block.readableBytes() + EXCERPT_OVERHEAD;
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
            failure = f;
            refusal = f;
        } finally {
            // before the refusal: a callback may hand both to another thread together
            a.callback.blockDone(block);
        }
        if (refusal != null) {
            a.callback.failed(refusal);
        }
    }

    /**
     * Writer thread: one excerpt; notes the queue file it went to. Allocates nothing: every block is checksummed
     * and written from an array with explicit offsets, its own or, for a direct block, the writer's reused copy.
     * The allocation-free ways of reading a direct {@code ByteBuf} as a {@code ByteBuffer} share one cached buffer
     * object with the event loop that reads the socket into the same memory, and Chronicle's
     * {@code writeSome(ByteBuffer)} ignores the array offset of a heap buffer slice (found by LogServerHandlerTest).
     */
    private void writeExcerpt(long position, ByteBuf block) {
        int length = block.readableBytes();
        byte[] array;
        int offset;
        if (block.hasArray()) {
            array = block.array();
            offset = block.arrayOffset() + block.readerIndex();
        } else {
            if (scratch.length < length) {
                scratch = new byte[length];
            }
            block.getBytes(block.readerIndex(), scratch, 0, length);
            array = scratch;
            offset = 0;
        }
        int crc = writerChecksum.checksum(position, array, offset, length);
        DocumentContext dc = appender.writingDocument();
        try {
            Bytes<?> bytes = dc.wire().bytes();
            bytes.writeLong(position);
            bytes.writeInt(crc);
            long before = bytes.writePosition();
            bytes.write(array, offset, length);
            if (bytes.writePosition() - before != length) {
                throw new IllegalStateException("short write of position " + position);
            }
        } catch (RuntimeException | Error e) {
            dc.rollbackOnClose();
            throw e;
        } finally {
            dc.close();
        }
        long index = appender.lastIndexAppended();
        int cycle = rollCycle.toCycle(index);
        long seq = rollCycle.toSequenceNumber(index);
        if (seq == 0) {
            cycles.put(position, cycle);
            newQueueFile = true;
            currentCycleStart = position;
        } else if (cycle != currentCycle || position - currentCycleStart != seq) {
            // not the file the previous excerpt went to (the first append after opening the store): check against
            // the file map
            Map.Entry<Long, Integer> e = cycles.floorEntry(position);
            if (e == null || e.getValue() != cycle || position - e.getKey() != seq) {
                throw new IllegalStateException("position " + position + " was stored as excerpt " + seq + " of cycle "
                        + cycle + ", which breaks dense numbering (file map entry " + e + ")");
            }
            currentCycleStart = e.getKey();
        }
        if (cycle != lastCycleToForce) {
            cyclesToForce.add(cycle);
            lastCycleToForce = cycle;
        }
        currentCycle = cycle;
    }

    /**
     * Writer thread, before each batch: reads the disk's free space once an eighth of the reserve has been written
     * since the last read, and before every batch while it is short, so that appends stop while the reserve still
     * has room for the batch in progress, and resume on their own once space is freed.
     */
    private void checkFreeSpace() {
        long min = options.minFreeSpace();
        if (min == 0 || (full == null && writtenSinceSpaceCheck < spaceCheckEvery)) {
            return;
        }
        writtenSinceSpaceCheck = 0;
        long free = freeSpace.getAsLong();
        if (free >= min) {
            if (full != null) {
                full = null;
                LOG.info("the disk holding {} has {} MiB free again; accepting appends", dir, free >> 20);
            }
        } else if (full == null) {
            full = new LogErrorException(ErrorCode.STORAGE_FULL, "the disk holding " + dir + " has " + (free >> 20)
                    + " MiB free, below the " + (min >> 20) + " MiB the log keeps in reserve; nothing was appended. "
                    + "Appends resume once space is freed (TRIM the log, or free or add disk space)");
            LOG.error(full.getMessage());
        }
    }

    /** Writer thread: makes the appends written so far durable as configured, publishes them, acknowledges them. */
    private void completeWritten() {
        if (written.isEmpty()) {
            return;
        }
        if (options.durability() == Durability.FSYNC) {
            try {
                forceWrittenFiles();
            } catch (RuntimeException e) {
                LogErrorException f = new LogErrorException(ErrorCode.STORAGE_FAILURE,
                        "forcing " + queueDir + " to disk failed; the store accepts no more appends until restarted", e);
                LOG.error("log storage failed", e);
                failure = f;
                for (int i = 0, n = written.size(); i < n; i++) {
                    written.get(i).callback.failed(f);
                }
                written.clear();
                return;
            }
        } else {
            cyclesToForce.clear();
            lastCycleToForce = Integer.MIN_VALUE;
            newQueueFile = false;
        }
        tail = nextPosition;
        for (int i = 0, n = written.size(); i < n; i++) {
            Append a = written.get(i);
            try {
                a.callback.appended(a.position);
            } catch (RuntimeException e) {
                LOG.warn("append callback failed", e);
            }
        }
        written.clear();
        long t = tail;
        TailListener[] listeners = tailListeners;
        for (int i = 0; i < listeners.length; i++) {
            TailListener l = listeners[i];
            try {
                l.tailAdvanced(t);
            } catch (RuntimeException e) {
                LOG.warn("tail listener failed", e);
            }
        }
    }

    /** Writer thread: fdatasync of every queue file written since the last call, and of the directory if a file is new. */
    private void forceWrittenFiles() {
        try {
            for (IntHashSet.IntIterator it = cyclesToForce.iterator(); it.hasNext(); ) {
                int cycle = it.nextValue();
                FileChannel ch = cycleChannels.get(cycle);
                if (ch == null) {
                    ch = FileChannel.open(fileOf(cycle).toPath(), StandardOpenOption.WRITE);
                    cycleChannels.put(cycle, ch);
                }
                ch.force(false);
            }
            if (newQueueFile) {
                LogMeta.fsyncDirectory(queueDir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            cyclesToForce.clear();
            lastCycleToForce = Integer.MIN_VALUE;
            newQueueFile = false;
        }
        if (cycleChannels.size() > 1) {
            int newest = cycleChannels.keySet().stream().mapToInt(Integer::intValue).max().getAsInt();
            cycleChannels.entrySet().removeIf(e -> {
                if (e.getKey() != newest) {
                    closeQuietly(e.getValue());
                    return true;
                }
                return false;
            });
        }
    }

    File fileOf(int cycle) {
        return files.resourceFor(cycle).path;
    }

    // ------------------------------------------------------------------------------------------------ read side

    @Override
    public LogErrorException failure() {
        return failure;
    }

    @Override
    public LogErrorException diskFull() {
        LogErrorException f = full;
        // space freed since the writer last looked: the next batch will find it
        return f != null && freeSpace() >= options.minFreeSpace() ? null : f;
    }

    @Override
    public long freeSpace() {
        return freeSpace.getAsLong();
    }

    /** Tests: where the store reads the free space of its disk from. */
    void freeSpaceProbe(LongSupplier probe) {
        this.freeSpace = probe;
    }

    @Override
    public long tail() {
        return tail;
    }

    @Override
    public long trimPoint() {
        return trimPoint;
    }

    @Override
    public LogReader openReader() {
        if (closing) {
            throw new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log store is closing");
        }
        ChronicleLogReader r = new ChronicleLogReader(this, queue.createTailer(), rollCycle);
        readers.add(r);
        return r;
    }

    void readerClosed(ChronicleLogReader reader) {
        readers.remove(reader);
    }

    // ------------------------------------------------------------------------------------------------ trim

    @Override
    public long trim(long position) {
        synchronized (metaLock) {
            LogMeta m = meta;
            if (m == null) {
                throw new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
            }
            if (position > tail) {
                throw new LogErrorException(ErrorCode.PAST_TAIL, "cannot trim to " + position + ": the tail is " + tail);
            }
            if (position <= trimPoint) {
                return trimPoint;
            }
            LogMeta trimmed = m.withTrimPoint(position);
            try {
                trimmed.write(dir);
            } catch (IOException e) {
                throw new LogErrorException(ErrorCode.STORAGE_FAILURE, "cannot persist the trim point", e);
            }
            meta = trimmed;
            trimPoint = position;
        }
        deleteTrimmedFiles();
        return position;
    }

    /**
     * Deletes every queue file whose positions all lie below the trim point. The newest file is never deleted (it
     * has no successor), so the appender's file is safe; readers never open positions below the trim point, and a
     * reader that still maps a deleted file keeps valid memory until it unmaps it.
     */
    private void deleteTrimmedFiles() {
        synchronized (cycles) {
            long trim = trimPoint;
            int deleted = 0;
            while (true) {
                Map.Entry<Long, Integer> firstEntry = cycles.firstEntry();
                if (firstEntry == null) {
                    break;
                }
                Long nextStart = cycles.higherKey(firstEntry.getKey());
                if (nextStart == null || nextStart > trim) {
                    break;
                }
                File f = fileOf(firstEntry.getValue());
                try {
                    Files.deleteIfExists(f.toPath());
                    deleted++;
                } catch (IOException e) {
                    LOG.warn("cannot delete trimmed queue file {}: {}", f, e.toString());
                    break;
                }
                cycles.remove(firstEntry.getKey());
            }
            if (deleted > 0) {
                queue.refreshDirectoryListing();
                LOG.info("trim point {}: deleted {} queue file(s) of {}", trim, deleted, queueDir);
            }
        }
    }

    /** Number of queue files currently holding log positions (tests watch trim release them). */
    public int queueFileCount() {
        return cycles.size();
    }

    public Path dataDir() {
        return dir;
    }

    // ------------------------------------------------------------------------------------------------ listeners

    @Override
    public synchronized void addTailListener(TailListener listener) {
        TailListener[] now = Arrays.copyOf(tailListeners, tailListeners.length + 1);
        now[now.length - 1] = listener;
        tailListeners = now;
    }

    @Override
    public synchronized void removeTailListener(TailListener listener) {
        List<TailListener> now = new ArrayList<>(Arrays.asList(tailListeners));
        now.remove(listener);
        tailListeners = now.toArray(new TailListener[0]);
    }

    // ------------------------------------------------------------------------------------------------ close

    @Override
    public void close() {
        closeLock.writeLock().lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
        } finally {
            closeLock.writeLock().unlock();
        }
        // wakes an idle writer, which then sees the closing flag without waiting out its poll
        pending.add(new WriterJob(() -> { }, new CompletableFuture<>()));
        if (writer != null) {
            try {
                writer.join(TimeUnit.SECONDS.toMillis(30));
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
        if (toucher != null) {
            toucher.close();
        }
        for (ChronicleLogReader r : readers) {
            r.closeFromOtherThread();
        }
        readers.clear();
        queue.close();
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.warn("cannot release {}", dir.resolve(LOCK_FILE), e);
        }
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing a channel we only used to force
        }
    }

    // ------------------------------------------------------------------------------------------------ tasks

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
