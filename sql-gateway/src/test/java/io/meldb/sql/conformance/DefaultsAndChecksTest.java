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
 * DEFAULT, NOT NULL and CHECK as PostgreSQL gives them, over both front ends: defaults fill omitted columns and
 * {@code DEFAULT} on the fast path and through Calcite; CHECK (column and table constraints, named or not) is
 * enforced on INSERT and UPDATE with 23514 naming the constraint; NOT NULL with 23502 naming the column; what
 * MeldDB cannot evaluate is refused when the table is created.
 */
class DefaultsAndChecksTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldFillOmittedColumnsAndDefaultFromTheirDefaults(final String protocol) throws SQLException {
        final String t = "dflt_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, status VARCHAR(10) DEFAULT 'new' NOT NULL, "
                    + "qty INTEGER DEFAULT -1, price DECIMAL(6, 2) DEFAULT (2.5), flag BOOLEAN DEFAULT true, "
                    + "made TIMESTAMP DEFAULT CURRENT_TIMESTAMP, d DATE DEFAULT CURRENT_DATE, note VARCHAR(5))");
            s.executeUpdate("INSERT INTO " + t + " (id) VALUES (1)"); // the fast path
            s.executeUpdate("INSERT INTO " + t + " (id, qty) SELECT 2, 7 FROM (VALUES (0)) AS v(x)"); // Calcite
            s.executeUpdate("INSERT INTO " + t + " VALUES (3, DEFAULT, DEFAULT, 1, DEFAULT, DEFAULT, DEFAULT, 'x')");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " (id, status) VALUES (?, ?)")) {
                p.setInt(1, 4);
                p.setString(2, "held");
                p.executeUpdate();
            }
            assertEquals(List.of("1:new:-1:2.50:null", "2:new:7:2.50:null", "3:new:-1:1.00:x", "4:held:-1:2.50:null"),
                    rows(s, "SELECT id, status, qty, price, note FROM " + t + " ORDER BY id"));
            assertEquals(List.of("4"), rows(s, "SELECT COUNT(*) FROM " + t + " WHERE flag AND made IS NOT NULL "
                    + "AND d IS NOT NULL AND made > TIMESTAMP '2020-01-01 00:00:00'"));
            assertEquals("23502", failure(s, "INSERT INTO " + t + " (id, status) VALUES (5, NULL)").getSQLState(),
                    "an explicit NULL is not the default");
            final String message = failure(s, "INSERT INTO " + t + " (id, status) VALUES (5, NULL)").getMessage();
            assertTrue(message.contains("\"status\""), message);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldGiveEachRowItsOwnRandomUuidFromAGenRandomUuidDefault(final String protocol) throws SQLException {
        final String t = "uuid_dflt_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            // what schemas with UUID keys begin with: accepted, their functions are built in
            s.execute("CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\"");
            s.execute("CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA public");
            final SQLException postgis = failure(s, "CREATE EXTENSION postgis");
            assertEquals("0A000", postgis.getSQLState());
            assertTrue(postgis.getMessage().contains("\"postgis\" is not available"), postgis.getMessage());
            assertEquals(List.of("36"), rows(s, "SELECT CHAR_LENGTH(CAST(uuid_generate_v4() AS VARCHAR(36)))"));
            s.execute("CREATE TABLE " + t + " (id UUID PRIMARY KEY DEFAULT gen_random_uuid(), n INTEGER, "
                    + "tag TEXT DEFAULT uuid_generate_v4())");
            s.executeUpdate("INSERT INTO " + t + " (n) VALUES (1)"); // the fast path
            s.executeUpdate("INSERT INTO " + t + " (n) VALUES (2), (3)");
            s.executeUpdate("INSERT INTO " + t + " (n) SELECT x FROM (VALUES (4), (5)) AS v(x)"); // Calcite
            assertEquals(List.of("5:5:5"), rows(s, "SELECT COUNT(DISTINCT id), COUNT(DISTINCT tag), COUNT(*) FROM " + t));
            assertEquals(List.of("5"), rows(s, "SELECT COUNT(*) FROM " + t + " WHERE CAST(id AS VARCHAR(36)) "
                    + "LIKE '________-____-4___-____-____________'"));
            assertEquals(List.of("gen_random_uuid()"), rows(s, "SELECT column_default FROM "
                    + "information_schema.columns WHERE table_name = '" + t + "' AND column_name = 'id'"));
            assertEquals("0A000", failure(s, "ALTER TABLE " + t + " ADD COLUMN u2 UUID DEFAULT gen_random_uuid()")
                    .getSQLState(), "rows already there would each need a value of their own");
            assertEquals("42804", failure(s, "CREATE TABLE " + t + "_int (id INTEGER PRIMARY KEY DEFAULT "
                    + "gen_random_uuid())").getSQLState());
            s.execute("DROP EXTENSION IF EXISTS pgcrypto");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldStampATimestamptzColumnWithNowOnEveryInsertPath(final String protocol) throws SQLException {
        final String t = "stamp_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            // what frameworks generate for created_at: PostgreSQL's now() is a timestamptz
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, at TIMESTAMPTZ DEFAULT now(), "
                    + "at2 TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP)");
            // an INSERT that Calcite plans casts the default to timestamptz through Calcite's own conversion,
            // which keeps whole seconds (docs/sql.md, not yet)
            final long before = System.currentTimeMillis() / 1000 * 1000;
            s.executeUpdate("INSERT INTO " + t + " (id) VALUES (1)"); // the fast path
            s.executeUpdate("INSERT INTO " + t + " (id) SELECT 2 FROM (VALUES (0)) AS v(x)"); // Calcite
            final long after = System.currentTimeMillis();
            try (ResultSet r = s.executeQuery("SELECT at, at2 FROM " + t + " ORDER BY id")) {
                for (int row = 1; row <= 2; row++) {
                    assertTrue(r.next());
                    for (int col = 1; col <= 2; col++) {
                        final long at = r.getTimestamp(col).getTime();
                        assertTrue(at >= before - 1 && at <= after, "row " + row + " column " + col + ": " + at
                                + " not within [" + before + ", " + after + "]");
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldEnforceCheckConstraintsOnInsertAndUpdateNamingThem(final String protocol) throws SQLException {
        final String t = "chk_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, qty INTEGER CHECK (qty >= 0), "
                    + "lo INTEGER, hi INTEGER, code VARCHAR(8) CONSTRAINT code_shape CHECK (code LIKE 'C%'), "
                    + "CONSTRAINT range_ok CHECK (lo IS NULL OR hi IS NULL OR lo <= hi), CHECK (hi BETWEEN 0 AND 100))");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 0, 1, 2, 'C1'), (2, NULL, NULL, NULL, NULL)");
            assertViolates(s, "INSERT INTO " + t + " VALUES (3, -1, 1, 2, 'C1')", t + "_qty_check");
            assertViolates(s, "INSERT INTO " + t + " VALUES (3, 1, 5, 2, 'C1')", "range_ok");
            assertViolates(s, "INSERT INTO " + t + " VALUES (3, 1, 5, 200, 'C1')", t + "_hi_check");
            assertViolates(s, "INSERT INTO " + t + " VALUES (3, 1, 1, 2, 'X1')", "code_shape");
            assertViolates(s, "UPDATE " + t + " SET qty = qty - 1 WHERE id = 1", t + "_qty_check"); // fast path
            assertViolates(s, "UPDATE " + t + " SET lo = 10 WHERE id > 0 AND hi IS NOT NULL", "range_ok"); // Calcite
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET qty = qty + 1 WHERE id = 1"));
            assertEquals(List.of("1:1:1:2:C1", "2:null:null:null:null"), rows(s, "SELECT * FROM " + t
                    + " ORDER BY id"), "the refused statements changed nothing");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldRefuseDefaultsAndChecksItCannotEvaluateWhenTheTableIsCreated(final String protocol)
            throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals("0A000", failure(s, "CREATE TABLE bad_" + protocol + " (a INT DEFAULT 1 + 2)").getSQLState());
            assertEquals("0A000", failure(s, "CREATE TABLE bad_" + protocol
                    + " (a INT CHECK (a IN (SELECT 1)))").getSQLState());
            assertEquals("42703", failure(s, "CREATE TABLE bad_" + protocol + " (a INT CHECK (b > 0))").getSQLState());
            assertEquals("42804", failure(s, "CREATE TABLE bad_" + protocol
                    + " (a INT DEFAULT CURRENT_TIMESTAMP)").getSQLState());
            assertTrue(failure(s, "CREATE TABLE bad_" + protocol + " (a INT DEFAULT 'x')").getSQLState()
                    .startsWith("22"), "a constant that does not fit the column's type");
            assertEquals("42P01", failure(s, "CREATE TABLE bad_" + protocol
                    + " (a INT DEFAULT nextval('no_such_seq'))").getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldShowDefaultsAndNullabilityInTheSystemCatalogs(final String protocol) throws SQLException {
        final String t = "meta_dflt_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id BIGSERIAL PRIMARY KEY, qty INTEGER DEFAULT 3 NOT NULL, "
                    + "made TIMESTAMP DEFAULT now(), note VARCHAR(4), n INT GENERATED BY DEFAULT AS IDENTITY)");
            assertEquals(List.of("id:nextval('" + t + "_id_seq'::regclass):NO:NO",
                    "qty:3:NO:NO", "made:CURRENT_TIMESTAMP:YES:NO", "note:null:YES:NO",
                    "n:null:NO:YES"),
                    rows(s, "SELECT column_name, column_default, is_nullable, is_identity "
                            + "FROM information_schema.columns WHERE table_name = '" + t + "' ORDER BY ordinal_position"));
            // an identity column has no default in PostgreSQL (atthasdef is false)
            assertEquals(List.of("id", "qty", "made"), rows(s, "SELECT a.attname "
                    + "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class r ON r.oid = a.attrelid "
                    + "WHERE r.relname = '" + t + "' AND a.atthasdef ORDER BY a.attnum"));
        }
        if (protocol.equals(Conformance.PG)) {
            try (Connection c = db.connectPg();
                 java.sql.ResultSet r = c.getMetaData().getColumns(null, "public", t, "qty")) {
                assertTrue(r.next());
                assertEquals("3", r.getString("COLUMN_DEF"));
            }
        }
    }

    private static void assertViolates(final Statement s, final String sql, final String constraint) {
        final SQLException e = failure(s, sql);
        assertEquals("23514", e.getSQLState(), e.getMessage());
        assertTrue(e.getMessage().contains("\"" + constraint + "\""), e.getMessage());
    }
}
