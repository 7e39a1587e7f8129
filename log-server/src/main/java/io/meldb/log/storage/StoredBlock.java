package io.meldb.log.storage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Layout of one Chronicle excerpt holding one log block (a Hyder II §5.1 intention block as stored). The server treats blocks as opaque bytes (meld-core's
 * block header and checksum are meld-core's business), so the store adds its own checksum and also records the
 * position, which makes every excerpt self-identifying: recovery and reads check that the excerpt found for a
 * position really is that position.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         position                              |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |          crc32c over the 8 position bytes, then the block     |  8
 *  +---------------------------------------------------------------+
 *  |  block (blockSize bytes)                                      | 12
 *  +---------------------------------------------------------------+
 * </pre>
 * Integers are little-endian (Chronicle's native order on the platforms we run on is also little-endian,
 * but the CRC input is defined independently of it).
 */
final class StoredBlock {
    static final int POSITION_OFFSET = 0;
    static final int CRC_OFFSET = 8;
    static final int HEADER_LENGTH = 12;

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer positionBytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);

    static int excerptLength(int blockSize) {
        return HEADER_LENGTH + blockSize;
    }

    /** Checksum of (position, {@code length} bytes of {@code block} from {@code offset}). */
    int checksum(long position, byte[] block, int offset, int length) {
        crc.reset();
        positionBytes.clear();
        positionBytes.putLong(0, position);
        crc.update(positionBytes);
        crc.update(block, offset, length);
        return (int) crc.getValue();
    }
}
