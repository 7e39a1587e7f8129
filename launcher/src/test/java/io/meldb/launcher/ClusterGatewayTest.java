package io.meldb.launcher;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's scale-out modes as real processes on loopback: {@code --local-cluster 2} (the gateway starts a
 * log server and two txn-servers itself) and {@code --txn-servers} (over a log server and two txn-servers this
 * test starts). The gateway spreads transactions over both txn-servers, so every check that a committed row is
 * visible, made right after the commit from several connections, reads through both of them.
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterGatewayTest {
    private static final Pattern LOG_READY = Pattern.compile("log-server listening on ([^:\\s]+):(\\d+)");
    private static final Pattern TXN_READY = Pattern.compile("txn-server \\d+ listening on ([^:\\s]+):(\\d+)");
    /** Enough fresh connections (and thus transactions) to reach each txn-server several times. */
    private static final int READERS = 4;

    @Test
    void localClusterModeServesSqlOverTwoTxnServersAndStopsThemWhenTheGatewayStops() throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-local-cluster-test");
        List<ProcessHandle> servers = List.of();
        try (GatewayProcess meldb = GatewayProcess.start("--port", "0", "--local-cluster", "2",
                "--data-dir", dataDir.toString())) {
            servers = meldb.descendants();
            assertEquals(3, servers.size(), "1 log server + 2 txn-servers: " + servers);
            assertTrue(meldb.output().contains("over 2 txn-server(s)"), meldb.output());
            exerciseSqlAcrossServers(meldb.meldUrl(), meldb.url());
            exercisePostgreSqlProtocolAcrossServers(meldb.pgJdbcUrl());
            onlyTheClusterUsesItsPorts(meldb.output(), dataDir.resolve("cluster-secret"));
        } finally {
            for (ProcessHandle p : servers) {
                p.onExit().get(30, TimeUnit.SECONDS);
            }
            EmbeddedGateway.deleteTree(dataDir);
        }
        assertFalse(servers.stream().anyMatch(ProcessHandle::isAlive), "the gateway left servers running");
    }

    /**
     * The local cluster's children require the secret it generated: without it the log port and the transaction RPC
     * port refuse a client with a clear error; with it (as the gateway has it) they serve.
     */
    private static void onlyTheClusterUsesItsPorts(final String output, final Path secretFile) {
        final java.util.regex.Matcher log = Pattern.compile("log-server listening on ([^:\\s]+):(\\d+)").matcher(output);
        final java.util.regex.Matcher txn = Pattern.compile("txn-server-1 listening on ([^:\\s]+):(\\d+)").matcher(output);
        assertTrue(log.find() && txn.find(), output);
        final io.meldb.wire.auth.ClusterSecret secret = io.meldb.wire.auth.ClusterSecret.fromFile(secretFile);
        final int txnPort = Integer.parseInt(txn.group(2));
        try (io.meldb.txn.client.TxnRpcClient outsider = io.meldb.txn.client.TxnRpcClient.connect(txn.group(1), txnPort)) {
            final io.meldb.txn.api.TxnException e = assertThrows(io.meldb.txn.api.TxnException.class, outsider::status);
            assertTrue(e.getMessage().contains("cluster secret"), e.getMessage());
        }
        try (io.meldb.txn.client.TxnRpcClient member = io.meldb.txn.client.TxnRpcClient.connect(
                io.meldb.txn.client.TxnRpcClientOptions.to(txn.group(1), txnPort).clusterSecret(secret))) {
            assertEquals(1, member.status().serverId());
        }
        final int logPort = Integer.parseInt(log.group(2));
        try (io.meldb.log.client.LogClient outsider = io.meldb.log.client.LogClient.connect(log.group(1), logPort)) {
            final java.util.concurrent.CompletionException e = assertThrows(java.util.concurrent.CompletionException.class,
                    () -> outsider.trim(1_000_000).join());
            assertEquals(io.meldb.log.ErrorCode.UNAUTHENTICATED,
                    assertInstanceOf(io.meldb.log.LogErrorException.class, e.getCause()).code());
        }
        try (io.meldb.log.client.LogClient member = io.meldb.log.client.LogClient.connect(
                io.meldb.log.client.LogClientOptions.to(log.group(1), logPort).clusterSecret(secret))) {
            assertTrue(member.tail().join() > 1);
            final java.util.concurrent.CompletionException e = assertThrows(java.util.concurrent.CompletionException.class,
                    () -> member.trim(member.tail().join()).join());
            assertEquals(io.meldb.log.ErrorCode.TRIM_REFUSED,
                    assertInstanceOf(io.meldb.log.LogErrorException.class, e.getCause()).code(),
                    "even a member may not trim above the newest checkpoint");
        }
    }

    /**
     * The PostgreSQL front end over remote txn-servers (no statement runs on the I/O thread then): prepared
     * writes in a transaction block, reads on fresh connections that land on both servers and see them, and a
     * write conflict between two servers' transactions answered 40001.
     */
    private static void exercisePostgreSqlProtocolAcrossServers(final String pgUrl) throws SQLException {
        final java.util.Properties p = new java.util.Properties();
        p.setProperty("user", "cluster");
        try (Connection c = DriverManager.getConnection(pgUrl, p)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE pg_cluster (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)");
            }
            c.setAutoCommit(false);
            try (java.sql.PreparedStatement ins = c.prepareStatement("INSERT INTO pg_cluster VALUES (?, ?)")) {
                for (int i = 0; i < 50; i++) {
                    ins.setInt(1, i);
                    ins.setLong(2, i);
                    ins.executeUpdate();
                }
            }
            c.commit();
        }
        for (int r = 0; r < READERS; r++) {
            try (Connection c = DriverManager.getConnection(pgUrl, p);
                 java.sql.PreparedStatement q = c.prepareStatement("SELECT n FROM pg_cluster WHERE id = ?")) {
                q.setInt(1, 49);
                try (java.sql.ResultSet rs = q.executeQuery()) {
                    assertTrue(rs.next(), "every server sees the committed rows");
                    assertEquals(49, rs.getLong(1));
                }
            }
        }
        try (Connection a = DriverManager.getConnection(pgUrl, p); Connection b = DriverManager.getConnection(pgUrl, p)) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                sa.executeQuery("SELECT n FROM pg_cluster WHERE id = 1").close();
                sb.executeQuery("SELECT n FROM pg_cluster WHERE id = 1").close();
                sa.executeUpdate("UPDATE pg_cluster SET n = n + 1 WHERE id = 1");
                sb.executeUpdate("UPDATE pg_cluster SET n = n + 10 WHERE id = 1");
                a.commit();
                assertEquals("40001", org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, b::commit)
                        .getSQLState());
            }
        }
    }

    @Test
    void txnServersModeServesSqlOverTxnServersStartedElsewhere() throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-txn-servers-test");
        final List<JavaProcess> started = new ArrayList<>();
        try {
            final JavaProcess log = JavaProcess.start("log-server", LOG_READY, "io.meldb.log.server.LogServerMain",
                    "--port", "0", "--metrics-port", "-1", "--data-dir", dataDir.resolve("log").toString());
            started.add(log);
            final List<String> txnServers = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                final JavaProcess txn = JavaProcess.start("txn-server-" + i, TXN_READY, "io.meldb.txn.TxnServerMain",
                        "--server-id", String.valueOf(i), "--log", log.address(), "--port", "0",
                        "--metrics-port", "-1");
                started.add(txn);
                txnServers.add(txn.address());
            }
            try (GatewayProcess meldb = GatewayProcess.start("--port", "0", "--txn-servers",
                    String.join(",", txnServers))) {
                assertTrue(meldb.output().contains("over 2 txn-server(s)"), meldb.output());
                exerciseSqlAcrossServers(meldb.meldUrl(), meldb.url());
            }
            // one gateway per txn-server, both inserting into a table keyed by a sequence
            try (GatewayProcess a = GatewayProcess.start("--port", "0", "--txn-servers", txnServers.get(0));
                 GatewayProcess b = GatewayProcess.start("--port", "0", "--txn-servers", txnServers.get(1))) {
                insertThroughOneSequenceFromTwoServers(a.pgJdbcUrl(), b.pgJdbcUrl());
                raceForOneUniqueValueFromTwoServers(a.pgJdbcUrl(), b.pgJdbcUrl());
                raceAChildInsertAgainstItsParentsDeleteFromTwoServers(a.pgJdbcUrl(), b.pgJdbcUrl());
            }
        } finally {
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).close();
            }
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    /**
     * A BIGSERIAL table filled at once through two gateways, each over its own txn-server: every insert commits
     * (the sequence is no hot key: each gateway reserves ranges of its own in small transactions) and no value is
     * handed out twice.
     */
    private static void insertThroughOneSequenceFromTwoServers(final String urlA, final String urlB)
            throws Exception {
        final java.util.Properties p = new java.util.Properties();
        p.setProperty("user", "cluster");
        try (Connection c = DriverManager.getConnection(urlA, p); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cluster_seq (id BIGSERIAL PRIMARY KEY, gateway INTEGER NOT NULL)");
        }
        // the second gateway learns of the table through its own txn-server
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Connection c = DriverManager.getConnection(urlB, p); Statement s = c.createStatement()) {
                s.executeQuery("SELECT COUNT(*) FROM cluster_seq").close();
                break;
            } catch (SQLException e) {
                if (!"42P01".equals(e.getSQLState()) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
        final int perGateway = 150;
        final List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<Thread> threads = new ArrayList<>();
        final String[] urls = {urlA, urlB};
        for (int g = 0; g < urls.length; g++) {
            final int gateway = g;
            final Thread t = new Thread(() -> {
                try (Connection c = DriverManager.getConnection(urls[gateway], p);
                     PreparedStatement ins = c.prepareStatement("INSERT INTO cluster_seq (gateway) VALUES (?)")) {
                    for (int i = 0; i < perGateway; i++) {
                        ins.setInt(1, gateway);
                        ins.executeUpdate();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of(), errors, "every insert committed: no 40001 over the sequence");
        try (Connection c = DriverManager.getConnection(urlA, p); Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery("SELECT COUNT(*), COUNT(DISTINCT id), COUNT(DISTINCT gateway) "
                     + "FROM cluster_seq")) {
            assertTrue(r.next());
            assertEquals(2L * perGateway, r.getLong(1));
            assertEquals(2L * perGateway, r.getLong(2), "no id handed out twice");
            assertEquals(2, r.getLong(3));
        }
    }

    /**
     * Two transactions, each open on its own gateway and txn-server, insert the same value of a UNIQUE column under
     * different primary keys: neither sees the other, both write the same unique-index key, so meld lets exactly the
     * first to commit through and aborts the other with 40001.
     */
    private static void raceForOneUniqueValueFromTwoServers(final String urlA, final String urlB) throws Exception {
        final java.util.Properties p = new java.util.Properties();
        p.setProperty("user", "cluster");
        try (Connection c = DriverManager.getConnection(urlA, p); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cluster_unique (id INTEGER PRIMARY KEY, code VARCHAR(10) UNIQUE)");
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection a = DriverManager.getConnection(urlA, p); Connection b = DriverManager.getConnection(urlB, p);
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            sa.executeUpdate("INSERT INTO cluster_unique VALUES (1, 'same')");
            while (true) { // the second gateway learns of the table through its own txn-server
                try {
                    sb.executeUpdate("INSERT INTO cluster_unique VALUES (2, 'same')");
                    break;
                } catch (SQLException e) {
                    b.rollback();
                    if (!"42P01".equals(e.getSQLState()) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(50);
                }
            }
            a.commit();
            assertEquals("40001", assertThrows(SQLException.class, b::commit).getSQLState());
        }
        awaitAnswer(urlB, p, "SELECT id FROM cluster_unique WHERE code = 'same'", "1");
    }

    /**
     * Under snapshot isolation (REPEATABLE READ), a transaction on one gateway and txn-server inserts a child of
     * parent 1 while one on the other deletes parent 1: neither sees the other, both statements succeed, and the
     * dependencies each declares over the RPC (DEPEND) make meld abort the second to commit, so no orphan remains.
     */
    private static void raceAChildInsertAgainstItsParentsDeleteFromTwoServers(final String urlA, final String urlB)
            throws Exception {
        final java.util.Properties p = new java.util.Properties();
        p.setProperty("user", "cluster");
        try (Connection c = DriverManager.getConnection(urlA, p); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cluster_parent (id INTEGER PRIMARY KEY, name VARCHAR(10))");
            s.execute("CREATE TABLE cluster_child (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES cluster_parent)");
            s.executeUpdate("INSERT INTO cluster_parent VALUES (1, 'p')");
        }
        awaitAnswer(urlB, p, "SELECT name FROM cluster_parent WHERE id = 1", "p");
        try (Connection a = DriverManager.getConnection(urlA, p); Connection b = DriverManager.getConnection(urlB, p);
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            a.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            b.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            assertEquals(1, sa.executeUpdate("INSERT INTO cluster_child VALUES (10, 1)"));
            assertEquals(1, sb.executeUpdate("DELETE FROM cluster_parent WHERE id = 1"));
            b.commit();
            assertEquals("40001", assertThrows(SQLException.class, a::commit).getSQLState());
        }
        awaitAnswer(urlA, p, "SELECT COUNT(*) FROM cluster_child", "0");
    }

    private static void awaitAnswer(final String url, final java.util.Properties p, final String sql,
                                    final String expected) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Connection c = DriverManager.getConnection(url, p); Statement s = c.createStatement();
                 java.sql.ResultSet r = s.executeQuery(sql)) {
                final String got = r.next() ? r.getString(1) : null;
                if (expected.equals(got)) {
                    assertFalse(r.next(), "one row");
                    return;
                }
                if (System.nanoTime() > deadline) {
                    assertEquals(expected, got, sql);
                }
            }
            Thread.sleep(50);
        }
    }

    @Test
    void txnServersModeRejectsAnUnreachableTxnServerWithAClearMessage() throws Exception {
        final int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        final java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> GatewayProcess.start("--port", "0", "--txn-servers", "127.0.0.1:" + port).close());
        assertTrue(e.getMessage().contains("meldb: ") && e.getMessage().contains("127.0.0.1:" + port),
                e.getMessage());
        assertFalse(e.getMessage().contains("\tat "), "a stack trace instead of a message: " + e.getMessage());
    }

    /** DDL, writes, queries and a serialization failure through a gateway over two txn-servers. */
    private static void exerciseSqlAcrossServers(final String meldUrl, final String avaticaUrl) throws Exception {
        try (Connection c = DriverManager.getConnection(meldUrl); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, qty BIGINT)");
            // the table is known on every txn-server right after its DDL committed
            assertAllReadersSee(meldUrl, "SELECT COUNT(*) FROM item", "0");
            s.execute("CREATE INDEX item_name ON item (name)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO item VALUES (?, ?, ?)")) {
                for (int i = 1; i <= 10; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "name" + (i % 4));
                    ps.setLong(3, 10);
                    ps.executeUpdate();
                    // autocommit inserts alternate between the servers; each is visible to the next queries
                    assertEquals(List.of(String.valueOf(i)), column(s.executeQuery("SELECT COUNT(*) FROM item")));
                    assertEquals(List.of(String.valueOf(i)), column(s.executeQuery("SELECT COUNT(*) FROM item")));
                }
            }
            c.setAutoCommit(false);
            s.executeUpdate("UPDATE item SET qty = qty - 5 WHERE id = 1");
            s.executeUpdate("UPDATE item SET qty = qty + 5 WHERE id = 2");
            s.executeUpdate("INSERT INTO item VALUES (11, 'name1', 0)");
            c.commit();
            c.setAutoCommit(true);
        }
        assertAllReadersSee(meldUrl, "SELECT COUNT(*), SUM(qty) FROM item", "11:100");
        assertAllReadersSee(avaticaUrl, "SELECT COUNT(*), SUM(qty) FROM item", "11:100");
        assertAllReadersSee(meldUrl, "SELECT COUNT(*) FROM item WHERE name = 'name1'", "4");

        // two serializable transactions read and write item 3: the second to commit is aborted by meld
        try (Connection c1 = DriverManager.getConnection(meldUrl); Connection c2 = DriverManager.getConnection(meldUrl);
             Statement s1 = c1.createStatement(); Statement s2 = c2.createStatement()) {
            for (Connection c : List.of(c1, c2)) {
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                c.setAutoCommit(false);
            }
            assertEquals(List.of("10"), column(s1.executeQuery("SELECT qty FROM item WHERE id = 3")));
            assertEquals(List.of("10"), column(s2.executeQuery("SELECT qty FROM item WHERE id = 3")));
            s1.executeUpdate("UPDATE item SET qty = 11 WHERE id = 3");
            s2.executeUpdate("UPDATE item SET qty = 12 WHERE id = 3");
            c1.commit();
            final SQLException e = assertThrows(SQLException.class, c2::commit);
            assertEquals("40001", e.getSQLState());
            assertEquals(0, e.getErrorCode());
            assertInstanceOf(SQLTransactionRollbackException.class, e);
            // the retry reads the first transaction's write, wherever it runs
            assertEquals(List.of("11"), column(s2.executeQuery("SELECT qty FROM item WHERE id = 3")));
            s2.executeUpdate("UPDATE item SET qty = 13 WHERE id = 3");
            c2.commit();
        }
        assertAllReadersSee(meldUrl, "SELECT qty FROM item WHERE id = 3", "13");
        try (Connection c = DriverManager.getConnection(meldUrl); Statement s = c.createStatement()) {
            assertEquals("42P01", assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM missing")).getSQLState());
            s.execute("DROP TABLE item");
        }
        try (Connection c = DriverManager.getConnection(meldUrl); Statement s = c.createStatement()) {
            for (int i = 0; i < READERS; i++) {
                assertEquals("42P01", assertThrows(SQLException.class,
                        () -> s.executeQuery("SELECT * FROM item")).getSQLState());
            }
        }
    }

    /** Each of {@link #READERS} fresh connections, right away, gets {@code expected} as the one row of {@code sql}. */
    private static void assertAllReadersSee(final String url, final String sql, final String expected)
            throws SQLException {
        for (int i = 0; i < READERS; i++) {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                assertEquals(List.of(expected), column(s.executeQuery(sql)), "reader " + i + ": " + sql);
            }
        }
    }
}
