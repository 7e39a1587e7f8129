package io.meldb.log.storage;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.stream.Stream;

/**
 * Opening a log: what {@link ChronicleLogStore} checks and rebuilds from its queue files before it writes again
 * (the position index of the files, the tail, the configuration block at position 0), so that a log damaged by a
 * crash or by hand is refused with what is wrong rather than served with gaps. Runs once, on the opening thread,
 * while the directory lock is held.
 */
final class QueueRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(QueueRecovery.class);
    /** Chronicle's header bit for a header still being written (its {@code Wires.NOT_COMPLETE}). */
    private static final int HEADER_NOT_COMPLETE = 0x80000000;

    private QueueRecovery() {
    }

    /**
     * Deletes the queue files whose first header was never completed: a process killed while Chronicle created the
     * next file (at a roll) leaves one, and Chronicle then waits for its header, 10 s at every access (measured: 21 s
     * to open the log). Such a file holds no block, since a block is written after the header, and the directory lock
     * held here means no one else is writing it.
     */
    static void removeHeaderlessQueueFiles(final Path queueDir) throws IOException {
        List<Path> queueFiles;
        try (Stream<Path> files = Files.list(queueDir)) {
            queueFiles = files.filter(p -> p.getFileName().toString().endsWith(ChronicleLogStore.QUEUE_FILE_SUFFIX)).toList();
        }
        for (Path f : queueFiles) {
            int header;
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
                header = ch.read(b, 0) == 4 ? b.getInt(0) : 0;
            }
            if (header == 0 || (header & HEADER_NOT_COMPLETE) != 0) {
                Files.delete(f);
                LOG.warn("deleted queue file {}: its first header was never completed (a crash while it was being "
                        + "created), so it held no block", f);
            }
        }
    }

    /**
     * Rebuilds {@code cycles} (first position of each queue file -> its cycle) from the queue files and answers the
     * tail, checking that positions are dense: each file must start where the previous one ended, the first one at
     * or below the trim point, and the last excerpt must carry the position the counts predict.
     */
    static long recover(final SingleChronicleQueue queue, final RollCycle rollCycle, final Path dir, final LogMeta meta,
                        final long trimPoint, final Map<Long, Integer> cycles) throws IOException {
        queue.refreshDirectoryListing();
        int first = queue.firstCycle();
        int last = queue.lastCycle();
        long expected = -1;
        long lastCount = 0;
        int lastCycleWithData = Integer.MIN_VALUE;
        if (first <= last) {
            NavigableSet<Long> all = queue.listCyclesBetween(first, last);
            try (ExcerptTailer t = queue.createTailer()) {
                StoredBlock checksum = new StoredBlock();
                for (long c : all) {
                    int cycle = (int) c;
                    long count = t.excerptsInCycle(cycle);
                    if (count <= 0) {
                        continue;
                    }
                    long firstPos = readPositionAt(t, checksum, rollCycle, dir, meta, cycle, 0);
                    if (expected < 0) {
                        long lowest = meta == null ? 0 : trimPoint;
                        if (firstPos != 0 && firstPos > lowest) {
                            throw new IOException("the log in " + dir + " is damaged: its first queue file (cycle " + cycle
                                    + ") starts at position " + firstPos + " but positions from " + lowest
                                    + " on were never trimmed");
                        }
                    } else if (firstPos != expected) {
                        throw new IOException("the log in " + dir + " is damaged: queue file of cycle " + cycle
                                + " starts at position " + firstPos + ", expected " + expected
                                + " (a queue file is missing or foreign)");
                    }
                    cycles.put(firstPos, cycle);
                    expected = firstPos + count;
                    lastCount = count;
                    lastCycleWithData = cycle;
                }
                if (lastCycleWithData != Integer.MIN_VALUE) {
                    long lastPos = readPositionAt(t, checksum, rollCycle, dir, meta, lastCycleWithData, lastCount - 1);
                    if (lastPos != expected - 1) {
                        throw new IOException("the log in " + dir + " is damaged: the last excerpt holds position "
                                + lastPos + ", expected " + (expected - 1));
                    }
                }
                if (meta != null && cycles.containsKey(0L)) {
                    checkConfigExcerpt(t, checksum, rollCycle, dir, meta, cycles);
                }
            }
        }
        final long tail = Math.max(expected, 0);
        if (meta == null && tail > 0) {
            throw new IOException("the log in " + dir + " has queue files but no " + LogMeta.FILE_NAME
                    + ": refusing to guess its block size and configuration");
        }
        if (meta != null && tail > 0 && trimPoint > tail) {
            throw new IOException("the log in " + dir + " is damaged: trim point " + trimPoint + " is beyond the tail " + tail);
        }
        return tail;
    }

    private static long readPositionAt(final ExcerptTailer t, final StoredBlock checksum, final RollCycle rollCycle,
                                       final Path dir, final LogMeta meta, final int cycle, final long seq)
            throws IOException {
        long index = rollCycle.toIndex(cycle, seq);
        if (!t.moveToIndex(index)) {
            throw new IOException("the log in " + dir + " is damaged: excerpt " + seq + " of cycle " + cycle + " is missing");
        }
        try (DocumentContext dc = t.readingDocument()) {
            if (!dc.isPresent()) {
                throw new IOException("the log in " + dir + " is damaged: excerpt " + seq + " of cycle " + cycle + " is missing");
            }
            Bytes<?> b = dc.wire().bytes();
            long len = b.readRemaining();
            if (len < StoredBlock.HEADER_LENGTH || (meta != null && len != StoredBlock.excerptLength(meta.blockSize))) {
                throw new IOException("the log in " + dir + " is damaged: excerpt " + seq + " of cycle " + cycle
                        + " has " + len + " bytes");
            }
            long position = b.readLong();
            int crc = b.readInt();
            byte[] block = new byte[(int) b.readRemaining()];
            b.read(block);
            if (checksum.checksum(position, block, 0, block.length) != crc) {
                throw new IOException("the log in " + dir + " is damaged: excerpt " + seq + " of cycle " + cycle
                        + " (position " + position + ") fails its checksum");
            }
            return position;
        }
    }

    private static void checkConfigExcerpt(final ExcerptTailer t, final StoredBlock checksum, final RollCycle rollCycle,
                                           final Path dir, final LogMeta meta, final Map<Long, Integer> cycles)
            throws IOException {
        int cycle = cycles.get(0L);
        if (!t.moveToIndex(rollCycle.toIndex(cycle, 0))) {
            throw new IOException("the log in " + dir + " is damaged: position 0 is missing");
        }
        try (DocumentContext dc = t.readingDocument()) {
            Bytes<?> b = dc.wire().bytes();
            b.readSkip(StoredBlock.HEADER_LENGTH);
            byte[] block = new byte[(int) b.readRemaining()];
            b.read(block);
            if (!Arrays.equals(block, meta.configBlock)) {
                throw new IOException("the log in " + dir + " is damaged: position 0 does not hold the configuration in "
                        + LogMeta.FILE_NAME);
            }
        }
    }
}
