package io.meldb.bench;

import io.meldb.sql.client.MeldDriver;
import io.meldb.sql.server.Gateway;
import io.meldb.launcher.LocalCluster;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.client.TxnRpcClientOptions;
import io.meldb.wire.auth.ClusterSecret;
import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A YCSB-style JDBC load driver: one table {@code usertable(ycsb_key VARCHAR PRIMARY KEY, field0..field3)}, each
 * operation a read of one row or an update of one row (its own autocommit transaction), keys uniform. Three targets
 * in the same run, each used as a client would:
 * <ul>
 *   <li>MeldDB embedded: log server, txn-server and gateway in this JVM, through the HTTP gateway and
 *       {@link MeldDriver};</li>
 *   <li>MeldDB local cluster: 1 log server and 2 txn-servers as child processes ({@link LocalCluster}), the
 *       gateway in this JVM over their transaction RPC, through {@link MeldDriver};</li>
 *   <li>H2 embedded (MVStore), in-process.</li>
 * </ul>
 * All three are loaded first; then each run measures every target in turn (so a noisy machine affects them
 * alike), with a warm-up before each window. Aborted transactions (SQLState 40001) are retried and counted. Prints
 * tps and p50/p99 latency per run, then the median of the runs side by side.
 *
 * <pre>java $(cat bin/jvm-flags) -cp benchmarks/target/benchmarks.jar io.meldb.bench.JdbcYcsbBenchmark \
 *     [records=10000] [threads=8] [seconds=20] [readPercent=95] [runs=1]</pre>
 * The JVM flags matter: the local cluster's processes inherit this JVM's flags, and Chronicle Queue needs them.
 */
public final class JdbcYcsbBenchmark {
    private JdbcYcsbBenchmark() {
    }

    /** One window on one target. */
    private record Result(double tps, double p50Ms, double p99Ms, long ops, long retries) {
    }

    /** A database under test and what to close after it. */
    private record Target(String name, String url, List<AutoCloseable> resources) {
    }

    public static void main(final String[] args) throws Exception {
        final int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        final int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        final int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        final int readPercent = args.length > 3 ? Integer.parseInt(args[3]) : 95;
        final int runs = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        System.out.printf("YCSB-style: %d records, %d threads, %d s per window, %d%% reads / %d%% updates, %d run(s)%n",
                records, threads, seconds, readPercent, 100 - readPercent, runs);

        final List<Target> targets = new ArrayList<>();
        final List<Path> dirs = new ArrayList<>();
        try {
            final Path meldDir = Files.createTempDirectory("meldb-ycsb");
            dirs.add(meldDir);
            final EmbeddedNode node = EmbeddedNode.start(meldDir);
            final Gateway embedded = Gateway.start(new TxnRouter(List.of(node.txnService())), 0);
            targets.add(new Target("MeldDB embedded", embedded.meldJdbcUrl(), List.of(node, embedded)));

            final Path clusterDir = Files.createTempDirectory("meldb-ycsb-cluster");
            dirs.add(clusterDir);
            final List<AutoCloseable> clusterResources = new ArrayList<>();
            final LocalCluster cluster = LocalCluster.start(clusterDir, 2);
            clusterResources.add(cluster);
            final List<TxnService> clients = new ArrayList<>();
            for (String address : cluster.txnServers()) {
                final int colon = address.lastIndexOf(':');
                // the cluster's children require its secret (LocalCluster generates one per run)
                final TxnRpcClient client = TxnRpcClient.connect(TxnRpcClientOptions.to(address.substring(0, colon),
                        Integer.parseInt(address.substring(colon + 1)))
                        .clusterSecret(ClusterSecret.fromFile(cluster.secretFile())));
                clients.add(client);
                clusterResources.add(client);
            }
            final Gateway clusterGateway = Gateway.start(new TxnRouter(clients), 0);
            clusterResources.add(clusterGateway);
            targets.add(new Target("MeldDB local cluster (2 txn)", clusterGateway.meldJdbcUrl(), clusterResources));

            final Path h2Dir = Files.createTempDirectory("h2-ycsb");
            dirs.add(h2Dir);
            targets.add(new Target("H2 embedded (MVStore)", "jdbc:h2:" + h2Dir.resolve("ycsb") + ";DB_CLOSE_DELAY=-1",
                    List.of()));

            for (Target t : targets) {
                final long start = System.nanoTime();
                load(t.url(), records);
                System.out.printf("%-28s loaded in %.1f s%n", t.name(), (System.nanoTime() - start) / 1e9);
            }
            final List<List<Result>> results = new ArrayList<>();
            targets.forEach(t -> results.add(new ArrayList<>()));
            for (int r = 1; r <= runs; r++) {
                for (int i = 0; i < targets.size(); i++) {
                    final Result res = measure(targets.get(i).name(), targets.get(i).url(), records, threads, seconds,
                            readPercent);
                    results.get(i).add(res);
                    System.out.printf("run %d  %-28s %10.0f tps   p50 %8.3f ms   p99 %8.3f ms   (%d ops, %d retries "
                            + "after 40001)%n", r, targets.get(i).name(), res.tps(), res.p50Ms(), res.p99Ms(),
                            res.ops(), res.retries());
                }
            }
            System.out.printf("%nmedian of %d run(s):%n", runs);
            System.out.println("| target | tps | p50 ms | p99 ms | retries (40001) |");
            System.out.println("| --- | ---: | ---: | ---: | ---: |");
            for (int i = 0; i < targets.size(); i++) {
                final List<Result> rs = results.get(i);
                System.out.printf("| %s | %.0f | %.3f | %.3f | %d |%n", targets.get(i).name(),
                        median(rs.stream().mapToDouble(Result::tps).toArray()),
                        median(rs.stream().mapToDouble(Result::p50Ms).toArray()),
                        median(rs.stream().mapToDouble(Result::p99Ms).toArray()),
                        rs.stream().mapToLong(Result::retries).sum());
            }
        } finally {
            for (int i = targets.size() - 1; i >= 0; i--) {
                final List<AutoCloseable> resources = targets.get(i).resources();
                for (int j = resources.size() - 1; j >= 0; j--) {
                    try {
                        resources.get(j).close();
                    } catch (Exception e) {
                        System.err.println("while stopping " + targets.get(i).name() + ": " + e);
                    }
                }
            }
            for (Path dir : dirs) {
                deleteTree(dir);
            }
        }
    }

