package io.meldb.launcher;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 18 as real processes: a ledger of transfers through the PostgreSQL front end of a gateway over two
 * txn-servers, while the test kill -9s a txn-server, the log server (restarted on the same data directory) and the
 * gateway. Each transfer moves 1 between two accounts and inserts a unique ledger id in the same transaction.
 * Afterwards every acknowledged id is in the ledger, no id whose client got 40001 (or an error before COMMIT) is,
 * the balances are exactly what the ledger's rows say, and 40003 (statement completion unknown) is rare. The
 * gateway also starts while one txn-server is down and uses it once it is up.
 */
@Tag("process")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterHealingTest {
    private static final Pattern LOG_READY = Pattern.compile("log-server listening on ([^:\\s]+):(\\d+)");
    private static final Pattern TXN_READY = Pattern.compile("txn-server \\d+ listening on ([^:\\s]+):(\\d+)");
    private static final int ACCOUNTS = 8;
    private static final int WORKERS = 4;

    /** What the client of one transfer was told. */
    private enum Told { ACKNOWLEDGED, CONFLICT, FAILED_BEFORE_COMMIT, UNKNOWN_40003, CONNECTION_LOST_AT_COMMIT }

    private record Transfer(int from, int to) {
    }

    private final Map<Long, Told> told = new ConcurrentHashMap<>();
    private final Map<Long, Transfer> transfers = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicReference<String> pgUrl = new AtomicReference<>();
    private final AtomicBoolean stop = new AtomicBoolean();

    @Test
    void everyAcknowledgedTransferSurvivesKillsOfATxnServerTheLogServerAndTheGatewayAndNoRefusedOneIsThere()
            throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-healing-test");
        final int logPort = freePort();
        final int[] txnPorts = {freePort(), freePort()};
        final String txnServers = "127.0.0.1:" + txnPorts[0] + ",127.0.0.1:" + txnPorts[1];
        final List<AutoCloseable> running = new ArrayList<>();
        final List<Thread> workers = new ArrayList<>();
        try {
            final JavaProcess[] log = {startLog(dataDir, logPort)};
            running.add(() -> log[0].close());
            final JavaProcess[] txn = new JavaProcess[2];
            txn[0] = startTxn(1, logPort, txnPorts[0]);
            running.add(() -> txn[0].close());
            // the gateway starts while txn-server 2 is down, and picks it up once it is up
            final GatewayProcess[] gw = {GatewayProcess.start("--port", "0", "--pg-port", "0", "--metrics-port", "-1",
                    "--txn-servers", txnServers)};
            running.add(() -> gw[0].close());
            assertTrue(gw[0].output().contains("starting without it"), gw[0].output());
            pgUrl.set(gw[0].pgJdbcUrl());
            txn[1] = startTxn(2, logPort, txnPorts[1]);
            running.add(() -> txn[1].close());
            setUp();

            for (int w = 0; w < WORKERS; w++) {
                final Thread t = new Thread(this::transferUntilStopped, "transfers-" + w);
                t.start();
                workers.add(t);
            }
            Thread.sleep(2000);
            txn[1].kill();
            Thread.sleep(1500);
            txn[1] = startTxn(2, logPort, txnPorts[1]);
            Thread.sleep(1500);
            log[0].kill();
            Thread.sleep(500);
            log[0] = startLog(dataDir, logPort);
            Thread.sleep(2500);
            resolvedByPeers = count(gw[0].output(), "lost its answer");
            gw[0].kill();
            gw[0] = GatewayProcess.start("--port", "0", "--pg-port", "0", "--metrics-port", "-1",
                    "--txn-servers", txnServers);
            pgUrl.set(gw[0].pgJdbcUrl());
            Thread.sleep(2000);
            stop.set(true);
            for (Thread t : workers) {
                t.join(60_000);
            }
            check();
        } finally {
            stop.set(true);
            for (Thread t : workers) {
                t.join(10_000);
            }
            for (int i = running.size() - 1; i >= 0; i--) {
                running.get(i).close();
            }
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    private void setUp() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal BIGINT NOT NULL)");
            s.execute("CREATE TABLE ledger (id BIGINT PRIMARY KEY, src INTEGER NOT NULL, dst INTEGER NOT NULL)");
            for (int i = 0; i < ACCOUNTS; i++) {
                s.executeUpdate("INSERT INTO acct VALUES (" + i + ", 1000)");
            }
        }
    }

    private void transferUntilStopped() {
        Connection c = null;
        long n = 0;
        while (!stop.get()) {
            try {
                if (c == null || c.isClosed()) {
                    c = connect();
                    c.setAutoCommit(false);
                }
            } catch (SQLException e) {
                c = null;
                pause(50);
                continue;
            }
            final long id = ids.incrementAndGet();
            final int from = (int) (Math.floorMod(id * 7 + n++, ACCOUNTS));
            final int to = (from + 1 + (int) (id % (ACCOUNTS - 1))) % ACCOUNTS;
            transfers.put(id, new Transfer(from, to));
            try (PreparedStatement debit = c.prepareStatement("UPDATE acct SET bal = bal - 1 WHERE id = ?");
                 PreparedStatement credit = c.prepareStatement("UPDATE acct SET bal = bal + 1 WHERE id = ?");
                 PreparedStatement entry = c.prepareStatement("INSERT INTO ledger VALUES (?, ?, ?)")) {
                debit.setInt(1, from);
                debit.executeUpdate();
                credit.setInt(1, to);
                credit.executeUpdate();
                entry.setLong(1, id);
                entry.setInt(2, from);
                entry.setInt(3, to);
                entry.executeUpdate();
            } catch (SQLException e) {
                told.put(id, Told.FAILED_BEFORE_COMMIT);
                c = rollbackOrDrop(c);
                continue;
            }
            try {
                c.commit();
                told.put(id, Told.ACKNOWLEDGED);
            } catch (SQLException e) {
                final String state = e.getSQLState() == null ? "" : e.getSQLState();
                if (state.equals("40001")) {
                    told.put(id, Told.CONFLICT);
                } else if (state.equals("40003")) {
                    told.put(id, Told.UNKNOWN_40003);
                } else if (state.startsWith("08")) {
                    // the gateway itself went away with the COMMIT in flight: nobody could tell this client
                    told.put(id, Told.CONNECTION_LOST_AT_COMMIT);
                } else {
                    told.put(id, Told.UNKNOWN_40003);
                    System.err.println("unexpected commit error " + state + ": " + e.getMessage());
                    unexpected.add(state + " " + e.getMessage());
                }
                c = rollbackOrDrop(c);
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

    /** Commits whose answer the first gateway lost and then learned from the cluster (its log lines). */
    private int resolvedByPeers;

    private static int count(final String text, final String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private final List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());

    private void check() throws Exception {
        final Set<Long> present = new HashSet<>();
        final long[] expected = new long[ACCOUNTS];
        java.util.Arrays.fill(expected, 1000);
        final long[] balances = new long[ACCOUNTS];
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Connection c = connect(); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT id, src, dst FROM ledger")) {
                    while (rs.next()) {
                        present.add(rs.getLong(1));
                        expected[rs.getInt(2)]--;
                        expected[rs.getInt(3)]++;
                    }
                }
                try (ResultSet rs = s.executeQuery("SELECT id, bal FROM acct")) {
                    while (rs.next()) {
                        balances[rs.getInt(1)] = rs.getLong(2);
                    }
                }
                break;
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                present.clear();
                java.util.Arrays.fill(expected, 1000);
                pause(200);
            }
        }
        final Map<Told, Integer> counts = new HashMap<>();
        final List<String> wrong = new ArrayList<>();
        for (Map.Entry<Long, Told> e : told.entrySet()) {
            counts.merge(e.getValue(), 1, Integer::sum);
            final boolean there = present.contains(e.getKey());
            switch (e.getValue()) {
                case ACKNOWLEDGED -> {
                    if (!there) {
                        wrong.add("acknowledged " + e.getKey() + " is missing");
                    }
                }
                case CONFLICT, FAILED_BEFORE_COMMIT -> {
                    if (there) {
                        wrong.add(e.getValue() + " " + e.getKey() + " is in the ledger");
                    }
                }
                default -> {
                    // unknown to its client: either way is right
                }
            }
        }
        final String summary = "outcomes " + counts + ", ledger rows " + present.size() + ", commits decided by the log after their "
                + "answer was lost " + resolvedByPeers + ", unexpected " + unexpected;
        System.out.println("ClusterHealingTest: " + summary);
        assertEquals(List.of(), wrong, summary);
        assertTrue(unexpected.isEmpty(), summary);
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(balances),
                "balances follow the ledger exactly; " + summary);
        final int acked = counts.getOrDefault(Told.ACKNOWLEDGED, 0);
        assertTrue(acked > 100, "transfers went on through the faults: " + summary);
        assertTrue(counts.getOrDefault(Told.UNKNOWN_40003, 0) <= Math.max(3, acked / 50),
                "40003 is rare while another txn-server is alive: " + summary);
    }

    private Connection connect() throws SQLException {
        final Properties p = new Properties();
        p.setProperty("user", "ledger");
        p.setProperty("connectTimeout", "5");
        p.setProperty("socketTimeout", "60");
        return DriverManager.getConnection(pgUrl.get(), p);
    }

    private static Connection rollbackOrDrop(final Connection c) {
        try {
            c.rollback();
            return c;
        } catch (SQLException e) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // already broken
            }
            return null;
        }
    }

    private static void pause(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static JavaProcess startLog(final Path dataDir, final int port) throws java.io.IOException {
        return JavaProcess.start("log-server", LOG_READY, "io.meldb.log.server.LogServerMain",
                "--port", String.valueOf(port), "--metrics-port", "-1", "--data-dir", dataDir.resolve("log").toString());
    }

    private static JavaProcess startTxn(final int id, final int logPort, final int port) throws java.io.IOException {
        return JavaProcess.start("txn-server-" + id, TXN_READY, "io.meldb.txn.TxnServerMain",
                "--server-id", String.valueOf(id), "--log", "127.0.0.1:" + logPort, "--port", String.valueOf(port),
                "--metrics-port", "-1");
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
