package io.meldb.bench;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;
import org.postgresql.PGConnection;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Times transactions that change many rows at once (issue 18, "Large transactions"), against an embedded MeldDB in
 * this JVM through pgjdbc: for each row count, one transaction that COPYs the rows in, one that inserts them with
 * pgjdbc batches, one that updates each of them with batched single-row UPDATEs, one UPDATE of every row, and
 * single-row UPDATEs one statement at a time (through pgjdbc, and up to 200,000 rows through Avatica's JDBC). The
 * table is pgbench's accounts table (rows of about 100 bytes). Each line gives the whole transaction's time and,
 * apart, its COMMIT (the intention's trip through the log and meld).
 *
 * <p>Run: {@code java $(cat bin/jvm-flags) -Xmx6g -cp benchmarks/target/benchmarks.jar io.meldb.bench.LargeTxnBenchmark
 * --rows 100000,1000000}.
 */
public final class LargeTxnBenchmark {
    private static final int BATCH = 1000;
    private static final String FILLER = " ".repeat(84);
    private static String table;

    private LargeTxnBenchmark() {
    }

    /**
     * The row counts of {@code --rows N,N,...} (default 100000,1000000), parsed without running anything
     * (BenchmarkCommandsTest checks the README's command with it); a bad argument is an
     * {@link IllegalArgumentException}.
     */
    static int[] parse(final String[] args) {
        String rowCounts = "100000,1000000";
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].equals("--rows") || i + 1 >= args.length) {
                throw new IllegalArgumentException("unknown flag or missing value at '" + args[i] + "'");
            }
            rowCounts = args[i + 1];
        }
        final String[] parts = rowCounts.split(",");
        final int[] rows = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            rows[i] = Integer.parseInt(parts[i].trim());
            if (rows[i] < 1) {
                throw new IllegalArgumentException("--rows must be positive, got " + rows[i]);
            }
        }
        return rows;
    }

    public static void main(final String[] args) throws Exception {
        final int[] rowCounts;
        try {
            rowCounts = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("LargeTxnBenchmark: " + e.getMessage() + "\nusage: LargeTxnBenchmark [--rows N,N,...]");
            System.exit(2);
            return;
        }
        final Path dir = Files.createTempDirectory("meldb-largetxn");
        try (EmbeddedNode node = EmbeddedNode.start(dir);
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0)) {
            final Properties props = new Properties();
            props.setProperty("user", "bench");
            props.setProperty("reWriteBatchedInserts", "false");
            try (Connection c = DriverManager.getConnection(gateway.pgJdbcUrl(), props)) {
                System.out.printf(Locale.ROOT, "%-34s %9s %10s %10s %12s%n", "transaction", "rows", "total s",
                        "commit s", "rows/s");
                for (final int rows : rowCounts) {
                    // a table per step: pgjdbc keeps server-prepared statements across DROP and CREATE of a name
                    table = "accounts_copy_" + rows;
                    recreate(c);
                    copy(c, rows);
                    table = "accounts_" + rows;
                    recreate(c);
                    batchInsert(c, rows);
                    batchUpdate(c, rows);
                    updateAll(c, rows);
                    singleUpdates("UPDATE by key, one at a time (pg)", c, rows, 3L * rows);
                    if (rows <= 200_000) {
                        try (Connection avatica = DriverManager.getConnection(gateway.jdbcUrl())) {
                            singleUpdates("UPDATE by key, one at a time (JDBC)", avatica, rows, 4L * rows);
                        }
                    }
                }
            }
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void recreate(final Connection c) throws SQLException {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("drop table if exists " + table);
            s.execute("create table " + table
                    + " (aid int primary key, bid int, abalance int, filler char(84))");
        }
    }

    private static void report(final String what, final int rows, final long start, final long commitStart,
                               final Connection c, final long expectedSum) throws SQLException {
        final long end = System.nanoTime();
        System.out.printf(Locale.ROOT, "%-34s %9d %10.2f %10.2f %12.0f%n", what, rows, (end - start) / 1e9,
                (end - commitStart) / 1e9, rows / ((end - start) / 1e9));
        c.setAutoCommit(true);
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("select count(*), sum(abalance) from " + table)) {
            r.next();
            if (r.getLong(1) != rows || r.getLong(2) != expectedSum) {
                throw new IllegalStateException(what + ": count " + r.getLong(1) + ", sum " + r.getLong(2));
            }
        }
    }

    private static void copy(final Connection c, final int rows) throws SQLException, IOException {
        final long start = System.nanoTime();
        // COPY in autocommit is one transaction, as pgbench -i sends it; its commit is inside copyIn
        c.unwrap(PGConnection.class).getCopyAPI().copyIn("copy " + table + " from stdin", new RowReader(rows));
        report("COPY (one statement)", rows, start, System.nanoTime(), c, 0);
    }

    private static void batchInsert(final Connection c, final int rows) throws SQLException {
        final long start = System.nanoTime();
        c.setAutoCommit(false);
        try (PreparedStatement p = c.prepareStatement("insert into " + table + " values (?, 1, 0, ?)")) {
            for (int i = 1; i <= rows; i++) {
                p.setInt(1, i);
                p.setString(2, FILLER);
                p.addBatch();
                if (i % BATCH == 0 || i == rows) {
                    p.executeBatch();
                }
            }
        }
        final long commit = System.nanoTime();
        c.commit();
        report("INSERT, pgjdbc batches of " + BATCH, rows, start, commit, c, 0);
    }

    private static void batchUpdate(final Connection c, final int rows) throws SQLException {
        final long start = System.nanoTime();
        c.setAutoCommit(false);
        try (PreparedStatement p = c.prepareStatement("update " + table + " set abalance = abalance + 1 where aid = ?")) {
            for (int i = 1; i <= rows; i++) {
                p.setInt(1, i);
                p.addBatch();
                if (i % BATCH == 0 || i == rows) {
                    p.executeBatch();
                }
            }
        }
        final long commit = System.nanoTime();
        c.commit();
        report("UPDATE by key, batches of " + BATCH, rows, start, commit, c, rows);
    }

    private static void singleUpdates(final String what, final Connection c, final int rows, final long expectedSum)
            throws SQLException {
        final long start = System.nanoTime();
        c.setAutoCommit(false);
        try (PreparedStatement p = c.prepareStatement("update " + table + " set abalance = abalance + 1 where aid = ?")) {
            for (int i = 1; i <= rows; i++) {
                p.setInt(1, i);
                p.executeUpdate();
            }
        }
        final long commit = System.nanoTime();
        c.commit();
        report(what, rows, start, commit, c, expectedSum);
    }

    private static void updateAll(final Connection c, final int rows) throws SQLException {
        final long start = System.nanoTime();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.executeUpdate("update " + table + " set abalance = abalance + 1");
        }
        final long commit = System.nanoTime();
        c.commit();
        report("UPDATE of every row (one statement)", rows, start, commit, c, 2L * rows);
    }

    /** pgbench's COPY text for {@code rows} accounts, produced as it is read. */
    private static final class RowReader extends Reader {
        private final int rows;
        private int next = 1;
        private String line = "";
        private int at;

        RowReader(final int rows) {
            this.rows = rows;
        }

        @Override
        public int read(final char[] buf, final int off, final int len) {
            if (at == line.length()) {
                if (next > rows) {
                    return -1;
                }
                line = next + "\t1\t0\t" + FILLER + "\n";
                next++;
                at = 0;
            }
            final int n = Math.min(len, line.length() - at);
            line.getChars(at, at + n, buf, off);
            at += n;
            return n;
        }

        @Override
        public void close() {
        }
    }
}
