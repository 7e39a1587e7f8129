package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A table of one column read through Calcite's own operators (a sort, a distinct, a limit): the scan hands them
 * scalars, as their one-column row format expects (one-element arrays broke the answer and, over the PostgreSQL
 * protocol, the connection), and the connection goes on after each statement.
 */
class SingleColumnTableTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aOneColumnTableIsSortedGroupedAndLimitedLikeAnyOther(final String protocol) throws SQLException {
        final String t = "one_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (12), (11), (13)");
            assertEquals(List.of("13", "12", "11"), rows(s, "SELECT id FROM " + t + " ORDER BY id DESC"));
            assertEquals(List.of("11", "12"), rows(s, "SELECT id FROM " + t + " ORDER BY id LIMIT 2"));
            assertEquals(List.of("11", "12", "13"), rows(s, "SELECT DISTINCT id FROM " + t + " ORDER BY 1"));
            assertEquals(List.of("3"), rows(s, "SELECT COUNT(*) FROM " + t));
            assertEquals(List.of("12"), rows(s, "SELECT id FROM " + t + " WHERE id IN (SELECT id FROM " + t
                    + " WHERE id > 11) ORDER BY id LIMIT 1"));
        }
    }
}
