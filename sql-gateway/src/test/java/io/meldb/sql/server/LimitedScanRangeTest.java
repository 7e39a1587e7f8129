package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A serializable {@code ORDER BY key LIMIT 1} depends on the rows it read, not on the whole key range (TPC-C's
 * delivery takes a district's oldest new order this way while new-orders insert at the far end): an insert past
 * what the query read does not abort it, an insert before the row it returned (a phantom it would have seen) does.
 * For that the sort over a scan already in key order is dropped (KeyOrderedSorts) and the scan reads small first
 * batches (MeldRuntime).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LimitedScanRangeTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE queue (g INT, k INT, PRIMARY KEY (g, k))");
            s.execute("CREATE TABLE taken (g INT PRIMARY KEY, k INT)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @BeforeEach
    void reset() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM queue");
            s.executeUpdate("DELETE FROM taken");
            s.executeUpdate("INSERT INTO queue VALUES (1, 10), (1, 11), (1, 12), (1, 13), (1, 14), (2, 10)");
        }
    }

    /** T1 takes the oldest entry of group 1 while T2 inserts {@code (1, inserted)} and commits first. */
    private static String takeOldestWhileInserting(final int inserted) throws SQLException {
        try (Connection c1 = db.connect(); Connection c2 = db.connect();
             Statement t1 = c1.createStatement(); Statement t2 = c2.createStatement()) {
            c1.setAutoCommit(false);
            final List<String> oldest = column(t1.executeQuery("SELECT k FROM queue WHERE g = 1 ORDER BY k LIMIT 1"));
            assertEquals(List.of("10"), oldest);
            t1.executeUpdate("DELETE FROM queue WHERE g = 1 AND k = 10");
            t1.executeUpdate("INSERT INTO taken VALUES (1, 10)");
            t2.executeUpdate("INSERT INTO queue VALUES (1, " + inserted + ")");
            try {
                t1.execute("COMMIT");
                return "committed";
            } catch (SQLException e) {
                return e.getSQLState();
            }
        }
    }

    @Test
    void anOrderByTheKeyOverAKeyRangeNeedsNoSortButOtherOrdersKeepIt() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            final String byKey = String.join("\n", column(s.executeQuery(
                "EXPLAIN PLAN FOR SELECT k FROM queue WHERE g = 1 ORDER BY k LIMIT 1")));
            assertFalse(byKey.contains("Sort"), byKey);
            assertTrue(String.join("\n", column(s.executeQuery(
                "EXPLAIN PLAN FOR SELECT k FROM queue WHERE g = 1 ORDER BY k DESC LIMIT 1"))).contains("Sort"));
            assertTrue(String.join("\n", column(s.executeQuery(
                "EXPLAIN PLAN FOR SELECT k FROM queue ORDER BY k"))).contains("Sort"), "k alone is not the key order");
            assertEquals(List.of("10", "11"), column(s.executeQuery("SELECT k FROM queue WHERE g = 1 ORDER BY k LIMIT 2")));
            assertEquals(List.of("14"), column(s.executeQuery("SELECT k FROM queue WHERE g = 1 ORDER BY k DESC LIMIT 1")));
        }
    }

    @Test
    void anInsertPastTheRowsTheLimitedScanReadDoesNotAbortIt() throws SQLException {
        assertEquals("committed", takeOldestWhileInserting(100));
    }

    @Test
    void anInsertBeforeTheRowTheLimitedScanReturnedIsAPhantomAndAbortsIt() throws SQLException {
        assertEquals("40001", takeOldestWhileInserting(5));
    }
}
