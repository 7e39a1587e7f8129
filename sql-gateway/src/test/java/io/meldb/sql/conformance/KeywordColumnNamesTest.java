package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Column names that PostgreSQL accepts unquoted because they are not reserved there (value, year, month, at,
 * position, result, count, type, status, ...) work unquoted in every statement, as in PostgreSQL: Calcite's default
 * parser reserves many of them, MeldDB's own (module sql-parser) does not. The same words keep working as what they
 * are elsewhere (EXTRACT(YEAR FROM ...), DATE literals, COUNT(*), VALUES). {@code date}, {@code time} and {@code
 * timestamp}, which that parser still reserves, are quoted by the gateway where they are names. After AS any keyword
 * labels a column, reserved or not, as PostgreSQL's ColLabel.
 */
class KeywordColumnNamesTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void nonReservedPostgresKeywordsWorkAsColumnNamesInEveryStatement(final String protocol) throws SQLException {
        final String t = "kw_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, value INTEGER, year INTEGER, month INTEGER, "
                    + "day DATE, at INTEGER, position INTEGER, result VARCHAR(10), count INTEGER, "
                    + "type VARCHAR(10), status VARCHAR(10), name VARCHAR(10))");
            s.executeUpdate("INSERT INTO " + t + " (id, value, year, month, day, at, position, result, count, type, "
                    + "status, name) VALUES (1, 10, 2020, 1, DATE '2020-01-31', 3, 4, 'ok', 5, 'a', 'new', 'x'), "
                    + "(2, 20, 2021, 2, DATE '2021-02-28', 3, 5, 'ok', 6, 'b', 'old', 'y')");
            assertEquals(List.of("10:2020:1:3:4:ok:5:a:new:x"), rows(s, "SELECT value, year, month, at, position, "
                    + "result, count, type, status, name FROM " + t + " WHERE value = 10"));
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET value = value + 1, year = 2022 WHERE id = 1"));
            try (PreparedStatement p = c.prepareStatement("SELECT value FROM " + t + " WHERE year = ?")) {
                p.setInt(1, 2022);
                try (var r = p.executeQuery()) {
                    r.next();
                    assertEquals(11, r.getInt(1));
                }
            }
            assertEquals(List.of("3:2:20:5"), rows(s, "SELECT at, COUNT(*), MAX(value), MIN(count) FROM " + t
                    + " GROUP BY at ORDER BY at"));
            assertEquals(List.of("2020", "2021"), rows(s, "SELECT EXTRACT(YEAR FROM day) FROM " + t
                    + " ORDER BY day"));
            assertEquals(List.of("b"), rows(s, "SELECT type FROM " + t + " WHERE day > DATE '2021-01-01' AND "
                    + "status IN ('old') ORDER BY position DESC"));
            assertEquals(1, s.executeUpdate("DELETE FROM " + t + " WHERE result = 'ok' AND month = 2"));
            assertEquals(List.of("1"), rows(s, "SELECT COUNT(*) FROM " + t));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void dateTimeAndTimestampWorkAsColumnNames(final String protocol) throws SQLException {
        final String t = "kwd_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, date DATE, time TIME, timestamp TIMESTAMP)");
            s.executeUpdate("INSERT INTO " + t + " (id, date, time, timestamp) VALUES (1, DATE '2024-01-31', "
                    + "TIME '10:00:00', TIMESTAMP '2024-01-31 10:00:00'), (2, DATE '2024-02-01', NULL, NULL)");
            assertEquals(List.of("2024-02-01"), rows(s, "SELECT date FROM " + t + " WHERE date > DATE '2024-01-31'"));
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET time = TIME '11:00:00' WHERE date = "
                    + "DATE '2024-02-01'"));
            try (PreparedStatement p = c.prepareStatement("SELECT CAST(time AS VARCHAR) FROM " + t
                    + " WHERE id = ? AND date IS NOT NULL")) {
                p.setInt(1, 2);
                try (var r = p.executeQuery()) {
                    r.next();
                    assertEquals("11:00:00", r.getString(1));
                }
            }
            assertEquals(List.of("2024"), rows(s, "SELECT EXTRACT(YEAR FROM timestamp) FROM " + t
                    + " WHERE timestamp IS NOT NULL ORDER BY date"));
        }
    }

    /**
     * {@code SELECT ... AS default}, {@code AS from}, {@code AS user}, {@code AS order}: PostgreSQL 15 takes any
     * keyword as a column label after AS and names the column with it folded to lower case. SQLAlchemy's reflection
     * of a column's default labels a scalar sub-query {@code AS DEFAULT}.
     */
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void anyKeywordLabelsAColumnAfterAs(final String protocol) throws SQLException {
        final String t = "kwl_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, value INTEGER)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 10), (2, 20)");
            try (ResultSet r = s.executeQuery("SELECT id AS default, value AS from, 3 AS user, 'x' AS ORDER, "
                    + "(SELECT MAX(value) FROM " + t + ") AS DEFAULT FROM " + t + " WHERE id = 1")) {
                final ResultSetMetaData m = r.getMetaData();
                final List<String> labels = new ArrayList<>();
                for (int i = 1; i <= m.getColumnCount(); i++) {
                    labels.add(m.getColumnLabel(i));
                }
                assertEquals(List.of("default", "from", "user", "order", "default"), labels);
                assertTrue(r.next());
                assertEquals(List.of("1", "10", "3", "x", "20"), List.of(r.getString(1), r.getString(2),
                        r.getString(3), r.getString(4), r.getString(5)));
            }
        }
    }
}
