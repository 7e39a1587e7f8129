package io.meldb.bench;

import io.meldb.core.Arena;
import io.meldb.core.Intention;
import io.meldb.core.IntentionAdopter;
import io.meldb.core.Isolation;
import io.meldb.core.MeldConfig;
import io.meldb.core.MeldPipeline;
import io.meldb.core.NodeDirectory;
import io.meldb.core.ReorderConfig;
import io.meldb.core.ReorderStats;
import io.meldb.core.Transaction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The reorder window under contention (issue 21; seed 001 §5), side by side in one run: a closed-loop simulation of
 * {@code clients} clients on one single-threaded {@link MeldPipeline}. A client executes a Hyder II transaction
 * (meld paper §8 / Hyder II §6: reads and read-modify-writes of random keys) on the LCS it starts from, appends
 * its intention, and once decided starts the next one (or restarts the aborted one, its restart count carried in
 * the intention). Which client appends next is random; when every client waits, the log is quiet: meld catches up
 * and the window is closed (what a txn-server's nudge does). Meld runs {@code lag} intentions behind the log's
 * tail: 16 models a lightly loaded pipeline (only 16 transactions in flight in log order, while a window makes
 * up to W wait for it), {@code clients} a loaded one where every client is in flight, as on a txn-server under
 * load (docs/perf/ycsb.md: conflict zone ≈ transactions in flight); then log order melds the same batches the
 * window does, the paper's "batch" baseline. Keys: {@code hot} percent of them take {@code hotAccess} percent of
 * the accesses. Reports abort rate, committed transactions per CPU second of the simulation's one thread
 * (execution and meld: a CPU cost, not a server's throughput; CPU time rather than wall clock, so that other
 * load on the machine matters less), p99 latency in log positions between
 * a transaction's first start and its commit (restarts included), p99 restarts per committed transaction, the
 * mean conflict zone, and where the window's aborts came from ({@link ReorderStats}; {@code -Dreorder.stats=true}
 * prints all of it).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.meldb.bench.ReorderBenchmark [clients] [commits]}
 */
public final class ReorderBenchmark {
    private static final int KEYS = 100_000;
    /** Intentions appended but not yet melded: a lightly loaded pipeline (the rows before issue 21's diagnosis). */
    private static final int SHORT_LAG = 16;

    private record Variant(String name, double hotShare, double hotAccess, int reads, int updates) {
    }

    private ReorderBenchmark() {
    }

    public static void main(final String[] args) {
        final int clients = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        final int commits = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        final Variant[] variants = {new Variant("hotspot 5%/95%", 0.05, 0.95, 4, 4),
            new Variant("high contention 0.1%/95%", 0.001, 0.95, 4, 4),
            new Variant("hotspot, read-mostly 7r+1rmw", 0.05, 0.95, 7, 1),
            new Variant("uniform (meld cost)", 1.0, 1.0, 4, 4)};
        final List<ReorderConfig> configs = new ArrayList<>();
        configs.add(ReorderConfig.OFF);
        for (final int w : new int[] {16, 64}) {
            for (final ReorderConfig.Policy p : ReorderConfig.Policy.values()) {
                configs.add(new ReorderConfig(w, ReorderConfig.Algorithm.HYBRID, p));
            }
        }
        configs.add(new ReorderConfig(64, ReorderConfig.Algorithm.SCC, ReorderConfig.Policy.MIN_ABORTS));
        configs.add(new ReorderConfig(64, ReorderConfig.Algorithm.SORT, ReorderConfig.Policy.MIN_ABORTS));
        System.out.printf("clients=%d, %d commits per row, %d keys%n", clients, commits, KEYS);
        System.out.println("| workload | meld lag | window | abort % | commits per CPU-s | melds per CPU-s | p99 latency (log positions)"
            + " | p99 restarts | commits per 100 intentions | mean conflict zone | aborts before the window | in-window aborts (log order on the"
            + " same windows) |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (final Variant v : variants) {
            for (final int lag : new int[] {SHORT_LAG, clients}) {
                for (final ReorderConfig c : configs) {
                    if (v.hotShare == 1.0 && c.window() != 0 && c.algorithm() != ReorderConfig.Algorithm.HYBRID) {
                        continue;
                    }
                    run(v, c, clients, lag, v.hotShare == 1.0 ? commits * 3 : commits);
                }
            }
        }
    }

    private static byte[] key(final SplittableRandom rnd, final Variant v) {
        final int hotKeys = Math.max(1, (int) (KEYS * v.hotShare));
        final int k = rnd.nextDouble() < v.hotAccess ? rnd.nextInt(hotKeys) : hotKeys + rnd.nextInt(KEYS - hotKeys + 1) - 1;
        return new byte[] {'k', (byte) (k >>> 16), (byte) (k >>> 8), (byte) k};
    }

