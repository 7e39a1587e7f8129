package io.meldb.log.storage;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.netty.buffer.ByteBuf;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.wire.DocumentContext;

import java.util.Map;

/**
 * The read operation of the log service (Hyder II §5.1) as a {@link LogReader} over one Chronicle tailer. Maps a position to a queue index through the store's file map
 * (see {@link ChronicleLogStore}), seeks only when the read is not the successor of the previous one, and checks
 * every excerpt's length, stored position and CRC32C before handing out its bytes.
 */
final class ChronicleLogReader implements LogReader {
    private final ChronicleLogStore store;
    private final ExcerptTailer tailer;
    private final RollCycle rollCycle;
    private final StoredBlock checksum = new StoredBlock();
    private byte[] scratch = new byte[0];
    /** The position the tailer will read next without seeking, or -1. */
    private long nextSequential = -1;
    private boolean closed;

    ChronicleLogReader(ChronicleLogStore store, ExcerptTailer tailer, RollCycle rollCycle) {
        this.store = store;
        this.tailer = tailer;
        this.rollCycle = rollCycle;
    }

    @Override
    public void read(long position, ByteBuf out) {
        if (closed) {
            throw new LogErrorException(ErrorCode.SHUTTING_DOWN, "the reader is closed");
        }
        byte[] configBlock = store.configBlock();
        if (configBlock == null) {
            throw new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
        }
        if (position < 0) {
            throw new LogErrorException(ErrorCode.BAD_ARGUMENT, "negative position " + position);
        }
        if (position == 0) {
            // kept in log.meta too, so the configuration outlives the trimmed queue file that held it
            out.writeBytes(configBlock);
            return;
        }
        long tail = store.tail();
        if (position >= tail) {
            throw new LogErrorException(ErrorCode.PAST_TAIL, "position " + position + " is at or past the tail " + tail);
        }
        checkNotTrimmed(position);
        int blockSize = configBlock.length;
        try {
            if (!readStored(position, blockSize, position == nextSequential)) {
                // the sequential guess missed (another file, an index gap): seek and read again
                readStored(position, blockSize, false);
            }
        } catch (LogErrorException e) {
            nextSequential = -1;
            throw e;
        } catch (RuntimeException e) {
            nextSequential = -1;
            checkNotTrimmed(position);
            throw new LogErrorException(ErrorCode.STORAGE_FAILURE, "reading position " + position + " failed: " + e, e);
        }
        out.writeBytes(scratch, 0, blockSize);
        nextSequential = position + 1;
    }

    private void checkNotTrimmed(long position) {
        long trimPoint = store.trimPoint();
        if (position < trimPoint) {
            throw new LogErrorException(ErrorCode.TRIMMED, "position " + position + " was trimmed (trim point " + trimPoint + ")");
        }
    }

    /** Reads the excerpt into {@link #scratch}; false if a sequential read found another position. */
    private boolean readStored(long position, int blockSize, boolean sequential) {
        if (!sequential) {
            Map.Entry<Long, Integer> file = store.index.fileHolding(position);
            if (file == null) {
                checkNotTrimmed(position);
                throw new LogErrorException(ErrorCode.CORRUPT_BLOCK, "no queue file holds position " + position);
            }
            long index = rollCycle.toIndex(file.getValue(), position - file.getKey());
            if (!tailer.moveToIndex(index)) {
                checkNotTrimmed(position);
                throw new LogErrorException(ErrorCode.CORRUPT_BLOCK, "position " + position + " (cycle " + file.getValue()
                        + ", excerpt " + (position - file.getKey()) + ") is missing from the queue");
            }
        }
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                if (sequential) {
                    return false;
                }
                throw new LogErrorException(ErrorCode.CORRUPT_BLOCK, "position " + position + " is missing from the queue");
            }
            Bytes<?> bytes = dc.wire().bytes();
            long length = bytes.readRemaining();
            if (length != StoredBlock.excerptLength(blockSize)) {
                throw new LogErrorException(ErrorCode.CORRUPT_BLOCK, "the excerpt for position " + position + " has "
                        + length + " bytes, expected " + StoredBlock.excerptLength(blockSize));
            }
            long stored = bytes.readLong();
            int crc = bytes.readInt();
            if (scratch.length < blockSize) {
                scratch = new byte[blockSize];
            }
            bytes.read(scratch, 0, blockSize);
            if (checksum.checksum(stored, scratch, 0, blockSize) != crc) {
                throw new LogErrorException(ErrorCode.CORRUPT_BLOCK, "the block stored for position " + position
                        + " fails its CRC32C check: the log's storage is damaged");
            }
            if (stored != position) {
                if (sequential) {
                    return false;
                }
                throw new LogErrorException(ErrorCode.CORRUPT_BLOCK, "the excerpt for position " + position
                        + " holds position " + stored);
            }
            return true;
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            store.readerClosed(this);
            tailer.close();
        }
    }

    /** Store shutdown: the owning thread may be gone, so lift Chronicle's single-thread check first. */
    void closeFromOtherThread() {
        if (!closed) {
            closed = true;
            tailer.singleThreadedCheckDisabled(true);
            tailer.close();
        }
    }
}
