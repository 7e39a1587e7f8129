package io.meldb.bench;

import io.meldb.core.Arena;
import io.meldb.core.Intention;
import io.meldb.core.IntentionAdopter;
import io.meldb.core.Isolation;
import io.meldb.core.MeldConfig;
import io.meldb.core.MeldPipeline;
import io.meldb.core.NodeDirectory;
import io.meldb.core.ReorderConfig;
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
 * the intention). Which client appends next is random; when every client waits, the log is quiet and the window
 * is closed (what a txn-server's nudge does). Meld runs {@link #LAG} intentions behind the log's tail, as a
 * txn-server's pipeline does under load, so even log order has a conflict zone. Keys: {@code hot} percent of them take {@code hotAccess} percent of
 * the accesses. Reports abort rate, committed transactions per second (wall clock of the whole simulation:
 * execution and meld on one thread), p99 latency in log positions between a transaction's first start and its
 * commit (restarts included), and p99 restarts per committed transaction.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.meldb.bench.ReorderBenchmark [clients] [commits]}
 */
public final class ReorderBenchmark {
    private static final int KEYS = 100_000;
    private static final int READS = 4;
    private static final int UPDATES = 4;
    /** Intentions appended but not yet melded, as in a txn-server's pipeline under load. */
    private static final int LAG = 16;

    private record Variant(String name, double hotShare, double hotAccess) {
    }

    private ReorderBenchmark() {
    }

    public static void main(final String[] args) {
        final int clients = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        final int commits = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        final Variant[] variants = {new Variant("hotspot 5%/95%", 0.05, 0.95),
            new Variant("high contention 0.1%/95%", 0.001, 0.95), new Variant("uniform (meld cost)", 1.0, 1.0)};
        final List<ReorderConfig> configs = new ArrayList<>();
        configs.add(ReorderConfig.OFF);
        for (final int w : new int[] {16, 64}) {
            for (final ReorderConfig.Policy p : ReorderConfig.Policy.values()) {
                configs.add(new ReorderConfig(w, ReorderConfig.Algorithm.HYBRID, p));
            }
        }
        configs.add(new ReorderConfig(64, ReorderConfig.Algorithm.SCC, ReorderConfig.Policy.MIN_ABORTS));
        configs.add(new ReorderConfig(64, ReorderConfig.Algorithm.SORT, ReorderConfig.Policy.MIN_ABORTS));
        System.out.printf("clients=%d, %d commits per row, %d keys, %d reads + %d read-modify-writes per txn%n",
            clients, commits, KEYS, READS, UPDATES);
        System.out.printf("%-26s %-36s %8s %12s %12s %10s %14s%n", "workload", "window", "abort%", "commits/s",
            "melds/s", "p99 lat", "p99 restarts");
        for (final Variant v : variants) {
            for (final ReorderConfig c : configs) {
                if (v.hotShare == 1.0 && c.window() != 0 && c.algorithm() != ReorderConfig.Algorithm.HYBRID) {
                    continue;
                }
                run(v, c, clients, v.hotShare == 1.0 ? commits * 3 : commits);
            }
        }
    }

    private static byte[] key(final SplittableRandom rnd, final Variant v) {
        final int hotKeys = Math.max(1, (int) (KEYS * v.hotShare));
        final int k = rnd.nextDouble() < v.hotAccess ? rnd.nextInt(hotKeys) : hotKeys + rnd.nextInt(KEYS - hotKeys + 1) - 1;
        return new byte[] {'k', (byte) (k >>> 16), (byte) (k >>> 8), (byte) k};
    }

    private static void run(final Variant v, final ReorderConfig reorder, final int clients, final int wanted) {
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
            // the log runs LAG intentions ahead of meld (reading, decoding, premeld): a transaction's conflict zone
            final java.util.ArrayDeque<Intention> log = new java.util.ArrayDeque<>();
            long zone = 0;
            final long started = System.nanoTime();
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
                for (int i = 0; i < READS; i++) {
                    t.get(key(rnd, v));
                }
                for (int i = 0; i < UPDATES; i++) {
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
                if (log.size() > LAG) {
                    pipeline.submit(log.poll(), listener);
                }
            }
            pipeline.flush(listener);
            final double seconds = (System.nanoTime() - started) / 1e9;
            final int n = done[0];
            final long[] lat = Arrays.copyOf(latency, n);
            final int[] rs = Arrays.copyOf(restartCounts, n);
            Arrays.sort(lat);
            Arrays.sort(rs);
            final long melded = n + aborts[0];
            System.out.printf("%-26s %-36s %7.1f%% %12.0f %12.0f %10d %14d%n", v.name,
                reorder.window() == 0 ? "off (log order)" : reorder.toString(), 100.0 * aborts[0] / melded,
                n / seconds, melded / seconds, lat[(int) (n * 0.99)], rs[(int) (n * 0.99)]);
            System.out.printf("    mean conflict zone %.1f log positions; %s%n", (double) zone / (appended[0] - 1),
                pipeline.reorderStats());
        }
    }
}
