package io.meldb.log.storage;

import io.meldb.log.ConfigBlock;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The log's own metadata (the trim point of meld paper App. B, the configuration block of DESIGN.md), kept beside the queue in {@code log.meta}: block size, the configuration given to
 * CREATE and the trim point. It is small and rarely written (CREATE, TRIM), so every write is a whole new file
 * made durable before it replaces the old one (write temp, fsync, atomic rename, fsync directory), whatever
 * the durability mode: a trim point that went back after a crash would make released positions readable again,
 * and the configuration must outlive the queue file that held position 0 once that file is trimmed away.
 *
 * <pre>
 *  0  magic "MLMT"     4  version (1)      8  blockSize
 *  12 trimPoint (8)    20 configLength     24 config bytes ... then crc32c of everything before it
 * </pre>
 * Little-endian.
 */
final class LogMeta {
    static final String FILE_NAME = "log.meta";
    private static final int MAGIC = 0x4D4C4D54;
    private static final int VERSION = 1;

    final int blockSize;
    final byte[] config;
    final long trimPoint;
    /** The block at position 0, derived from blockSize and config. */
    final byte[] configBlock;

    LogMeta(int blockSize, byte[] config, long trimPoint) {
        this.blockSize = blockSize;
        this.config = config.clone();
        this.trimPoint = trimPoint;
        this.configBlock = ConfigBlock.encode(blockSize, config);
    }

    LogMeta withTrimPoint(long newTrimPoint) {
        return new LogMeta(blockSize, config, newTrimPoint);
    }

    /** The metadata in {@code dir}, or {@code null} if the log was never created there. */
    static LogMeta read(Path dir) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(dir.resolve(FILE_NAME));
        } catch (NoSuchFileException e) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < 28 || b.getInt(0) != MAGIC) {
            throw new IOException(dir.resolve(FILE_NAME) + " is not a log metadata file");
        }
        if (b.getInt(4) != VERSION) {
            throw new IOException(dir.resolve(FILE_NAME) + " has version " + b.getInt(4) + ", expected " + VERSION);
        }
        int configLength = b.getInt(20);
        if (configLength < 0 || 24 + configLength + 4 != bytes.length) {
            throw new IOException(dir.resolve(FILE_NAME) + " is truncated or damaged");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, 24 + configLength);
        if ((int) crc.getValue() != b.getInt(24 + configLength)) {
            throw new IOException(dir.resolve(FILE_NAME) + " fails its checksum");
        }
        byte[] config = new byte[configLength];
        System.arraycopy(bytes, 24, config, 0, configLength);
        return new LogMeta(b.getInt(8), config, b.getLong(12));
    }

    void write(Path dir) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(24 + config.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(VERSION).putInt(blockSize).putLong(trimPoint).putInt(config.length).put(config);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        b.flip();

        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        try {
            Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING);
        }
        fsyncDirectory(dir);
    }

    /** Makes a rename or a new file in {@code dir} durable (Linux allows fsync on a directory opened read-only). */
    static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some platforms (Windows) cannot open a directory; the rename is then as durable as the OS makes it
        }
    }
}
