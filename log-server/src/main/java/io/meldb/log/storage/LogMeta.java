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
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The log's own metadata (the trim point of meld paper App. B, the configuration block of docs/architecture.md), kept beside the queue in {@code log.meta}: block size, the configuration given to
 * CREATE and the trim point. It is small and rarely written (CREATE, TRIM), so every write is a whole new file
 * made durable before it replaces the old one (write temp, fsync, atomic rename, fsync directory), whatever
 * the durability mode: a trim point that went back after a crash would make released positions readable again,
 * and the configuration must outlive the queue file that held position 0 once that file is trimmed away.
 *
 * <pre>
 *  0  magic "MLMT"     4  version (2)      8  blockSize        12 trimPoint (8)
 *  20 log id (16)      36 configLength     40 config bytes ... then crc32c of everything before it
 * </pre>
 * Little-endian. Version 1 had no log id (configLength at 20, config at 24); such a file is read with a null id,
 * and the store gives the log one.
 *
 * <p>The log id is random, drawn at CREATE: two logs created with the same block size and configuration are still
 * told apart, so that a client that reconnects to a log server holding another log (a wiped or swapped data
 * directory) finds out before it appends there.
 */
final class LogMeta {
    static final String FILE_NAME = "log.meta";
    private static final int MAGIC = 0x4D4C4D54;
    private static final int VERSION = 2;

    final int blockSize;
    final byte[] config;
    final long trimPoint;
    /** Drawn at CREATE; null only when read from a version 1 file. */
    final UUID logId;
    /** The block at position 0, derived from blockSize and config. */
    final byte[] configBlock;

    LogMeta(int blockSize, byte[] config, long trimPoint, UUID logId) {
        this.blockSize = blockSize;
        this.config = config.clone();
        this.trimPoint = trimPoint;
        this.logId = logId;
        this.configBlock = ConfigBlock.encode(blockSize, config);
    }

    LogMeta withTrimPoint(long newTrimPoint) {
        return new LogMeta(blockSize, config, newTrimPoint, logId);
    }

    LogMeta withLogId(UUID id) {
        return new LogMeta(blockSize, config, trimPoint, id);
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
        int version = b.getInt(4);
        if (version != 1 && version != VERSION) {
            throw new IOException(dir.resolve(FILE_NAME) + " has version " + version + ", expected " + VERSION);
        }
        int configAt = version == 1 ? 24 : 40;
        if (bytes.length < configAt + 4) {
            throw new IOException(dir.resolve(FILE_NAME) + " is truncated or damaged");
        }
        int configLength = b.getInt(configAt - 4);
        if (configLength < 0 || configAt + configLength + 4 != bytes.length) {
            throw new IOException(dir.resolve(FILE_NAME) + " is truncated or damaged");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, configAt + configLength);
        if ((int) crc.getValue() != b.getInt(configAt + configLength)) {
            throw new IOException(dir.resolve(FILE_NAME) + " fails its checksum");
        }
        byte[] config = new byte[configLength];
        System.arraycopy(bytes, configAt, config, 0, configLength);
        UUID logId = version == 1 ? null : new UUID(b.getLong(20), b.getLong(28));
        return new LogMeta(b.getInt(8), config, b.getLong(12), logId);
    }

    void write(Path dir) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(40 + config.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(VERSION).putInt(blockSize).putLong(trimPoint)
                .putLong(logId.getMostSignificantBits()).putLong(logId.getLeastSignificantBits())
                .putInt(config.length).put(config);
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
