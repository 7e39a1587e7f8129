package io.meldb.launcher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * One MeldDB per data directory: an exclusive lock on {@code DIR/meldb.lock}, which holds the owner's pid, taken
 * before anything else opens the directory. A second {@code meldb} on the same directory then says who has it
 * instead of failing somewhere inside the log store. The operating system drops the lock when its process ends,
 * however it ends; a process that was just {@code kill -9}ed holds it until it has finished exiting, which is
 * why {@link #acquire} waits a few seconds before giving up.
 */
final class DataDirLock implements AutoCloseable {
    static final String FILE = "meldb.lock";
    /** How long to wait for a lock held by a process that may be exiting. */
    static final Duration WAIT = Duration.ofSeconds(5);

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(final FileChannel channel, final FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates {@code dataDir} if needed and locks it, waiting up to {@code wait} for another process to let go
     * ({@code waiting} hears once that it waits, and for whom).
     *
     * @throws IllegalStateException when another process still holds it ("already in use by another MeldDB"), or
     *                               the directory cannot be created or locked
     */
    static DataDirLock acquire(final Path dataDir, final Duration wait, final Consumer<String> waiting) {
        final Path dir = dataDir.toAbsolutePath();
        final Path file = dir.resolve(FILE);
        final FileChannel channel;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new IllegalStateException("cannot use the data directory " + dir + ": " + e, e);
        }
        try {
            final long deadline = System.nanoTime() + wait.toNanos();
            boolean told = false;
            while (true) {
                final FileLock lock = tryLock(channel);
                if (lock != null) {
                    writePid(channel);
                    return new DataDirLock(channel, lock);
                }
                final String owner = owner(channel);
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(dir + " is already in use by another MeldDB" + owner
                            + "; stop it, or give this one another --data-dir");
                }
                if (!told) {
                    waiting.accept(dir + " is locked by another MeldDB" + owner + "; waiting up to "
                            + wait.toSeconds() + " s in case it is just exiting ...");
                    told = true;
                }
                Thread.sleep(100);
            }
        } catch (IOException | RuntimeException | InterruptedException e) {
            closeQuietly(channel);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (e instanceof IllegalStateException ise) {
                throw ise;
            }
            throw new IllegalStateException("cannot lock the data directory " + dir + ": " + e, e);
        }
    }

    private static FileLock tryLock(final FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // this JVM holds it already
        }
    }

    private static void writePid(final FileChannel channel) throws IOException {
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        channel.force(false);
    }

    /** " (pid N)" as the lock file names the owner, or "" when it does not (yet). */
    private static String owner(final FileChannel channel) throws IOException {
        final ByteBuffer b = ByteBuffer.allocate(32);
        channel.read(b, 0);
        final String text = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
        return text.matches("\\d+") ? " (pid " + text + ")" : "";
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel releases it too
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(final FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing more to release
        }
    }
}
