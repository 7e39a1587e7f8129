package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The log on a real, small ext4 file system that fills up. Chronicle Queue writes through memory-mapped files, so a
 * full disk does not fail a write call: the write to an unbacked page faults (SIGBUS). Before the free-space
 * reserve, the writer thread died of the resulting {@code InternalError}, appends hung until their clients timed
 * out, and /health said UP. Now appends are refused with {@code STORAGE_FULL}, /health says DOWN, every
 * acknowledged block stays readable, and appends resume, densely numbered, once space is freed.
 *
 * <p>Needs root, {@code mkfs.ext4} and loop mounts; skipped where any is missing.
 */
@Tag("process")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogServerDiskFullTest {
    private static final int BLOCK = 8192;
    private static final int WINDOW = 64;
    private static final long RESERVE = 48L << 20;

    @TempDir
    Path dir;

    @Test
    void refusesAppendsWhenTheDiskFillsUpAndResumesOnceSpaceIsFreed() throws Exception {
        Path mount = mountSmallExt4(320);
        try {
            Path ballast = mount.resolve("ballast");
            writeBallast(ballast, 64L << 20);
            LogServerConfig config = LogServerConfig.at(mount.resolve("log")).blockSize(BLOCK).metricsPort(0);
            config.store().minFreeSpace(RESERVE);
            try (LogServer server = LogServer.start(config);
                 LogClient client = LogClient.connect(LogClientOptions.to("127.0.0.1", server.port())
                         .requestTimeout(Duration.ofSeconds(30)))) {
                client.create(BLOCK, new byte[0]).join();
                Map<Long, Long> acked = new ConcurrentHashMap<>(); // position -> seed of its block
                AtomicReference<Throwable> refusal = new AtomicReference<>();
                Semaphore window = new Semaphore(WINDOW);
                long seed = 0;
                while (refusal.get() == null && seed < 1_000_000) {
                    window.acquire();
                    long s = ++seed;
                    client.append(block(s)).whenComplete((p, e) -> {
                        if (e == null) {
                            acked.put(p, s);
                        } else {
                            refusal.compareAndSet(null, e);
                        }
                        window.release();
                    });
                }
                window.acquire(WINDOW);
                window.release(WINDOW);

                LogErrorException full = assertInstanceOfLogError(refusal.get());
                assertEquals(ErrorCode.STORAGE_FULL, full.code(), full.getMessage());
                assertTrue(acked.size() > 5_000, "appended " + acked.size() + " blocks before the disk filled");
                assertNull(server.store().failure(), "a full disk is not a failure of the store");
                assertEquals(ErrorCode.STORAGE_FULL, refusedCode(client, block(-1)));
                String down = get(server.metricsPort(), "/health", 503);
                assertTrue(down.contains("\"status\":\"DOWN\"") && down.contains("STORAGE_FULL"), down);

                long tail = client.tail().join();
                assertEquals(acked.size() + 1, tail, "positions 1.." + (tail - 1) + " are exactly the acknowledged ones");

                Files.delete(ballast);
                assertTrue(get(server.metricsPort(), "/health", 200).contains("\"status\":\"UP\""));
                for (long s = 1; s <= 100; s++) {
                    long p = client.append(block(-s)).join();
                    assertEquals(tail + s - 1, p, "appends resume at the next dense position");
                    acked.put(p, -s);
                }

                for (long p = 1; p < tail + 100; p += 256) {
                    List<byte[]> blocks = client.read(p, 256).join();
                    for (int i = 0; i < blocks.size(); i++) {
                        assertArrayEquals(block(acked.get(p + i)), blocks.get(i), "position " + (p + i));
                    }
                }
            }
        } finally {
            unmount(mount);
        }
    }

    private static LogErrorException assertInstanceOfLogError(Throwable t) {
        assertNotNull(t, "no append was refused");
        Throwable cause = t instanceof CompletionException ? t.getCause() : t;
        assertTrue(cause instanceof LogErrorException, "refused with " + cause);
        return (LogErrorException) cause;
    }

    private static ErrorCode refusedCode(LogClient client, byte[] block) {
        CompletableFuture<Long> f = client.append(block);
        try {
            f.join();
            throw new AssertionError("appended at " + f.join() + " with the disk full");
        } catch (CompletionException e) {
            return assertInstanceOfLogError(e.getCause()).code();
        }
    }

    static byte[] block(long seed) {
        byte[] b = new byte[BLOCK];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void writeBallast(Path file, long bytes) throws IOException {
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long n = 0; n < bytes; n += chunk.length) {
                out.write(chunk);
            }
        }
    }

    private static String get(int port, String path, int expectedStatus) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path).openConnection();
        try {
            assertEquals(expectedStatus, c.getResponseCode(), path);
            try (InputStream in = expectedStatus < 400 ? c.getInputStream() : c.getErrorStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } finally {
            c.disconnect();
        }
    }

    // ---- a loop-mounted ext4 file system of its own

    private Path mountSmallExt4(int megabytes) throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux"), "Linux only");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root to mount a file system");
        Path image = dir.resolve("disk.img");
        Path mount = Files.createDirectories(dir.resolve("mnt"));
        try (var f = new java.io.RandomAccessFile(image.toFile(), "rw")) {
            f.setLength((long) megabytes << 20);
        }
        // -m 0: no blocks reserved for root, so that free space is what the server sees as usable
        Assumptions.assumeTrue(run("mkfs.ext4", "-q", "-F", "-m", "0", image.toString()), "mkfs.ext4 failed or is missing");
        Assumptions.assumeTrue(run("mount", "-o", "loop", image.toString(), mount.toString()), "cannot loop-mount");
        return mount;
    }

    private static void unmount(Path mount) throws Exception {
        if (!run("umount", mount.toString())) {
            run("umount", "-l", mount.toString());
        }
    }

    private static boolean run(String... command) throws InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(command));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            if (p.exitValue() != 0) {
                System.err.println(String.join(" ", cmd) + ": exit " + p.exitValue() + ": " + output.strip());
                return false;
            }
            return true;
        } catch (IOException e) {
            System.err.println(String.join(" ", cmd) + ": " + e);
            return false;
        }
    }
}
