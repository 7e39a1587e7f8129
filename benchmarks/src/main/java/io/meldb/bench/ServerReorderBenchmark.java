package io.meldb.bench;

import io.meldb.core.BlockFormat;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.ReorderConfig;
import io.meldb.txn.ClusterConfig;
import io.meldb.launcher.EmbeddedNode;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The reorder window on a real server (issue 21; seed 001 §5): the hotspot workload of {@link ReorderBenchmark}
 * run by retrying clients ({@link RetryingHotspotClients}) against an embedded txn-server and its log server
 * ({@link EmbeddedNode}: the log's append path, the meld pipeline's threads, the nudge that closes a partial window
 * on a quiet log), W = 0, 16 and 64 side by side in one run, alternating W round by round so that other load on the
 * machine falls on every W alike. Each run starts a fresh log, since the window is written into block 0. Prints per
 * run committed tps, abort rate (aborted attempts / attempts), p50 and p99 latency of a committed transaction
 * including its retries, committed transactions per CPU-second of the whole JVM (clients and servers; the
 * figure that other load on a shared machine disturbs least), p99 restarts per committed transaction, and from the server's meters ({@code meldb.reorder.*},
 * deltas over the measured span) the mean window size, the share of windows that closed full (the rest were closed by
 * a nudge on a quiet log), where the window's aborts came from and what log order would have aborted in the same
 * windows; then the median of the rounds per workload and W.
 *
 * <p>{@code java $(cat bin/jvm-flags) -XX:MaxDirectMemorySize=8g -cp benchmarks/target/benchmarks.jar
 * io.meldb.bench.ServerReorderBenchmark [clients=64] [seconds=10] [rounds=3] [warmup=3] [policy=min-aborts]}
 */
public final class ServerReorderBenchmark {
    private static final int KEYS = 100_000;
    private static final int[] WINDOWS = {0, 16, 64};

    private ServerReorderBenchmark() {
    }