    private static void run(final Variant v, final ReorderConfig reorder, final int clients, final int lag,
                            final int wanted) {
        final SplittableRandom rnd = new SplittableRandom(42);
        final NodeDirectory directory = new NodeDirectory();
        try (Arena exec = new Arena(); MeldPipeline pipeline = new MeldPipeline(
            MeldConfig.FINAL_ONLY.withReorder(reorder), directory).retainStates(4096)) {
            final IntentionAdopter adopter = new IntentionAdopter(exec, directory);
            final Transaction load = new Transaction(exec, pipeline.lcs(), Isolation.SERIALIZABLE);
            for (int k = 0; k < KEYS; k++) {
                load.put(new byte[] {'k', (byte) (k >>> 16), (byte) (k >>> 8), (byte) k}, new byte[8]);
            }
            pipeline.submit(adopter.adopt(load, 1, 0, new Intention()), (c, ok) -> { });
            pipeline.flush((c, ok) -> { });
            final long[] firstStart = new long[clients];
            final int[] restarts = new int[clients];
            final boolean[] waiting = new boolean[clients];
            final int[] clientOf = new int[1 << 22];
            final long[] latency = new long[wanted + clients];
            final int[] restartCounts = new int[wanted + clients];
            final int[] done = {0};
            final long[] aborts = {0};
            final long[] appended = {1};
            final MeldPipeline.DecisionListener listener = (csn, ok) -> {
                final int c = clientOf[(int) csn];
                waiting[c] = false;
                if (ok) {
                    latency[done[0]] = appended[0] - firstStart[c];
                    restartCounts[done[0]] = restarts[c];
                    done[0]++;
                    restarts[c] = 0;
                    firstStart[c] = appended[0];
                } else {
                    aborts[0]++;
                    restarts[c]++;
                }
            };
            Arrays.fill(firstStart, 1);
            final int[] idle = new int[clients];
            // the log runs lag intentions ahead of meld (reading, decoding, premeld): a transaction's conflict zone
            final java.util.ArrayDeque<Intention> log = new java.util.ArrayDeque<>();
            long zone = 0;
            final java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
            final long started = cpu.getCurrentThreadCpuTime();
            while (done[0] < wanted) {
                int idleCount = 0;
                for (int c = 0; c < clients; c++) {
                    if (!waiting[c]) {
                        idle[idleCount++] = c;
                    }
                }
                if (idleCount == 0) {
                    while (!log.isEmpty()) {
                        pipeline.submit(log.poll(), listener);
                    }
                    pipeline.flush(listener);
                    continue;
                }
                final int c = idle[rnd.nextInt(idleCount)];
                final Transaction t = new Transaction(exec, pipeline.lcs(), Isolation.SERIALIZABLE);
                for (int i = 0; i < v.reads; i++) {
                    t.get(key(rnd, v));
                }
                for (int i = 0; i < v.updates; i++) {
                    final byte[] k = key(rnd, v);
                    final byte[] old = t.get(k);
                    final byte[] value = old == null ? new byte[8] : old.clone();
                    value[7]++;
                    t.put(k, value);
                }
                final long csn = ++appended[0];
                zone += csn - 1 - pipeline.lcsCsn();
                if (csn >= clientOf.length) {
                    break;
                }
                clientOf[(int) csn] = c;
                waiting[c] = true;
                log.add(adopter.adopt(t, csn, Intention.restartFlags(restarts[c]), new Intention()));
                if (log.size() > lag) {
                    pipeline.submit(log.poll(), listener);
                }
            }
            pipeline.flush(listener);
            final double seconds = (cpu.getCurrentThreadCpuTime() - started) / 1e9;
            final int n = done[0];
            final long[] lat = Arrays.copyOf(latency, n);
            final int[] rs = Arrays.copyOf(restartCounts, n);
            Arrays.sort(lat);
            Arrays.sort(rs);
            final long melded = n + aborts[0];
            final ReorderStats st = pipeline.reorderStats();
            System.out.printf(java.util.Locale.ROOT, "| %s | %d | %s | %.1f | %,.0f | %,.0f | %d | %d | %.1f | %.1f | %s | %s |%n",
                v.name, lag, reorder.window() == 0 ? "off (log order)" : reorder.toString().replace("window=", "W=")
                    .replace(" algorithm=", " ").replace(" policy=", " "), 100.0 * aborts[0] / melded,
                n / seconds, melded / seconds, lat[(int) (n * 0.99)], rs[(int) (n * 0.99)], 100.0 * n / melded,
                (double) zone / (appended[0] - 1),
                reorder.window() == 0 ? "-" : String.valueOf(st.beforeWindowAborts() + st.finalMeldAborts()
                    + st.premeldAborts()),
                reorder.window() == 0 ? "-" : st.cycleAborts() + " (" + st.logOrderCycleAborts() + ")");
            if (Boolean.getBoolean("reorder.stats")) {
                System.out.println("    " + st);
            }
        }
    }
}
