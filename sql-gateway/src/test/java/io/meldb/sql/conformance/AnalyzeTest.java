package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ANALYZE} over both front ends: it counts a table's rows, and the planner's row estimate of a scan of the
 * table is that count from then on (Calcite's EXPLAIN with all attributes shows it); PostgreSQL's forms are
 * accepted, an unknown table is 42P01.
 */
class AnalyzeTest extends ConformanceTest {
    private static String scanEstimate(final Statement s, final String table) throws SQLException {
        final String plan = String.join("\n", Conformance.rows(s, "EXPLAIN PLAN INCLUDING ALL ATTRIBUTES FOR "
                + "SELECT * FROM " + table + " WHERE v > 0"));
        for (String line : plan.split("\n")) {
            if (line.contains("MeldTableScan")) {
                return line.replaceAll(".*rowcount = ([0-9.E]+),.*", "$1");
            }
        }
        throw new AssertionError("no scan in the plan");
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void analyzeCountsTheRowsThePlannerThenEstimatesWith(final String protocol) throws SQLException {
        final String t = "an_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, v INT)");
            s.execute("CREATE TABLE " + t + "_nokey (v INT)");
            final StringBuilder insert = new StringBuilder("INSERT INTO " + t + " VALUES ");
            for (int i = 1; i <= 37; i++) {
                insert.append(i == 1 ? "" : ", ").append('(').append(i).append(", ").append(i).append(')');
            }
            s.execute(insert.toString());
            s.execute("INSERT INTO " + t + "_nokey VALUES (1), (2), (3)");
            assertEquals("10000.0", scanEstimate(s, t)); // never analyzed: the default
            s.execute("ANALYZE " + t);
            assertEquals("37.0", scanEstimate(s, t + " AS x")); // a new text: the session keeps plans by text
            s.execute("ANALYSE VERBOSE public." + t + "_nokey (v)");
            assertEquals("3.0", scanEstimate(s, t + "_nokey"));
            s.execute("DELETE FROM " + t + " WHERE id > 10");
            s.execute("ANALYZE");
            assertEquals("10.0", scanEstimate(s, t + " AS y"));
            s.execute("ANALYZE (VERBOSE) " + t + ", " + t + "_nokey;");
            assertEquals(List.of("10"), Conformance.rows(s, "SELECT COUNT(*) FROM " + t)); // nothing else changed

            final SQLException unknown = Conformance.failure(s, "ANALYZE an_nosuch");
            assertEquals("42P01", unknown.getSQLState(), unknown.getMessage());
            final SQLException bad = Conformance.failure(s, "ANALYZE " + t + " " + t);
            assertEquals("42601", bad.getSQLState(), bad.getMessage());
            assertTrue(Conformance.rows(s, "SELECT 1").size() == 1);
        }
    }
}
