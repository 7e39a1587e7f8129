package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queries that cannot take the database down: a cartesian product that would keep millions of rows fails with
 * 53200 at the statement's memory budget, one that would run for hours stops at its timeout (57014) or when its
 * client goes away, and the database goes on serving and committing afterwards.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class QuerySafetyTest {
    private static final int ROWS = 1000;
    /** A million rows to sort. */
    private static final String SORTED_PRODUCT = "SELECT a.id, b.id, a.v + b.v FROM safe a, safe b ORDER BY 3, 1, 2";
    /** A billion combinations, none matching: runs far longer than any test waits. */
    private static final String ENDLESS = "SELECT COUNT(*) FROM safe a, safe b, safe c WHERE a.v + b.v + c.v = -1";
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE safe (id INT PRIMARY KEY, v INT, note VARCHAR(20))");
            final StringBuilder insert = new StringBuilder("INSERT INTO safe VALUES ");
            for (int i = 0; i < ROWS; i++) {
                insert.append(i == 0 ? "" : ", ").append('(').append(i).append(", ").append(i).append(", 'n")
                        .append(i).append("')");
            }
            s.execute(insert.toString());
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    /** The database still commits and reads its commit. */
    private static void assertStillCommits(final int id) throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO safe VALUES (" + id + ", -5, 'after')");
            try (ResultSet r = s.executeQuery("SELECT note FROM safe WHERE id = " + id)) {
                assertTrue(r.next());
                assertEquals("after", r.getString(1));
            }
            s.execute("DELETE FROM safe WHERE id = " + id);
        }
    }

    @Test
    void shouldStopASortOfACartesianProductAtTheMemoryBudgetWith53200OverPostgres() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("SET meldb.statement_memory = '16MB'");
            try (ResultSet r = s.executeQuery("SHOW meldb.statement_memory")) {
                assertTrue(r.next());
                assertEquals("16MB", r.getString(1));
            }
            final SQLException e = assertThrows(SQLException.class, () -> s.executeQuery(SORTED_PRODUCT).next());
            assertEquals("53200", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("memory budget"), e.getMessage());
            assertEquals("22023", assertThrows(SQLException.class,
                    () -> s.execute("SET meldb.statement_memory = 'lots'")).getSQLState());
            // the budget leaves ordinary statements alone
            try (ResultSet r = s.executeQuery("SELECT id FROM safe ORDER BY v DESC LIMIT 1")) {
                assertTrue(r.next());
                assertEquals(ROWS - 1, r.getInt(1));
            }
        }
        assertStillCommits(-1);
    }

    @Test
    void shouldStopASortOfACartesianProductAtTheMemoryBudgetWith53200OverAvatica() throws SQLException {
        final Properties p = new Properties();
        p.setProperty("meldb.statement_memory", "16MB");
        try (Connection c = DriverManager.getConnection(db.gateway.jdbcUrl(), p); Statement s = c.createStatement()) {
            final SQLException e = assertThrows(SQLException.class, () -> {
                try (ResultSet r = s.executeQuery(SORTED_PRODUCT)) {
                    while (r.next()) {
                        r.getInt(1);
                    }
                }
            });
            assertEquals("53200", e.getSQLState(), e.getMessage());
        }
        assertStillCommits(-2);
    }

    @Test
    void shouldStopACartesianProductAtItsTimeoutAndKeepCommitting() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = '500ms'");
            final long start = System.nanoTime();
            final SQLException e = assertThrows(SQLException.class, () -> s.executeQuery(ENDLESS));
            assertEquals("57014", e.getSQLState());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "stopped promptly");
        }
        assertStillCommits(-3);
    }

    @Test
    void shouldStopTheStatementOfAClientThatDisconnected() throws Exception {
        final double errorsBefore = db.metrics.registry().get("meldb.sql.statement.errors").tag("kind", "READ")
                .counter().count();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", db.gateway.pgPort()), 5000);
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final byte[] params = "user\0test\0database\0meldb\0\0".getBytes(StandardCharsets.UTF_8);
            out.writeInt(8 + params.length);
            out.writeInt(196_608);
            out.write(params);
            out.flush();
            awaitReadyForQuery(in);
            final byte[] sql = (ENDLESS + "\0").getBytes(StandardCharsets.UTF_8);
            out.writeByte('Q');
            out.writeInt(4 + sql.length);
            out.write(sql);
            out.flush();
            awaitRowsRead(db.metrics.rowsRead() + 10_000);
        } // the client goes away mid-query
        // the statement stops: it fails (counted as an error) and reads no more rows
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (db.metrics.registry().get("meldb.sql.statement.errors").tag("kind", "READ").counter().count()
                <= errorsBefore) {
            assertTrue(System.nanoTime() < deadline, "the statement of the gone client still runs");
            Thread.sleep(50);
        }
        final double read = db.metrics.rowsRead();
        Thread.sleep(500);
        assertEquals(read, db.metrics.rowsRead(), "no rows read after the statement stopped");
        assertStillCommits(-4);
    }

    @Test
    void shouldCancelAPreparedCartesianProductAndServeTheConnectionAfterwards() throws Exception {
        try (Connection c = db.connectPg(); PreparedStatement p = c.prepareStatement(ENDLESS)) {
            final Thread canceller = Cancelling.after(p, 500);
            assertEquals("57014", assertThrows(SQLException.class, p::executeQuery).getSQLState());
            Cancelling.stop(canceller);
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM safe")) {
                assertTrue(r.next());
            }
        }
    }

    @Test
    void shouldStopAStatementAtItsJdbcQueryTimeoutThroughMeldDbsDriver() throws SQLException {
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl()); Statement s = c.createStatement()) {
            s.setQueryTimeout(1);
            final long start = System.nanoTime();
            final SQLException e = assertThrows(SQLException.class, () -> s.executeQuery(ENDLESS).next());
            assertTrue(e instanceof java.sql.SQLTimeoutException, e.toString());
            assertEquals("57014", e.getSQLState());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "stopped promptly");
            s.setQueryTimeout(0);
            try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM safe WHERE id >= 0")) {
                assertTrue(r.next());
                assertEquals(ROWS, r.getInt(1));
            }
        }
        assertStillCommits(-5);
    }

    @Test
    void shouldCancelAStatementThroughMeldDbsDriver() throws Exception {
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl());
             PreparedStatement p = c.prepareStatement(ENDLESS)) {
            final Thread canceller = Cancelling.after(p, 1000);
            final SQLException e = assertThrows(SQLException.class, () -> p.executeQuery().next());
            Cancelling.stop(canceller);
            assertEquals("57014", e.getSQLState(), e.getMessage());
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT note FROM safe WHERE id = 3")) {
                assertTrue(r.next());
                assertEquals("n3", r.getString(1));
            }
        }
    }

    private static void awaitRowsRead(final double atLeast) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (db.metrics.rowsRead() < atLeast) {
            assertTrue(System.nanoTime() < deadline, "the query never started reading");
            Thread.sleep(20);
        }
    }

    private static void awaitReadyForQuery(final DataInputStream in) throws IOException {
        while (true) {
            final int type = in.readUnsignedByte();
            final int length = in.readInt();
            in.readNBytes(length - 4);
            if (type == 'Z') {
                return;
            }
            assertTrue(type != 'E', "the server refused the start-up");
        }
    }
}
