package io.meldb.bench;

import io.meldb.core.BlockFormat;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.ClusterConfig;
import io.meldb.launcher.EmbeddedNode;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.TxnServer;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.client.TxnRpcClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * YCSB-style end-to-end load driver for MeldDB's key-value layer, after the workload of Hyder II (SIGMOD'15)
 * §6.1: multi-operation transactions over a database of {@code --records} items (4-byte big-endian keys,
 * {@code --value-size}-byte payloads), each transaction doing {@code --ops-per-txn} operations, each a point read
 * ({@code --read-fraction}) or an update (blind put of a fresh payload), keys drawn uniformly or from a hotspot
 * ({@code --hot-op-fraction} of the operations on {@code --hot-key-fraction} of the keys).
 *
 * <p>Concurrency follows the paper's executors: {@code --threads} client threads each execute transactions one
 * after another and commit them asynchronously, keeping at most {@code --in-flight} transactions appended to the log
 * but not yet decided by meld (the paper's "in-flight" admission limit; 20 threads x 80 there).
 *
 * <p>What it measures, per measurement window of {@code --duration} seconds (after {@code --warmup} seconds), over
 * {@code --runs} consecutive windows on the same database (median reported):
 * <ul>
 *   <li>committed transactions per second, and the abort rate (meld conflicts / decided update transactions);</li>
 *   <li>p50 / p99 transaction latency, begin to commit decision (HdrHistogram, committed transactions only);</li>
 *   <li>embedded mode only, from the txn-server's Micrometer registry: nodes visited by final meld per decided
 *   transaction ({@code meldb.meld.final.nodes.visited} total / (commits + aborts)), mean conflict-zone length
 *   seen by final meld, in intentions ({@code meldb.meld.final.conflict.zone}), and nodes per intention — the
 *   quantities of Hyder II Figures 11, 12 and 15.</li>
 * </ul>
 * Modes: {@code --mode embedded} runs a log server and one txn-server in this JVM ({@link EmbeddedNode});
 * {@code --mode cluster} spawns one log-server and {@code --servers} txn-server processes ({@link YcsbCluster}) and
 * spreads the client threads round-robin over them through {@link TxnRpcClient}; the processes are killed at the
 * end. Run with Chronicle's JVM flags: {@code java $(cat bin/jvm-flags) -cp benchmarks/target/benchmarks.jar
 * io.meldb.bench.YcsbDriver --help}.
 */
public final class YcsbDriver {
    private static final String[][] FLAGS = {
        {"mode", "embedded", "embedded | cluster"},
        {"servers", "1", "cluster mode: number of txn-server processes"},
        {"log-replicas", "1", "cluster mode: log-server processes replicating the log (1, or 3 under Raft)"},
        {"records", "50000", "database size (items), loaded before the run"},
        {"load-batch", "500", "items per load transaction"},
        {"value-size", "100", "payload bytes per item"},
        {"ops-per-txn", "10", "operations per transaction"},
        {"read-fraction", "0.5", "fraction of a transaction's operations that are reads (the rest update)"},
        {"read-only", "false", "run read-only transactions (all operations reads; commit locally)"},
        {"distribution", "uniform", "uniform | hotspot"},
        {"hot-op-fraction", "0.8", "hotspot: fraction of operations on the hot keys"},
        {"hot-key-fraction", "0.2", "hotspot: fraction of the keys that are hot"},
        {"isolation", "serializable", "serializable | snapshot"},
        {"threads", "4", "client threads"},
        {"in-flight", "32", "per thread: transactions committed but not yet decided"},
        {"duration", "10", "seconds per measured run"},
        {"warmup", "5", "seconds of unmeasured load before the first run"},
        {"runs", "3", "measured runs (consecutive windows on one database); medians are reported"},
        {"premeld-threads", "0", "cluster meld config: premeld threads t (0 = no premeld)"},
        {"premeld-distance", "0", "cluster meld config: premeld distance d"},
        {"group-meld", "false", "cluster meld config: group meld"},
        {"server-max-in-flight", "0", "txn-server admission limit on open transactions; 0 = max(256, 2*threads)"},
        {"checkpoint-every", "20000", "txn-server checkpoint interval in intentions (0 = never)"},
        {"separate-decoder", "true", "embedded mode: decode intentions on their own thread, ahead of meld"},
        {"premeld-on-threads", "true", "embedded mode: run premeld on t threads of its own"},
        {"decode-threads", "1", "embedded mode: deserializer threads"},
        {"child-jvm-args", "", "cluster mode: extra JVM arguments for the server processes, space separated"},
        {"label", "", "row label for the markdown summary line"},
        {"seed", "42", "random seed"},
    };
    private static final String USAGE = "usage: java $(cat bin/jvm-flags) -cp benchmarks/target/benchmarks.jar "
            + "io.meldb.bench.YcsbDriver [--flag value]...\n"
            + "YCSB-style multi-operation transactions against MeldDB (Hyder II SIGMOD'15 §6.1).";

