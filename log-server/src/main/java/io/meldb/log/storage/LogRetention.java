package io.meldb.log.storage;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Trim (meld paper App. B: the log below the oldest position still needed is garbage; docs/log-server.md, "Requests"
 * and "Storage"): persists the trim point in {@code log.meta}, then deletes whole queue files whose positions all
 * lie below it. Runs on the caller's thread; never on the append path.
 */
final class LogRetention {
    private static final Logger LOG = LoggerFactory.getLogger(LogRetention.class);

    private final StoreState state;
    private final PositionIndex index;
    private final SingleChronicleQueue queue;
    private final IntFunction<File> fileOfCycle;
    private final Path dir;
    private final Path queueDir;

    LogRetention(StoreState state, PositionIndex index, SingleChronicleQueue queue, IntFunction<File> fileOfCycle,
                 Path dir, Path queueDir) {
        this.state = state;
        this.index = index;
        this.queue = queue;
        this.fileOfCycle = fileOfCycle;
        this.dir = dir;
        this.queueDir = queueDir;
    }

    /** Moves the trim point up to {@code position} (never down); answers the trim point now in force. */
    long trim(long position) {
        synchronized (state.metaLock) {
            LogMeta m = state.meta;
            if (m == null) {
                throw new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
            }
            long tail = state.tail;
            if (position > tail) {
                throw new LogErrorException(ErrorCode.PAST_TAIL, "cannot trim to " + position + ": the tail is " + tail);
            }
            if (position <= state.trimPoint) {
                return state.trimPoint;
            }
            LogMeta trimmed = m.withTrimPoint(position);
            try {
                trimmed.write(dir);
            } catch (IOException e) {
                throw new LogErrorException(ErrorCode.STORAGE_FAILURE, "cannot persist the trim point", e);
            }
            state.meta = trimmed;
            state.trimPoint = position;
        }
        deleteTrimmedFiles();
        return position;
    }

    /**
     * Deletes every queue file whose positions all lie below the trim point. The newest file is never deleted (it
     * has no successor), so the appender's file is safe; readers never open positions below the trim point, and a
     * reader that still maps a deleted file keeps valid memory until it unmaps it.
     */
    void deleteTrimmedFiles() {
        synchronized (index) {
            long trim = state.trimPoint;
            int deleted = 0;
            while (true) {
                Map.Entry<Long, Integer> firstEntry = index.oldestFile();
                if (firstEntry == null) {
                    break;
                }
                Long nextStart = index.nextFileStart(firstEntry.getKey());
                if (nextStart == null || nextStart > trim) {
                    break;
                }
                File f = fileOfCycle.apply(firstEntry.getValue());
                try {
                    Files.deleteIfExists(f.toPath());
                    deleted++;
                } catch (IOException e) {
                    LOG.warn("cannot delete trimmed queue file {}: {}", f, e.toString());
                    break;
                }
                index.fileDeleted(firstEntry.getKey());
            }
            if (deleted > 0) {
                queue.refreshDirectoryListing();
                LOG.info("trim point {}: deleted {} queue file(s) of {}", trim, deleted, queueDir);
            }
        }
    }
}