    /** One run's figures; the window's abort counts are per second of the measured span. */
    private record Row(String workload, int window, double tps, double perCpu, double abortPct, double p50Ms,
                       double p99Ms,
                       double p99Restarts, double meanWindow, double fullPct, double beforeWindow, double inWindow,
                       double logOrder) {
        String line() {
            final String head = String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %.1f | %.1f | %.1f | %.0f |",
                workload, window == 0 ? "off (log order)" : "W=" + window, tps, perCpu, abortPct, p50Ms, p99Ms,
                p99Restarts);
            return window == 0 ? head + " - | - | - | - |" : head + String.format(Locale.ROOT,
                " %.1f | %.0f | %,.0f | %,.0f (%,.0f) |", meanWindow, fullPct, beforeWindow, inWindow, logOrder);
        }
    }

    /** The arguments, parsed without running anything (BenchmarkCommandsTest checks the README's with it). */
    record Args(int clients, int seconds, int rounds, int warmup, ReorderConfig.Policy policy) {
    }

    /**
     * Parses clients, seconds, rounds, warm-up seconds and policy (positional, each optional); a bad or extra one is
     * an {@link IllegalArgumentException}.
     */
    static Args parse(final String[] args) {
        if (args.length > 5) {
            throw new IllegalArgumentException("at most 5 arguments, got " + args.length);
        }
        return new Args(args.length > 0 ? DriverOptions.intValue("clients", args[0]) : 64,
            args.length > 1 ? DriverOptions.intValue("seconds", args[1]) : 10,
            args.length > 2 ? DriverOptions.intValue("rounds", args[2]) : 3,
            args.length > 3 ? DriverOptions.intValue("warmup", args[3]) : 3,
            ReorderConfig.policy(args.length > 4 ? args[4] : "min-aborts"));
    }

    public static void main(final String[] args) throws Exception {
        final Args a = parse(args);
        final int clients = a.clients();
        final int seconds = a.seconds();
        final int rounds = a.rounds();
        final int warmup = a.warmup();
        final ReorderConfig.Policy policy = a.policy();
        final RetryingHotspotClients.Workload[] workloads = {
            new RetryingHotspotClients.Workload("hotspot 5%/95%", KEYS, 0.05, 0.95, 4, 4),
            new RetryingHotspotClients.Workload("high contention 0.1%/95%", KEYS, 0.001, 0.95, 4, 4)};
        System.out.printf("# %d retrying clients, %d s measured after %d s warm-up, %d rounds, %d keys, policy %s,"
            + " hybrid; embedded txn-server + log server, a fresh log per run%n", clients, seconds, warmup, rounds,
            KEYS, policy);
        final String header = "| workload | window | committed tps | commits per CPU-s | abort % | p50 ms | p99 ms (with retries) | p99 restarts"
            + " | mean window | windows closed full % | aborts/s before the window | in-window aborts/s (log order on the"
            + " same windows) |\n|---|---|---|---|---|---|---|---|---|---|---|---|";
        System.out.println(header);
        final List<List<Row>> byCell = new ArrayList<>();
        for (int i = 0; i < workloads.length * WINDOWS.length; i++) {
            byCell.add(new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            for (int wi = 0; wi < workloads.length; wi++) {
                for (int j = 0; j < WINDOWS.length; j++) {
                    // alternate: round r starts at a different W, so a slow spell does not always hit the same one
                    final int k = (j + round) % WINDOWS.length;
                    final Row row = run(workloads[wi], WINDOWS[k], policy, clients, seconds, warmup, 42 + round);
                    System.out.println(row.line());
                    byCell.get(wi * WINDOWS.length + k).add(row);
                }
            }
        }
        System.out.println("\nMedian of " + rounds + " rounds (each column's median on its own):\n");
        System.out.println(header);
        for (List<Row> cell : byCell) {
            System.out.println(median(cell).line());
        }
    }

    private static Row median(final List<Row> rows) {
        final Row first = rows.get(0);
        return new Row(first.workload, first.window, med(rows, Row::tps), med(rows, Row::perCpu), med(rows, Row::abortPct),
            med(rows, Row::p50Ms), med(rows, Row::p99Ms), med(rows, Row::p99Restarts), med(rows, Row::meanWindow),
            med(rows, Row::fullPct), med(rows, Row::beforeWindow), med(rows, Row::inWindow), med(rows, Row::logOrder));
    }

    private static double med(final List<Row> rows, final java.util.function.ToDoubleFunction<Row> f) {
        final double[] v = rows.stream().mapToDouble(f).sorted().toArray();
        return v[v.length / 2];
    }

    private static Row run(final RetryingHotspotClients.Workload w, final int window,
                           final ReorderConfig.Policy policy, final int clients, final int seconds, final int warmup,
                           final long seed) throws Exception {
        final Path dir = Files.createTempDirectory("meldb-reorderserver");
        final ClusterConfig cluster = new ClusterConfig(BlockFormat.DEFAULT_BLOCK_SIZE, 0, 0, false)
            .withReorder(window == 0 ? ReorderConfig.OFF
                : new ReorderConfig(window, ReorderConfig.Algorithm.HYBRID, policy));
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.cluster(cluster)
            .maxInFlight(Math.max(256, 2 * clients)).checkpointEvery(20_000))) {
            final TxnService db = node.txnService();
            load(db, w.keys());
            final MeterRegistry registry = node.txnServer().registry();
            final double[] before = new double[Meters.values().length];
            final long[] cpuBefore = new long[1];
            final RetryingHotspotClients.Result r = RetryingHotspotClients.run(db, w, clients,
                TimeUnit.SECONDS.toNanos(warmup), TimeUnit.SECONDS.toNanos(seconds), seed, () -> {
                    Meters.read(registry, before);
                    cpuBefore[0] = processCpuNanos();
                });
            final double cpuSeconds = (processCpuNanos() - cpuBefore[0]) / 1e9;
            final double[] after = new double[Meters.values().length];
            Meters.read(registry, after);
            final double windows = delta(Meters.WINDOWS, before, after);
            final double per = r.seconds();
            final long attempts = r.commits() + r.aborts();
            return new Row(w.name(), window, r.commits() / per, r.commits() / cpuSeconds, attempts == 0 ? 0 : 100.0 * r.aborts() / attempts,
                r.latencyMicros().getValueAtPercentile(50) / 1e3, r.latencyMicros().getValueAtPercentile(99) / 1e3,
                r.restarts().getValueAtPercentile(99),
                windows == 0 ? 0 : delta(Meters.MEMBERS, before, after) / windows,
                windows == 0 ? 0 : 100.0 * delta(Meters.FULL, before, after) / windows,
                (delta(Meters.PREMELD, before, after) + delta(Meters.BEFORE_WINDOW, before, after)
                    + delta(Meters.FINAL_MELD, before, after)) / per,
                delta(Meters.IN_WINDOW, before, after) / per, delta(Meters.LOG_ORDER, before, after) / per);
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException e) {
                System.err.println("could not delete " + dir + ": " + e);
            }
        }
    }

    /** CPU time of this whole JVM (clients, server threads, log server, GC): the machine is shared, CPU is not. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
            .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double delta(final Meters m, final double[] before, final double[] after) {
        return after[m.ordinal()] - before[m.ordinal()];
    }

    /** Loads every key with a zero counter, 1,000 keys per transaction. */
    private static void load(final TxnService db, final int keys) {
        for (int from = 0; from < keys; from += 1_000) {
            try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                for (int k = from; k < Math.min(keys, from + 1_000); k++) {
                    t.put(RetryingHotspotClients.Workload.key(k), new byte[8]);
                }
                t.commit();
            }
        }
    }

    /** The server meters a run reads before and after its measured span (reorder ones are absent at W = 0). */
    private enum Meters {
        WINDOWS("meldb.reorder.windows"), MEMBERS("meldb.reorder.window.members"),
        PREMELD("meldb.reorder.aborts", "class", "premeld"), BEFORE_WINDOW("meldb.reorder.aborts", "class", "before_window"),
        IN_WINDOW("meldb.reorder.aborts", "class", "in_window"), FINAL_MELD("meldb.reorder.aborts", "class", "final_meld"),
        LOG_ORDER("meldb.reorder.log.order.aborts"), FULL("meldb.reorder.windows.closed", "reason", "full");

        private final String name;
        private final String[] tags;

        Meters(final String name, final String... tags) {
            this.name = name;
            this.tags = tags;
        }

        static void read(final MeterRegistry registry, final double[] into) {
            for (final Meters m : values()) {
                final FunctionCounter fc = registry.find(m.name).tags(m.tags).functionCounter();
                into[m.ordinal()] = fc == null ? 0 : fc.count();
            }
        }
    }
}
