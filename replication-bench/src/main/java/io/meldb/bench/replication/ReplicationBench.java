package io.meldb.bench.replication;

import io.meldb.log.Durability;
import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Issue 22's comparison of the replication engines at r = 3 on this machine: appends of 4 KB blocks with a
 * bounded number in flight (throughput and latency percentiles), then the time from losing the leader (Ratis) or
 * writer (BookKeeper) to the next acknowledged append. Usage: {@code ReplicationBench ratis|ratis-store|bookkeeper|meld-r1|meld-r1-fsync [appends]
 * [inFlight] [blocksPerEntry]}; see docs/log-replication.md for the figures and how to reproduce them.
 */
public final class ReplicationBench {
    static final int BLOCK = 4096;

    private ReplicationBench() {
    }

    public static void main(final String[] args) throws Exception {
        final String engine = args.length > 0 ? args[0] : "ratis";
        final int appends = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        final int inFlight = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        // more than one block per replicated entry: what batching at the log server would buy
        final int blocksPerEntry = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        if (blocksPerEntry != 1 && engine.startsWith("meld")) {
            throw new IllegalArgumentException("the log server appends one block at a time");
        }
        final Path dir = Files.createTempDirectory("replication-bench-");
        final long t0 = System.nanoTime();
        try (Candidate c = candidate(engine, dir)) {
            final long startMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            final byte[] block = new byte[BLOCK * blocksPerEntry];
            run(c, block, appends / 10, inFlight, null); // warm-up
            final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            final long s = System.nanoTime();
            run(c, block, appends, inFlight, h);
            final double secs = (System.nanoTime() - s) / 1e9;
            final long f = System.nanoTime();
            c.failLeaderAndAppend(block);
            final long failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - f);
            System.out.printf("%s%n  started in %d ms; %d appends of %d B, %d in flight: %.0f appends/s (%.1f MB/s, %.0f"
                    + " blocks of %d B/s),"
                    + " latency p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n  failover (leader/writer lost"
                    + " -> next append acknowledged): %d ms%n",
                c.describe(), startMillis, appends, block.length, inFlight, appends / secs,
                appends * (double) block.length / secs / 1e6, appends * (double) blocksPerEntry / secs, BLOCK,
                h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
                h.getValueAtPercentile(99.9) / 1e6, h.getMaxValue() / 1e6, failoverMillis);
        }
        System.exit(0);
    }

    private static Candidate candidate(final String engine, final Path dir) throws Exception {
        return switch (engine) {
            case "ratis" -> new RatisCandidate(dir);
            case "ratis-store" -> new RatisCandidate(dir, true);
            case "bookkeeper" -> new BookKeeperCandidate();
            case "meld-r1" -> new MeldLogCandidate(dir, Durability.PAGE_CACHE);
            case "meld-r1-fsync" -> new MeldLogCandidate(dir, Durability.FSYNC);
            default -> throw new IllegalArgumentException("engine must be ratis, ratis-store, bookkeeper, meld-r1 or meld-r1-fsync");
        };
    }

    private static void run(final Candidate c, final byte[] block, final int n, final int inFlight,
                            final Histogram h) throws Exception {
        final Semaphore window = new Semaphore(inFlight);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < n && failure.get() == null; i++) {
            window.acquire();
            final long start = System.nanoTime();
            c.append(block).whenComplete((v, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else if (h != null) {
                    synchronized (h) {
                        h.recordValue(Math.min(System.nanoTime() - start, h.getHighestTrackableValue()));
                    }
                }
                window.release();
            });
        }
        window.acquire(inFlight);
        window.release(inFlight);
        if (failure.get() != null) {
            throw new IllegalStateException("an append failed", failure.get());
        }
    }
}
