package io.meldb.log.storage;

import io.netty.buffer.ByteBuf;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.wire.DocumentContext;

import java.util.Map;

/**
 * Writes one block as one Chronicle excerpt {@code [position, CRC32C, block]} (Hyder II §5.1, the log's append;
 * docs/log-server.md, "Storage") and keeps the {@link PositionIndex} and the {@link QueueFileForcer} told which
 * queue file it went to, checking that positions stay dense within each file.
 *
 * <p>Writer thread only. Allocates nothing: every block is checksummed and written from an array with explicit
 * offsets, its own or, for a direct block, the writer's reused copy. The allocation-free ways of reading a direct
 * {@code ByteBuf} as a {@code ByteBuffer} share one cached buffer object with the event loop that reads the socket
 * into the same memory, and Chronicle's {@code writeSome(ByteBuffer)} ignores the array offset of a heap buffer
 * slice (found by LogServerHandlerTest).
 */
final class ExcerptWriter {
    /** Bytes an excerpt takes besides its block: Chronicle's header, the position and the checksum. */
    static final int EXCERPT_OVERHEAD = 4 + Long.BYTES + Integer.BYTES;

    private final ExcerptAppender appender;
    private final RollCycle rollCycle;
    private final PositionIndex index;
    private final QueueFileForcer forcer;
    private final StoredBlock checksum = new StoredBlock();
    private byte[] scratch = new byte[0];
    /** The queue file the last excerpt went to. */
    private int currentCycle = Integer.MIN_VALUE;
    /** The position of the first excerpt in {@link #currentCycle}'s queue file. */
    private long currentCycleStart;

    ExcerptWriter(ExcerptAppender appender, RollCycle rollCycle, PositionIndex index, QueueFileForcer forcer) {
        this.appender = appender;
        this.rollCycle = rollCycle;
        this.index = index;
        this.forcer = forcer;
    }

    /** The queue file the last excerpt went to, or {@link Integer#MIN_VALUE} before the first. */
    int currentCycle() {
        return currentCycle;
    }

    /** Where in the current queue file the next excerpt will go. */
    long writePosition() {
        return appender.wire().bytes().writePosition();
    }

    void write(long position, ByteBuf block) {
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
        int crc = checksum.checksum(position, array, offset, length);
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
        long excerpt = appender.lastIndexAppended();
        int cycle = rollCycle.toCycle(excerpt);
        long seq = rollCycle.toSequenceNumber(excerpt);
        if (seq == 0) {
            index.fileStarted(position, cycle);
            forcer.newFile();
            currentCycleStart = position;
        } else if (cycle != currentCycle || position - currentCycleStart != seq) {
            // not the file the previous excerpt went to (the first append after opening the store): check against
            // the file map
            Map.Entry<Long, Integer> e = index.fileHolding(position);
            if (e == null || e.getValue() != cycle || position - e.getKey() != seq) {
                throw new IllegalStateException("position " + position + " was stored as excerpt " + seq + " of cycle "
                        + cycle + ", which breaks dense numbering (file map entry " + e + ")");
            }
            currentCycleStart = e.getKey();
        }
        forcer.written(cycle);
        currentCycle = cycle;
    }

    void close() {
        appender.close();
    }
}
