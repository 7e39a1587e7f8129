package io.meldb.bench;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Bytes allocated per statement on the server side of the PostgreSQL fast path, in steady state. MeldDB embedded in
 * this JVM ({@link EmbeddedNode} + {@link Gateway}), one pgjdbc connection ({@code prepareThreshold=1}, binary
 * transfer, autocommit off), one table {@code (id INTEGER PRIMARY KEY, bal BIGINT NOT NULL)} of {@code --rows} rows.
 * Workloads:
 * <ul>
 *   <li>{@code select}: point SELECT by id in an open transaction (blocks of 100 measured statements; the
 *       statement that begins each transaction and its COMMIT are not measured);</li>
 *   <li>{@code update}: {@code UPDATE ... SET bal = bal + ? WHERE id = ?} in an open transaction (as above);</li>
 *   <li>{@code txn}: whole transactions of 2 UPDATE + 8 SELECT + COMMIT, all 10 statements measured.</li>
 * </ul>
 * Per workload: {@code --warmup} unmeasured statements, then {@code --statements} measured ones; the
 * JVM's per-thread allocation counters ({@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes}) of every
 * thread are sampled around the measured statements, and the difference is printed per statement and thread group
 * (threads that start or end meanwhile are missed; the client thread is shown for reference).
 *
 * <pre>./mvnw -B -q -pl benchmarks -am package -DskipTests
 * java $(cat bin/jvm-flags) -Xmx1g -cp benchmarks/target/benchmarks.jar io.meldb.bench.PgStatementAllocation \
 *     [--statements 20000] [--warmup 20000] [--rows 10000] [--workloads select,update,txn] [--detail false]</pre>
 */
