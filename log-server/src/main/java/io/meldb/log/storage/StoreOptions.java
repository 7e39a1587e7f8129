package io.meldb.log.storage;

import io.meldb.log.Durability;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;

import java.nio.file.Path;
import java.util.Objects;

/** How {@link ChronicleLogStore} (the Hyder II §5.1 log's storage) opens its data directory. Fluent setters, sensible defaults. */
public final class StoreOptions {
    /**
     * Five-minute queue files: fine-grained enough that trim releases space soon after a checkpoint, and
     * 2^30 excerpts per file is far above what one server appends in five minutes.
     */
    public static final RollCycle DEFAULT_ROLL_CYCLE = RollCycles.FIVE_MINUTELY;
    /** Appends written (and, with fsync, forced) together; bounds the latency one batch adds to the next. */
    public static final int DEFAULT_MAX_BATCH = 256;
    /**
     * Free space kept on the log's disk: below it appends are refused ({@code STORAGE_FULL}) instead of written.
     * Chronicle Queue writes through memory-mapped files, and a write to a mapped page the file system cannot
     * allocate is a SIGBUS, not an I/O error; the reserve leaves room for the batch in progress, Chronicle's index
     * and the page toucher's runway.
     */
    public static final long DEFAULT_MIN_FREE_SPACE = 512L << 20;

    private Path dataDir;
    private Durability durability = Durability.PAGE_CACHE;
    private RollCycle rollCycle = DEFAULT_ROLL_CYCLE;
    private TimeProvider timeProvider;
    private int maxBatch = DEFAULT_MAX_BATCH;
    private boolean pretouch = true;
    private long minFreeSpace = DEFAULT_MIN_FREE_SPACE;

    public static StoreOptions at(Path dataDir) {
        return new StoreOptions().dataDir(dataDir);
    }

    public Path dataDir() {
        return dataDir;
    }

    public StoreOptions dataDir(Path dataDir) {
        this.dataDir = Objects.requireNonNull(dataDir);
        return this;
    }

    public Durability durability() {
        return durability;
    }

    public StoreOptions durability(Durability durability) {
        this.durability = Objects.requireNonNull(durability);
        return this;
    }

    public RollCycle rollCycle() {
        return rollCycle;
    }

    public StoreOptions rollCycle(RollCycle rollCycle) {
        this.rollCycle = Objects.requireNonNull(rollCycle);
        return this;
    }

    /** The clock that decides when the queue rolls to a new file; {@code null} means the wall clock. Tests set one. */
    public TimeProvider timeProvider() {
        return timeProvider;
    }

    public StoreOptions timeProvider(TimeProvider timeProvider) {
        this.timeProvider = timeProvider;
        return this;
    }

    /** Touch queue-file pages ahead of the writer on a background thread (see {@code PageToucher}); on by default. */
    public boolean pretouch() {
        return pretouch;
    }

    public StoreOptions pretouch(boolean pretouch) {
        this.pretouch = pretouch;
        return this;
    }

    /** Bytes of free disk space below which appends are refused with {@code STORAGE_FULL}; 0 turns the check off. */
    public long minFreeSpace() {
        return minFreeSpace;
    }

    public StoreOptions minFreeSpace(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("minimum free space " + bytes + " must not be negative");
        }
        this.minFreeSpace = bytes;
        return this;
    }

    public int maxBatch() {
        return maxBatch;
    }

    public StoreOptions maxBatch(int maxBatch) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be positive");
        }
        this.maxBatch = maxBatch;
        return this;
    }
}
