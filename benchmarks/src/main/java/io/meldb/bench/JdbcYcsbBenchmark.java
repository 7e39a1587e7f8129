package io.meldb.bench;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.txn.EmbeddedNode;
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
 * operation a read of one row or an update of one row (its own autocommit transaction), keys uniform, run against
 * MeldDB embedded (through its gateway and the Avatica remote driver, as a client would) and H2 embedded (MVStore)
 * in the same run. Aborted transactions (SQLState 40001) are retried and counted. Prints tps and p50/p99 latency.
 *
 * <pre>java -cp ... io.meldb.bench.JdbcYcsbBenchmark [records=10000] [threads=8] [seconds=20] [readPercent=95]</pre>
 */
public final class JdbcYcsbBenchmark {
    private JdbcYcsbBenchmark() {
    }

    public static void main(final String[] args) throws Exception {
        final int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        final int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        final int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        final int readPercent = args.length > 3 ? Integer.parseInt(args[3]) : 95;
        System.out.printf("YCSB-style: %d records, %d threads, %d s, %d%% reads / %d%% updates%n", records, threads,
                seconds, readPercent, 100 - readPercent);

        final Path meldDir = Files.createTempDirectory("meldb-ycsb");
        try (EmbeddedNode node = EmbeddedNode.start(meldDir);
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0)) {
            run("MeldDB embedded (Avatica)", gateway.jdbcUrl(), records, threads, seconds, readPercent);
        }
        final Path h2Dir = Files.createTempDirectory("h2-ycsb");
        run("H2 embedded (MVStore)", "jdbc:h2:" + h2Dir.resolve("ycsb") + ";DB_CLOSE_DELAY=-1", records, threads,
                seconds, readPercent);
    }

    private static void run(final String name, final String url, final int records, final int threads,
                            final int seconds, final int readPercent) throws Exception {
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
                                retries.incrementAndGet();
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
        System.out.printf("%-28s %10.0f tps   p50 %8.3f ms   p99 %8.3f ms   (%d ops, %d retries after 40001)%n",
                name, all.getTotalCount() / elapsed, all.getValueAtPercentile(50) / 1e6,
                all.getValueAtPercentile(99) / 1e6, all.getTotalCount(), retries.get());
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
