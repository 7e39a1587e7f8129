package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL's session functions as functions of the SQL engine (SessionFunctions, SessionKeywords, PgTypeOf,
 * FunctionsInFrom), over pgjdbc's simple and extended protocols: their values, their result columns' names and
 * type OIDs as PostgreSQL 15 answers them (current_user and the like are of type name, OID 19), the session they
 * read (search_path, settings set with SET or set_config), and their errors.
 */
@Timeout(120)
class PgSessionFunctionsTest {
    private static final int NAME = 19;
    private static final int INT4 = 23;
    private static final int TEXT = 25;
    private static final List<String> MODES = List.of("preferQueryMode=simple", "preferQueryMode=extended");

    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sess_t (id INTEGER PRIMARY KEY, t TEXT, n NUMERIC, v VARCHAR(10), b BOOLEAN, "
                    + "ts TIMESTAMP, c CHAR(3), big BIGINT, j JSON)");
            s.execute("INSERT INTO sess_t VALUES (1, 'x', 1.5, 'v', true, TIMESTAMP '2024-01-02 03:04:05', 'abc', "
                    + "5, '{}')");
            s.execute("CREATE SCHEMA sess_other");
            s.execute("CREATE TABLE sess_other.sess_t (id INTEGER PRIMARY KEY, other TEXT)");
            s.execute("INSERT INTO sess_other.sess_t VALUES (7, 'from sess_other')");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    /** The OID of result column {@code i}'s type, as the RowDescription gave it (pgjdbc names it by its OID). */
    private static int oid(final Connection c, final ResultSetMetaData md, final int i) throws SQLException {
        return c.unwrap(BaseConnection.class).getTypeInfo().getPGType(md.getColumnTypeName(i));
    }

