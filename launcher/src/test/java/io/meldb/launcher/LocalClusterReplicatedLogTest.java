package io.meldb.launcher;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code meldb --local-cluster 2 --log-replicas 3} (issue 22): three log servers as a Raft group under two
 * txn-servers and the gateway, all on this machine. The leader log server is killed with SIGKILL while a client
 * inserts rows one transaction at a time through the PostgreSQL port: commits go on through the new leader, and
 * every acknowledged row is there at the end.
 */
@Tag("process")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LocalClusterReplicatedLogTest {
    private static final Pattern LEADER_LINE = Pattern.compile("replicated log: (\\S+) sees (\\S+) as the leader");

    private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    private final Set<Long> refused = ConcurrentHashMap.newKeySet();
    private final List<long[]> ackTimes = java.util.Collections.synchronizedList(new ArrayList<>()); // {nanos, id}
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger unknown = new AtomicInteger();

    @Test
    void theLeaderLogServerKilledUnderCommitsLosesNothingAcknowledgedAndCommitsGoOn() throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-local-r3-test");
        Thread worker = null;
        try (GatewayProcess gw = GatewayProcess.start("--port", "0", "--pg-port", "0", "--metrics-port", "-1",
                "--data-dir", dataDir.toString(), "--local-cluster", "2", "--log-replicas", "3")) {
            assertTrue(Files.isRegularFile(dataDir.resolve(LocalLogReplicas.PEERS_FILE)), "the replicas' ports are kept");
            try (Connection c = connect(gw); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id BIGINT PRIMARY KEY)");
            }
            worker = new Thread(() -> insertUntilStopped(gw), "inserts");
            worker.start();
            awaitAcknowledged(20, 0, 60);

            final String leader = leaderOf(dataDir);
            final ProcessHandle victim = gw.descendants().stream()
                .filter(h -> commandLine(h).contains("\0--node-id\0" + leader + "\0"))
                .findFirst().orElseThrow(() -> new AssertionError("no log-server process of node " + leader));
            final long killedAt = System.nanoTime();
            victim.destroyForcibly();
            assertTrue(victim.onExit().get(30, TimeUnit.SECONDS) != null && !victim.isAlive());
            awaitAcknowledged(20, killedAt, 90);
            final long firstAfter = firstAckAfter(killedAt);
            stop.set(true);
            worker.join(60_000);

            final Set<Long> present = new HashSet<>();
            try (Connection c = connect(gw); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id FROM t")) {
                while (rs.next()) {
                    present.add(rs.getLong(1));
                }
            }
            final Set<Long> missing = new HashSet<>(acknowledged);
            missing.removeAll(present);
            assertEquals(Set.of(), missing, "acknowledged rows missing");
            final Set<Long> wronglyThere = new HashSet<>(refused);
            wronglyThere.retainAll(present);
            assertEquals(Set.of(), wronglyThere, "rows whose commit was refused are there");
            System.out.printf("LocalClusterReplicatedLogTest: leader log server %s killed; first commit acknowledged"
                    + " %d ms later; %d acknowledged, %d refused (40001), %d unknown (40003/08xxx), all acknowledged"
                    + " rows present%n", leader, TimeUnit.NANOSECONDS.toMillis(firstAfter - killedAt),
                acknowledged.size(), refused.size(), unknown.get());
        } finally {
            stop.set(true);
            if (worker != null) {
                worker.join(10_000);
            }
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    /** The process's arguments, NUL-separated as in /proc (ProcessHandle.Info leaves them out for long command lines). */
    private static String commandLine(final ProcessHandle h) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", String.valueOf(h.pid()), "cmdline")),
                java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** The node the replicas last named leader, from their log files under the data directory. */
    private static String leaderOf(final Path dataDir) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            final java.util.Map<String, Integer> votes = new java.util.HashMap<>();
            for (int i = 1; i <= 3; i++) {
                final Path file = dataDir.resolve("log-server-" + i + ".log");
                String latest = null;
                if (Files.exists(file)) {
                    for (String line : Files.readAllLines(file)) {
                        final Matcher m = LEADER_LINE.matcher(line);
                        if (m.find()) {
                            latest = m.group(2);
                        }
                    }
                }
                if (latest != null) {
                    votes.merge(latest, 1, Integer::sum);
                }
            }
            for (var e : votes.entrySet()) {
                if (e.getValue() >= 2 && e.getKey().matches("l\\d")) {
                    return e.getKey();
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no leader named by a majority of the log servers");
    }

    private void awaitAcknowledged(final int n, final long since, final int seconds) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (countSince(since) < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(n + " commits acknowledged within " + seconds + " s; got " + countSince(since)
                    + " (refused " + refused.size() + ", unknown " + unknown.get() + ")");
            }
            Thread.sleep(50);
        }
    }

    private int countSince(final long since) {
        synchronized (ackTimes) {
            return (int) ackTimes.stream().filter(a -> a[0] >= since).count();
        }
    }

    private long firstAckAfter(final long since) {
        synchronized (ackTimes) {
            return ackTimes.stream().filter(a -> a[0] >= since).mapToLong(a -> a[0]).min().orElseThrow();
        }
    }

    private void insertUntilStopped(final GatewayProcess gw) {
        long id = 0;
        Connection c = null;
        while (!stop.get()) {
            try {
                if (c == null) {
                    c = connect(gw);
                }
            } catch (SQLException e) {
                sleep(100);
                continue;
            }
            id++;
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO t VALUES (" + id + ")");
                acknowledged.add(id);
                ackTimes.add(new long[] {System.nanoTime(), id});
            } catch (SQLException e) {
                final String state = e.getSQLState() == null ? "" : e.getSQLState();
                if (state.equals("40001")) {
                    refused.add(id);
                } else {
                    unknown.incrementAndGet(); // 40003, 08xxx, 57P01: either way is right
                }
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // broken already
                }
                c = null;
                sleep(50);
            }
        }
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // the gateway may be gone
            }
        }
    }

    private static Connection connect(final GatewayProcess gw) throws SQLException {
        final Properties p = new Properties();
        p.setProperty("user", "t");
        p.setProperty("connectTimeout", "5");
        p.setProperty("socketTimeout", "60");
        return DriverManager.getConnection(gw.pgJdbcUrl(), p);
    }

    private static void sleep(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
