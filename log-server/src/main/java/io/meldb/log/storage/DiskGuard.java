package io.meldb.log.storage;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * Keeps a reserve of free space on the log's disk (docs/log-server.md, "A full disk"). Writes go through
 * memory-mapped files, and a write to a page the file system cannot allocate is a SIGBUS, which the JVM turns into
 * an {@code InternalError} at best. So below {@link StoreOptions#minFreeSpace()} appends are refused with
 * {@link ErrorCode#STORAGE_FULL} before anything is written, and accepted again once space is freed.
 *
 * <p>{@link #check()} and {@link #written(long)} run on the writer thread; {@link #diskFull()} and
 * {@link #freeSpace()} on any thread.
 */
final class DiskGuard {
    private static final Logger LOG = LoggerFactory.getLogger(DiskGuard.class);

    private final Path dir;
    private final long minFreeSpace;
    /** Free bytes on the log's disk ({@code statvfs}); tests substitute a probe. */
    private volatile LongSupplier freeSpace;
    /** The refusal in force while the disk is below the reserve; set and cleared by the writer. */
    private volatile LogErrorException full;
    /** Writer thread: bytes written between two reads of the free space (an eighth of the reserve, at least 1 MiB). */
    private final long spaceCheckEvery;
    private long writtenSinceSpaceCheck;

    DiskGuard(Path dir, long minFreeSpace) {
        this.dir = dir;
        this.minFreeSpace = minFreeSpace;
        this.freeSpace = dir.toFile()::getUsableSpace;
        this.spaceCheckEvery = Math.max(1L << 20, minFreeSpace / 8);
        this.writtenSinceSpaceCheck = spaceCheckEvery;
    }

    long freeSpace() {
        return freeSpace.getAsLong();
    }

    /** Tests: where the guard reads the free space of its disk from. */
    void probe(LongSupplier probe) {
        this.freeSpace = probe;
    }

    /** Writer thread: the refusal for the batch in progress, or null while the reserve holds. */
    LogErrorException refusal() {
        return full;
    }

    /** Any thread: the refusal in force, or null if there is none or space was freed since the writer looked. */
    LogErrorException diskFull() {
        LogErrorException f = full;
        // space freed since the writer last looked: the next batch will find it
        return f != null && freeSpace() >= minFreeSpace ? null : f;
    }

    /** Writer thread: {@code bytes} more went to the disk. */
    void written(long bytes) {
        writtenSinceSpaceCheck += bytes;
    }

    /**
     * Writer thread, before each batch: reads the disk's free space once an eighth of the reserve has been written
     * since the last read, and before every batch while it is short, so that appends stop while the reserve still
     * has room for the batch in progress, and resume on their own once space is freed.
     */
    void check() {
        long min = minFreeSpace;
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

    /** At start-up: says so if the disk is already below the reserve. */
    void warnIfShort() {
        long free = freeSpace();
        if (minFreeSpace > 0 && free < minFreeSpace) {
            LOG.warn("the disk holding {} has {} MiB free, below the {} MiB the log keeps in reserve (min free space): "
                    + "appends will be refused (STORAGE_FULL) until space is freed", dir, free >> 20,
                    minFreeSpace >> 20);
        }
    }
}
