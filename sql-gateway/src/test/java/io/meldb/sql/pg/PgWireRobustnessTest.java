package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input on the PostgreSQL port gets a clear error and never stops the server: garbage, a message larger
 * than the limit, an unknown message type, an SSLRequest (answered 'N'); SCRAM refuses a wrong password. After
 * each, a real client still connects and works.
 */
@Timeout(60)
class PgWireRobustnessTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void shouldAnswerGarbageWithAFatalErrorAndGoOnServing() throws Exception {
        final Random random = new Random(7);
        for (int i = 0; i < 20; i++) {
            final byte[] junk = new byte[1 + random.nextInt(200)];
            random.nextBytes(junk);
            try (Socket s = socket()) {
                s.setSoTimeout(300);
                s.getOutputStream().write(junk);
                s.getOutputStream().flush();
                drain(s); // an error or a close, never a hang (the test's timeout) or a dead server
            }
        }
        assertServerWorks();
    }

    @Test
    void shouldRefuseAMessageOverTheSizeLimitWith54000() throws Exception {
        try (Socket s = socket()) {
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            startup(out);
            final DataInputStream in = new DataInputStream(s.getInputStream());
            readUntilReady(in);
            out.writeByte('Q');
            out.writeInt(Integer.MAX_VALUE); // announces 2 GB
            out.flush();
            assertEquals("54000", errorCode(in));
        }
        assertServerWorks();
    }

    @Test
    void shouldAnswerAnUnknownMessageTypeWithAProtocolErrorAndKeepTheSession() throws Exception {
        try (Socket s = socket()) {
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            startup(out);
            final DataInputStream in = new DataInputStream(s.getInputStream());
            readUntilReady(in);
            out.writeByte('!');
            out.writeInt(4);
            out.writeByte('S'); // Sync
            out.writeInt(4);
            out.flush();
            assertEquals("08P01", errorCode(in));
            readUntilReady(in);
            query(out, "SELECT 41 + 1");
            assertEquals('T', in.readByte());
        }
    }

    @Test
    void shouldAnswerAnSslRequestWithNoAndThenServePlainText() throws Exception {
        try (Socket s = socket()) {
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(8);
            out.writeInt(80_877_103);
            out.flush();
            assertEquals('N', s.getInputStream().read());
            startup(out);
            readUntilReady(new DataInputStream(s.getInputStream()));
        }
    }

    @Test
    void shouldAuthenticateWithScramAndRefuseAWrongPassword() throws Exception {
        try (var gateway = io.meldb.sql.server.Gateway.start(db.gateway.router(), "127.0.0.1", 0,
                PgServerConfig.loopback(0).withUsers(Map.of("alice", "s3cret")))) {
            final String url = gateway.pgJdbcUrl();
            final java.util.Properties good = new java.util.Properties();
            good.setProperty("user", "alice");
            good.setProperty("password", "s3cret");
            try (Connection c = java.sql.DriverManager.getConnection(url, good); Statement st = c.createStatement();
                 ResultSet r = st.executeQuery("SELECT 1")) {
                assertTrue(r.next());
            }
            final java.util.Properties bad = new java.util.Properties();
            bad.setProperty("user", "alice");
            bad.setProperty("password", "wrong");
            final SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> java.sql.DriverManager.getConnection(url, bad));
            assertEquals("28P01", e.getSQLState());
            bad.setProperty("user", "mallory");
            assertEquals("28P01", org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> java.sql.DriverManager.getConnection(url, bad)).getSQLState());
        }
    }

    @Test
    void shouldCloseAConnectionThatDoesNotFinishItsStartUpInTime() throws Exception {
        try (var gateway = io.meldb.sql.server.Gateway.start(db.gateway.router(), "127.0.0.1", 0,
                PgServerConfig.loopback(0).withStartupTimeout(java.time.Duration.ofMillis(500)));
             Socket silent = new Socket("127.0.0.1", gateway.pgPort());
             Socket halfSent = new Socket("127.0.0.1", gateway.pgPort())) {
            halfSent.getOutputStream().write(new byte[] {0, 0, 0, 40, 0, 3}); // a start-up packet cut short
            for (Socket s : new Socket[] {silent, halfSent}) {
                s.setSoTimeout(10_000);
                final DataInputStream in = new DataInputStream(s.getInputStream());
                assertEquals("57014", errorCode(in), "a FATAL error, then the close");
                assertEquals(-1, in.read());
            }
            final java.util.Properties p = new java.util.Properties();
            p.setProperty("user", "late");
            try (Connection c = java.sql.DriverManager.getConnection(gateway.pgJdbcUrl(), p);
                 Statement st = c.createStatement()) {
                Thread.sleep(800); // an open session may sit idle past the start-up timeout
                try (ResultSet r = st.executeQuery("SELECT 1")) {
                    assertTrue(r.next());
                }
            }
        }
    }

    @Test
    void shouldCloseASessionThatLeavesAMessageHalfSentButNeverAnIdleOne() throws Exception {
        try (var gateway = io.meldb.sql.server.Gateway.start(db.gateway.router(), "127.0.0.1", 0,
                PgServerConfig.loopback(0).withMessageTimeout(java.time.Duration.ofMillis(400)));
             Socket halfSent = new Socket("127.0.0.1", gateway.pgPort());
             Socket idle = new Socket("127.0.0.1", gateway.pgPort());
             Socket slow = new Socket("127.0.0.1", gateway.pgPort())) {
            for (Socket s : new Socket[] {halfSent, idle, slow}) {
                s.setSoTimeout(10_000);
                startup(new DataOutputStream(s.getOutputStream()));
                readUntilReady(new DataInputStream(s.getInputStream()));
            }
            final byte[] text = "SELECT 41 + 1".getBytes(StandardCharsets.UTF_8);
            final DataOutputStream cut = new DataOutputStream(halfSent.getOutputStream());
            cut.writeByte('Q');
            cut.writeInt(4 + text.length + 1);
            cut.write(text, 0, 6); // and nothing more
            cut.flush();
            final long start = System.nanoTime();
            final DataInputStream in = new DataInputStream(halfSent.getInputStream());
            assertEquals("08P01", errorCode(in), "a FATAL error, then the close");
            assertEquals(-1, in.read());
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "closed after the message timeout, not later");

            // bytes that keep coming, each within the timeout, are no stall, however long the whole message takes
            final DataOutputStream trickle = new DataOutputStream(slow.getOutputStream());
            trickle.writeByte('Q');
            trickle.writeInt(4 + text.length + 1);
            trickle.flush();
            for (byte b : text) {
                Thread.sleep(60);
                trickle.writeByte(b);
                trickle.flush();
            }
            trickle.writeByte(0);
            trickle.flush();
            assertEquals('T', new DataInputStream(slow.getInputStream()).readByte());

            // a session that sent whole messages may sit idle past the timeout
            Thread.sleep(800);
            query(new DataOutputStream(idle.getOutputStream()), "SELECT 41 + 1");
            assertEquals('T', new DataInputStream(idle.getInputStream()).readByte());
        }
    }

    private static Socket socket() throws IOException {
        final Socket s = new Socket("127.0.0.1", db.gateway.pgPort());
        s.setSoTimeout(10_000);
        return s;
    }

    private static void startup(final DataOutputStream out) throws IOException {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream b = new DataOutputStream(body);
        b.writeInt(196_608);
        for (String s : new String[] {"user", "raw", "database", "meldb", ""}) {
            b.write(s.getBytes(StandardCharsets.UTF_8));
            b.writeByte(0);
        }
        out.writeInt(body.size() + 4);
        out.write(body.toByteArray());
        out.flush();
    }

    private static void query(final DataOutputStream out, final String sql) throws IOException {
        final byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        out.writeByte('Q');
        out.writeInt(4 + text.length + 1);
        out.write(text);
        out.writeByte(0);
        out.flush();
    }

    private static void readUntilReady(final DataInputStream in) throws IOException {
        while (true) {
            final byte type = in.readByte();
            final byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            if (type == 'Z') {
                return;
            }
        }
    }

    /** Reads messages until an ErrorResponse; answers its SQLSTATE. */
    private static String errorCode(final DataInputStream in) throws IOException {
        while (true) {
            final byte type = in.readByte();
            final byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            if (type != 'E') {
                continue;
            }
            return PgWireClient.errorCode(body);
        }
    }

    private static void drain(final Socket s) throws IOException {
        try {
            final byte[] buf = new byte[4096];
            while (s.getInputStream().read(buf) >= 0) {
                // until the server closes
            }
        } catch (EOFException | java.net.SocketException e) {
            // closed
        } catch (java.net.SocketTimeoutException e) {
            // waiting for more of a startup packet: the client gives up, as a real one would
        }
    }

    private static void assertServerWorks() throws SQLException {
        try (Connection c = db.connectPg(); Statement st = c.createStatement();
             ResultSet r = st.executeQuery("SELECT 1")) {
            assertTrue(r.next());
        }
    }
}
