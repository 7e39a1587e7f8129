package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Column names that PostgreSQL accepts unquoted because they are not reserved there (value, year, month, at,
 * position, result, count, type, status, ...) work unquoted in every statement, as in PostgreSQL: Calcite's default
 * parser reserves many of them, so MeldDB parses with Calcite's Babel parser, which does not. The same words keep
 * working as what they are elsewhere (EXTRACT(YEAR FROM ...), DATE literals, COUNT(*), VALUES). Not yet: DATE and
 * TIME as column names (Babel still reserves them; quote them).
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
}