    private static List<String> labels(final ResultSetMetaData md) throws SQLException {
        final List<String> out = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            out.add(md.getColumnLabel(i));
        }
        return out;
    }

    private static List<String> row(final ResultSet r) throws SQLException {
        assertTrue(r.next());
        final List<String> out = new ArrayList<>();
        for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
            out.add(r.getString(i));
        }
        assertFalse(r.next());
        return out;
    }

    private static List<String> row(final Connection c, final String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            return row(r);
        }
    }

    private static String one(final Connection c, final String sql) throws SQLException {
        final List<String> row = row(c, sql);
        assertEquals(1, row.size(), sql);
        return row.get(0);
    }

    @Test
    void shouldAnswerTheSessionKeywordsAsNamesOfTheSession() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT current_user, session_user, current_role, user, current_catalog, "
                         + "current_schema, current_schema(), current_database(), pg_catalog.current_schema(), "
                         + "pg_catalog.current_database()")) {
                final ResultSetMetaData md = r.getMetaData();
                assertEquals(List.of("current_user", "session_user", "current_role", "user", "current_catalog",
                        "current_schema", "current_schema", "current_database", "current_schema",
                        "current_database"), labels(md), mode);
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    assertEquals("name", md.getColumnTypeName(i), mode + " column " + i);
                    assertEquals(NAME, oid(c, md, i), mode + " column " + i);
                }
                assertEquals(List.of("test", "test", "test", "test", "meldb", "public", "public", "meldb", "public",
                        "meldb"), row(r), mode);
            }
        }
    }

    @Test
    void shouldAnswerVersionAndTheBackendPidOfThisSession() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT version(), pg_backend_pid(), pg_catalog.version(), "
                         + "pg_catalog.pg_backend_pid()")) {
                final ResultSetMetaData md = r.getMetaData();
                assertEquals(List.of("version", "pg_backend_pid", "version", "pg_backend_pid"), labels(md), mode);
                assertEquals(TEXT, oid(c, md, 1));
                assertEquals(INT4, oid(c, md, 2));
                final List<String> row = row(r);
                assertTrue(row.get(0).startsWith("PostgreSQL 15.0 on MeldDB "), row.get(0));
                assertEquals(row.get(0), row.get(2));
                // the process id BackendKeyData gave this connection, and no other
                final int pid = c.unwrap(PGConnection.class).getBackendPID();
                assertEquals(String.valueOf(pid), row.get(1), mode);
                assertEquals(String.valueOf(pid), row.get(3), mode);
            }
        }
        try (Connection a = db.connectPg(); Connection b = db.connectPg()) {
            assertFalse(one(a, "SELECT pg_backend_pid()").equals(one(b, "SELECT pg_backend_pid()")));
        }
    }

    @Test
    void shouldReadCurrentSchemaFromTheSearchPathOfTheSession() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement()) {
                assertEquals(List.of("public", "{public}", "{pg_catalog,public}", "public"),
                        row(c, "SELECT current_schema, current_schemas(false), current_schemas(true), "
                                + "current_setting('search_path')"));
                assertEquals("1", one(c, "SELECT count(*) FROM information_schema.tables "
                        + "WHERE table_schema = current_schema AND table_name = 'sess_t'"));
                assertEquals("x", one(c, "SELECT t FROM sess_t WHERE current_schema() = 'public' AND id = 1"));
                s.execute("SET search_path TO sess_other, public");
                assertEquals(List.of("sess_other", "{sess_other,public}", "{pg_catalog,sess_other,public}",
                        "sess_other, public"), row(c, "SELECT current_schema, current_schemas(false), "
                        + "current_schemas(true), current_setting('search_path')"), mode);
                // unqualified names resolve where current_schema says
                assertEquals(List.of("sess_other", "from sess_other"),
                        row(c, "SELECT current_schema, other FROM sess_t WHERE current_schema = 'sess_other'"));
                assertEquals(List.of(), rows(c, "SELECT other FROM sess_t WHERE current_schema = 'public'"));
                // schemas that do not exist are passed over; with none left, current_schema is NULL
                s.execute("SET search_path TO sess_nowhere, public");
                assertEquals(List.of("public", "{public}"), row(c, "SELECT current_schema, current_schemas(false)"));
                s.execute("SET search_path TO sess_nowhere");
                assertEquals(Arrays.asList(null, "{}", "{pg_catalog}", "t"), row(c, "SELECT current_schema, "
                        + "current_schemas(false), current_schemas(true), current_schema IS NULL"), mode);
                s.execute("RESET search_path");
                assertEquals("public", one(c, "SELECT current_schema"));
            }
        }
    }

    private static List<String> rows(final Connection c, final String sql) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    @Test
    void shouldEvaluateAPreparedStatementsSessionFunctionsAtEveryExecution() throws SQLException {
        // prepared once on the server (prepareThreshold=1), executed before and after the session changes
        try (Connection c = db.connectPg("preferQueryMode=extended", "prepareThreshold=1");
             Statement s = c.createStatement();
             PreparedStatement ps = c.prepareStatement("SELECT current_schema, current_setting(?), "
                     + "current_setting(?, true), current_schema() = ?")) {
            for (int round = 0; round < 3; round++) {
                ps.setString(1, "search_path");
                ps.setString(2, "sess.flag");
                ps.setString(3, "public");
                try (ResultSet r = ps.executeQuery()) {
                    assertEquals(Arrays.asList("public", "public", round == 0 ? null : "round " + (round - 1), "t"),
                            row(r));
                }
                s.execute("SELECT set_config('sess.flag', 'round " + round + "', false)");
            }
            s.execute("SET search_path TO sess_other, public");
            try (ResultSet r = ps.executeQuery()) {
                assertEquals(List.of("sess_other", "sess_other, public", "round 2", "f"), row(r));
            }
        }
    }

    @Test
    void shouldReadSettingsWithCurrentSetting() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = db.connectPg(mode)) {
                try (Statement s = c.createStatement();
                     ResultSet r = s.executeQuery("SELECT current_setting('search_path'), current_setting('TimeZone'), "
                             + "current_setting('server_version_num'), current_setting('DateStyle'), "
                             + "current_setting('nope', true), current_setting(NULL), current_setting('timezone', NULL)")) {
                    final ResultSetMetaData md = r.getMetaData();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        assertEquals("current_setting", md.getColumnLabel(i));
                        assertEquals(TEXT, oid(c, md, i));
                    }
                    // pgjdbc sets TimeZone at connect: current_setting answers what SHOW does
                    assertEquals(Arrays.asList("public", one(c, "SHOW TimeZone"), "150000", "ISO, MDY", null, null,
                            null), row(r), mode);
                }
                final SQLException e = assertThrows(SQLException.class, () -> one(c, "SELECT current_setting('nope')"));
                assertEquals("42704", e.getSQLState());
                assertTrue(e.getMessage().contains("unrecognized configuration parameter \"nope\""), e.getMessage());
                c.createStatement().execute("SET application_name = 'sess app'");
                assertEquals("sess app", one(c, "SELECT current_setting('APPLICATION_NAME')"));
            }
        }
    }

    @Test
    void shouldSetSettingsWithSetConfigAsSetDoes() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement()) {
                try (ResultSet r = s.executeQuery("SELECT set_config('application_name', 'sess tool', false)")) {
                    assertEquals("set_config", r.getMetaData().getColumnLabel(1));
                    assertEquals(TEXT, oid(c, r.getMetaData(), 1));
                    assertEquals(List.of("sess tool"), row(r));
                }
                assertEquals("sess tool", one(c, "SHOW application_name"));
                // reported with ParameterStatus, as SET reports it
                assertEquals("sess tool", c.getClientInfo("ApplicationName"), mode);
                // search_path changes where unqualified names resolve, as SET does
                assertEquals("sess_other, public", one(c, "SELECT pg_catalog.set_config('search_path', "
                        + "'sess_other, public', false)"));
                assertEquals(List.of("sess_other", "from sess_other"), row(c, "SELECT current_schema, other FROM sess_t"));
                assertEquals("sess_other, public", one(c, "SHOW search_path"));
                assertEquals("", one(c, "SELECT set_config('search_path', '', false)"));
                assertEquals("x", one(c, "SELECT t FROM sess_t"));
                assertEquals("5s", one(c, "SELECT set_config('statement_timeout', '5s', false)"));
                assertEquals("5s", one(c, "SHOW statement_timeout"));
                assertEquals("0", one(c, "SELECT set_config('statement_timeout', NULL, false)"));
                assertEquals(List.of("custom value", "custom value"),
                        row(c, "SELECT set_config('sess.custom', 'custom value', false), current_setting('sess.custom')"));
                for (String[] bad : new String[][] {
                        {"SELECT set_config(NULL, 'x', false)", "22004"},
                        {"SELECT set_config('is_superuser', 'off', false)", "55P02"},
                        {"SELECT set_config('nope', 'x', false)", "42704"},
                        {"SELECT set_config('statement_timeout', 'soon', false)", "22023"}}) {
                    final SQLException e = assertThrows(SQLException.class, () -> one(c, bad[0]));
                    assertEquals(bad[1], e.getSQLState(), bad[0] + ": " + e.getMessage());
                }
            }
        }
    }

    @Test
    void shouldKeepALocalSettingUntilItsTransactionEnds() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement()) {
                s.execute("SET application_name = 'before'");
                // outside a block, set_config(..., true) lasts for its statement's own transaction
                assertEquals(List.of("inside", "inside"), row(c, "SELECT set_config('application_name', 'inside', "
                        + "true), current_setting('application_name')"));
                assertEquals("before", one(c, "SHOW application_name"), mode);
                // SET LOCAL outside a block: a warning, and no effect
                s.execute("SET LOCAL application_name = 'ignored'");
                assertEquals("25P01", s.getWarnings().getSQLState());
                assertEquals("before", one(c, "SHOW application_name"));

                c.setAutoCommit(false);
                assertEquals("local", one(c, "SELECT set_config('application_name', 'local', true)"));
                s.execute("SET LOCAL search_path TO sess_other");
                assertEquals(List.of("local", "sess_other", "from sess_other"), row(c, "SELECT "
                        + "current_setting('application_name'), current_schema, other FROM sess_t"));
                c.commit();
                assertEquals(List.of("before", "public", "x"), row(c, "SELECT current_setting('application_name'), "
                        + "current_schema, t FROM sess_t"), mode);
                assertEquals("before", c.getClientInfo("ApplicationName"), "reported when it is undone");
                c.commit();

                // SET stays when its transaction commits, and is undone when it rolls back
                s.execute("SET application_name = 'committed'");
                c.commit();
                assertEquals("committed", one(c, "SHOW application_name"));
                c.commit();
                assertEquals("rolled back", one(c, "SELECT set_config('application_name', 'rolled back', false)"));
                s.execute("SET search_path TO sess_other, public");
                c.rollback();
                assertEquals(List.of("committed", "public"), row(c, "SELECT current_setting('application_name'), "
                        + "current_schema"), mode);
                c.commit();
                // a SET after a SET LOCAL of the same setting is what stays
                s.execute("SET LOCAL application_name = 'local again'");
                s.execute("SET application_name = 'after local'");
                c.commit();
                assertEquals("after local", one(c, "SHOW application_name"));
                c.setAutoCommit(true);
            }
        }
    }

    @Test
    void shouldNameTheTypeOfAValueWithPgTypeof() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT pg_typeof(id), pg_typeof(t), pg_typeof(n), pg_typeof(v), "
                         + "pg_typeof(b), pg_typeof(ts), pg_typeof(c), pg_typeof(big), pg_typeof(j), "
                         + "pg_typeof(x.id + 1), pg_typeof(t || 'a'), pg_typeof(v::varchar(3)) FROM sess_t x")) {
                final ResultSetMetaData md = r.getMetaData();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    assertEquals("pg_typeof", md.getColumnLabel(i));
                }
                assertEquals(List.of("integer", "text", "numeric", "character varying", "boolean",
                        "timestamp without time zone", "character", "bigint", "json", "integer", "text",
                        "character varying"), row(r), mode);
            }
            try (Connection c = db.connectPg(mode)) {
                assertEquals(List.of("integer", "numeric", "unknown", "unknown", "text", "name", "name", "boolean",
                        "integer[]", "bigint", "double precision", "text"),
                        row(c, "SELECT pg_typeof(1), pg_typeof(1.5), pg_typeof('a'), pg_typeof(NULL), "
                                + "pg_typeof('a'::text), pg_typeof(current_user), pg_typeof(current_schema), "
                                + "pg_typeof(true), pg_typeof(ARRAY[1, 2]), pg_typeof(count(*)), "
                                + "pg_typeof(1.5::float8), pg_typeof(upper(current_user))"));
                assertEquals(List.of("1"), row(c, "SELECT id FROM sess_t WHERE pg_typeof(id) = 'integer'::regtype"));
            }
        }
    }

    @Test
    void shouldAnswerAScalarFunctionInFromAsATableOfOneRow() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement()) {
                // TypeORM's three forms
                try (ResultSet r = s.executeQuery("SELECT * FROM current_schema()")) {
                    assertEquals(List.of("current_schema"), labels(r.getMetaData()));
                    assertEquals(NAME, oid(c, r.getMetaData(), 1));
                    assertEquals(List.of("public"), row(r));
                }
                try (ResultSet r = s.executeQuery("SELECT * FROM current_schema() AS s(x)")) {
                    assertEquals(List.of("x"), labels(r.getMetaData()));
                    assertEquals(List.of("public"), row(r));
                }
                assertEquals(List.of("public"), row(c, "SELECT current_schema FROM current_schema()"));
                // named after the table alias without a column alias, as PostgreSQL names it
                try (ResultSet r = s.executeQuery("SELECT * FROM current_schema() s")) {
                    assertEquals(List.of("s"), labels(r.getMetaData()));
                }
                try (ResultSet r = s.executeQuery("SELECT * FROM version(), current_setting('search_path') AS p(path), "
                        + "sess_t WHERE id = 1")) {
                    assertEquals(List.of("version", "path", "id"), labels(r.getMetaData()).subList(0, 3));
                    assertTrue(r.next());
                    assertTrue(r.getString(1).startsWith("PostgreSQL 15.0"));
                    assertEquals("public", r.getString(2));
                    assertFalse(r.next());
                }
                assertEquals(List.of("ABC"), row(c, "SELECT u FROM upper('abc') u"));
                // a table function stays one
                assertEquals(List.of("1", "2"), rows(c, "SELECT * FROM generate_series(1, 2)"));
                final SQLException e = assertThrows(SQLException.class, () -> row(c, "SELECT * FROM sess_nofunction()"));
                assertEquals("42883", e.getSQLState(), e.getMessage());
            }
        }
    }

    @Test
    void shouldTypeANameUsedAsTextAsText() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT upper(current_user), current_user || '!', current_schema, "
                     + "CASE WHEN true THEN current_user END AS chosen")) {
            final ResultSetMetaData md = r.getMetaData();
            assertEquals(List.of("upper", "?column?", "current_schema", "chosen"), labels(md));
            assertEquals(List.of(TEXT, TEXT, NAME, NAME), List.of(oid(c, md, 1), oid(c, md, 2), oid(c, md, 3),
                    oid(c, md, 4)));
            assertEquals(List.of("TEST", "test!", "public", "test"), row(r));
        }
    }

    @Test
    void shouldRefuseParenthesesAfterTheUserKeywords() throws SQLException {
        try (Connection c = db.connectPg()) {
            for (String call : List.of("current_user()", "session_user()", "user()", "current_catalog()")) {
                final SQLException e = assertThrows(SQLException.class, () -> one(c, "SELECT " + call));
                assertEquals("42601", e.getSQLState(), call + ": " + e.getMessage());
            }
        }
    }

    @Test
    void shouldRefuseTheSessionFunctionsOnTheJdbcPortWhichHasNoPostgresqlSession() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            final SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT current_user"));
            assertEquals("0A000", e.getSQLState(), e.getMessage());
            try (ResultSet r = s.executeQuery("SELECT current_database()")) {
                assertTrue(r.next());
                assertEquals("meldb", r.getString(1));
            }
        }
    }
}