    private final Map<String, String> opts;
    private final int records;
    private final int opsPerTxn;
    private final double readFraction;
    private final boolean readOnly;
    private final boolean hotspot;
    private final double hotOps;
    private final int hotKeys;
    private final int valueSize;
    private final IsolationLevel isolation;
    private final int threads;
    private final int inFlight;

    private final LongAdder commits = new LongAdder();
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder otherErrors = new LongAdder();
    private final Map<TxnError, LongAdder> errorsByCode = new EnumMap<>(TxnError.class);
    private final Recorder latencyMicros = new Recorder(3);
    private volatile boolean stop;
    private volatile String firstError;

    private YcsbDriver(final Map<String, String> opts) {
        this.opts = opts;
        records = intOpt("records");
        opsPerTxn = intOpt("ops-per-txn");
        readFraction = Double.parseDouble(opts.get("read-fraction"));
        readOnly = Boolean.parseBoolean(opts.get("read-only"));
        final String dist = opts.get("distribution");
        if (!dist.equals("uniform") && !dist.equals("hotspot")) {
            throw new IllegalArgumentException("--distribution must be uniform or hotspot, got " + dist);
        }
        hotspot = dist.equals("hotspot");
        hotOps = Double.parseDouble(opts.get("hot-op-fraction"));
        hotKeys = Math.max(1, (int) Math.round(records * Double.parseDouble(opts.get("hot-key-fraction"))));
        valueSize = intOpt("value-size");
        isolation = switch (opts.get("isolation")) {
            case "serializable" -> IsolationLevel.SERIALIZABLE;
            case "snapshot" -> IsolationLevel.SNAPSHOT;
            default -> throw new IllegalArgumentException("--isolation must be serializable or snapshot");
        };
        threads = intOpt("threads");
        inFlight = intOpt("in-flight");
        for (TxnError e : TxnError.values()) {
            errorsByCode.put(e, new LongAdder());
        }
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> opts = DriverOptions.parseOrExit("YcsbDriver", USAGE, "MELDB_YCSB_", FLAGS, args,
            values -> { });
        if (opts != null) {
            System.exit(new YcsbDriver(opts).run());
        }
    }

    private int intOpt(final String name) {
        return DriverOptions.intValue(opts, name);
    }

    // ------------------------------------------------------------------------------------------ setup

