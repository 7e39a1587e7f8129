package io.meldb.sql.conformance;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code EXPLAIN ANALYZE} over both front ends: it runs the statement (a write writes), answers the plan with the
 * rows, loops and time of every operator, says when the fast path ran it, and refuses what it cannot run; plain
 * EXPLAIN keeps answering the plan without running it.
 */
class ExplainAnalyzeTest extends ConformanceTest {
    private static final Pattern ACTUAL =
            Pattern.compile("\\(actual time=\\d+\\.\\d{3} ms rows=(\\d+) loops=(\\d+)\\)$");

    @BeforeAll
    static void createTables() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            for (String p : List.of(Conformance.PG, Conformance.MELD)) {
                s.execute("CREATE TABLE ea_" + p + " (id INT PRIMARY KEY, v INT, g INT)");
                s.execute("INSERT INTO ea_" + p + " VALUES (1, 1, 1), (2, 2, 1), (3, 3, 2), (4, 4, 2), (5, 5, 3)");
            }
        }
    }

    /** The rows the plan line that starts (after its indentation) with {@code operator} says it produced. */
    private static long rowsOf(final List<String> plan, final String operator) {
        for (String line : plan) {
            if (line.trim().startsWith(operator)) {
                final Matcher m = ACTUAL.matcher(line);
                assertTrue(m.find(), line);
                return Long.parseLong(m.group(1));
            }
        }
        throw new AssertionError("no " + operator + " in " + plan);
    }

    private static void assertTimes(final List<String> plan) {
        assertTrue(plan.get(plan.size() - 2).matches("Planning Time: \\d+\\.\\d{3} ms"), plan.toString());
        assertTrue(plan.get(plan.size() - 1).matches("Execution Time: \\d+\\.\\d{3} ms"), plan.toString());
        for (String line : plan.subList(0, plan.size() - 2)) {
            assertTrue(ACTUAL.matcher(line).find(), line);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aQueryAnswersItsPlanWithTheRowsOfEveryOperator(final String protocol) throws SQLException {
        final String t = "ea_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final List<String> plan = Conformance.rows(s, "EXPLAIN ANALYZE SELECT g, COUNT(*) FROM " + t
                    + " WHERE v > 1 GROUP BY g");
            assertTimes(plan);
            assertEquals(5, rowsOf(plan, "MeldTableScan"), plan.toString()); // v is no key: every row is read
            assertEquals(3, rowsOf(plan, "EnumerableAggregate"), plan.toString()); // groups 1, 2, 3
            assertEquals(3, rowsOf(plan, plan.get(0).trim().substring(0, 8)), plan.toString());

            final List<String> join = Conformance.rows(s, "EXPLAIN (ANALYZE, COSTS OFF) SELECT a.id, b.v FROM " + t
                    + " a JOIN " + t + " b ON a.g = b.id");
            assertTimes(join);
            assertEquals(5, rowsOf(join, join.get(0).trim().substring(0, 8)), join.toString());
            assertTrue(join.stream().anyMatch(l -> l.contains("Join")), join.toString());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aWriteUnderExplainAnalyzeWritesAndKeyAccessesSayTheFastPathRanThem(final String protocol)
            throws SQLException {
        final String t = "ea_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final List<String> insert = Conformance.rows(s, "EXPLAIN ANALYZE INSERT INTO " + t
                    + " VALUES (10, 10, 9)");
            assertTimes(insert);
            assertEquals(1, rowsOf(insert, "FastPath(Insert"), insert.toString());
            assertEquals(List.of("10:9"), Conformance.rows(s, "SELECT v, g FROM " + t + " WHERE id = 10"));

            final List<String> point = Conformance.rows(s, "EXPLAIN ANALYZE SELECT v FROM " + t + " WHERE id = 10");
            assertEquals(1, rowsOf(point, "FastPath(PointRead"), point.toString());

            final List<String> update = Conformance.rows(s, "EXPLAIN ANALYZE UPDATE " + t
                    + " SET v = v + 100 WHERE g = 9");
            assertTimes(update);
            assertEquals(1, rowsOf(update, "MeldTableModify"), update.toString()); // its one row: the count
            assertEquals(List.of("110"), Conformance.rows(s, "SELECT v FROM " + t + " WHERE id = 10"));

            final List<String> delete = Conformance.rows(s, "EXPLAIN ANALYZE DELETE FROM " + t + " WHERE v > 100");
            assertTimes(delete);
            assertEquals(List.of(), Conformance.rows(s, "SELECT v FROM " + t + " WHERE id = 10"));

            // inside a transaction the write is the transaction's: a rollback undoes it
            c.setAutoCommit(false);
            Conformance.rows(s, "EXPLAIN ANALYZE INSERT INTO " + t + " SELECT id + 100, v, g FROM " + t);
            assertEquals(List.of("10"), Conformance.rows(s, "SELECT COUNT(*) FROM " + t));
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(List.of("5"), Conformance.rows(s, "SELECT COUNT(*) FROM " + t));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void plainExplainStillPlansWithoutRunningAndBadStatementsGetTheirStates(final String protocol)
            throws SQLException {
        final String t = "ea_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final String explain = protocol.equals(Conformance.PG) ? "EXPLAIN " : "EXPLAIN PLAN FOR ";
            final List<String> plan = Conformance.rows(s, explain + "DELETE FROM " + t + " WHERE v > 4");
            assertTrue(plan.get(0).contains("MeldTableModify"), plan.toString());
            assertTrue(plan.stream().noneMatch(l -> l.contains("actual")), plan.toString());
            assertEquals(List.of("5"), Conformance.rows(s, "SELECT v FROM " + t + " WHERE id = 5")); // not run

            assertEquals("42601", Conformance.failure(s, "EXPLAIN ANALYZE CREATE TABLE ea_x (id INT)").getSQLState());
            assertEquals("0A000", Conformance.failure(s, "EXPLAIN (ANALYZE, FORMAT JSON) SELECT 1").getSQLState());
            assertEquals("42P01", Conformance.failure(s, "EXPLAIN ANALYZE SELECT * FROM ea_nosuch").getSQLState());
            assertEquals("42703", Conformance.failure(s, "EXPLAIN ANALYZE SELECT nosuch FROM " + t).getSQLState());
            assertEquals(List.of("1"), Conformance.rows(s, "SELECT 1")); // the connection goes on serving
        }
    }
}