    private static void load(final String url, final int records) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE usertable (ycsb_key VARCHAR(32) PRIMARY KEY, field0 VARCHAR(100), "
                    + "field1 VARCHAR(100), field2 VARCHAR(100), field3 VARCHAR(100))");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO usertable VALUES (?, ?, ?, ?, ?)")) {
                for (int i = 0; i < records; i++) {
                    ps.setString(1, key(i));
                    for (int f = 2; f <= 5; f++) {
                        ps.setString(f, value());
                    }
                    ps.executeUpdate();
                    if (i % 500 == 499) {
                        c.commit();
                    }
                }
            }
            c.commit();
            c.setAutoCommit(true);
        }
    }

    private static Result measure(final String name, final String url, final int records, final int threads,
                                  final int seconds, final int readPercent) throws Exception {
        final AtomicBoolean measuring = new AtomicBoolean(false);
        final AtomicBoolean stop = new AtomicBoolean(false);
        final AtomicLong retries = new AtomicLong();
        final List<Histogram> histograms = new ArrayList<>();
        final List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final Histogram h = new Histogram(60_000_000_000L, 3);
            histograms.add(h);
            final Thread w = new Thread(() -> {
                try (Connection c = DriverManager.getConnection(url);
                     PreparedStatement read = c.prepareStatement("SELECT * FROM usertable WHERE ycsb_key = ?");
                     PreparedStatement update = c.prepareStatement(
                             "UPDATE usertable SET field0 = ? WHERE ycsb_key = ?")) {
                    while (!stop.get()) {
                        final String k = key(ThreadLocalRandom.current().nextInt(records));
                        final boolean isRead = ThreadLocalRandom.current().nextInt(100) < readPercent;
                        final long start = System.nanoTime();
                        while (true) {
                            try {
                                if (isRead) {
                                    read.setString(1, k);
                                    try (ResultSet rs = read.executeQuery()) {
                                        rs.next();
                                    }
                                } else {
                                    update.setString(1, value());
                                    update.setString(2, k);
                                    update.executeUpdate();
                                }
                                break;
                            } catch (SQLException e) {
                                if (!"40001".equals(e.getSQLState())) {
                                    throw e;
                                }
                                if (measuring.get()) {
                                    retries.incrementAndGet();
                                }
                            }
                        }
                        if (measuring.get()) {
                            h.recordValue(System.nanoTime() - start);
                        }
                    }
                } catch (SQLException e) {
                    System.err.println(name + ": worker failed: " + e);
                }
            }, "ycsb-" + t);
            workers.add(w);
            w.start();
        }
        Thread.sleep(Math.min(5, seconds / 4 + 1) * 1000L); // warm-up
        measuring.set(true);
        final long start = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        measuring.set(false);
        final double elapsed = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        final Histogram all = new Histogram(60_000_000_000L, 3);
        histograms.forEach(all::add);
        return new Result(all.getTotalCount() / elapsed, all.getValueAtPercentile(50) / 1e6,
                all.getValueAtPercentile(99) / 1e6, all.getTotalCount(), retries.get());
    }

    private static double median(final double[] values) {
        final double[] v = values.clone();
        java.util.Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static void deleteTree(final Path dir) {
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.err.println("could not delete " + dir + ": " + e.getMessage());
        }
    }

    private static String key(final int i) {
        return "user" + Long.toString(Long.reverse(i) >>> 1 ^ 0x5DEECE66DL, 36);
    }

    private static String value() {
        final char[] c = new char[100];
        final ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int i = 0; i < c.length; i++) {
            c[i] = (char) ('a' + r.nextInt(26));
        }
        return new String(c);
    }
}
