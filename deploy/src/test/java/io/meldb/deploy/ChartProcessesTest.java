package io.meldb.deploy;

import io.fabric8.kubernetes.api.model.Secret;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static io.meldb.deploy.RenderedChart.RELEASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chart's wiring, not only its syntax: the default values' pods (1 log server, 2 txn-servers, 1 gateway) run as
 * local processes with the rendered args and environment ({@link PodProcess}); transfers go through the gateway's
 * PostgreSQL port with the rendered user's password; txn-server pod 1 is killed and restarted as its StatefulSet
 * would (same pod name, so the same server id); no acknowledged transfer may be lost and money is conserved.
 */
@Tag("process")
class ChartProcessesTest {
    private static final int ACCOUNTS = 10;
    private static final long INITIAL = 1000;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void committedTransfersSurviveATxnServerPodKilledAndRestartedByItsStatefulSet(@TempDir final Path dir)
        throws Exception {
        final RenderedChart chart = RenderedChart.render();
        final String logSvc = chart.logServer().getSpec().getServiceName();
        final String txnSvc = chart.txnServers().getSpec().getServiceName();
        final Map<String, PodProcess> pods = new LinkedHashMap<>();
        pods.put(logSvc + "-0", new PodProcess(logSvc + "-0", logSvc, chart.logServer().getSpec().getTemplate(), dir));
        for (int i = 0; i < chart.txnServers().getSpec().getReplicas(); i++) {
            pods.put(txnSvc + "-" + i, new PodProcess(txnSvc + "-" + i, txnSvc,
                chart.txnServers().getSpec().getTemplate(), dir));
        }
        final String gwName = RELEASE + "-meldb-gateway-0";
        final PodProcess gateway = new PodProcess(gwName, RELEASE + "-meldb-gateway",
            chart.gateway().getSpec().getTemplate(), dir);
        final Map<String, PodProcess> byDns = new HashMap<>();
        pods.values().forEach(p -> byDns.put(p.dnsName, p));
        final java.util.function.Function<String, String> resolve = address -> {
            final int colon = address.lastIndexOf(':');
            final PodProcess target = byDns.get(address.substring(0, colon));
            if (target == null) {
                throw new AssertionError(address + " names no pod of the chart; pods: " + byDns.keySet());
            }
            return "127.0.0.1:" + target.port(Integer.parseInt(address.substring(colon + 1)));
        };
        // the cluster-secret flag is rendered for every server; until the servers take it (another branch) it is
        // left out here, and said so
        final boolean authFlagKnown = PodProcess.allServersAccept("--cluster-secret-file");
        if (!authFlagKnown) {
            System.err.println("ChartProcessesTest: the servers do not take --cluster-secret-file yet; started without it");
        }
        try {
            final PodProcess log = pods.get(logSvc + "-0");
            log.start(chart, resolve, !authFlagKnown);
            log.awaitOutput("log-server listening", 60_000);
            final List<PodProcess> txns = pods.values().stream().filter(p -> p != log).toList();
            for (PodProcess t : txns) {
                t.start(chart, resolve, !authFlagKnown);
            }
            for (int i = 0; i < txns.size(); i++) {
                final String line = txns.get(i).awaitOutput("listening on", 90_000);
                assertTrue(line.startsWith("txn-server " + (i + 1) + " "), "pod ordinal " + i + " is: " + line);
            }
            gateway.start(chart, resolve, !authFlagKnown);
            gateway.awaitOutput("MeldDB PostgreSQL", 90_000);

            final Secret users = chart.get(Secret.class, RELEASE + "-meldb-pg-users");
            final String url = "jdbc:postgresql://127.0.0.1:" + gateway.port(5432) + "/meldb";
            try (Connection c = DriverManager.getConnection(url, RenderedChart.secretValue(users, "user"),
                RenderedChart.secretValue(users, "password"))) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal BIGINT NOT NULL)");
                    s.execute("CREATE TABLE xfer (id INT PRIMARY KEY, src INT NOT NULL, dst INT NOT NULL, "
                        + "amt BIGINT NOT NULL)");
                    for (int a = 0; a < ACCOUNTS; a++) {
                        s.execute("INSERT INTO acct VALUES (" + a + ", " + INITIAL + ")");
                    }
                }
                c.setAutoCommit(false);
                final Transfers transfers = new Transfers(c);
                transfers.run(40);
                final PodProcess victim = txns.get(1);
                victim.kill();
                transfers.run(40);
                victim.start(chart, resolve, !authFlagKnown);
                final String line = victim.awaitOutput("txn-server 2 listening", 90_000);
                assertTrue(line.contains("incarnation"), line);
                final String health;
                try {
                    health = get("http://127.0.0.1:" + victim.port(7431) + "/health");
                } catch (java.io.IOException e) {
                    throw new AssertionError("no /health on " + victim.port(7431) + ": " + line, e);
                }
                assertTrue(health.contains("\"serverId\":2"), health);
                transfers.run(40);
                assertTrue(transfers.routedAfterRestart > 0 || transfers.committed.size() >= 120);

