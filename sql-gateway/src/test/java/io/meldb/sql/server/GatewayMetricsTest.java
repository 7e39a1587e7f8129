package io.meldb.sql.server;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A gateway's /metrics count what its clients did, and its /health names the txn-servers it routes to. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GatewayMetricsTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void shouldCountStatementsTransactionsAndConnectionsAndReportHealthyServers() throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-metrics-test");
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (EmbeddedNode node = EmbeddedNode.start(dataDir);
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), "127.0.0.1", 0,
                     new SqlMetrics(registry), io.meldb.sql.pg.PgServerConfig.loopback(0));
             GatewayHealth health = new GatewayHealth(gateway.router());
             MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0, health::check, registry::scrape)) {
            final String base = "http://127.0.0.1:" + endpoint.port();
            try (Connection a = DriverManager.getConnection(gateway.meldJdbcUrl());
                 Connection b = DriverManager.getConnection(gateway.meldJdbcUrl());
                 Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                assertEquals(2.0, value(get(base + "/metrics").body(), "meldb_sql_connections{protocol=\"jdbc\"}"));
                sa.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                sa.executeUpdate("INSERT INTO t VALUES (1, 0)");
                sa.executeQuery("SELECT v FROM t").close();
                assertEquals("42P01", assertThrows(SQLException.class,
                        () -> sa.executeQuery("SELECT * FROM missing")).getSQLState());

                a.setAutoCommit(false);
                b.setAutoCommit(false);
                sa.executeUpdate("UPDATE t SET v = v + 1 WHERE id = 1");
                sb.executeUpdate("UPDATE t SET v = v + 2 WHERE id = 1");
                a.commit();
                assertEquals("40001", assertThrows(SQLException.class, b::commit).getSQLState());
                sb.executeUpdate("UPDATE t SET v = v + 3 WHERE id = 1");
                b.rollback();
            }

            final String metrics = get(base + "/metrics").body();
            assertEquals(1.0, value(metrics, "meldb_sql_statements_seconds_count{kind=\"DDL\"}"), metrics);
            assertEquals(4.0, value(metrics, "meldb_sql_statements_seconds_count{kind=\"WRITE\"}"), metrics);
            assertEquals(1.0, value(metrics, "meldb_sql_statement_errors_total{kind=\"READ\"}"), metrics);
            assertEquals(1.0, value(metrics, "meldb_sql_statement_errors_total{kind=\"COMMIT\"}"), metrics);
            assertEquals(3.0, value(metrics, "meldb_sql_transactions_committed_total"), metrics);
            assertEquals(1.0, value(metrics, "meldb_sql_transactions_aborted_total{reason=\"40001\"}"), metrics);
            assertEquals(1.0, value(metrics, "meldb_sql_transactions_aborted_total{reason=\"rollback\"}"), metrics);
            assertEquals(0.0, value(metrics, "meldb_sql_connections{protocol=\"jdbc\"}"), metrics);
            assertTrue(metrics.contains("meldb_sql_statements_seconds_bucket{kind=\"WRITE\",le="), "no histogram");

            final HttpResponse<String> up = get(base + "/health");
            assertEquals(200, up.statusCode(), up.body());
            assertTrue(up.body().startsWith("{\"status\":\"UP\""), up.body());
            assertTrue(up.body().contains("{\"address\":\"in-process\",\"status\":\"UP\",\"serverId\":1,"),
                    up.body());
        } finally {
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    @Test
    void shouldAnswer503WhenNoTxnServerIsAvailable() throws Exception {
        final TxnService gone = new TxnService() {
            @Override
            public TxnSession begin(final IsolationLevel isolation, final boolean readOnly) {
                throw new TxnException(TxnError.UNAVAILABLE, "stopped");
            }

            @Override
            public TxnOutcome outcome(final TxnId id) {
                throw new TxnException(TxnError.UNAVAILABLE, "stopped");
            }

            @Override
            public ServerStatus status() {
                throw new TxnException(TxnError.UNAVAILABLE, "stopped");
            }

            @Override
            public void close() {
            }
        };
        try (GatewayHealth health = new GatewayHealth(new TxnRouter(List.of(gone)));
             MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0, health::check, () -> "")) {
            final HttpResponse<String> down = get("http://127.0.0.1:" + endpoint.port() + "/health");
            assertEquals(503, down.statusCode(), down.body());
            assertTrue(down.body().startsWith("{\"status\":\"DOWN\""), down.body());
            assertTrue(down.body().contains("\"status\":\"DOWN\",\"error\":\"stopped\""), down.body());
        }
    }

    private static HttpResponse<String> get(final String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the sample {@code name{labels}} in Prometheus text. */
    private static double value(final String scrape, final String sample) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(sample + " ")) {
                return Double.parseDouble(line.substring(sample.length() + 1).trim());
            }
        }
        throw new AssertionError("no sample " + sample + " in\n" + scrape);
    }
}
