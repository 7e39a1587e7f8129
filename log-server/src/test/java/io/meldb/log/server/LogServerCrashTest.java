package io.meldb.log.server;

import io.meldb.log.LogException;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogStatus;
import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server as a real process, {@code kill -9}ed while four clients append concurrently, then restarted on the
 * same data directory: every acknowledged block is at its position with identical bytes, positions are dense and
 * unique, and each unacknowledged append is either there whole or not at all (docs/architecture.md: restart loses no
 * acknowledged block). The queue rolls every second, so the crash and the recovery span several queue files.
 */
@Tag("process")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LogServerCrashTest {
    private static final int BLOCK = 8192;
    private static final int CLIENTS = 4;
    private static final int WINDOW = 32;
    private static final Pattern LISTENING = Pattern.compile("log-server listening on (\\S+):(\\d+)");

    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryAcknowledgedBlockWhenKilledMidStream() throws Exception {
        Path data = dir.resolve("data");
        ChildProcess first = startServer(data, dir.resolve("first.log"));
        ChildProcess second = null;
        Map<Long, Long> acked = new ConcurrentHashMap<>(); // position -> key
        AtomicInteger attempted = new AtomicInteger();
        try {
            try (LogClient admin = connect(port(first))) {
                admin.create(BLOCK, "crash-test".getBytes(StandardCharsets.UTF_8)).join();
            }
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch writersDone = new CountDownLatch(CLIENTS);
            List<Thread> writers = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int clientId = c;
                Thread t = new Thread(() -> {
                    try (LogClient client = connect(port(first))) {
                        Semaphore window = new Semaphore(WINDOW);
                        for (int seq = 0; !stop.get(); seq++) {
                            if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                                seq--;
                                continue;
                            }
                            long key = key(clientId, seq);
                            attempted.incrementAndGet();
                            client.append(content(key)).whenComplete((position, error) -> {
                                if (error == null) {
                                    Long previous = acked.put(position, key);
                                    if (previous != null) {
                                        acked.put(-position, previous); // recorded as a failure below
                                    }
                                }
                                window.release();
                            });
                        }
                    } catch (InterruptedException | LogException e) {
                        // the server is gone
                    } finally {
                        writersDone.countDown();
                    }
                }, "crash-test-writer-" + c);
                t.start();
                writers.add(t);
            }

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((acked.size() < 3000 || System.nanoTime() < deadline - TimeUnit.SECONDS.toNanos(17)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            first.kill();
            int ackedAtKill = acked.size();
            stop.set(true);
            assertTrue(writersDone.await(30, TimeUnit.SECONDS), "writers stopped");
            assertTrue(ackedAtKill > 500, "appends were acknowledged before the kill: " + ackedAtKill);
            assertTrue(acked.keySet().stream().allMatch(p -> p > 0), "a position was acknowledged twice");

            second = startServer(data, dir.resolve("second.log"));
            try (LogClient client = connect(port(second))) {
                LogStatus status = client.status().join();
                long tail = status.tail();
                long maxAcked = acked.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
                assertTrue(tail > maxAcked, "tail " + tail + " covers the highest acknowledged position " + maxAcked);
                assertTrue(tail - 1 <= attempted.get(), "no more blocks than appends attempted");
                assertEquals("crash-test", new String(client.config().join(), StandardCharsets.UTF_8));

                Map<Long, Long> seen = new HashMap<>();
                for (long p = 1; p < tail; ) {
                    List<byte[]> blocks = client.read(p, 256).join();
                    assertTrue(!blocks.isEmpty());
                    for (byte[] b : blocks) {
                        long key = ByteBuffer.wrap(b).getLong(0);
                        assertArrayEquals(content(key), b, "position " + p + " holds a whole block");
                        Long other = seen.put(key, p);
                        assertEquals(null, other, "block " + key + " stored at " + other + " and " + p);
                        Long expected = acked.get(p);
                        if (expected != null) {
                            assertEquals(expected, key, "acknowledged block at " + p);
                        }
                        p++;
                    }
                }
                for (Map.Entry<Long, Long> e : acked.entrySet()) {
                    assertEquals(e.getKey(), seen.get(e.getValue()), "acknowledged block " + e.getValue() + " is where it was acknowledged");
                }
                assertEquals(tail, client.append(content(key(99, 0))).join(), "positions continue densely after the restart");
                String recovered = Files.readAllLines(dir.resolve("second.log")).stream()
                        .filter(l -> l.contains("opened log")).findFirst().orElse("?");
                System.out.printf("kill -9 after %d acknowledged of %d attempted appends; restart: tail %d, %d blocks "
                        + "stored but unacknowledged; %s%n", ackedAtKill, attempted.get(), tail, tail - 1 - acked.size(), recovered);
            }
        } finally {
            first.kill();
            if (second != null) {
                second.kill();
            }
        }
    }

    private static LogClient connect(int port) {
        return LogClient.connect(LogClientOptions.to("127.0.0.1", port).requestTimeout(Duration.ofSeconds(10))
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)));
    }

    private static long key(int client, int seq) {
        return (long) client << 32 | seq;
    }

    /** The block for {@code key}: the key, then bytes that only that key produces. */
    private static byte[] content(long key) {
        byte[] b = new byte[BLOCK];
        new Random(key * 1_000_003L).nextBytes(b);
        ByteBuffer.wrap(b).putLong(0, key);
        return b;
    }

    /** {@code java <bin/jvm-flags> -cp <test classpath> LogServerMain ...}, its output in {@code log}. */
    private static ChildProcess startServer(Path data, Path log) {
        ChildProcess p = ChildProcess.start("log-server", JavaCommand.main(LogServerMain.class.getName())
                .args("--port", "0", "--metrics-port", "-1", "--data-dir", data.toString(), "--block-size",
                        String.valueOf(BLOCK), "--roll-cycle", "TEST_SECONDLY", "--io-threads", "2").build(),
                null, log, LISTENING);
        p.awaitReady(Duration.ofSeconds(60));
        return p;
    }

    private static int port(ChildProcess server) {
        return Integer.parseInt(server.awaitReady(Duration.ofSeconds(60)).group(2));
    }
}
