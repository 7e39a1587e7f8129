package io.meldb.log;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.ByteOrder;

/**
 * Layout of the block at position 0: the cluster meld configuration (docs/architecture.md: "written once into the log's
 * first block. A server started with a different configuration refuses to join"). The log server never
 * interprets the configuration bytes; it only stores them here and refuses a CREATE that differs.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        magic "MCFG"                           |  0
 *  +---------------------------------------------------------------+
 *  |                     version (1)                               |  4
 *  +---------------------------------------------------------------+
 *  |                       blockSize                               |  8
 *  +---------------------------------------------------------------+
 *  |                     configLength                              | 12
 *  +---------------------------------------------------------------+
 *  |  config bytes, then zeros up to blockSize                     | 16
 *  +---------------------------------------------------------------+
 * </pre>
 * Integers are little-endian, like meld-core's block format.
 */
public final class ConfigBlock {
    public static final int MAGIC = 0x4D434647;
    public static final int VERSION = 1;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int BLOCK_SIZE_OFFSET = 8;
    public static final int CONFIG_LENGTH_OFFSET = 12;
    public static final int HEADER_LENGTH = 16;

    /** Smallest block size a log may be created with: room for the header and a useful payload. */
    public static final int MIN_BLOCK_SIZE = 64;
    /** Largest block size: keeps every frame, and every read of one block, a modest allocation. */
    public static final int MAX_BLOCK_SIZE = 1 << 20;

    private ConfigBlock() {
    }

    public static int maxConfigLength(int blockSize) {
        return blockSize - HEADER_LENGTH;
    }

    /** Checks the CREATE arguments; the message names the limit that was broken. */
    public static void validate(int blockSize, byte[] config) {
        if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE) {
            throw new LogErrorException(ErrorCode.BAD_ARGUMENT,
                    "block size " + blockSize + " is outside [" + MIN_BLOCK_SIZE + ", " + MAX_BLOCK_SIZE + "]");
        }
        if (config.length > maxConfigLength(blockSize)) {
            throw new LogErrorException(ErrorCode.BAD_ARGUMENT, "configuration of " + config.length
                    + " bytes does not fit into a block of " + blockSize + " bytes (at most "
                    + maxConfigLength(blockSize) + ")");
        }
    }

    /** The whole block for position 0. */
    public static byte[] encode(int blockSize, byte[] config) {
        validate(blockSize, config);
        byte[] block = new byte[blockSize];
        ByteBuf b = Unpooled.wrappedBuffer(block).order(ByteOrder.LITTLE_ENDIAN);
        b.writerIndex(0);
        b.writeIntLE(MAGIC).writeIntLE(VERSION).writeIntLE(blockSize).writeIntLE(config.length).writeBytes(config);
        return block;
    }

    /** The configuration bytes of a block read from position 0. */
    public static byte[] decodeConfig(ByteBuf block) {
        int base = block.readerIndex();
        if (block.readableBytes() < HEADER_LENGTH || block.getIntLE(base + MAGIC_OFFSET) != MAGIC) {
            throw new LogErrorException(ErrorCode.CORRUPT_BLOCK, "position 0 does not hold a configuration block");
        }
        int version = block.getIntLE(base + VERSION_OFFSET);
        int length = block.getIntLE(base + CONFIG_LENGTH_OFFSET);
        if (version != VERSION || length < 0 || length > block.readableBytes() - HEADER_LENGTH) {
            throw new LogErrorException(ErrorCode.CORRUPT_BLOCK,
                    "configuration block version " + version + ", length " + length + " is not valid");
        }
        byte[] config = new byte[length];
        block.getBytes(base + HEADER_LENGTH, config);
        return config;
    }

    public static byte[] decodeConfig(byte[] block) {
        return decodeConfig(Unpooled.wrappedBuffer(block));
    }

    public static int decodeBlockSize(byte[] block) {
        return Unpooled.wrappedBuffer(block).getIntLE(BLOCK_SIZE_OFFSET);
    }
}
