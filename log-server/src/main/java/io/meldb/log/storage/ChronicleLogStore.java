package io.meldb.log.storage;

import io.meldb.log.ConfigBlock;
import io.meldb.log.Durability;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.netty.buffer.ByteBuf;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.core.time.SystemTimeProvider;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.RollingResourcesCache;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The log service's storage (Hyder II §5.1) on Chronicle Queue: one excerpt per block, one writer thread, trim
 * by deleting whole queue files (meld paper App. B). This class opens, recovers and closes the store and answers
 * the {@link LogStore} API; the work is done by one class per role (docs/log-server.md, "Storage"):
 * <ul>
 *   <li>{@link PositionIndex}: which queue file holds a position, since Chronicle's roll cycles follow the clock;
 *   <li>{@link LogWriter}: the writer thread, batching appends and acknowledging them once durable, which writes
 *       each block with {@link ExcerptWriter} and forces the files a batch touched with {@link QueueFileForcer};
 *   <li>{@link LogRetention}: the trim point and the deletion of queue files below it;
 *   <li>{@link DiskGuard}: the free-space reserve below which appends are refused with {@code STORAGE_FULL};
 *   <li>{@link QueueRecovery}: start-up checks after a crash; {@link ChronicleLogReader}: reads.
 * </ul>
 *
 * <h2>Crash recovery</h2>
 * Chronicle marks an excerpt complete only after its bytes are written, and rewrites an incomplete last excerpt
 * left by a killed writer, so after {@code kill -9} the queue ends with the last complete excerpt; every
 * acknowledged block is among them because acknowledgement follows the write. An unacknowledged block is either
 * there whole (it was written, the answer was lost) or absent.
 */
public final class ChronicleLogStore implements LogStore {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleLogStore.class);

    static final String QUEUE_DIR = "queue";
    static final String LOCK_FILE = "log.lock";
    static final String QUEUE_FILE_SUFFIX = ".cq4";

    private final StoreOptions options;
    private final Path dir;
    private final Path queueDir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final SingleChronicleQueue queue;
    private final RollCycle rollCycle;
    private final RollingResourcesCache files;

    private final StoreState state = new StoreState();
    final PositionIndex index = new PositionIndex();
    private final DiskGuard guard;
    private final LogRetention retention;
    private final LogWriter writer;
    private final PageToucher toucher;
    private final Set<ChronicleLogReader> readers = ConcurrentHashMap.newKeySet();

    private ChronicleLogStore(StoreOptions options) throws IOException {
        this.options = options;
        this.dir = options.dataDir().toAbsolutePath();
        this.queueDir = dir.resolve(QUEUE_DIR);
        Files.createDirectories(queueDir);
        this.guard = new DiskGuard(dir, options.minFreeSpace());

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
            LogMeta meta = LogMeta.read(dir);
            if (meta != null) {
                state.trimPoint = Math.max(1, meta.trimPoint);
                if (meta.logId == null) {
                    // created by a version that drew no log id: draw it now, once
                    meta = meta.withLogId(UUID.randomUUID());
                    meta.write(dir);
                    LOG.info("log {} had no log id; it is now {}", dir, meta.logId);
                }
            }
            state.meta = meta;
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
            state.tail = QueueRecovery.recover(queue, rollCycle, dir, meta, state.trimPoint, index.cycles);
            LOG.info("opened log {}: {}, {} queue file(s), durability {}, roll cycle {}", dir,
                    meta == null ? "not created yet" : "log id " + meta.logId + ", block size " + meta.blockSize
                            + ", positions [" + state.trimPoint + ", " + state.tail + ")",
                    index.fileCount(), options.durability().flag(), RollCycleNames.name(rollCycle));
        } catch (IOException | RuntimeException e) {
            if (q != null) {
                q.close();
            }
            lock.release();
            lockChannel.close();
            throw e;
        }

        toucher = options.pretouch() ? new PageToucher(this::fileOf, "log-pretouch-" + dir.getFileName()) : null;
        retention = new LogRetention(state, index, queue, this::fileOf, dir, queueDir);
        writer = new LogWriter(state, queue, index, guard, new QueueFileForcer(queueDir, this::fileOf), toucher,
                queueDir, options);
        try {
            writer.start("log-writer-" + dir.getFileName());
        } catch (RuntimeException e) {
            close();
            throw new IOException("the log writer failed to start", e.getCause() != null ? e.getCause() : e);
        }
        retention.deleteTrimmedFiles();
        guard.warnIfShort();
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
        synchronized (state.metaLock) {
            LogMeta m = state.meta;
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
            state.meta = created;
            try {
                writer.writeConfig(created);
            } catch (RuntimeException e) {
                throw e.getCause() instanceof LogErrorException le ? le
                        : new LogErrorException(ErrorCode.STORAGE_FAILURE, "cannot write position 0", e);
            }
        }
    }

    @Override
    public boolean isCreated() {
        return state.meta != null;
    }

    @Override
    public UUID logId() {
        LogMeta m = state.meta;
        return m == null ? null : m.logId;
    }

    @Override
    public int blockSize() {
        LogMeta m = state.meta;
        return m == null ? 0 : m.blockSize;
    }

    @Override
    public byte[] config() {
        LogMeta m = state.meta;
        return m == null ? null : m.config.clone();
    }

    byte[] configBlock() {
        LogMeta m = state.meta;
        return m == null ? null : m.configBlock;
    }

    // ------------------------------------------------------------------------------------------------ append

    @Override
    public void append(ByteBuf block, AppendCallback callback) {
        writer.append(block, callback);
    }

    File fileOf(int cycle) {
        return files.resourceFor(cycle).path;
    }

    // ------------------------------------------------------------------------------------------------ read side

    @Override
    public LogErrorException failure() {
        return state.failure;
    }

    @Override
    public LogErrorException diskFull() {
        return guard.diskFull();
    }

    @Override
    public long freeSpace() {
        return guard.freeSpace();
    }

    /** Tests: where the store reads the free space of its disk from. */
    void freeSpaceProbe(LongSupplier probe) {
        guard.probe(probe);
    }

    @Override
    public long tail() {
        return state.tail;
    }

    @Override
    public long trimPoint() {
        return state.trimPoint;
    }

    @Override
    public LogReader openReader() {
        if (writer.isClosing()) {
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
        return retention.trim(position);
    }

    /**
     * Forces every block appended so far to the device, whatever the durability: a replica does so before it records a
     * Raft snapshot, after which the Raft log no longer holds those blocks (docs/log-replication.md, "Snapshots").
     * Any thread; the blocks must already be acknowledged.
     */
    public void force() throws IOException {
        try (var files = Files.newDirectoryStream(queueDir, "*" + QUEUE_FILE_SUFFIX)) {
            for (Path f : files) {
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    ch.force(false);
                } catch (java.nio.file.NoSuchFileException trimmed) {
                    // deleted by a trim meanwhile: nothing of it needs to survive
                }
            }
        }
        LogMeta.fsyncDirectory(queueDir);
    }

    /** Number of queue files currently holding log positions (tests watch trim release them). */
    public int queueFileCount() {
        return index.fileCount();
    }

    public Path dataDir() {
        return dir;
    }

    // ------------------------------------------------------------------------------------------------ listeners

    @Override
    public void addTailListener(TailListener listener) {
        state.addTailListener(listener);
    }

    @Override
    public void removeTailListener(TailListener listener) {
        state.removeTailListener(listener);
    }

    // ------------------------------------------------------------------------------------------------ close

    @Override
    public void close() {
        if (!writer.close()) {
            return;
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
}
