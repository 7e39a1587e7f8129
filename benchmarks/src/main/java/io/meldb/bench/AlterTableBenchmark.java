package io.meldb.bench;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

/**
 * What ALTER TABLE costs as a table grows: one pgjdbc connection to a gateway in this JVM ({@link EmbeddedNode} +
 * {@link Gateway}) fills tables of 1,000 to N rows and times ADD COLUMN with a default and DROP COLUMN (which
 * rewrite no row, so they should not grow with the table), SET NOT NULL (which reads every row), and a full
 * aggregate scan before and after (rows in the altered layout decode through the table's row layout). Prints
 * milliseconds. Argument: the largest table's rows (default 100000, a multiple of 1000).
 */
public final class AlterTableBenchmark {
    private AlterTableBenchmark() {
    }

    public static void main(final String[] args) throws Exception {
        final int largest = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        final Path dir = Files.createTempDirectory("meldb-alterbench");
        try (EmbeddedNode node = EmbeddedNode.start(dir);
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0)) {
            final Properties p = new Properties();
            p.setProperty("user", "bench");
            try (Connection c = DriverManager.getConnection(gateway.pgJdbcUrl(), p);
                 Statement s = c.createStatement()) {
                s.execute("CREATE TABLE seed (id INTEGER PRIMARY KEY, a VARCHAR(20), b INTEGER)");
                for (int i = 0; i < 1000; i += 100) {
                    final StringBuilder values = new StringBuilder();
                    for (int k = i; k < i + 100; k++) {
                        values.append(k == i ? "" : ", ").append("(").append(k).append(", 'row', ").append(k)
                                .append(")");
                    }
                    s.executeUpdate("INSERT INTO seed VALUES " + values);
                }
                System.out.println("#    rows  add-column-ms  drop-column-ms  set-not-null-ms  scan-before-ms  "
                        + "scan-after-ms");
                for (int n = 1000; n <= largest; n *= 10) {
                    final String t = "t" + n;
                    s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, a VARCHAR(20), b INTEGER)");
                    for (int k = 0; k < n / 1000; k++) {
                        s.executeUpdate("INSERT INTO " + t + " SELECT id + " + (k * 1000) + ", a, b FROM seed");
                    }
                    s.execute("SELECT COUNT(*), SUM(b) FROM " + t); // plan and warm up
                    final double before = millis(s, "SELECT COUNT(*), SUM(b) FROM " + t);
                    final double add = millis(s, "ALTER TABLE " + t + " ADD COLUMN c INTEGER DEFAULT 7");
                    final double drop = millis(s, "ALTER TABLE " + t + " DROP COLUMN a");
                    s.execute("SELECT COUNT(*), SUM(b), SUM(c) FROM " + t);
                    final double after = millis(s, "SELECT COUNT(*), SUM(b), SUM(c) FROM " + t);
                    final double notNull = millis(s, "ALTER TABLE " + t + " ALTER COLUMN c SET NOT NULL");
                    System.out.printf("%9d  %13.1f  %14.1f  %15.1f  %14.1f  %13.1f%n", n, add, drop, notNull, before,
                            after);
                }
            }
        } catch (SQLException e) {
            System.err.println("failed: " + e.getSQLState() + " " + e.getMessage());
            System.exit(1);
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static double millis(final Statement s, final String sql) throws SQLException {
        final long t0 = System.nanoTime();
        s.execute(sql);
        return (System.nanoTime() - t0) / 1e6;
    }
}
