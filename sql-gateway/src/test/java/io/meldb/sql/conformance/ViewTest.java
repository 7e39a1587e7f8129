package io.meldb.sql.conformance;

import io.meldb.sql.server.Gateway;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * CREATE [OR REPLACE] VIEW and DROP VIEW as PostgreSQL gives them, over both front ends: views stored in the catalog
 * and expanded by Calcite, queried and joined; INSERT into a view refused (0A000); DROP TABLE of a table a view
 * reads refused (2BP01) unless CASCADE, which drops the view; a gateway that has just started reads them.
 */
class ViewTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void viewsAreQueriedAndJoinedLikeTables(final String protocol) throws SQLException {
        final String t = "vt_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, name VARCHAR(10), qty INTEGER)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a', 5), (2, 'b', 0), (3, 'c', 7)");
            s.execute("CREATE VIEW " + t + "_stocked AS SELECT id, name, qty * 2 AS doubled FROM " + t
                    + " WHERE qty > 0;");
            s.execute("CREATE VIEW " + t + "_names (ident, label) AS SELECT id, UPPER(name) FROM " + t);
            assertEquals(List.of("1:a:10", "3:c:14"), rows(s, "SELECT * FROM " + t + "_stocked ORDER BY id"));
            assertEquals(List.of("1:A:10", "3:C:14"), rows(s, "SELECT n.ident, n.label, v.doubled FROM " + t
                    + "_names n JOIN " + t + "_stocked v ON v.id = n.ident ORDER BY n.ident"));
            assertEquals(List.of("2"), rows(s, "SELECT ident FROM " + t + "_names WHERE label = 'B'"));
            s.executeUpdate("INSERT INTO " + t + " VALUES (4, 'd', 1)");
            assertEquals(List.of("3"), rows(s, "SELECT COUNT(*) FROM " + t + "_stocked"), "a view reads the rows "
                    + "as they are now");
            s.execute("CREATE OR REPLACE VIEW " + t + "_stocked AS SELECT id, name, qty * 3 AS doubled, qty FROM "
                    + t + " WHERE qty > 0");
            assertEquals(List.of("1:a:15:5"), rows(s, "SELECT * FROM " + t + "_stocked WHERE id = 1"));
            assertEquals("42P16", failure(s, "CREATE OR REPLACE VIEW " + t + "_stocked AS SELECT id FROM " + t)
                    .getSQLState());
            assertEquals("42P07", failure(s, "CREATE VIEW " + t + "_stocked AS SELECT 1 AS x1").getSQLState());
            assertEquals("42P07", failure(s, "CREATE VIEW " + t + " AS SELECT 1 AS x1").getSQLState());
            assertEquals("42P01", failure(s, "CREATE VIEW " + t + "_bad AS SELECT * FROM nope_" + t)
                    .getSQLState());
            assertEquals("0A000", failure(s, "INSERT INTO " + t + "_names VALUES (9, 'Z')").getSQLState());
            assertEquals("0A000", failure(s, "UPDATE " + t + "_names SET label = 'Z'").getSQLState());
            assertEquals("0A000", failure(s, "DELETE FROM " + t + "_names").getSQLState());
            assertEquals(List.of("VIEW"), rows(s, "SELECT table_type FROM information_schema.tables WHERE table_name = '"
                    + t + "_names'"));
            assertEquals(List.of(t + "_names", t + "_stocked"), rows(s, "SELECT table_name FROM "
                    + "information_schema.views WHERE table_name LIKE '" + t + "%' ORDER BY table_name"));
            assertEquals(List.of("v"), rows(s, "SELECT relkind FROM pg_catalog.pg_class WHERE relname = '" + t
                    + "_names'"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void dropTableOfATableAViewReadsNeedsCascade(final String protocol) throws SQLException {
        final String t = "vd_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, v INTEGER)");
            s.execute("CREATE VIEW " + t + "_v AS SELECT id, v FROM " + t);
            s.execute("CREATE VIEW " + t + "_vv AS SELECT id FROM " + t + "_v");
            assertEquals("2BP01", failure(s, "DROP TABLE " + t).getSQLState());
            assertEquals("2BP01", failure(s, "DROP TABLE " + t + " RESTRICT").getSQLState());
            assertEquals("2BP01", failure(s, "DROP VIEW " + t + "_v").getSQLState());
            assertEquals("2BP01", failure(s, "ALTER TABLE " + t + " DROP COLUMN v").getSQLState());
            assertEquals("0A000", failure(s, "ALTER TABLE " + t + " RENAME TO " + t + "_x").getSQLState());
            assertEquals("42809", failure(s, "DROP TABLE " + t + "_v").getSQLState());
            assertEquals("42809", failure(s, "DROP VIEW " + t).getSQLState());
            assertEquals("42P01", failure(s, "DROP VIEW nope_" + t).getSQLState());
            s.execute("DROP VIEW IF EXISTS nope_" + t + ", " + t + "_vv");
            s.execute("CREATE VIEW " + t + "_vv AS SELECT id FROM " + t + "_v");
            s.execute("DROP TABLE " + t + " CASCADE;");
            assertEquals("42P01", failure(s, "SELECT * FROM " + t + "_v").getSQLState());
            assertEquals("42P01", failure(s, "SELECT * FROM " + t + "_vv").getSQLState());
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY)");
            s.execute("CREATE VIEW " + t + "_v AS SELECT id FROM " + t);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aGatewayThatJustStartedReadsViewsAndComments(final String protocol) throws SQLException {
        final String t = "vr_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, v VARCHAR(5))");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'one')");
            s.execute("CREATE VIEW " + t + "_v AS SELECT v, id + 1 AS nxt FROM " + t);
            s.execute("COMMENT ON TABLE " + t + " IS 'the table'");
            s.execute("COMMENT ON COLUMN " + t + ".v IS 'a value'");
            s.execute("COMMENT ON VIEW " + t + "_v IS 'the view'");
            assertEquals("42703", failure(s, "COMMENT ON COLUMN " + t + ".nope IS 'x'").getSQLState());
            assertEquals("42P01", failure(s, "COMMENT ON TABLE nope_" + t + " IS 'x'").getSQLState());
        }
        try (Gateway restarted = db.anotherGateway();
             Connection c = DriverManager.getConnection(restarted.jdbcUrl());
             Statement s = c.createStatement()) {
            assertEquals(List.of("one:2"), rows(s, "SELECT * FROM " + t + "_v"));
            assertEquals(List.of(t + ":0:the table", t + ":2:a value", t + "_v:0:the view"), rows(s,
                    "SELECT c.relname, d.objsubid, d.description FROM pg_catalog.pg_description d JOIN "
                    + "pg_catalog.pg_class c ON c.oid = d.objoid WHERE c.relname LIKE '" + t + "%' "
                    + "ORDER BY c.relname, d.objsubid"));
        }
    }
}
