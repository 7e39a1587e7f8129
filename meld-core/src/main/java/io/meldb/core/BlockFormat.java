package io.meldb.core;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Layout of an intention block, the fixed-size unit of the shared log (Hyder II §5.1: "each log entry is a
 * fixed-sized page, called an intention block"; many intentions may share a block and one intention may span
 * many). Flyweight constants and static accessors; {@link BlockWriter} and {@link BlockReader} are the only users.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         magic "MELD"                          |  0
 *  +---------------+---------------+-------------------------------+
 *  |    version    |     flags     |            writer             |  4
 *  +---------------+---------------+-------------------------------+
 *  |                          usedLength                           |  8
 *  +---------------------------------------------------------------+
 *  |                       firstRecordOffset                       | 12
 *  +---------------------------------------------------------------+
 *  |                            crc32c                             | 16
 *  +---------------------------------------------------------------+
 *  |  payload: records, each int length (LE) + bytes; a record,    | 20
 *  |  even its length prefix, may continue in the next block(s);   |
 *  |  bytes past usedLength are zero                               |
 *  +---------------------------------------------------------------+  blockSize
 * </pre>
 *
 * <ul>
 *   <li>usedLength: payload bytes in use (1..blockSize-20); less than the capacity only in a block emitted by
 *   {@link BlockWriter#flush()}, which never ends inside a record.</li>
 *   <li>firstRecordOffset: payload offset of the length prefix of the first record that starts in this block, or
 *   {@link #NO_RECORD_STARTS}. It lets a reader joining mid-log find a record boundary, and lets a reader check
 *   that a continuation is really the tail of the record it holds.</li>
 *   <li>writer: which block stream the block belongs to. Servers append concurrently, so the blocks of one record
 *   can be interleaved with other writers' blocks in the log (Hyder II §5.1); a reader reassembles each writer's
 *   stream on its own (one {@link BlockReader} per writer), and a record's position stays that of its last
 *   block.</li>
 *   <li>crc32c: over the whole block except the crc field, so a torn or bit-flipped block (header, payload or the
 *   zero tail) is caught before any of it is used.</li>
 * </ul>
 * All integers are little-endian.
 */
public final class BlockFormat {
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    /** "MELD" in ASCII, read as a big-endian int; stored little-endian like every other field. */
    public static final int MAGIC = 0x4D454C44;
    public static final byte VERSION = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int FLAGS_OFFSET = 5;
    public static final int WRITER_OFFSET = 6;
    /** Writers are numbered 0..MAX_WRITER; each txn-server appends with ids of its own. */
    public static final int MAX_WRITER = 0xFFFF;
    public static final int USED_LENGTH_OFFSET = 8;
    public static final int FIRST_RECORD_OFFSET_OFFSET = 12;
    public static final int CRC_OFFSET = 16;
    public static final int HEADER_LENGTH = 20;

    /** firstRecordOffset of a block that only continues a record started in an earlier block. */
    public static final int NO_RECORD_STARTS = -1;
    /** Each record is framed by an int length. */
    public static final int RECORD_LENGTH_FIELD = Integer.BYTES;
    /**
     * Largest record the format admits, 1 GiB: a reader must never be talked into reassembling an unbounded
     * record. A txn-server's own limit on what one transaction may write ({@code --max-intention-bytes}) is
     * lower; this bound only keeps a corrupt or hostile length prefix from costing more than that.
     */
    public static final int MAX_RECORD_LENGTH = 1 << 30;

    public static final int DEFAULT_BLOCK_SIZE = 8192;
    public static final int MIN_BLOCK_SIZE = 512;
    public static final int MAX_BLOCK_SIZE = 1 << 20;

    private BlockFormat() {
    }

    /** Rejects a block size outside {@link #MIN_BLOCK_SIZE}..{@link #MAX_BLOCK_SIZE}. */
    public static int checkBlockSize(final int blockSize) {
        if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("block size " + blockSize + " outside " + MIN_BLOCK_SIZE + ".."
                + MAX_BLOCK_SIZE);
        }
        return blockSize;
    }

    /** Payload bytes per block. */
    public static int capacity(final int blockSize) {
        return blockSize - HEADER_LENGTH;
    }

    public static int magic(final DirectBuffer block, final int offset) {
        return block.getInt(offset + MAGIC_OFFSET, BYTE_ORDER);
    }

    public static int version(final DirectBuffer block, final int offset) {
        return block.getByte(offset + VERSION_OFFSET) & 0xFF;
    }

    public static int flags(final DirectBuffer block, final int offset) {
        return block.getByte(offset + FLAGS_OFFSET) & 0xFF;
    }

    public static int writer(final DirectBuffer block, final int offset) {
        return block.getShort(offset + WRITER_OFFSET, BYTE_ORDER) & 0xFFFF;
    }

    public static int usedLength(final DirectBuffer block, final int offset) {
        return block.getInt(offset + USED_LENGTH_OFFSET, BYTE_ORDER);
    }

    public static int firstRecordOffset(final DirectBuffer block, final int offset) {
        return block.getInt(offset + FIRST_RECORD_OFFSET_OFFSET, BYTE_ORDER);
    }

    public static int crc(final DirectBuffer block, final int offset) {
        return block.getInt(offset + CRC_OFFSET, BYTE_ORDER);
    }

    /** Writes every header field except the checksum. */
    public static void putHeader(final MutableDirectBuffer block, final int offset, final int writer,
                                 final int usedLength, final int firstRecordOffset) {
        block.putInt(offset + MAGIC_OFFSET, MAGIC, BYTE_ORDER);
        block.putByte(offset + VERSION_OFFSET, VERSION);
        block.putByte(offset + FLAGS_OFFSET, (byte) 0);
        block.putShort(offset + WRITER_OFFSET, (short) writer, BYTE_ORDER);
        block.putInt(offset + USED_LENGTH_OFFSET, usedLength, BYTE_ORDER);
        block.putInt(offset + FIRST_RECORD_OFFSET_OFFSET, firstRecordOffset, BYTE_ORDER);
    }

    public static void putCrc(final MutableDirectBuffer block, final int offset, final int crc) {
        block.putInt(offset + CRC_OFFSET, crc, BYTE_ORDER);
    }

    /**
     * CRC32C of a block held in a heap array, skipping the crc field. The caller passes its own reused
     * {@link CRC32C} (the JDK intrinsic is fastest on arrays and direct buffers; a block held elsewhere is copied
     * into an array first).
     */
    public static int checksum(final CRC32C crc, final byte[] array, final int offset, final int blockSize) {
        crc.reset();
        crc.update(array, offset, CRC_OFFSET);
        crc.update(array, offset + CRC_OFFSET + Integer.BYTES, blockSize - CRC_OFFSET - Integer.BYTES);
        return (int) crc.getValue();
    }
}
