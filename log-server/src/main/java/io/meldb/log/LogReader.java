package io.meldb.log;

import io.netty.buffer.ByteBuf;

/**
 * The read operation of the log service (Hyder II §5.1: "given a log position, a read operation returns the block
 * stored at that position"): random and sequential reads of stored blocks, confined to one thread (it wraps a Chronicle tailer).
 * Sequential reads ({@code position} = previous + 1) continue where the last read stopped instead of seeking.
 */
public interface LogReader extends AutoCloseable {

    /**
     * Writes the block at {@code position} ({@link LogStore#blockSize()} bytes) into {@code out}, after checking
     * its checksum and its stored position.
     *
     * @throws LogErrorException {@link ErrorCode#TRIMMED}, {@link ErrorCode#PAST_TAIL},
     *                           {@link ErrorCode#NOT_CREATED}, {@link ErrorCode#CORRUPT_BLOCK} or
     *                           {@link ErrorCode#STORAGE_FAILURE}; {@code out} is then unchanged
     */
    void read(long position, ByteBuf out);

    @Override
    void close();
}
