package io.meldb.sql.server;

import io.meldb.txn.EmbeddedNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection's consecutive 40001 retries reach the txn-server as the transaction's restart count (docs/sql.md
 * "Restart counts"): the intention of the attempt that finally commits carries them, as the server's
 * {@code meldb.txn.committed.restarts} summary shows, and a commit resets the count.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RestartCountTest {

    @Test
    void twoSerializationFailuresInARowMakeTheCommittingAttemptCarryTwoRestarts() throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-restarts-test");
        try (EmbeddedNode node = EmbeddedNode.start(dataDir);
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), "127.0.0.1", 0,
                     new SqlMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)),
                     io.meldb.sql.pg.PgServerConfig.loopback(0));
             Connection a = DriverManager.getConnection(gateway.meldJdbcUrl());
             Connection b = DriverManager.getConnection(gateway.meldJdbcUrl());
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            sa.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            sa.executeUpdate("INSERT INTO t VALUES (1, 0)");
            a.setAutoCommit(false);
            for (int attempt = 0; attempt < 3; attempt++) {
                try (ResultSet rs = sa.executeQuery("SELECT v FROM t WHERE id = 1")) {
                    assertTrue(rs.next());
                }
                sa.executeUpdate("UPDATE t SET v = 100 WHERE id = 1");
                if (attempt < 2) {
                    sb.executeUpdate("UPDATE t SET v = " + attempt + " WHERE id = 1"); // commits first
                    assertEquals("40001", assertThrows(SQLException.class, a::commit).getSQLState());
                    a.rollback(); // a retry loop's rollback leaves the count alone
                } else {
                    a.commit();
                }
            }
            assertEquals(2.0, sample(node, "meldb_txn_committed_restarts_max"), "the third attempt carried 2");
            assertEquals(2.0, sample(node, "meldb_txn_committed_restarts_sum"), "every other commit carried 0");
            sa.executeUpdate("UPDATE t SET v = 7 WHERE id = 1");
            a.commit();
            assertEquals(2.0, sample(node, "meldb_txn_committed_restarts_sum"), "a commit reset the count");
        } finally {
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    /** One sample of the server's metrics (recorded before a commit is answered, so no wait is needed). */
    private static double sample(final EmbeddedNode node, final String name) {
        final String text = ((PrometheusMeterRegistry) node.txnServer().registry()).scrape();
        for (String line : text.split("\n")) {
            if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
            }
        }
        throw new AssertionError("no sample " + name + " in\n" + text);
    }
}
