package io.meldb.bench;

import io.meldb.log.LogException;
import io.meldb.log.client.BlockListener;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogSubscription;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.netty.buffer.ByteBuf;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Append latency while a subscriber catches up from cold storage: the log service (Hyder II §5.1) serving a
 * transaction server that replays the log after a restart while the others keep appending.
 *
 * <p>Fills a log, then per run: drops the page cache, times paced appends alone, drops the page cache again, and
 * times the same appends while a second connection subscribes from position 1 and reads the whole log back from
 * the disk. Reports append latency (from each append's scheduled time) for both phases and the subscriber's rate.
 * Dropping the page cache needs root ({@code /proc/sys/vm/drop_caches}); without it the run says so and the reads
 * may come from memory.
 */
public final class LogCatchUpBenchmark {
    private static final String[][] FLAGS = {
        {"blocks", "262144", "blocks in the log before the first run (8 KiB each: 2 GiB)"},
        {"rate", "5000", "appends per second in both phases"},
        {"seconds", "5", "seconds per phase"},
        {"runs", "3", "runs (each: appends alone, then appends during a catch-up); medians are reported"},
        {"read-threads", "2", "the server's read threads (--read-threads of log-server)"},
        {"dir", Path.of(System.getProperty("java.io.tmpdir"), "meldb-catchup-bench").toString(), "data directory (deleted first)"},
    };
    private static final String USAGE = "usage: java $(cat bin/jvm-flags) -cp benchmarks/target/benchmarks.jar "
            + "io.meldb.bench.LogCatchUpBenchmark [--flag value]...\n"
            + "Append latency while a subscriber reads the log back from disk (log-server).";
    private static final int BLOCK = LogServerConfig.DEFAULT_BLOCK_SIZE;
    private static final long PACER_PARK_NANOS = 200_000;

    private final Map<String, String> opts;
    private final byte[] block = new byte[BLOCK];

    private LogCatchUpBenchmark(Map<String, String> opts) {
        this.opts = opts;
        new Random(42).nextBytes(block);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = DriverOptions.parseOrExit("LogCatchUpBenchmark", USAGE, "MELDB_CATCHUP_", FLAGS, args,
                o -> {
                    for (String n : new String[]{"blocks", "rate", "seconds", "runs", "read-threads"}) {
                        if (DriverOptions.intValue(o, n) < 1) {
                            throw new IllegalArgumentException("--" + n + " must be at least 1");
                        }
                    }
                });
        if (opts != null) {
            new LogCatchUpBenchmark(opts).run();
        }
    }

    private int intOpt(String name) {
        return DriverOptions.intValue(opts, name);
    }

    private void run() throws Exception {
        Path dir = Path.of(opts.get("dir"));
        delete(dir);
        int blocks = intOpt("blocks");
        int rate = intOpt("rate");
        int seconds = intOpt("seconds");
        LogServerConfig config = LogServerConfig.at(dir).blockSize(BLOCK).metricsPort(-1)
                .readThreads(intOpt("read-threads"));
        List<double[]> rows = new ArrayList<>();
        try (LogServer server = LogServer.start(config);
             LogClient appender = connect(server);
             LogClient replayer = connect(server)) {
            appender.create(BLOCK, "catch-up".getBytes(StandardCharsets.UTF_8)).join();
            fill(appender, blocks);
            System.out.printf(Locale.ROOT, "log catch-up benchmark: %,d blocks of %d bytes, appends at %,d/s for %d s "
                    + "per phase, %s read thread(s)%n", blocks, BLOCK, rate, seconds, opts.get("read-threads"));
            for (int r = 1; r <= intOpt("runs"); r++) {
                dropPageCache();
                Histogram alone = appendAtRate(appender, rate, seconds);
                dropPageCache();
                AtomicLong received = new AtomicLong();
                AtomicReference<LogException> failure = new AtomicReference<>();
                Histogram during;
                long tailBefore = appender.tail().join();
                AtomicLong caughtUpAt = new AtomicLong();
                long t0 = System.nanoTime();
                try (LogSubscription s = replayer.subscribe(1, new BlockListener() {
                    @Override
                    public void onBlock(long position, ByteBuf b) {
                        received.incrementAndGet();
                        if (position == tailBefore - 1) {
                            caughtUpAt.set(System.nanoTime());
                        }
                    }

                    @Override
                    public void onError(LogException e) {
                        failure.set(e);
                    }
                })) {
                    during = appendAtRate(appender, rate, seconds);
                }
                // over the read of what was there at the start, or the whole phase if that did not finish
                long readNanos = (caughtUpAt.get() != 0 ? caughtUpAt.get() : System.nanoTime()) - t0;
                double readRate = Math.min(received.get(), tailBefore - 1) / (readNanos / 1e9);
                long tailAfter = appender.tail().join();
                if (failure.get() != null) {
                    throw new IllegalStateException("the catch-up subscription failed", failure.get());
                }
                double[] row = {ms(alone, 50), ms(alone, 99), ms(alone, 100), ms(during, 50), ms(during, 99),
                        ms(during, 100), readRate, 100.0 * Math.min(received.get(), tailBefore - 1) / (tailBefore - 1)};
                rows.add(row);
                System.out.printf(Locale.ROOT, "run %d: appends alone p50 %.2f ms, p99 %.2f ms, max %.2f ms; during the "
                        + "catch-up p50 %.2f ms, p99 %.2f ms, max %.2f ms; the subscriber read %,.0f blocks/s, %.0f%% of "
                        + "the blocks there were at its start%s%n", r, row[0], row[1], row[2], row[3], row[4], row[5],
                        row[6], row[7], received.get() >= tailAfter - 1 ? ", and caught up" : "");
            }
        } finally {
            delete(dir);
        }
        System.out.println();
        System.out.println("| appends at " + rate + "/s (median of " + rows.size() + ") | p50 ms | p99 ms | max ms |");
        System.out.println("|---|---:|---:|---:|");
        System.out.printf(Locale.ROOT, "| alone | %.2f | %.2f | %.2f |%n", median(rows, 0), median(rows, 1), median(rows, 2));
        System.out.printf(Locale.ROOT, "| while a subscriber catches up from disk (%,.0f blocks/s) | %.2f | %.2f | %.2f |%n",
                median(rows, 6), median(rows, 3), median(rows, 4), median(rows, 5));
    }

    private static LogClient connect(LogServer server) {
        return LogClient.connect(LogClientOptions.to("127.0.0.1", server.port()));
    }

    /** Appends {@code blocks} blocks, 256 in flight. */
    private void fill(LogClient client, int blocks) throws InterruptedException {
        Semaphore window = new Semaphore(256);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < blocks && failure.get() == null; i++) {
            window.acquire();
            client.append(block).whenComplete((p, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
                window.release();
            });
        }
        window.acquire(256);
        if (failure.get() != null) {
            throw new IllegalStateException("filling the log failed", failure.get());
        }
    }

    /** Appends at {@code rate} for {@code seconds}; latency of each from its scheduled time, in µs. */
    private Histogram appendAtRate(LogClient client, int rate, int seconds) throws InterruptedException {
        Recorder latency = new Recorder(3);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong outstanding = new AtomicLong();
        long interval = 1_000_000_000L / rate;
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        for (long next = start; next < end && failure.get() == null; ) {
            long now = System.nanoTime();
            if (now < next) {
                LockSupport.parkNanos(Math.min(PACER_PARK_NANOS, next - now));
                continue;
            }
            long scheduled = next;
            outstanding.incrementAndGet();
            client.append(block).whenComplete((p, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else {
                    latency.recordValue(Math.max(1, (System.nanoTime() - scheduled) / 1000));
                }
                outstanding.decrementAndGet();
            });
            next += interval;
        }
        while (outstanding.get() > 0 && failure.get() == null) {
            Thread.sleep(1);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an append failed", failure.get());
        }
        return latency.getIntervalHistogram();
    }

    private static double ms(Histogram h, double percentile) {
        return (percentile >= 100 ? h.getMaxValue() : h.getValueAtPercentile(percentile)) / 1000.0;
    }

    private static double median(List<double[]> rows, int column) {
        double[] v = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** Writes dirty pages back and drops the clean page cache, so that the subscriber's reads go to the disk. */
    private static void dropPageCache() throws IOException, InterruptedException {
        new ProcessBuilder("sync").inheritIO().start().waitFor(120, TimeUnit.SECONDS);
        try {
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "1");
        } catch (IOException e) {
            System.out.println("(page cache not dropped: " + e.getMessage() + "; the subscriber may read from memory)");
        }
    }

    private static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
