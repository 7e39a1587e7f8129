package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL's {@code ->} and {@code ->>} read by the parser as operators, wherever an operand may stand: on a
 * table-qualified column, chained, in parentheses compared with a JSON text (Django's key lookups), with a
 * negative index, with a parameter as the key, and binding looser than {@code +} and tighter than {@code =}. A
 * jsonb column holds PostgreSQL's canonical text and is sent as jsonb.
 */
class JsonOperatorTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void jsonOperatorsWorkAsPostgresOperators(final String protocol) throws SQLException {
        final String t = "jop_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, data JSONB)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, '{\"tag\": \"math\", \"k\": [1, 2], \"o\": {\"x\": 5}}'),"
                    + " (2, '{\"tag\": \"post\"}')");
            assertEquals(List.of("1"), rows(s, "SELECT \"" + t + "\".\"id\" FROM \"" + t + "\" WHERE (\"" + t
                    + "\".\"data\" -> 'tag') = '\"math\"'"));
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + t + " WHERE data ->> 'tag' = 'math'"));
            assertEquals(List.of("1:2:5:[1, 2]"), rows(s, "SELECT id, data->'k'->>-1, data -> 'o' ->> 'x', "
                    + t + ".data -> 'k' FROM " + t + " WHERE data -> 'k' IS NOT NULL"));
            assertEquals(List.of("2"), rows(s, "SELECT id FROM " + t + " WHERE data -> 'k' IS NULL"));
            // jsonb is stored in PostgreSQL's canonical text, and a jsonb column is typed jsonb
            try (ResultSet r = s.executeQuery("SELECT data FROM " + t + " WHERE id = 1")) {
                assertTrue(r.next());
                assertEquals("{\"k\": [1, 2], \"o\": {\"x\": 5}, \"tag\": \"math\"}", r.getString(1));
                if (protocol.equals(Conformance.PG)) {
                    assertEquals("jsonb", r.getMetaData().getColumnTypeName(1));
                }
            }
            assertEquals(List.of("{\"a\": 2, \"b\": 3}:100"), rows(s, "SELECT '{\"b\": 1, \"a\": 2, \"b\": 3}'::jsonb, "
                    + "CAST('{\"a2\": 1e2}' AS jsonb) -> 'a2'"), "a cast to jsonb makes jsonb's text");
            // jsonb's ?, ?|, ?&, @> and <@ (Django's has_key, has_any_keys, has_keys, contains, contained_by)
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + t + " WHERE data ? 'k'"));
            assertEquals(List.of("1", "2"), rows(s, "SELECT id FROM " + t + " WHERE data ?| ARRAY['k', 'tag'] ORDER BY id"));
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + t + " WHERE data ?& ARRAY['k', 'tag']"));
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + t + " WHERE data @> '{\"k\": [2], \"o\": {}}'"));
            assertEquals(List.of("2"), rows(s, "SELECT id FROM " + t + " WHERE data <@ '{\"tag\": \"post\", \"x\": 1}'"));
            assertEquals(List.of("1:0:1"), rows(s, "SELECT CASE WHEN '[1, 2.0]'::jsonb @> '2' THEN 1 ELSE 0 END, "
                    + "CASE WHEN '{\"a\": [1]}'::jsonb @> '[1]' THEN 1 ELSE 0 END, "
                    + "CASE WHEN '[\"a\"]'::jsonb ? 'a' THEN 1 ELSE 0 END"));
            try (PreparedStatement ps = c.prepareStatement("SELECT data ->> ? FROM " + t + " WHERE id = ?")) {
                ps.setString(1, "tag");
                ps.setInt(2, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals("post", rs.getString(1));
                }
            }
        }
    }
}
