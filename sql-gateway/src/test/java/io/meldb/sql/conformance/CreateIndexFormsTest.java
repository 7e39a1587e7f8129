package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CREATE INDEX forms that pg_dump, Django, Rails and Prisma write, over both front ends: USING btree,
 * CONCURRENTLY, operator classes, ASC NULLS LAST, INCLUDE, an index without a name, listed in pg_indexes; and a
 * clear 0A000 for what
 * MeldDB's ordered indexes cannot be (expressions, partial indexes, other methods, DESC).
 */
class CreateIndexFormsTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldBuildTheIndexesToolsWriteAndUseThem(final String protocol) throws SQLException {
        final String t = "idx_forms_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, username VARCHAR(150), email TEXT, n INTEGER)");
            s.execute("INSERT INTO " + t + " VALUES (1, 'ada', 'a@x', 3), (2, 'bob', 'b@x', 1), (3, 'adam', 'c@x', 2)");
            s.execute("CREATE INDEX " + t + "_username_like ON " + t + " (username varchar_pattern_ops)");
            s.execute("CREATE INDEX CONCURRENTLY " + t + "_email ON public." + t + " USING btree (email ASC NULLS LAST)");
            s.execute("CREATE UNIQUE INDEX " + t + "_n ON ONLY " + t + " USING btree (n) INCLUDE (email)");
            s.execute("CREATE INDEX ON " + t + " (n, id)");
            assertEquals(List.of(t + "_email", t + "_n", t + "_n_id_idx", t + "_pkey", t + "_username_like"),
                    rows(s, "SELECT indexname FROM pg_indexes WHERE tablename = '" + t + "' ORDER BY indexname"));
            assertEquals(List.of("CREATE UNIQUE INDEX " + t + "_n ON public." + t + " USING btree (n)"),
                    rows(s, "SELECT indexdef FROM pg_indexes WHERE indexname = '" + t + "_n'"));
            assertEquals(List.of("public:" + t), rows(s, "SELECT schemaname, tablename FROM pg_catalog.pg_tables "
                    + "WHERE tablename = '" + t + "'"));
            assertEquals(List.of("1", "3"), rows(s, "SELECT id FROM " + t + " WHERE username LIKE 'ad%' ORDER BY id"));
            assertEquals(List.of("2"), rows(s, "SELECT id FROM " + t + " WHERE email = 'b@x'"));
            assertEquals("23505", failure(s, "INSERT INTO " + t + " VALUES (4, 'eve', 'e@x', 1)").getSQLState(),
                    "the unique index with INCLUDE columns is unique on its key columns");
            s.execute("DROP INDEX CONCURRENTLY " + t + "_email");
            assertEquals(List.of("4"), rows(s, "SELECT COUNT(*) FROM pg_indexes WHERE tablename = '" + t + "'"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldRefuseIndexesItCannotBuildNamingWhat(final String protocol) throws SQLException {
        final String t = "idx_refused_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, email TEXT, n INTEGER)");
            for (String[] refused : List.of(
                    new String[] {"ON " + t + " (lower(email))", "expressions"},
                    new String[] {"ON " + t + " ((n + 1))", "expressions"},
                    new String[] {"ON " + t + " (n) WHERE n > 0", "partial indexes"},
                    new String[] {"ON " + t + " USING gin (email)", "index method \"gin\""},
                    new String[] {"ON " + t + " (n DESC)", "descending"})) {
                final SQLException e = failure(s, "CREATE INDEX " + t + "_x " + refused[0]);
                assertEquals("0A000", e.getSQLState(), refused[0]);
                assertTrue(e.getMessage().contains(refused[1]), e.getMessage());
            }
            assertEquals(List.of("1"), rows(s, "SELECT COUNT(*) FROM pg_indexes WHERE tablename = '" + t + "'"));
        }
    }
}