    private int run() throws Exception {
        final String mode = opts.get("mode");
        System.err.println("# YcsbDriver " + opts);
        final int tPre = intOpt("premeld-threads");
        final int dPre = intOpt("premeld-distance");
        final boolean group = Boolean.parseBoolean(opts.get("group-meld"));
        final int smif = intOpt("server-max-in-flight");
        final int serverMaxInFlight = smif > 0 ? smif : Math.max(256, 2 * threads);
        final long checkpointEvery = Long.parseLong(opts.get("checkpoint-every"));
        final List<TxnService> services = new ArrayList<>();
        AutoCloseable owner = null;
        TxnServer embedded = null;
        Path dataDir = null;
        try {
            if (mode.equals("embedded")) {
                dataDir = Files.createTempDirectory("meldb-ycsb");
                final ClusterConfig cc = new ClusterConfig(BlockFormat.DEFAULT_BLOCK_SIZE, tPre, dPre, group);
                final EmbeddedNode node = EmbeddedNode.start(dataDir, c -> c.cluster(cc)
                    .maxInFlight(serverMaxInFlight).checkpointEvery(checkpointEvery)
                    .separateDecoder(Boolean.parseBoolean(opts.get("separate-decoder")))
                    .premeldOnThreads(Boolean.parseBoolean(opts.get("premeld-on-threads")))
                    .decodeThreads(Integer.parseInt(opts.get("decode-threads"))));
                owner = node;
                embedded = node.txnServer();
                services.add(node.txnService());
            } else if (mode.equals("cluster")) {
                final String extra = opts.get("child-jvm-args").trim();
                final YcsbCluster cluster = new YcsbCluster(intOpt("servers"), intOpt("log-replicas"), tPre, dPre, group,
                    serverMaxInFlight, checkpointEvery, extra.isEmpty() ? List.of() : List.of(extra.split("\\s+")));
                owner = cluster;
                for (int i = 0; i < cluster.ports.size(); i++) {
                    services.add(TxnRpcClient.connect(cluster.hosts.get(i), cluster.ports.get(i)));
                }
            } else {
                throw new IllegalArgumentException("--mode must be embedded or cluster, got " + mode);
            }
            return measure(services, embedded);
        } finally {
            stop = true;
            for (TxnService s : services) {
                if (s != embedded) {
                    try {
                        s.close();
                    } catch (RuntimeException ignored) {
                        // the server may be gone already
                    }
                }
            }
            if (owner != null) {
                owner.close();
            }
            if (dataDir != null) {
                deleteTree(dataDir);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ load

    private static byte[] key(final int i) {
        return new byte[] {(byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i};
    }

    private byte[] value(final SplittableRandom rng) {
        final byte[] v = new byte[valueSize];
        for (int i = 0; i < v.length; i += 8) {
            long r = rng.nextLong();
            for (int j = i; j < Math.min(v.length, i + 8); j++) {
                v[j] = (byte) r;
                r >>>= 8;
            }
        }
        return v;
    }

    /** Loads the items in batched SNAPSHOT transactions, up to 4 commits in flight; returns the last commit CSN. */
    private long load(final TxnService svc) throws Exception {
        final int batch = intOpt("load-batch");
        final SplittableRandom rng = new SplittableRandom(Long.parseLong(opts.get("seed")) ^ 0x5EED);
        final long start = System.nanoTime();
        final List<int[]> pending = new ArrayList<>();
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        long maxCsn = 0;
        int next = 0;
        while (next < records || !futures.isEmpty()) {
            while (next < records && futures.size() < 4) {
                final int lo = next;
                final int hi = Math.min(records, lo + batch);
                futures.add(loadBatch(svc, lo, hi, rng));
                pending.add(new int[] {lo, hi});
                next = hi;
            }
            final CompletableFuture<Long> f = futures.remove(0);
            final int[] range = pending.remove(0);
            try {
                maxCsn = Math.max(maxCsn, f.join());
            } catch (CompletionException e) {
                final Throwable c = e.getCause();
                if (c instanceof TxnException te && te.error().retryable()) {
                    futures.add(loadBatch(svc, range[0], range[1], rng));
                    pending.add(range);
                } else {
                    throw e;
                }
            }
        }
        System.err.printf(Locale.ROOT, "# loaded %d items in %.1f s (last csn %d)%n", records,
            (System.nanoTime() - start) / 1e9, maxCsn);
        return maxCsn;
    }

    private CompletableFuture<Long> loadBatch(final TxnService svc, final int lo, final int hi,
                                              final SplittableRandom rng) {
        final TxnSession s = svc.begin(IsolationLevel.SNAPSHOT, false);
        for (int i = lo; i < hi; i++) {
            s.put(key(i), value(rng));
        }
        return s.commitAsync();
    }

    // ------------------------------------------------------------------------------------------ workload

    private int nextKey(final SplittableRandom rng) {
        if (!hotspot) {
            return rng.nextInt(records);
        }
        if (rng.nextDouble() < hotOps || hotKeys >= records) {
            return rng.nextInt(hotKeys);
        }
        return hotKeys + rng.nextInt(records - hotKeys);
    }

    private void worker(final TxnService svc, final long seed) {
        final SplittableRandom rng = new SplittableRandom(seed);
        final Semaphore window = new Semaphore(inFlight);
        while (!stop) {
            try {
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
            } catch (InterruptedException e) {
                return;
            }
            final long t0 = System.nanoTime();
            final TxnSession s;
            try {
                s = svc.begin(isolation, readOnly);
            } catch (TxnException e) {
                window.release();
                if (e.error() == TxnError.OVERLOADED) {
                    refused.increment();
                } else {
                    error(e);
                    pause();
                }
                continue;
            }
            final CompletableFuture<Long> decided;
            try {
                for (int op = 0; op < opsPerTxn; op++) {
                    final byte[] k = key(nextKey(rng));
                    if (readOnly || rng.nextDouble() < readFraction) {
                        s.get(k);
                    } else {
                        s.put(k, value(rng));
                    }
                }
                decided = s.commitAsync();
            } catch (TxnException e) {
                s.abort();
                window.release();
                error(e);
                pause();
                continue;
            }
            decided.whenComplete((csn, err) -> {
                if (err == null) {
                    commits.increment();
                    latencyMicros.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
                } else {
                    final Throwable c = err instanceof CompletionException && err.getCause() != null
                        ? err.getCause() : err;
                    if (c instanceof TxnException te && te.error() == TxnError.CONFLICT) {
                        conflicts.increment();
                    } else {
                        error(c);
                    }
                }
                window.release();
            });
        }
        // drain: wait (a little) for this thread's outstanding commits
        try {
            window.tryAcquire(inFlight, 15, TimeUnit.SECONDS);
        } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
        }
    }

    private void error(final Throwable t) {
        otherErrors.increment();
        if (t instanceof TxnException te) {
            errorsByCode.get(te.error()).increment();
        }
        if (firstError == null) {
            firstError = t.toString();
            System.err.println("# first error: " + t);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------------------------------ measurement

    /** Server-side meters of the embedded txn-server, read at a window boundary. */
    private record ServerMeters(double visitedTotal, long finalMelds, double zoneTotal, long zoneCount,
                                double effectiveZoneTotal, double commits, double aborts, double intentions,
                                double intentionNodes, double meldAllocated) {
        static ServerMeters read(final MeterRegistry r) {
            final DistributionSummary visited = r.find("meldb.meld.final.nodes.visited").summary();
            final DistributionSummary zone = r.find("meldb.meld.final.conflict.zone").summary();
            final DistributionSummary effective = r.find("meldb.meld.final.conflict.zone.effective").summary();
            final DistributionSummary nodes = r.find("meldb.pipeline.intention.nodes").summary();
            final Counter c = r.find("meldb.txn.commits").counter();
            final double aborts = r.find("meldb.txn.aborts").counters().stream().mapToDouble(Counter::count).sum();
            final FunctionCounter intentions = r.find("meldb.pipeline.intentions").functionCounter();
            final Counter intentionsC = r.find("meldb.pipeline.intentions").counter();
            final FunctionCounter allocated = r.find("meldb.pipeline.meld.allocated.bytes").functionCounter();
            return new ServerMeters(visited == null ? 0 : visited.totalAmount(), visited == null ? 0 : visited.count(),
                zone == null ? 0 : zone.totalAmount(), zone == null ? 0 : zone.count(),
                effective == null ? 0 : effective.totalAmount(), c == null ? 0 : c.count(),
                aborts, intentionsC != null ? intentionsC.count() : intentions != null ? intentions.count() : 0,
                nodes == null ? 0 : nodes.totalAmount(), allocated == null ? 0 : allocated.count());
        }
    }

    private record Result(double tps, double abortRate, double p50ms, double p99ms, double visitedPerTxn,
                          double zone, double effectiveZone, double nodesPerIntention, double allocPerIntention,
                          long refused, long errors) {
    }

    private int measure(final List<TxnService> services, final TxnServer embedded) throws Exception {
        final long loadedCsn = load(services.get(0));
        for (TxnService s : services) {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (s.status().csn() < loadedCsn && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        final List<Thread> workers = new ArrayList<>();
        final long seed = Long.parseLong(opts.get("seed"));
        for (int i = 0; i < threads; i++) {
            final TxnService svc = services.get(i % services.size());
            final long s = seed * 1_000_003L + i;
            final Thread t = new Thread(() -> worker(svc, s), "ycsb-client-" + i);
            t.setDaemon(true);
            workers.add(t);
        }
        workers.forEach(Thread::start);
        final int warmup = intOpt("warmup");
        final int duration = intOpt("duration");
        final int runs = intOpt("runs");
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
        final List<Result> results = new ArrayList<>();
        System.err.println("# run  committed-tps  abort-rate  p50-ms  p99-ms  final-visited/txn  conflict-zone"
            + "  final-meld-zone  nodes/intention  refused  errors");
        for (int r = 1; r <= runs; r++) {
            latencyMicros.getIntervalHistogram();
            final long c0 = commits.sum();
            final long a0 = conflicts.sum();
            final long f0 = refused.sum();
            final long e0 = otherErrors.sum();
            final ServerMeters m0 = embedded != null ? ServerMeters.read(embedded.registry()) : null;
            final long t0 = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(duration));
            final double secs = (System.nanoTime() - t0) / 1e9;
            final Histogram h = latencyMicros.getIntervalHistogram();
            final long c = commits.sum() - c0;
            final long a = conflicts.sum() - a0;
            final ServerMeters m1 = embedded != null ? ServerMeters.read(embedded.registry()) : null;
            double visitedPerTxn = Double.NaN;
            double zone = Double.NaN;
            double effectiveZone = Double.NaN;
            double nodesPerIntention = Double.NaN;
            double allocPerIntention = Double.NaN;
            if (m0 != null) {
                final double decided = (m1.commits - m0.commits) + (m1.aborts - m0.aborts);
                visitedPerTxn = decided > 0 ? (m1.visitedTotal - m0.visitedTotal) / decided : Double.NaN;
                final long zc = m1.zoneCount - m0.zoneCount;
                zone = zc > 0 ? (m1.zoneTotal - m0.zoneTotal) / zc : Double.NaN;
                effectiveZone = zc > 0 ? (m1.effectiveZoneTotal - m0.effectiveZoneTotal) / zc : Double.NaN;
                final double in = m1.intentions - m0.intentions;
                nodesPerIntention = in > 0 ? (m1.intentionNodes - m0.intentionNodes) / in : Double.NaN;
                allocPerIntention = in > 0 ? (m1.meldAllocated - m0.meldAllocated) / in : Double.NaN;
            }
            final Result res = new Result(c / secs, c + a > 0 ? (double) a / (c + a) : 0,
                h.getTotalCount() > 0 ? h.getValueAtPercentile(50) / 1000.0 : Double.NaN,
                h.getTotalCount() > 0 ? h.getValueAtPercentile(99) / 1000.0 : Double.NaN,
                visitedPerTxn, zone, effectiveZone, nodesPerIntention, allocPerIntention, refused.sum() - f0,
                otherErrors.sum() - e0);
            results.add(res);
            System.err.println(String.format(Locale.ROOT, "# %3d  %13.0f  %10.3f  %6.2f  %6.2f  %17.1f  %13.1f"
                + "  %15.1f  %15.1f  %7d  %6d", r, res.tps, res.abortRate, res.p50ms, res.p99ms, res.visitedPerTxn,
                res.zone, res.effectiveZone, res.nodesPerIntention, res.refused, res.errors));
        }
        stop = true;
        for (Thread t : workers) {
            t.join(20_000);
        }
        final Result med = new Result(median(results, Result::tps), median(results, Result::abortRate),
            median(results, Result::p50ms), median(results, Result::p99ms), median(results, Result::visitedPerTxn),
            median(results, Result::zone), median(results, Result::effectiveZone),
            median(results, Result::nodesPerIntention), median(results, Result::allocPerIntention),
            (long) median(results, x -> x.refused), (long) median(results, x -> x.errors));
        final StringBuilder errs = new StringBuilder();
        errorsByCode.forEach((k, v) -> {
            if (v.sum() > 0) {
                errs.append(' ').append(k).append('=').append(v.sum());
            }
        });
        System.out.println(String.format(Locale.ROOT,
            "median of %d: committed tps %.0f, abort rate %.3f, p50 %.2f ms, p99 %.2f ms, final-meld nodes visited"
                + "/txn %.1f, conflict zone %.1f, final-meld zone %.1f, nodes/intention %.1f, meld-thread heap"
                + " allocation %.0f B/intention, refused %d, errors %d%s",
            runs, med.tps, med.abortRate, med.p50ms, med.p99ms, med.visitedPerTxn, med.zone, med.effectiveZone,
            med.nodesPerIntention, med.allocPerIntention, med.refused,
            med.errors, errs));
        if (embedded != null && embedded.failure() != null) {
            System.out.println("SERVER FAILED: " + embedded.failure());
        }
        final String label = opts.get("label").isEmpty() ? opts.get("mode") : opts.get("label");
        System.out.println(String.format(Locale.ROOT, "| %s | %.0f | %.3f | %.2f | %.2f | %s | %s | %s |", label,
            med.tps, med.abortRate, med.p50ms, med.p99ms, fmt(med.visitedPerTxn), fmt(med.zone),
            fmt(med.effectiveZone)));
        return 0;
    }

    private static String fmt(final double d) {
        return Double.isNaN(d) ? "n/a" : String.format(Locale.ROOT, "%.1f", d);
    }

    private static double median(final List<Result> rs, final ToDoubleFunction<Result> f) {
        final double[] v = rs.stream().mapToDouble(f).toArray();
        Arrays.sort(v);
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    // ------------------------------------------------------------------------------------------ flags



    static void deleteTree(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
