package io.meldb.bench;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.NodeMemory;
import io.meldb.launcher.EmbeddedNode;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.TxnServer;
import io.meldb.txn.api.TxnSession;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * The soak command for the txn-server's "bounded memory" claim: a long run at steady load keeps heap, off-heap
 * node memory (the node cache: every node of the live states is resident there) and the JVM's direct memory flat,
 * because every checkpoint ({@code --checkpoint-every} intentions) moves melding into a fresh node-memory
 * generation loaded from the checkpoint and frees the old one once no session pins it.
 *
 * <p>What it does: starts an embedded node ({@link EmbeddedNode}: log server and one txn-server in this JVM) in a
 * temporary directory (deleted at the end), loads {@code --keys} items (4-byte big-endian keys, 100-byte values),
 * then runs {@code --threads} client threads for {@code --minutes}. Each thread runs, one after another,
 * serializable read-modify-write transactions of 10 operations on uniformly drawn keys (5 point reads and 5
 * read-then-write updates), and, one time in ten, a read-only transaction scanning 100 items from a random key.
 * Meld conflicts are counted and not retried. Every read checks that the loaded key is present and every scan
 * that it returned the expected number of items, so a run also shows that the data stayed intact.
 *
 * <p>Every {@code --report-seconds} it prints one line: elapsed time, committed update transactions per second
 * and read-only scans per second in the interval, total commits, conflicts and late commits (no decision within
 * the server's commit timeout: OUTCOME_UNKNOWN; counted, the run goes on), commit latency p99 and max in the
 * interval, heap used after a {@code System.gc()} hint, node-memory segments in use x 4 MiB (and their count,
 * and the segments ever created: freed segments are pooled, not returned to the OS), the JVM's direct buffer pool, memory generations started, the data directory's size on disk, and the server's CSN.
 *
 * <p>What it proves, and how it decides: at the end it compares, for each memory series (heap after GC, node
 * memory, direct pool), the maximum over the last third of the samples with the maximum over the second third
 * (the first third is warm-up: JIT, pools and the outcome table filling). A series is FLAT if the last third's
 * maximum exceeds the second third's by at most {@code --tolerance} (relative) or a small absolute slack (heap
 * 16 MiB, node memory 2 segments, direct pool 8 MiB), otherwise GROWING. The process exits 0 if every series is
 * FLAT, 1 if any is GROWING, 2 if the run failed (server failure, a load thread error, a late commit, a lost key, or less than
 * {@code --min-free-gb} left on the data directory's file system, which stops the run early). Disk size is
 * reported with the same comparison but does not decide the verdict.
 *
 * <p>Run: {@code java $(cat bin/jvm-flags) -Xmx1g -cp benchmarks/target/benchmarks.jar io.meldb.bench.SoakDriver
 * --minutes 60} ({@code --help} lists the flags). Not part of the test suite; see {@code benchmarks/SOAK.md}.
 */
public final class SoakDriver {
    private static final String[][] FLAGS = {
        {"minutes", "60", "minutes of steady load (fractions allowed)"},
        {"report-seconds", "60", "seconds between report lines"},
        {"threads", "4", "client threads"},
        {"keys", "100000", "items loaded before the run (100-byte values)"},
        {"checkpoint-every", "20000", "txn-server checkpoint interval in intentions"},
        {"dir", System.getProperty("java.io.tmpdir"), "parent of the temporary data directory"},
        {"tolerance", "0.10", "relative growth (last third over second third) still counted as FLAT"},
        {"min-free-gb", "10", "stop (FAILED) if the data dir's file system has less than this many GiB free"},
        {"seed", "42", "random seed"},
    };
    private static final String USAGE = "usage: java $(cat bin/jvm-flags) -Xmx1g -cp benchmarks/target/benchmarks.jar"
            + " io.meldb.bench.SoakDriver [--flag value ...]";
    private static final int VALUE_SIZE = 100;
    private static final int OPS_PER_TXN = 10;
    private static final int LOAD_BATCH = 500;
    private static final int SCAN_LENGTH = 100;
    private static final double SCAN_FRACTION = 0.1;
    private static final double MIB = 1024.0 * 1024.0;

    private final Map<String, String> opts;
    private final int keys;
    private final int threads;

    private final LongAdder commits = new LongAdder();
    private final LongAdder scans = new LongAdder();
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder missing = new LongAdder();
    private final Map<TxnError, LongAdder> errors = new EnumMap<>(TxnError.class);
    private final Recorder latencyMicros = new Recorder(3);
    private volatile boolean stop;
    private volatile String firstError;
    private volatile String firstLate;

    private SoakDriver(final Map<String, String> opts) {
        this.opts = opts;
        this.keys = intOpt("keys");
        this.threads = intOpt("threads");
        for (TxnError e : TxnError.values()) {
            errors.put(e, new LongAdder());
        }
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> opts = DriverOptions.parseOrExit("SoakDriver", USAGE, "MELDB_SOAK_", FLAGS, args,
            SoakDriver::validate);
        if (opts != null) {
            System.exit(new SoakDriver(opts).run());
        }
    }

    private int intOpt(final String name) {
        return DriverOptions.intValue(opts, name);
    }

    // ------------------------------------------------------------------------------------------ run

    private int run() throws Exception {
        final double minutes = Double.parseDouble(opts.get("minutes"));
        final long reportMillis = Math.max(1, Math.round(Double.parseDouble(opts.get("report-seconds")) * 1000));
        final long checkpointEvery = Long.parseLong(opts.get("checkpoint-every").replace("_", "").replace(",", ""));
        final double tolerance = Double.parseDouble(opts.get("tolerance"));
        final double minFreeGiB = Double.parseDouble(opts.get("min-free-gb"));
        final Path parent = Path.of(opts.get("dir"));
        Files.createDirectories(parent);
        final Path dataDir = Files.createTempDirectory(parent, "meldb-soak");
        System.out.printf(Locale.ROOT, "# SoakDriver %s%n# data dir %s; JVM %s, max heap %.0f MiB, %d cpus%n", opts,
            dataDir, System.getProperty("java.vm.version"), Runtime.getRuntime().maxMemory() / MIB,
            Runtime.getRuntime().availableProcessors());

        final CountDownLatch finished = new CountDownLatch(1);
        final Thread hook = new Thread(() -> {
            stop = true;
            try {
                finished.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, "soak-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        final List<Sample> samples = new ArrayList<>();
        boolean failed = false;
        try (EmbeddedNode node = EmbeddedNode.start(dataDir, c -> c.checkpointEvery(checkpointEvery)
            .maxInFlight(Math.max(256, 2 * threads)))) {
            final TxnServer server = node.txnServer();
            final long loadStart = System.nanoTime();
            load(server);
            System.out.printf(Locale.ROOT, "# loaded %,d keys in %.1f s; csn %d; steady load: %d threads for %s min,"
                    + " checkpoint every %,d intentions%n", keys, (System.nanoTime() - loadStart) / 1e9,
                pinnedCsn(server), threads, opts.get("minutes"), checkpointEvery);
            System.out.println(Sample.HEADER);

            final List<Thread> workers = new ArrayList<>();
            final long seed = Long.parseLong(opts.get("seed"));
            for (int i = 0; i < threads; i++) {
                final SplittableRandom rnd = new SplittableRandom(seed + 1_000_003L * (i + 1));
                final Thread t = new Thread(() -> work(server, rnd), "soak-client-" + i);
                t.setDaemon(true);
                workers.add(t);
            }
            final long start = System.nanoTime();
            final long end = start + (long) (minutes * 60e9);
            samples.add(sample(server, dataDir, start, start, 0, 0));
            workers.forEach(Thread::start);
            long prevNanos = System.nanoTime();
            long prevCommits = 0;
            long prevScans = 0;
            long nextReport = start + TimeUnit.MILLISECONDS.toNanos(reportMillis);
            while (!stop && server.failure() == null && firstError == null) {
                final long now = System.nanoTime();
                if (now >= end) {
                    break;
                }
                final long wake = Math.min(nextReport, end);
                if (now < wake) {
                    Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(wake - now) + 1, 500));
                    continue;
                }
                final Sample s = sample(server, dataDir, start, prevNanos, prevCommits, prevScans);
                samples.add(s);
                final double freeGiB = Files.getFileStore(dataDir).getUsableSpace() / (MIB * 1024);
                if (freeGiB < minFreeGiB) {
                    noteError(String.format(Locale.ROOT, "only %.1f GiB free on the data dir's file system"
                        + " (--min-free-gb %s); stopped to protect the machine", freeGiB, opts.get("min-free-gb")));
                }
                prevNanos = s.nanos;
                prevCommits = s.commits;
                prevScans = s.scans;
                nextReport += TimeUnit.MILLISECONDS.toNanos(reportMillis);
            }
            stop = true;
            for (Thread t : workers) {
                t.join(30_000);
            }
            if (System.nanoTime() - prevNanos > TimeUnit.MILLISECONDS.toNanos(reportMillis) / 4) {
                samples.add(sample(server, dataDir, start, prevNanos, prevCommits, prevScans));
            }
            if (server.failure() != null) {
                System.out.println("# FAILED: the txn-server failed: " + server.failure());
                failed = true;
            }
        } finally {
            deleteRecursively(dataDir);
        }
        try {
            final StringBuilder errs = new StringBuilder();
            errors.forEach((code, n) -> {
                if (n.sum() > 0) {
                    errs.append(' ').append(code).append('=').append(n.sum());
                }
            });
            System.out.printf(Locale.ROOT, "# totals: %,d commits, %,d read-only scans, %,d conflicts, %,d refused"
                    + " (OVERLOADED), errors:%s, missing keys %d%n", commits.sum(), scans.sum(), conflicts.sum(),
                refused.sum(), errs.length() == 0 ? " none" : errs.toString(), missing.sum());
            if (firstError != null) {
                System.out.println("# FAILED: " + firstError);
                failed = true;
            }
            final long late = errors.get(TxnError.OUTCOME_UNKNOWN).sum() + errors.get(TxnError.TIMEOUT).sum();
            if (late > 0) {
                System.out.println("# FAILED: " + late + " commits got no decision within the commit timeout;"
                    + " first: " + firstLate);
                failed = true;
            }
            if (missing.sum() > 0) {
                System.out.println("# FAILED: " + missing.sum() + " reads or scans missed loaded keys");
                failed = true;
            }
            final boolean growing = verdict(samples, tolerance);
            if (failed) {
                return 2;
            }
            return growing ? 1 : 0;
        } finally {
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
        }
    }

    // ------------------------------------------------------------------------------------------ load

    private static byte[] key(final int k) {
        return new byte[] {(byte) (k >>> 24), (byte) (k >>> 16), (byte) (k >>> 8), (byte) k};
    }

    private void load(final TxnServer server) {
        final SplittableRandom rnd = new SplittableRandom(7);
        for (int from = 0; from < keys; from += LOAD_BATCH) {
            try (TxnSession t = server.begin(IsolationLevel.SERIALIZABLE, false)) {
                for (int k = from; k < Math.min(keys, from + LOAD_BATCH); k++) {
                    final byte[] v = new byte[VALUE_SIZE];
                    rnd.nextBytes(v);
                    t.put(key(k), v);
                }
                t.commit();
            }
        }
    }

    private void work(final TxnServer server, final SplittableRandom rnd) {
        while (!stop) {
            final boolean scan = rnd.nextDouble() < SCAN_FRACTION;
            final long began = System.nanoTime();
            try (TxnSession t = server.begin(IsolationLevel.SERIALIZABLE, scan)) {
                if (scan) {
                    final int lo = rnd.nextInt(keys);
                    final List<KeyValue> rows = t.scan(key(lo), true, null, true, false, SCAN_LENGTH);
                    if (rows.size() != Math.min(SCAN_LENGTH, keys - lo)) {
                        missing.increment();
                        noteError("scan from key " + lo + " returned " + rows.size() + " items, expected "
                            + Math.min(SCAN_LENGTH, keys - lo));
                    }
                    t.commit();
                    scans.increment();
                } else {
                    for (int op = 0; op < OPS_PER_TXN; op++) {
                        final int k = rnd.nextInt(keys);
                        final byte[] v = t.get(key(k));
                        if (v == null) {
                            missing.increment();
                            noteError("key " + k + " is missing");
                            continue;
                        }
                        if (op % 2 == 0) {
                            // read-modify-write: bump a counter in the first 8 bytes, keep the rest
                            long c = 0;
                            for (int b = 0; b < 8; b++) {
                                c = (c << 8) | (v[b] & 0xFF);
                            }
                            c++;
                            for (int b = 7; b >= 0; b--) {
                                v[b] = (byte) c;
                                c >>>= 8;
                            }
                            t.put(key(k), v);
                        }
                    }
                    t.commit();
                    commits.increment();
                    latencyMicros.recordValue(Math.max(1, (System.nanoTime() - began) / 1000));
                }
            } catch (TxnException e) {
                if (e.error() == TxnError.CONFLICT) {
                    conflicts.increment();
                } else if (e.error() == TxnError.OVERLOADED) {
                    refused.increment();
                    sleepQuietly(1);
                } else if ((e.error() == TxnError.OUTCOME_UNKNOWN || e.error() == TxnError.TIMEOUT)
                    && server.failure() == null) {
                    // a commit that meld did not decide within the commit timeout: counted (the "late" column)
                    // and reported at the end; the run goes on, since the soak is about memory over time
                    errors.get(e.error()).increment();
                    if (firstLate == null) {
                        firstLate = String.format(Locale.ROOT, "%s at %s: %s", e.error(),
                            java.time.Instant.now(), e.getMessage());
                    }
                } else {
                    errors.get(e.error()).increment();
                    if (stop) {
                        return;
                    }
                    noteError(e.error() + ": " + e.getMessage());
                    if (server.failure() != null || e.error() == TxnError.UNAVAILABLE) {
                        return;
                    }
                }
            } catch (RuntimeException e) {
                noteError(e.toString());
                return;
            }
        }
    }

    private void noteError(final String what) {
        if (firstError == null) {
            firstError = what;
        }
    }

    private static void sleepQuietly(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------------------------------ sampling

    /** One report line. */
    private record Sample(long nanos, double elapsedSeconds, double tps, double scansPerSecond, long commits,
                          long scans, long conflicts, double p99Millis, double maxMillis, double heapMiB,
                          long late, int segments, int segmentsCreated, double directMiB, long generations,
                          double diskMiB, long csn) {
        static final String HEADER = String.format(Locale.ROOT,
            "%9s %8s %7s %11s %9s %5s %8s %8s %9s %9s %6s %6s %10s %5s %9s %10s",
            "elapsed_s", "tps", "ro/s", "commits", "conflicts", "late", "p99_ms", "max_ms", "heap_MiB", "node_MiB",
            "segs", "seg_hw", "direct_MiB", "gens", "disk_MiB", "csn");

        String line() {
            return String.format(Locale.ROOT,
                "%9.0f %8.0f %7.0f %11d %9d %5d %8.1f %8.1f %9.1f %9.1f %6d %6d %10.1f %5d %9.1f %10d",
                elapsedSeconds, tps, scansPerSecond, commits, conflicts, late, p99Millis, maxMillis, heapMiB, nodeMiB(),
                segments, segmentsCreated, directMiB, generations, diskMiB, csn);
        }

        double nodeMiB() {
            return segments * (NodeMemory.SEGMENT_SIZE / MIB);
        }
    }

    private Sample sample(final TxnServer server, final Path dataDir, final long start, final long prevNanos,
                          final long prevCommits, final long prevScans) {
        final long now = System.nanoTime();
        final long c = commits.sum();
        final long sc = scans.sum();
        final double dt = Math.max(1e-9, (now - prevNanos) / 1e9);
        final Histogram h = latencyMicros.getIntervalHistogram();
        final double p99 = h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99) / 1000.0;
        final double max = h.getTotalCount() == 0 ? 0 : h.getMaxValue() / 1000.0;
        System.gc();
        final double heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / MIB;
        final int segments = NodeMemory.segmentsInUse();
        double direct = -1;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = pool.getMemoryUsed() / MIB;
            }
        }
        final Sample s = new Sample(now, (now - start) / 1e9, (c - prevCommits) / dt, (sc - prevScans) / dt, c, sc,
            conflicts.sum(), p99, max, heap,
            errors.get(TxnError.OUTCOME_UNKNOWN).sum() + errors.get(TxnError.TIMEOUT).sum(), segments, NodeMemory.segmentsCreated(), direct, server.generations(), diskMiB(dataDir),
            pinnedCsn(server));
        System.out.println(s.line());
        System.out.flush();
        return s;
    }

    /**
     * The server's CSN, read through a read-only session, which pins its memory generation. Not
     * {@code TxnServer.status()}: that hashes the last committed state's off-heap tree without pinning its
     * generation, and a checkpoint that frees the generation meanwhile makes the hash read recycled memory (this
     * crashed a soak run with SIGSEGV in {@code StateHash.hash}; see benchmarks/SOAK.md).
     */
    private static long pinnedCsn(final TxnServer server) {
        try (TxnSession t = server.begin(IsolationLevel.SNAPSHOT, true)) {
            return t.snapshotCsn();
        } catch (TxnException e) {
            return -1;
        }
    }

    /** Allocated size on disk ({@code du -sk}; Chronicle's queue files are sparse), else the sum of file sizes. */
    private static double diskMiB(final Path dir) {
        try {
            final Process p = new ProcessBuilder("du", "-sk", dir.toString()).redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return Long.parseLong(out.split("\\s+")[0]) / 1024.0;
            }
        } catch (IOException | RuntimeException e) {
            // fall through to the apparent size
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0;
                }
            }).sum() / MIB;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    // ------------------------------------------------------------------------------------------ verdict

    private interface Series {
        double of(Sample s);
    }

    /** Prints the verdict; true if any memory series is GROWING. */
    private static boolean verdict(final List<Sample> samples, final double tolerance) {
        final int n = samples.size();
        if (n < 3) {
            System.out.println("# verdict: INCONCLUSIVE (" + n + " samples; need at least 3 -- run longer or report"
                + " more often)");
            return false;
        }
        final int a = n / 3;
        final int b = 2 * n / 3;
        System.out.printf(Locale.ROOT, "# verdict over %d samples: second third = samples %d..%d (%.0f-%.0f s),"
                + " last third = samples %d..%d (%.0f-%.0f s), tolerance %.0f%%%n", n, a, b - 1,
            samples.get(a).elapsedSeconds, samples.get(b - 1).elapsedSeconds, b, n - 1,
            samples.get(b).elapsedSeconds, samples.get(n - 1).elapsedSeconds, tolerance * 100);
        boolean growing = false;
        growing |= judge("heap after GC (MiB)", samples, a, b, Sample::heapMiB, tolerance, 16, true);
        growing |= judge("node memory (MiB)", samples, a, b, Sample::nodeMiB, tolerance, 8, true);
        growing |= judge("direct buffer pool (MiB)", samples, a, b, Sample::directMiB, tolerance, 8, true);
        judge("data dir on disk (MiB)", samples, a, b, Sample::diskMiB, tolerance, 64, false);
        final Sample first = samples.get(0);
        final Sample last = samples.get(n - 1);
        System.out.printf(Locale.ROOT, "# %d generations started (%d checkpoints) over %,d intentions (csn %d -> %d)%n",
            last.generations, last.generations - 1, last.csn - first.csn, first.csn, last.csn);
        System.out.println("# verdict: " + (growing ? "GROWING" : "FLAT"));
        return growing;
    }

    private static boolean judge(final String name, final List<Sample> samples, final int a, final int b,
                                 final Series series, final double tolerance, final double slack,
                                 final boolean decides) {
        final double second = samples.subList(a, b).stream().mapToDouble(series::of).max().orElse(0);
        final double last = samples.subList(b, samples.size()).stream().mapToDouble(series::of).max().orElse(0);
        final double allowed = second + Math.max(slack, tolerance * second);
        final boolean grew = last > allowed;
        final double overall = samples.stream().mapToDouble(series::of).max().orElse(0);
        System.out.printf(Locale.ROOT, "#   %-26s second-third max %9.1f, last-third max %9.1f (%+.1f%%; allowed up"
                + " to %.1f), run max %9.1f: %s%s%n", name, second, last,
            second == 0 ? 0 : (last - second) * 100 / second, allowed, overall, grew ? "GROWING" : "FLAT",
            decides ? "" : " (informational)");
        return decides && grew;
    }

    // ------------------------------------------------------------------------------------------ flags

    private static void validate(final Map<String, String> opts) {
        final int keys = Integer.parseInt(opts.get("keys").replace("_", "").replace(",", ""));
        if (keys < 1) {
            throw new IllegalArgumentException("--keys must be at least 1");
        }
        if (Integer.parseInt(opts.get("threads")) < 1) {
            throw new IllegalArgumentException("--threads must be at least 1");
        }
        if (Double.parseDouble(opts.get("minutes")) <= 0 || Double.parseDouble(opts.get("report-seconds")) <= 0) {
            throw new IllegalArgumentException("--minutes and --report-seconds must be positive");
        }
    }


    private static void deleteRecursively(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    System.err.println("# could not delete " + p + ": " + e);
                }
            });
        } catch (IOException e) {
            System.err.println("# could not delete " + dir + ": " + e);
        }
    }
}