                c.setAutoCommit(true);
                assertNoTransferLost(c, transfers.committed);
            }
            // SIGTERM, as the kubelet stops pods: every server stops on its own, gateway first
            assertStopsOnSigterm(gateway);
            for (PodProcess t : txns) {
                assertStopsOnSigterm(t);
            }
            assertStopsOnSigterm(log);
        } finally {
            gateway.close();
            for (PodProcess p : pods.values()) {
                p.close();
            }
        }
    }

    private static void assertStopsOnSigterm(final PodProcess p) throws Exception {
        final int code = p.terminate(20);
        assertNotEquals(-1, code, p.podName + " did not stop within 20 s of SIGTERM:\n" + p.output());
        assertTrue(code == 0 || code == 143, p.podName + " exited with " + code + ":\n" + p.output());
    }

    private static void assertNoTransferLost(final Connection c, final Set<Integer> committed) throws SQLException {
        final Set<Integer> stored = new TreeSet<>();
        final long[] expected = new long[ACCOUNTS];
        java.util.Arrays.fill(expected, INITIAL);
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT id, src, dst, amt FROM xfer")) {
            while (r.next()) {
                stored.add(r.getInt(1));
                expected[r.getInt(2)] -= r.getLong(4);
                expected[r.getInt(3)] += r.getLong(4);
            }
        }
        final Set<Integer> lost = new TreeSet<>(committed);
        lost.removeAll(stored);
        assertTrue(lost.isEmpty(), "acknowledged transfers lost: " + lost);
        long total = 0;
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT id, bal FROM acct")) {
            while (r.next()) {
                assertEquals(expected[r.getInt(1)], r.getLong(2), "account " + r.getInt(1));
                total += r.getLong(2);
            }
        }
        assertEquals(ACCOUNTS * INITIAL, total);
    }

    private static String get(final String url) throws Exception {
        final HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(URI.create(url))
            .timeout(java.time.Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() + " " + r.body();
    }

    /** Transfers between random accounts, one transaction each; remembers the ones whose COMMIT succeeded. */
    private static final class Transfers {
        final Set<Integer> committed = new TreeSet<>();
        final List<String> failures = new ArrayList<>();
        final Connection c;
        final Random random = new Random(42);
        int nextId = 1;
        int routedAfterRestart;

        Transfers(final Connection c) {
            this.c = c;
        }

        void run(final int commits) throws SQLException {
            final int goal = committed.size() + commits;
            int attempts = 0;
            while (committed.size() < goal) {
                if (++attempts > commits * 20) {
                    throw new AssertionError("too few transfers commit; failures: " + failures);
                }
                final int id = nextId++;
                final int src = random.nextInt(ACCOUNTS);
                final int dst = (src + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                final int amt = 1 + random.nextInt(50);
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE acct SET bal = bal - " + amt + " WHERE id = " + src);
                    s.executeUpdate("UPDATE acct SET bal = bal + " + amt + " WHERE id = " + dst);
                    s.executeUpdate("INSERT INTO xfer VALUES (" + id + ", " + src + ", " + dst + ", " + amt + ")");
                    c.commit();
                    committed.add(id);
                    routedAfterRestart++;
                } catch (SQLException e) {
                    // a conflict (40001) or the killed server's lost session: not acknowledged, may be retried
                    failures.add(e.getSQLState() + " " + e.getMessage());
                    try {
                        c.rollback();
                    } catch (SQLException ignored) {
                        // the session is gone with its server
                    }
                }
            }
        }
    }
}
