package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No input answers XX000: deep nesting gets an answer or 54001, long IN lists and many-row VALUES work, and
 * Unicode literals round-trip, over the PostgreSQL protocol and Avatica's JDBC alike.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class InputLimitsTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE lim (id INT PRIMARY KEY, v INT, txt VARCHAR(40))");
            s.execute("INSERT INTO lim VALUES " + IntStream.range(0, 1000)
                    .mapToObj(i -> "(" + i + ", " + i % 10 + ", 'row " + i + "')").collect(Collectors.joining(", ")));
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    /** Runs {@code sql} over both front ends and answers the first column of the first row, or the SQLSTATE. */
    private static String[] both(final String sql) throws SQLException {
        final String[] out = new String[2];
        final Connection[] connections = {db.connectPg(), db.connect()};
        for (int i = 0; i < 2; i++) {
            try (Connection c = connections[i]; Statement s = c.createStatement()) {
                try (ResultSet r = s.executeQuery(sql)) {
                    assertTrue(r.next());
                    out[i] = r.getString(1);
                } catch (SQLException e) {
                    out[i] = "SQLSTATE " + e.getSQLState();
                }
                // the connection serves the next statement
                try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM lim WHERE id BETWEEN 0 AND 999")) {
                    assertTrue(r.next());
                    assertEquals(1000, r.getInt(1));
                }
            }
        }
        return out;
    }

    private static void assertAnswerOr54001(final String expected, final String sql) throws SQLException {
        for (String got : both(sql)) {
            final String value = got.equals("true") ? "t" : got; // PostgreSQL's text form of a boolean
            assertTrue(value.equals(expected) || got.equals("SQLSTATE 54001"), got);
        }
    }

    @Test
    void shouldAnswerDeeplyNestedExpressionsOrRefuseThemWith54001() throws SQLException {
        assertAnswerOr54001("t", "SELECT " + "NOT ".repeat(500) + "TRUE");
        assertAnswerOr54001("t", "SELECT " + "NOT (".repeat(500) + "TRUE" + ")".repeat(500));
        assertAnswerOr54001("5001", "SELECT " + "1 + ".repeat(5000) + "1");
        assertAnswerOr54001("1", "SELECT " + "(".repeat(2000) + "1" + ")".repeat(2000));
        assertAnswerOr54001("0", "SELECT COUNT(*) FROM lim WHERE " + IntStream.range(0, 3000)
                .mapToObj(i -> "(v = " + i + " AND id < 0)").collect(Collectors.joining(" OR ")));
    }

    @Test
    void shouldAnswerInListsOfTwentyThousandValues() throws SQLException {
        final IntFunction<String> list = n -> IntStream.range(0, n).mapToObj(Integer::toString)
                .collect(Collectors.joining(", "));
        for (String got : both("SELECT COUNT(*) FROM lim WHERE id IN (" + list.apply(20_000) + ")")) {
            assertEquals("1000", got);
        }
        for (String got : both("SELECT COUNT(*) FROM lim WHERE v IN (" + list.apply(20_000) + ")")) {
            assertEquals("1000", got);
        }
        for (String got : both("SELECT COUNT(*) FROM lim WHERE id NOT IN (" + list.apply(20_000) + ")")) {
            assertEquals("0", got);
        }
        for (String got : both("SELECT 3 IN (" + list.apply(20_000) + ")")) {
            assertTrue(got.equals("t") || got.equals("true"), got);
        }
    }

    @Test
    void shouldRunAndInsertFiveThousandRowValues() throws SQLException {
        final String values = IntStream.range(0, 5000)
                .mapToObj(i -> "(" + (10_000 + i) + ", " + i + ", 'v" + i + " €')").collect(Collectors.joining(", "));
        for (String got : both("SELECT COUNT(*), SUM(b) FROM (VALUES " + values + ") AS x(a, b, c)")) {
            assertEquals("5000", got);
        }
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            assertEquals(5000, s.executeUpdate("INSERT INTO lim VALUES " + values));
            try (ResultSet r = s.executeQuery("SELECT txt FROM lim WHERE id = 14999")) {
                assertTrue(r.next());
                assertEquals("v4999 €", r.getString(1));
            }
            assertEquals(5000, s.executeUpdate("DELETE FROM lim WHERE id >= 10000"));
        }
    }

    @Test
    void shouldRoundTripUnicodeLiterals() throws SQLException {
        final String text = "€ ü 日本 \uD83D\uDE00";
        for (String got : both("SELECT '" + text + "'")) {
            assertEquals(text, got);
        }
        for (String got : both("SELECT CHAR_LENGTH('" + text + "')")) {
            assertNotEquals(null, got);
            assertTrue(got.equals("9") || got.equals("10"), got); // 9 code points (10 UTF-16 units)
        }
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO lim VALUES (-1, 0, '" + text + "')");
        }
        for (String got : both("SELECT txt FROM lim WHERE txt = '" + text + "'")) {
            assertEquals(text, got);
        }
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM lim WHERE id = -1");
        }
    }
}
