package io.meldb.sql.pg;

import io.meldb.sql.server.Cancelling;
import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Statements that would run for minutes stop: at statement_timeout, at a CancelRequest (pgjdbc's
 * Statement.cancel), and the connection goes on serving.
 */
@Timeout(120)
class PgCancelTest {
    /** A cross join of three copies of this many rows runs far longer than any test waits. */
    private static final int ROWS = 1000;
    private static final String SLOW = "SELECT COUNT(*) FROM BIG a, BIG b, BIG c WHERE a.v + b.v + c.v = -1";
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg()) {
            c.createStatement().execute("CREATE TABLE BIG (id INTEGER PRIMARY KEY, v INTEGER)");
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO BIG VALUES (?, ?)")) {
                for (int i = 0; i < ROWS; i++) {
                    p.setInt(1, i);
                    p.setInt(2, i);
                    p.addBatch();
                }
                p.executeBatch();
            }
            c.commit();
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void shouldStopAStatementAtItsTimeoutAndServeTheNext() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = '300ms'");
            final long start = System.nanoTime();
            final SQLException e = assertThrows(SQLException.class, () -> s.executeQuery(SLOW));
            assertEquals("57014", e.getSQLState());
            assertTrue(e.getMessage().contains("statement timeout"), e.getMessage());
            assertTrue(System.nanoTime() - start < 20_000_000_000L, "stopped promptly");
            s.execute("SET statement_timeout = 0");
            try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM BIG")) {
                assertTrue(r.next());
                assertEquals(ROWS, r.getLong(1));
            }
        }
    }

    @Test
    void shouldEndASessionThatSitsIdleInATransactionBlockAndFreeWhatItHeld() throws Exception {
        final Connection c = db.connectPg();
        try (Statement s = c.createStatement()) {
            s.execute("SET idle_in_transaction_session_timeout = '300ms'");
            c.setAutoCommit(false);
            s.executeUpdate("UPDATE BIG SET v = v + 1 WHERE id = 1");
            Thread.sleep(1500);
            final SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT 1"));
            assertTrue(e.getSQLState().equals("25P03") || e.getSQLState().startsWith("08"), e.getSQLState());
        } finally {
            c.close();
        }
        try (Connection other = db.connectPg(); Statement s = other.createStatement();
             ResultSet r = s.executeQuery("SELECT v FROM BIG WHERE id = 1")) {
            assertTrue(r.next());
            assertEquals(1, r.getInt(1), "the idle transaction's update was rolled back");
        }
        try (Connection idleOutside = db.connectPg(); Statement s = idleOutside.createStatement()) {
            s.execute("SET idle_in_transaction_session_timeout = '200ms'");
            Thread.sleep(600); // idle, but not in a transaction block: the session stays
            try (ResultSet r = s.executeQuery("SELECT 1")) {
                assertTrue(r.next());
            }
        }
    }

    @Test
    void shouldCancelARunningStatementOnACancelRequest() throws Exception {
        try (Connection c = db.connectPg(); PreparedStatement p = c.prepareStatement(SLOW)) {
            final Thread canceller = Cancelling.after(p, 500);
            final SQLException e = assertThrows(SQLException.class, p::executeQuery);
            Cancelling.stop(canceller);
            assertEquals("57014", e.getSQLState());
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT v FROM BIG WHERE id = 7")) {
                assertTrue(r.next());
                assertEquals(7, r.getInt(1));
            }
            // the cancelled statement runs again from the start: only its timeout stops it this time
            try (Statement s = c.createStatement()) {
                s.execute("SET statement_timeout = '300ms'");
            }
            final SQLException again = assertThrows(SQLException.class, p::executeQuery);
            assertTrue(again.getMessage().contains("statement timeout"), again.getMessage());
        }
    }
}
