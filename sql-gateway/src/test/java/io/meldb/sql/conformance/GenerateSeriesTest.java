package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code generate_series} in FROM as PostgreSQL answers it, over both front ends: the column named after the
 * function or the FROM item's alias, steps up and down, empty series, joins, test data loaded with
 * {@code INSERT ... SELECT}, parameters, and 22023 for a zero step.
 */
class GenerateSeriesTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldCountFromStartToStopByStepNamingTheColumnAsPostgresqlDoes(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1", "2", "3"), rows(s, "SELECT * FROM generate_series(1, 3)"));
            assertEquals(List.of("1", "2", "3"), rows(s, "SELECT generate_series FROM generate_series(1, 3)"));
            assertEquals(List.of("10", "7", "4", "1"), rows(s, "SELECT g FROM generate_series(10, 0, -3) g"));
            assertEquals(List.of("0", "5", "10"), rows(s, "SELECT n FROM generate_series(0, 10, 5) AS t(n)"));
            assertEquals(List.of(), rows(s, "SELECT * FROM generate_series(5, 1)"));
            assertEquals(List.of("500500"), rows(s, "SELECT SUM(x) FROM GENERATE_SERIES(1, 1000) AS x"));
            assertEquals(List.of("1:a", "1:b", "2:a", "2:b"), rows(s, "SELECT i, l FROM generate_series(1, 2) i "
                    + "CROSS JOIN (VALUES ('a'), ('b')) AS v(l) ORDER BY i, l"));
            assertEquals(List.of("9223372036854775806", "9223372036854775807"),
                    rows(s, "SELECT * FROM generate_series(9223372036854775806, 9223372036854775807)"));
            assertEquals(List.of("3"), rows(s, "SELECT COUNT(*) FROM (SELECT * FROM generate_series(1, 1000000000) "
                    + "LIMIT 3) AS t"));
            assertEquals("22023", failure(s, "SELECT * FROM generate_series(1, 3, 0)").getSQLState());
            final SQLException inSelectList = failure(s, "SELECT generate_series(1, 3)");
            assertEquals("0A000", inSelectList.getSQLState());
            assertTrue(inSelectList.getMessage().contains("use it in FROM"), inSelectList.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldLoadTestDataWithInsertSelectFromASeries(final String protocol) throws SQLException {
        final String t = "series_load_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, label VARCHAR(20), even BOOLEAN)");
            assertEquals(2000, s.executeUpdate("INSERT INTO " + t + " SELECT g, 'row ' || g, MOD(g, 2) = 0 "
                    + "FROM generate_series(1, 2000) g"));
            assertEquals(List.of("2000:1000:row 999"), rows(s, "SELECT COUNT(*), SUM(CASE WHEN even THEN 1 ELSE 0 "
                    + "END), MAX(label) FROM " + t));
            try (PreparedStatement p = c.prepareStatement("SELECT COUNT(*) FROM generate_series(?, ?) x WHERE x > 3")) {
                p.setInt(1, 1);
                p.setInt(2, 10);
                try (ResultSet r = p.executeQuery()) {
                    r.next();
                    assertEquals(7, r.getInt(1));
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG})
    void shouldStopAHugeSeriesAtTheStatementTimeoutAndServeTheNextStatement(final String protocol)
            throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = 300");
            final long started = System.nanoTime();
            assertEquals("57014", failure(s, "SELECT COUNT(*) FROM generate_series(1, 1000000000000)").getSQLState());
            final long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMillis < 20_000, "stopped after " + tookMillis + " ms");
            s.execute("SET statement_timeout = 0");
            assertEquals(List.of("3"), rows(s, "SELECT COUNT(*) FROM generate_series(1, 3)"));
        }
    }
}
