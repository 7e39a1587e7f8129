package io.meldb.bench;

import io.meldb.sql.fast.FastIncrement;
import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hot counter (issue 21, seed 002 §3.2): N pgjdbc connections to a gateway in this JVM ({@link EmbeddedNode} +
 * {@link Gateway}) each run {@code UPDATE counter SET n = n + 1 WHERE id = 1; COMMIT} in a loop, retrying on 40001,
 * in alternating phases with the increment path on (an increment in meld) and off (the read-modify-write it
 * replaces). Prints, per phase, committed transactions per second, aborts per commit and the p99 latency of a
 * committed transaction (attempts included), and checks the counter equals the number of commits.
 * Arguments: threads (default 8), seconds per phase (default 10), phases (default 4), isolation
 * ({@code serializable} or {@code repeatable-read}, default serializable).
 */
public final class CounterBenchmark {
    private CounterBenchmark() {
    }

    /** The arguments, parsed without running anything (BenchmarkCommandsTest checks the README's with it). */
    record Args(int threads, int seconds, int phases, int isolation) {
    }

    /** Parses the positional arguments; a bad or extra one is an {@link IllegalArgumentException}. */
    static Args parse(final String[] args) {
        if (args.length > 4) {
            throw new IllegalArgumentException("at most 4 arguments, got " + args.length);
        }
        final int isolation;
        if (args.length <= 3 || args[3].equals("serializable")) {
            isolation = Connection.TRANSACTION_SERIALIZABLE;
        } else if (args[3].equals("repeatable-read")) {
            isolation = Connection.TRANSACTION_REPEATABLE_READ;
        } else {
            throw new IllegalArgumentException("isolation must be serializable or repeatable-read, got '" + args[3]
                + "'");
        }
        return new Args(args.length > 0 ? positive("threads", args[0]) : 8,
            args.length > 1 ? positive("seconds", args[1]) : 10, args.length > 2 ? positive("phases", args[2]) : 4,
            isolation);
    }

    private static int positive(final String name, final String value) {
        final int v = DriverOptions.intValue(name, value);
        if (v < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, got " + v);
        }
        return v;
    }

    public static void main(final String[] args) throws Exception {
        final Args a;
        try {
            a = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("CounterBenchmark: " + e.getMessage()
                + "\nusage: CounterBenchmark [threads [seconds-per-phase [phases [serializable|repeatable-read]]]]");
            System.exit(2);
            return;
        }
        final int threads = a.threads();
        final int seconds = a.seconds();
        final int phases = a.phases();
        final int isolation = a.isolation();
        final Path dir = Files.createTempDirectory("meldb-counterbench");
        try (EmbeddedNode node = EmbeddedNode.start(dir);
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0)) {
            final Properties p = new Properties();
            p.setProperty("user", "bench");
            try (Connection c = DriverManager.getConnection(gateway.pgJdbcUrl(), p); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)");
                s.execute("INSERT INTO counter VALUES (1, 0)");
            }
            System.out.printf("# %d threads, %d s per phase, %s%n", threads, seconds,
                isolation == Connection.TRANSACTION_SERIALIZABLE ? "serializable" : "repeatable read (snapshot)");
            System.out.println("# phase  increments  commits/s  aborts/commit  p99-ms  counter-ok");
            long expected = 0;
            for (int phase = 1; phase <= phases; phase++) {
                final boolean on = phase % 2 == 1;
                FastIncrement.enabled(on);
                final Result r = runPhase(gateway.pgJdbcUrl(), p, threads, seconds, isolation);
                expected += r.commits;
                final long counter;
                try (Connection c = DriverManager.getConnection(gateway.pgJdbcUrl(), p);
                     Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT n FROM counter")) {
                    rs.next();
                    counter = rs.getLong(1);
                }
                System.out.printf("%7d  %10s  %9.0f  %13.3f  %6.1f  %s%n", phase, on ? "on" : "off",
                    r.commits / (double) seconds, r.aborts / (double) Math.max(1, r.commits), r.p99Millis,
                    counter == expected ? "yes" : "NO: " + counter + " != " + expected);
                if (counter != expected) {
                    System.exit(2);
                }
            }
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private record Result(long commits, long aborts, double p99Millis) {
    }

    private static Result runPhase(final String url, final Properties props, final int threads, final int seconds,
                                   final int isolation) throws Exception {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong commits = new AtomicLong();
        final AtomicLong aborts = new AtomicLong();
        final List<long[]> latencies = new ArrayList<>();
        final List<Thread> workers = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final long[] mine = new long[1 << 20];
            latencies.add(mine);
            workers.add(new Thread(() -> {
                int n = 0;
                try (Connection c = DriverManager.getConnection(url, props);
                     PreparedStatement u = c.prepareStatement("UPDATE counter SET n = n + ? WHERE id = ?")) {
                    c.setTransactionIsolation(isolation);
                    c.setAutoCommit(false);
                    u.setLong(1, 1);
                    u.setInt(2, 1);
                    while (!stop.get()) {
                        final long start = System.nanoTime();
                        while (true) {
                            try {
                                u.executeUpdate();
                                c.commit();
                                break;
                            } catch (SQLException e) {
                                if (!"40001".equals(e.getSQLState())) {
                                    throw e;
                                }
                                c.rollback();
                                aborts.incrementAndGet();
                            }
                        }
                        commits.incrementAndGet();
                        if (n < mine.length) {
                            mine[n++] = System.nanoTime() - start;
                        }
                    }
                    mine[mine.length - 1] = n;
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }));
        }
        workers.forEach(Thread::start);
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a client failed", failures.get(0));
        }
        long total = 0;
        for (long[] l : latencies) {
            total += Math.min(l[l.length - 1], l.length - 1);
        }
        final long[] all = new long[(int) total];
        int at = 0;
        for (long[] l : latencies) {
            final int n = (int) Math.min(l[l.length - 1], l.length - 1);
            System.arraycopy(l, 0, all, at, n);
            at += n;
        }
        Arrays.sort(all);
        final double p99 = all.length == 0 ? 0 : all[(int) Math.min(all.length - 1, Math.floor(all.length * 0.99))] / 1e6;
        return new Result(commits.get(), aborts.get(), p99);
    }
}
