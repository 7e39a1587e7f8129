package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The statements users and tools send that MeldDB does not run answer SQLSTATE 0A000 with a message naming the
 * feature, over both front ends (not 42601 or XX000), and the connection goes on serving.
 */
class UnsupportedStatementsTest extends ConformanceTest {
    /** Each statement and a word its message must contain. */
    private static final String[][] REFUSED = {
        {"LOCK TABLE ux", "LOCK TABLE"},
        {"LOCK ux IN ACCESS EXCLUSIVE MODE", "LOCK TABLE"},
        {"LISTEN ch", "LISTEN"},
        {"NOTIFY ch, 'x'", "NOTIFY"},
        {"UNLISTEN *", "UNLISTEN"},
        {"CREATE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql", "FUNCTION"},
        {"CREATE OR REPLACE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql", "FUNCTION"},
        {"CREATE TRIGGER tr BEFORE INSERT ON ux FOR EACH ROW EXECUTE FUNCTION f()", "TRIGGER"},
        {"DROP TRIGGER tr ON ux", "TRIGGER"},
        {"CREATE PROCEDURE pr() LANGUAGE sql AS 'select 1'", "PROCEDURE"},
        {"CALL pr()", "CALL"},
        {"DO 'BEGIN END'", "DO"},
        {"GRANT SELECT ON ux TO someone", "GRANT"},
        {"REVOKE SELECT ON ux FROM someone", "REVOKE"},
        {"CREATE EXTENSION hstore", "extension \"hstore\""},
        {"CREATE MATERIALIZED VIEW mv AS SELECT 1", "MATERIALIZED"},
        {"REFRESH MATERIALIZED VIEW mv", "REFRESH"},
        {"MERGE INTO ux USING ux s ON ux.id = s.id WHEN MATCHED THEN DELETE", "MERGE"},
        {"MERGE INTO ux USING (SELECT 5 AS id) s ON ux.id = s.id WHEN NOT MATCHED THEN DO NOTHING", "MERGE"},
        {"UPSERT INTO ux VALUES (1)", "UPSERT"},
        {"TABLE ux", "TABLE"},
        {"SELECT DISTINCT ON (id) id FROM ux ORDER BY id", "DISTINCT ON"},
        {"WITH w AS (SELECT id FROM ux) SELECT DISTINCT ON (id) id FROM w", "DISTINCT ON"},
    };

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void everyRefusedStatementAnswers0A000NamingTheFeature(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS ux (id INTEGER PRIMARY KEY)");
            for (String[] refused : REFUSED) {
                final SQLException e = failure(s, refused[0]);
                assertEquals("0A000", e.getSQLState(), refused[0] + ": " + e.getMessage());
                assertTrue(e.getMessage().toLowerCase(Locale.ROOT).contains(refused[1].toLowerCase(Locale.ROOT)),
                        refused[0] + ": " + e.getMessage());
            }
            assertEquals(List.of(), rows(s, "SELECT id FROM ux"), "nothing ran, the connection still serves");
        }
    }

    /** SQL cursors run over the PostgreSQL protocol (PgCursorTest); MeldDB's JDBC front end refuses them. */
    @org.junit.jupiter.api.Test
    void sqlCursorsAnswer0A000OverTheJdbcFrontEnd() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.MELD); Statement s = c.createStatement()) {
            for (String sql : new String[] {"DECLARE c CURSOR WITH HOLD FOR SELECT 1", "FETCH 1 FROM c",
                "MOVE NEXT IN c", "CLOSE c"}) {
                final SQLException e = failure(s, sql);
                assertEquals("0A000", e.getSQLState(), sql + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("JDBC front end"), sql + ": " + e.getMessage());
            }
            assertEquals(List.of("1"), rows(s, "SELECT 1"), "the connection still serves");
        }
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            s.execute("DECLARE c CURSOR WITH HOLD FOR SELECT 1");
            assertEquals(List.of("1"), rows(s, "FETCH 1 FROM c"), "the PostgreSQL protocol runs them");
            s.execute("CLOSE c");
        }
    }
}
