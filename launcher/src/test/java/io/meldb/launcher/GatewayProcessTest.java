package io.meldb.launcher;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The embedded database as a real process ({@code GatewayMain}), used over JDBC, stopped and started again. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GatewayProcessTest {
    @Test
    void shouldServeSqlAndKeepEveryCommittedRowAcrossARestartOfTheEmbeddedDatabase() throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-process-test");
        try {
            try (GatewayProcess meldb = GatewayProcess.start("--port", "0", "--data-dir", dataDir.toString());
                 Connection c = DriverManager.getConnection(meldb.url()); Statement s = c.createStatement()) {
                assertTrue(meldb.url().matches("jdbc:avatica:remote:url=http://127\\.0\\.0\\.1:\\d+;serialization=PROTOBUF"),
                        meldb.url());
                assertTrue(meldb.meldUrl().matches("jdbc:meldb://127\\.0\\.0\\.1:\\d+"), meldb.meldUrl());
                assertTrue(String.valueOf(meldb.metricsUrl()).matches("http://127\\.0\\.0\\.1:\\d+/metrics"),
                        meldb.output());
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, owner VARCHAR(20) NOT NULL, balance BIGINT)");
                s.execute("CREATE INDEX account_owner ON account (owner)");
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO account VALUES (?, ?, ?)")) {
                    for (int i = 1; i <= 50; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, "owner" + (i % 5));
                        ps.setLong(3, 100);
                        ps.executeUpdate();
                    }
                }
                c.setAutoCommit(false);
                s.executeUpdate("UPDATE account SET balance = balance - 30 WHERE id = 1");
                s.executeUpdate("UPDATE account SET balance = balance + 30 WHERE id = 2");
                c.commit();
                s.executeUpdate("DELETE FROM account WHERE id = 50");
                c.rollback();
                c.setAutoCommit(true);
                assertEquals(List.of("50:5000"), column(s.executeQuery("SELECT COUNT(*), SUM(balance) FROM account")));

                // a serialization failure and its successful retry, on two connections
                try (Connection other = DriverManager.getConnection(meldb.url());
                     Statement so = other.createStatement()) {
                    c.setAutoCommit(false);
                    other.setAutoCommit(false);
                    s.executeUpdate("UPDATE account SET balance = balance + 1 WHERE id = 3");
                    so.executeUpdate("UPDATE account SET balance = balance + 1 WHERE id = 3");
                    c.commit();
                    final SQLException e = assertThrows(SQLException.class, () -> so.execute("COMMIT"));
                    assertEquals("40001", e.getSQLState());
                    so.executeUpdate("UPDATE account SET balance = balance + 1 WHERE id = 3");
                    so.execute("COMMIT");
                    c.setAutoCommit(true);
                }
                assertEquals(List.of("102"), column(s.executeQuery("SELECT balance FROM account WHERE id = 3")));
                assertEquals("42P01", assertThrows(SQLException.class,
                        () -> s.executeQuery("SELECT * FROM missing")).getSQLState());

                final HttpClient http = HttpClient.newHttpClient();
                final HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(meldb.metricsUrl()))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertTrue(metrics.body().contains("meldb_sql_transactions_aborted_total{reason=\"40001\"} 1.0"),
                        metrics.body());
                assertTrue(metrics.body().contains("meldb_log_appends_total"), "the log's metrics are missing");
                assertTrue(metrics.body().contains("meldb_meld_final_melds_total"), "the txn-server's are missing");
                final HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                        URI.create(meldb.metricsUrl().replace("/metrics", "/health"))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, health.statusCode(), health.body());
            }
            try (GatewayProcess meldb = GatewayProcess.start("--port", "0", "--data-dir", dataDir.toString());
                 Connection c = DriverManager.getConnection(meldb.url()); Statement s = c.createStatement()) {
                assertEquals(List.of("50:5002"), column(s.executeQuery("SELECT COUNT(*), SUM(balance) FROM account")));
                assertEquals(List.of("70", "130", "102"),
                        column(s.executeQuery("SELECT balance FROM account WHERE id <= 3 ORDER BY id")));
                assertEquals(List.of("10"), column(s.executeQuery(
                        "SELECT COUNT(*) FROM account WHERE owner = 'owner1'")));
            }
        } finally {
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    /**
     * Calcite's first-use cost (class loading, metadata handlers, Janino) used to fall on the first INSERT: about a
     * second here, 3 s with a busy core, 20 s on a loaded machine. The gateway now pays it before it says ready, so
     * CREATE TABLE and INSERT take milliseconds; the SELECT's bound also covers this test's JDBC client loading its
     * result-set classes on first use.
     */
    @Test
    void shouldAnswerTheFirstStatementsOfAFreshDatabaseAtOnce() throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-first-statement-test");
        try (GatewayProcess meldb = GatewayProcess.start("--port", "0", "--data-dir", dataDir.toString());
             Connection c = DriverManager.getConnection(meldb.meldUrl()); Statement s = c.createStatement()) {
            final long start = System.nanoTime();
            s.execute("CREATE TABLE first_table (id INT PRIMARY KEY, name VARCHAR(20))");
            s.executeUpdate("INSERT INTO first_table VALUES (1, 'one')");
            final long written = System.nanoTime();
            assertEquals(List.of("one"), column(s.executeQuery("SELECT name FROM first_table WHERE id = 1")));
            final long read = System.nanoTime();
            assertTrue(written - start < TimeUnit.MILLISECONDS.toNanos(750),
                    "CREATE TABLE + INSERT took " + (written - start) / 1_000_000 + " ms");
            assertTrue(read - start < TimeUnit.SECONDS.toNanos(3),
                    "CREATE TABLE + INSERT + SELECT took " + (read - start) / 1_000_000 + " ms");
        } finally {
            EmbeddedGateway.deleteTree(dataDir);
        }
    }
}
