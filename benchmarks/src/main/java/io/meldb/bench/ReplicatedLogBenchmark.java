package io.meldb.bench;

import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replicated log's figures (issue 22): append throughput and latency through {@link LogClient} at replication
 * factor 1 (one log-server process, today's path) and r = 3 (three processes, Apache Ratis) in one run, then the
 * failover time at r = 3: SIGKILL of the leader process to the first acknowledged append after it, a few times (the
 * killed replica restarted in between).
 *
 * <pre>
 * java $(cat bin/jvm-flags) -cp benchmarks/target/benchmarks.jar io.meldb.bench.ReplicatedLogBenchmark \
 *     [--seconds 10] [--window 64] [--block-size 8192] [--failovers 3]
 * </pre>
 */
public final class ReplicatedLogBenchmark {
    /** Appends of the last run that failed (leader changes). */
    private static long lastFailed;

    private ReplicatedLogBenchmark() {
    }

    /** The flags, parsed without running anything (BenchmarkCommandsTest checks the README's command with it). */
    record Args(int seconds, int window, int blockSize, int failovers) {
    }

    /** Parses the flags; an unknown flag, a missing or non-integer value is an {@link IllegalArgumentException}. */
    static Args parse(final String[] args) {
        int seconds = 10;
        int window = 64;
        int blockSize = 8192;
        int failovers = 3;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("flag " + args[i] + " needs a value");
            }
            final int v = DriverOptions.intValue(args[i].replaceFirst("^--", ""), args[i + 1]);
            switch (args[i]) {
                case "--seconds" -> seconds = v;
                case "--window" -> window = v;
                case "--block-size" -> blockSize = v;
                case "--failovers" -> failovers = v;
                default -> throw new IllegalArgumentException("unknown flag " + args[i]
                    + " (--seconds, --window, --block-size, --failovers)");
            }
        }
        return new Args(seconds, window, blockSize, failovers);
    }

    public static void main(final String[] args) throws Exception {
        final Args a = parse(args);
        final int seconds = a.seconds();
        final int window = a.window();
        final int blockSize = a.blockSize();
        final int failovers = a.failovers();
        System.out.printf(Locale.ROOT, "# %d-byte blocks, %d appends in flight on one connection, %d s per run (after"
            + " 3 s warmup), %d processors%n", blockSize, window, seconds, Runtime.getRuntime().availableProcessors());
        System.out.println("| replication | blocks/s | MB/s | p50 ms | p99 ms | p99.9 ms | failed appends |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (int r : new int[] {1, 3}) {
            final Path dir = Files.createTempDirectory("meldb-replication-bench");
            try (LogProcesses logs = new LogProcesses(dir, r, blockSize);
                 LogClient client = LogClient.connect(LogClientOptions.toAll(logs.addresses()))) {
                client.create(blockSize, new byte[] {1}).get(30, TimeUnit.SECONDS);
                run(client, blockSize, window, 3, null);
                final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(30), 3);
                final long appended = run(client, blockSize, window, seconds, h);
                final double rate = appended / (double) seconds;
                System.out.printf(Locale.ROOT, "| r = %d | %,.0f | %.1f | %.1f | %.1f | %.1f | %d |%n", r, rate,
                    rate * blockSize / 1e6, ms(h.getValueAtPercentile(50)), ms(h.getValueAtPercentile(99)),
                    ms(h.getValueAtPercentile(99.9)), lastFailed);
                if (r > 1) {
                    failovers(logs, client, blockSize, failovers);
                }
            } finally {
                YcsbDriver.deleteTree(dir);
            }
        }
    }

    private static double ms(final long nanos) {
        return nanos / 1e6;
    }

    /** Appends for {@code seconds} with {@code window} in flight; the number acknowledged. */
    private static long run(final LogClient client, final int blockSize, final int window, final int seconds,
                            final Histogram h) throws Exception {
        final Semaphore inFlight = new Semaphore(window);
        final AtomicLong acknowledged = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final byte[] block = new byte[blockSize];
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                continue;
            }
            final long t0 = System.nanoTime();
            client.append(block).whenComplete((p, e) -> {
                if (e != null) {
                    // a leader change under load: refused (NOT_LEADER) or lost with the connection; counted
                    failed.incrementAndGet();
                } else {
                    if (h != null) {
                        synchronized (h) {
                            h.recordValue(Math.min(System.nanoTime() - t0, h.getHighestTrackableValue()));
                        }
                    }
                    acknowledged.incrementAndGet();
                }
                inFlight.release();
            });
        }
        inFlight.acquire(window);
        lastFailed = failed.get();
        return acknowledged.get();
    }

    /** Kills the leader {@code rounds} times; prints each time to the first acknowledged append after the kill. */
    private static void failovers(final LogProcesses logs, final LogClient client, final int blockSize,
                                  final int rounds) throws Exception {
        final List<Long> millis = new ArrayList<>();
        final byte[] block = new byte[blockSize];
        for (int round = 0; round < rounds; round++) {
            final int leader = logs.awaitLeader();
            client.append(block).get(30, TimeUnit.SECONDS);
            logs.kill(leader);
            final long killed = System.nanoTime();
            while (true) {
                try {
                    client.append(block).join();
                    break;
                } catch (CompletionException e) {
                    if (System.nanoTime() - killed > TimeUnit.SECONDS.toNanos(60)) {
                        throw e;
                    }
                    Thread.sleep(10);
                }
            }
            millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed));
            logs.restart(leader);
            // let the restarted replica catch up before the next round
            Thread.sleep(Duration.ofSeconds(3).toMillis());
        }
        final long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf(Locale.ROOT, "%nfailover at r = 3 (SIGKILL of the leader process to the first acknowledged "
            + "append, the client retrying every 10 ms): %s ms, median %d ms%n", millis, sorted[sorted.length / 2]);
        System.out.println("# " + Arrays.toString(sorted));
    }
}
