package io.meldb.sql.server;

import io.meldb.sql.pg.PgServerConfig;
import io.meldb.txn.EmbeddedNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the JDBC (Avatica) port requires and bounds, on a real port: users and passwords as on the PostgreSQL port,
 * short answers to junk and oversized requests, a connection limit that refuses instead of evicting, the HTTP idle
 * timeout and the idle-in-transaction timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcGuardTest {
    @TempDir
    Path dir;

    private EmbeddedNode node;
    private Gateway gateway;

    private Gateway start(final Map<String, String> users, final JdbcConfig jdbc) {
        node = EmbeddedNode.start(dir);
        gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), "127.0.0.1", 0, SqlMetrics.unexported(),
                PgServerConfig.loopback(0).withUsers(users), jdbc);
        return gateway;
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (node != null) {
            node.close();
        }
    }

    private static Properties user(final String name, final String password) {
        final Properties p = new Properties();
        p.setProperty("user", name);
        p.setProperty("password", password);
        return p;
    }

    private static int one(final Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT 1")) {
            assertTrue(r.next());
            return r.getInt(1);
        }
    }

    @Test
    void configuredUsersMustPresentTheirPasswordThroughEitherDriver() throws SQLException {
        start(Map.of("alice", "wonder land"), JdbcConfig.defaults());
        try (Connection c = DriverManager.getConnection(gateway.meldJdbcUrl(), user("alice", "wonder land"))) {
            assertEquals(1, one(c));
        }
        try (Connection c = DriverManager.getConnection(gateway.jdbcUrl()
                + ";authentication=BASIC;avatica_user=alice;avatica_password=wonder land")) {
            assertEquals(1, one(c));
        }
        final SQLException wrong = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(gateway.meldJdbcUrl(), user("alice", "guess")).close());
        assertEquals("28P01", wrong.getSQLState(), wrong.getMessage());
        final SQLException unknown = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(gateway.meldJdbcUrl(), user("mallory", "x")).close());
        assertEquals("28P01", unknown.getSQLState(), unknown.getMessage());
        final SQLException none = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(gateway.meldJdbcUrl()).close());
        assertEquals("28000", none.getSQLState(), none.getMessage());
        assertTrue(none.getMessage().contains("user and password"), none.getMessage());
    }

    @Test
    void junkAndOversizedRequestsGetShortAnswersWithoutBeingRead() throws IOException {
        start(Map.of(), JdbcConfig.defaults().withMaxRequestBytes(1 << 20));
        final HttpURLConnection junk = (HttpURLConnection) URI.create("http://127.0.0.1:" + gateway.port() + "/")
                .toURL().openConnection();
        junk.setDoOutput(true);
        junk.setRequestMethod("POST");
        try (OutputStream out = junk.getOutputStream()) {
            out.write("this is not protobuf at all \u0000\u0001\u0002".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(400, junk.getResponseCode());
        final String body = new String(junk.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(body.length() < 200 && !body.contains("Exception") && !body.contains("\tat "), body);

        // 200 MB announced: 413 once the body starts, while almost all of it has not been sent
        try (Socket s = new Socket("127.0.0.1", gateway.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Length: 209715200\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().write(new byte[64 * 1024]);
            final String answer = readSome(s.getInputStream());
            assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
            assertTrue(answer.contains("exceeds the limit of 1048576"), answer);
        }
        final HttpURLConnection get = (HttpURLConnection) URI.create("http://127.0.0.1:" + gateway.port() + "/")
                .toURL().openConnection();
        assertEquals(405, get.getResponseCode());
    }

    @Test
    void connectionsBeyondTheLimitAreRefusedAndNoLiveOneIsEvicted() throws SQLException {
        start(Map.of(), JdbcConfig.defaults().withMaxConnections(5));
        final List<Connection> open = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                open.add(DriverManager.getConnection(gateway.meldJdbcUrl()));
                assertEquals(1, one(open.get(i)));
            }
            final SQLException e = assertThrows(SQLException.class,
                    () -> one(DriverManager.getConnection(gateway.meldJdbcUrl())));
            assertEquals("53300", e.getSQLState(), e.getMessage());
            for (Connection c : open) {
                assertEquals(1, one(c), "still open");
            }
            open.remove(0).close();
            try (Connection again = DriverManager.getConnection(gateway.meldJdbcUrl())) {
                assertEquals(1, one(again), "room again once one closed");
            }
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
    }

    @Test
    void aTransactionLeftIdleIsRolledBackAndItsSlotFreed() throws Exception {
        start(Map.of(), JdbcConfig.defaults().withIdleInTransactionTimeout(Duration.ofMillis(400)));
        try (Connection c = DriverManager.getConnection(gateway.meldJdbcUrl()); Statement s = c.createStatement()) {
            s.executeUpdate("CREATE TABLE idle_t (id INT PRIMARY KEY, v INT)");
            c.setAutoCommit(false);
            s.executeUpdate("INSERT INTO idle_t VALUES (1, 1)");
            assertEquals(1, node.txnService().status().inFlight(), "the open transaction holds a slot");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (node.txnService().status().inFlight() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, node.txnService().status().inFlight(), "rolled back, the slot is free");
            final SQLException e = assertThrows(SQLException.class, c::commit);
            assertEquals("25P03", e.getSQLState(), e.getMessage());
        }
        try (Connection c = DriverManager.getConnection(gateway.meldJdbcUrl()); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM idle_t")) {
            assertTrue(r.next());
            assertEquals(0, r.getInt(1), "nothing of the idle transaction was committed");
        }
    }

    @Test
    void aHalfSentHttpRequestIsClosedByTheIdleTimeout() throws IOException {
        start(Map.of(), JdbcConfig.defaults().withIdleTimeout(Duration.ofMillis(500)));
        try (Socket s = new Socket("127.0.0.1", gateway.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("POST / HTTP/1.1\r\nHost: x\r\nContent-Le".getBytes(StandardCharsets.US_ASCII));
            final long start = System.nanoTime();
            readSome(s.getInputStream());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(8), "closed by the 0.5 s idle timeout");
        }
    }

    @Test
    void aBodyWithoutContentLengthGets411WithoutBeingRead() throws IOException {
        start(Map.of(), JdbcConfig.defaults());
        try (Socket s = new Socket("127.0.0.1", gateway.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n").getBytes(StandardCharsets.US_ASCII));
            final String answer = readSome(s.getInputStream());
            assertTrue(answer.startsWith("HTTP/1.1 411"), answer);
            assertTrue(answer.contains("Content-Length"), answer);
        }
    }

    @Test
    void meldDbsDriverGoesOnAfterTheIdleTimeoutClosedItsKeptAliveConnection() throws Exception {
        start(Map.of(), JdbcConfig.defaults().withIdleTimeout(Duration.ofMillis(300)));
        try (Connection c = DriverManager.getConnection(gateway.meldJdbcUrl())) {
            assertEquals(1, one(c));
            Thread.sleep(1_000); // the gateway closes the idle HTTP connection meanwhile
            assertEquals(1, one(c));
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept (id INT PRIMARY KEY, v INT)");
            }
            c.commit();
            Thread.sleep(1_000);
            try (Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("INSERT INTO kept VALUES (1, 2)"));
            }
            c.commit();
        }
    }

    /** What the server sends until it closes the connection or stops for a moment. */
    private static String readSome(final InputStream in) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] b = new byte[4096];
        try {
            for (int n; (n = in.read(b)) >= 0; ) {
                out.write(b, 0, n);
                if (out.toString(StandardCharsets.UTF_8).contains("\r\n\r\n") && in.available() == 0) {
                    Thread.sleep(100);
                    if (in.available() == 0) {
                        break;
                    }
                }
            }
        } catch (java.net.SocketException e) {
            // reset after the answer: closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void withoutUsersOnlyLoopbackIsTrustedAndItStillWorks() throws SQLException {
        start(Map.of(), JdbcConfig.defaults());
        try (Connection c = DriverManager.getConnection(gateway.meldJdbcUrl())) {
            assertEquals(1, one(c));
            assertFalse(c.isClosed());
        }
    }
}
