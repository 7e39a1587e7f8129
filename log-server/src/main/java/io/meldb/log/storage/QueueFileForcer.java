package io.meldb.log.storage;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.IntFunction;

/**
 * Group commit in {@code fsync} durability (Hyder II §5.1: a block is acknowledged once durable; docs/log-server.md,
 * "Durability"): remembers the queue files a batch wrote to and forces each to the device once per batch, and the
 * directory when a file is new. We force the file rather than call Chronicle's {@code ExcerptAppender.sync()}
 * (which, with {@code SyncMode.SYNC}, msyncs the appender's current mapped chunk): a batch that crosses a chunk or
 * roll-cycle boundary would leave its first blocks to the lazy msync on chunk release, after the acknowledgement.
 * ({@code SyncMode.SYNC} is still set on the queue so released chunks are msynced as well.)
 *
 * <p>Writer thread only.
 */
final class QueueFileForcer {
    private final Path queueDir;
    private final IntFunction<File> fileOfCycle;
    private final Int2ObjectHashMap<FileChannel> cycleChannels = new Int2ObjectHashMap<>();
    private final IntHashSet cyclesToForce = new IntHashSet();
    /** The cycle last added to {@link #cyclesToForce} since it was cleared (saves a lookup per append). */
    private int lastCycleToForce = Integer.MIN_VALUE;
    private boolean newQueueFile;

    QueueFileForcer(Path queueDir, IntFunction<File> fileOfCycle) {
        this.queueDir = queueDir;
        this.fileOfCycle = fileOfCycle;
    }

    /** An excerpt went to {@code cycle}'s queue file. */
    void written(int cycle) {
        if (cycle != lastCycleToForce) {
            cyclesToForce.add(cycle);
            lastCycleToForce = cycle;
        }
    }

    /** A queue file was started: the directory must be forced too. */
    void newFile() {
        newQueueFile = true;
    }

    /** Nothing written so far needs forcing (page-cache durability). */
    void forget() {
        cyclesToForce.clear();
        lastCycleToForce = Integer.MIN_VALUE;
        newQueueFile = false;
    }

    /** fdatasync of every queue file written since the last call, and of the directory if a file is new. */
    void force() {
        try {
            for (IntHashSet.IntIterator it = cyclesToForce.iterator(); it.hasNext(); ) {
                int cycle = it.nextValue();
                FileChannel ch = cycleChannels.get(cycle);
                if (ch == null) {
                    ch = FileChannel.open(fileOfCycle.apply(cycle).toPath(), StandardOpenOption.WRITE);
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
            forget();
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

    /** Closes the channels kept open for forcing. */
    void close() {
        for (FileChannel ch : cycleChannels.values()) {
            closeQuietly(ch);
        }
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing a channel we only used to force
        }
    }
}