public final class PgStatementAllocation {
    private static final String TABLE = "alloc_accounts";
    private static final int BLOCK = 100;
    /** Thread groups by name prefix, in print order; "other" is the rest. */
    private static final String[][] GROUPS = {
        {"pg-io", "meldb-pg-io"},
        {"pg-worker", "meldb-pg-worker"},
        // chained (the default on up to 4 processors), the in-process log's subscription thread reads, melds and
        // replies: the txn-server's pipeline
        {"txn-server", "log-inproc-sub"},
        {"log", "log-", "background~resource~releaser", "main/disk~space~checker", "meldb-log"},
        {"txn-server", "meldb-", "txn-"},
    };

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private PgStatementAllocation() {
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> opts = new HashMap<>(Map.of("statements", "20000", "warmup", "20000",
                "rows", "10000", "workloads", "select,update,txn", "detail", "false"));
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length || !opts.containsKey(args[i].substring(2))) {
                System.err.println("usage: PgStatementAllocation [--statements N] [--warmup N] [--rows N] "
                        + "[--workloads select,update,txn] [--detail true|false]");
                System.exit(2);
            }
            opts.put(args[i].substring(2), args[i + 1]);
        }
        final int statements = Integer.parseInt(opts.get("statements"));
        final int warmup = Integer.parseInt(opts.get("warmup"));
        final int rows = Integer.parseInt(opts.get("rows"));
        final boolean detail = Boolean.parseBoolean(opts.get("detail"));
        THREADS.setThreadAllocatedMemoryEnabled(true);

        final Path dir = Files.createTempDirectory("meldb-pgalloc");
        try (EmbeddedNode node = EmbeddedNode.start(dir);
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0)) {
            final Properties props = new Properties();
            props.setProperty("user", "bench");
            props.setProperty("prepareThreshold", "1");
            props.setProperty("binaryTransfer", "true");
            try (Connection c = DriverManager.getConnection(gateway.pgJdbcUrl(), props)) {
                load(c, rows);
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                final Workload w = new Workload(c, rows);
                System.out.printf(Locale.ROOT, "%-8s %10s %10s %10s %10s %10s %10s%n", "workload", "pg-io",
                        "pg-worker", "pg-total", "txn-server", "log", "client");
                for (String name : opts.get("workloads").split(",")) {
                    final String wl = name.trim();
                    w.run(wl, warmup, false);
                    final Map<String, Long> bytes = w.run(wl, statements, true);
                    final long pg = bytes.getOrDefault("pg-io", 0L) + bytes.getOrDefault("pg-worker", 0L);
                    System.out.printf(Locale.ROOT, "%-8s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f%n", wl,
                            per(bytes.get("pg-io"), statements), per(bytes.get("pg-worker"), statements),
                            per(pg, statements), per(bytes.get("txn-server"), statements),
                            per(bytes.get("log"), statements), per(bytes.get("client"), statements));
                    if (detail) {
                        w.threadDetail.entrySet().stream().filter(e -> e.getValue() > 0)
                                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                                .forEach(e -> System.out.printf(Locale.ROOT, "    %-40s %10.1f%n", e.getKey(),
                                        per(e.getValue(), statements)));
                    }
                }
                try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT SUM(bal) FROM " + TABLE)) {
                    r.next();
                    if (r.getLong(1) != 1000L * rows) {
                        throw new IllegalStateException("sum of balances changed: " + r.getLong(1));
                    }
                }
                c.commit();
            }
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static double per(final Long bytes, final int statements) {
        return bytes == null ? 0 : (double) bytes / statements;
    }

    private static void load(final Connection c, final int rows) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + TABLE + " (id INTEGER PRIMARY KEY, bal BIGINT NOT NULL)");
        }
        c.setAutoCommit(false);
        try (PreparedStatement p = c.prepareStatement("INSERT INTO " + TABLE + " (id, bal) VALUES (?, ?)")) {
            for (int i = 0; i < rows; i++) {
                p.setInt(1, i);
                p.setLong(2, 1000);
                p.executeUpdate();
                if (i % 500 == 499) {
                    c.commit();
                }
            }
        }
        c.commit();
        c.setAutoCommit(true);
    }

    /** The prepared statements of one connection and the allocation counters sampled around them. */
    private static final class Workload {
        private final Connection c;
        private final int rows;
        private final PreparedStatement select;
        private final PreparedStatement update;
        private final SplittableRandom random = new SplittableRandom(42);
        private final Map<String, Long> threadDetail = new HashMap<>();
        private long sink;

        Workload(final Connection c, final int rows) throws SQLException {
            this.c = c;
            this.rows = rows;
            select = c.prepareStatement("SELECT bal FROM " + TABLE + " WHERE id = ?");
            update = c.prepareStatement("UPDATE " + TABLE + " SET bal = bal + ? WHERE id = ?");
        }

        /** Runs {@code n} statements of the workload; when measured, answers bytes allocated per thread group. */
        Map<String, Long> run(final String workload, final int n, final boolean measure) throws SQLException {
            final Map<String, Long> total = new HashMap<>();
            threadDetail.clear();
            int done = 0;
            while (done < n) {
                switch (workload) {
                    case "select", "update" -> {
                        final boolean sel = workload.equals("select");
                        statement(true, 1); // begins the transaction: not measured
                        final int k = Math.min(BLOCK, n - done);
                        final Sample before = measure ? Sample.take() : null;
                        for (int i = 0; i < k; i++) {
                            statement(sel, (i & 1) == 0 ? 1 : -1);
                        }
                        if (measure) {
                            Sample.take().minus(before, total, threadDetail);
                        }
                        c.commit();
                        done += k;
                    }
                    case "txn" -> {
                        final Sample before = measure ? Sample.take() : null;
                        final int a = random.nextInt(rows);
                        int b = random.nextInt(rows - 1);
                        b = b >= a ? b + 1 : b;
                        final long x = random.nextInt(1, 100);
                        updateRow(Math.min(a, b), x);
                        updateRow(Math.max(a, b), -x);
                        for (int i = 0; i < 8; i++) {
                            selectRow(random.nextInt(rows));
                        }
                        c.commit();
                        if (measure) {
                            Sample.take().minus(before, total, threadDetail);
                        }
                        done += 10;
                    }
                    default -> throw new IllegalArgumentException("unknown workload " + workload);
                }
            }
            if (sink == 42) {
                System.out.print("");
            }
            return total;
        }

        /** A SELECT, or an UPDATE adding {@code sign}; UPDATEs of one block alternate +1 and -1 on one row pair. */
        private void statement(final boolean select, final int sign) throws SQLException {
            final int id = random.nextInt(rows);
            if (select) {
                selectRow(id);
            } else {
                updateRow(sign > 0 ? id : (id + 1) % rows, sign);
            }
        }

        private void selectRow(final int id) throws SQLException {
            select.setInt(1, id);
            try (ResultSet r = select.executeQuery()) {
                if (!r.next()) {
                    throw new IllegalStateException("no row " + id);
                }
                sink += r.getLong(1);
            }
        }

        private void updateRow(final int id, final long delta) throws SQLException {
            update.setLong(1, delta);
            update.setInt(2, id);
            if (update.executeUpdate() != 1) {
                throw new IllegalStateException("row " + id + " not updated");
            }
        }
    }

    /** Allocated bytes of every live thread at one moment. */
    private record Sample(long[] ids, String[] names, long[] bytes) {
        static Sample take() {
            final Thread[] all = new Thread[Thread.activeCount() * 2 + 16];
            final int n = Thread.enumerate(all);
            final long[] ids = new long[n];
            final String[] names = new String[n];
            for (int i = 0; i < n; i++) {
                ids[i] = all[i].getId();
                names[i] = all[i].getName();
            }
            return new Sample(ids, names, THREADS.getThreadAllocatedBytes(ids));
        }

        /** Adds this sample minus {@code before} to the groups' totals and the per-thread detail. */
        void minus(final Sample before, final Map<String, Long> groups, final Map<String, Long> detail) {
            final Map<Long, Long> was = new HashMap<>();
            for (int i = 0; i < before.ids.length; i++) {
                was.put(before.ids[i], before.bytes[i]);
            }
            final long self = Thread.currentThread().getId();
            for (int i = 0; i < ids.length; i++) {
                final Long b = was.get(ids[i]);
                if (b == null || bytes[i] < 0 || b < 0) {
                    continue;
                }
                final long d = bytes[i] - b;
                groups.merge(ids[i] == self ? "client" : group(names[i]), d, Long::sum);
                detail.merge(names[i], d, Long::sum);
            }
        }

        private static String group(final String name) {
            for (String[] g : GROUPS) {
                for (int i = 1; i < g.length; i++) {
                    if (name.startsWith(g[i])) {
                        return g[0];
                    }
                }
            }
            return "other";
        }
    }
}
