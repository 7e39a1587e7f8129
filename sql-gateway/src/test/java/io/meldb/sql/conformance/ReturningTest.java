package io.meldb.sql.conformance;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INSERT, UPDATE and DELETE ... RETURNING over the PostgreSQL protocol, in both of pgjdbc's query modes, and JDBC's
 * getGeneratedKeys (which pgjdbc implements by appending RETURNING), and through MeldDB's driver as statement text:
 * the rows as stored, after defaults and sequences. Columns qualified by the written table's name, schema or alias
 * resolve to its columns; a qualifier naming another table is refused with PostgreSQL 15's errors.
 */
class ReturningTest extends ConformanceTest {
    @BeforeAll
    static void createTable() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ret (id BIGSERIAL PRIMARY KEY, name VARCHAR(10) NOT NULL, "
                    + "qty INTEGER DEFAULT 5, price DECIMAL(6, 2))");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "extended"})
    void shouldAnswerTheRowsAStatementWrote(final String mode) throws SQLException {
        try (Connection c = db.connectPg("preferQueryMode=" + mode); Statement s = c.createStatement()) {
            final String n = mode.substring(0, 3);
            final List<String> inserted = rows(s, "INSERT INTO ret (name, price) VALUES ('" + n + "1', 1.5), ('"
                    + n + "2', NULL) RETURNING id, name AS label, qty, price");
            assertEquals(2, inserted.size());
            final long first = Long.parseLong(inserted.get(0).split(":")[0]);
            assertEquals(List.of(first + ":" + n + "1:5:1.50", (first + 1) + ":" + n + "2:5:null"), inserted);
            assertEquals(List.of(first + ":" + n + "1:6:1.50"), rows(s, "UPDATE ret SET qty = qty + 1 WHERE id = "
                    + first + " RETURNING *"));
            assertEquals(List.of(String.valueOf(first + 1)), rows(s, "DELETE FROM ret WHERE id = " + (first + 1)
                    + " RETURNING id"));
            try (PreparedStatement p = c.prepareStatement("INSERT INTO ret (name) VALUES (?) RETURNING \"id\"")) {
                p.setString(1, n + "3");
                try (ResultSet r = p.executeQuery()) {
                    assertTrue(r.next());
                    assertEquals(first + 2, r.getLong(1));
                    assertEquals("id", r.getMetaData().getColumnLabel(1));
                    assertFalse(r.next());
                }
            }
            assertEquals(1, s.executeUpdate("UPDATE ret SET qty = 0 WHERE id = " + first), "without RETURNING");
            assertEquals("42703", failure(s, "INSERT INTO ret (name) VALUES ('x') RETURNING nope").getSQLState());
            assertEquals("0A000", failure(s, "INSERT INTO ret (name) VALUES ('x') RETURNING id + 1").getSQLState());
        }
    }

    @Test
    void shouldAnswerTheRowsAStatementWroteThroughTheMeldDbDriver() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.MELD); Statement s = c.createStatement()) {
            final List<String> inserted = rows(s, "INSERT INTO ret (name, price) VALUES ('m1', 2.25), ('m2', NULL) "
                    + "RETURNING id, name AS label, qty, price");
            assertEquals(2, inserted.size());
            final long first = Long.parseLong(inserted.get(0).split(":")[0]);
            assertEquals(List.of(first + ":m1:5:2.25", (first + 1) + ":m2:5:null"), inserted);
            try (ResultSet r = s.executeQuery("UPDATE ret SET qty = qty + 1 WHERE id = " + first + " RETURNING *")) {
                assertEquals("name", r.getMetaData().getColumnLabel(2));
                assertTrue(r.next());
                assertEquals(6, r.getInt("qty"));
                assertFalse(r.next());
            }
            // in a transaction: what RETURNING showed is what the transaction wrote, and a rollback takes it back
            c.setAutoCommit(false);
            assertEquals(List.of(String.valueOf(first + 1)), rows(s, "DELETE FROM ret WHERE id = " + (first + 1)
                    + " RETURNING id"));
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(List.of("m2"), rows(s, "SELECT name FROM ret WHERE id = " + (first + 1)));
            assertEquals("42703", failure(s, "INSERT INTO ret (name) VALUES ('x') RETURNING nope").getSQLState());
            // prepared, it is a clear 0A000 (the PostgreSQL protocol prepares it)
            assertEquals("0A000", assertThrowsSql(() -> c.prepareStatement("DELETE FROM ret RETURNING id"))
                    .getSQLState());
        }
    }

    /** A connection for one of the ways tests reach RETURNING: pgjdbc in either query mode, or MeldDB's driver. */
    private static Connection connect(final String way) throws SQLException {
        return way.equals(Conformance.MELD) ? Conformance.connect(db, Conformance.MELD)
                : db.connectPg("preferQueryMode=" + way);
    }

    /** The labels of the result's columns, joined by ','. */
    private static String labels(final Statement s, final String sql) throws SQLException {
        try (ResultSet r = s.executeQuery(sql)) {
            final StringBuilder b = new StringBuilder();
            for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
                b.append(i > 1 ? "," : "").append(r.getMetaData().getColumnLabel(i));
            }
            return b.toString();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "extended", Conformance.MELD})
    void shouldResolveColumnsQualifiedByTheWrittenTablesNameSchemaOrDatabase(final String way) throws SQLException {
        try (Connection c = connect(way); Statement s = c.createStatement()) {
            final String t = "qret_" + way;
            s.execute("CREATE TABLE " + t + " (id BIGSERIAL PRIMARY KEY, name VARCHAR(10))");
            // what SQLAlchemy and Django send: the table's name before each column
            assertEquals(List.of("1:ada"), rows(s, "INSERT INTO " + t + " (name) VALUES ('ada') RETURNING " + t
                    + ".id, " + t + ".name"));
            assertEquals(List.of("2"), rows(s, "INSERT INTO " + t + " (name) VALUES ('bob') RETURNING \"" + t
                    + "\".\"id\""));
            assertEquals(List.of("3:cy"), rows(s, "INSERT INTO public." + t + " (name) VALUES ('cy') RETURNING public."
                    + t + ".id, " + t + ".name"));
            assertEquals(List.of("4"), rows(s, "INSERT INTO " + t + " (name) VALUES ('di') RETURNING meldb.public."
                    + t + ".id"));
            assertEquals("id,name", labels(s, "INSERT INTO " + t + " (name) VALUES ('ed') RETURNING " + t + ".*"));
            assertEquals("k,name", labels(s, "INSERT INTO " + t + " (name) VALUES ('fy') RETURNING " + t
                    + ".id AS k, " + t + ".name"), "the column's name labels it, unless the item has an alias");
            assertEquals(List.of("1:ann"), rows(s, "UPDATE " + t + " SET name = 'ann' WHERE id = 1 RETURNING " + t
                    + ".id, public." + t + ".name"));
            assertEquals(List.of("2:bob"), rows(s, "DELETE FROM " + t + " WHERE id = 2 RETURNING " + t + ".*"));
            s.execute("DROP TABLE " + t);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "extended", Conformance.MELD})
    void shouldResolveColumnsQualifiedByTheWrittenTablesAliasAndRefuseItsNameThen(final String way)
            throws SQLException {
        try (Connection c = connect(way); Statement s = c.createStatement()) {
            final String t = "aret_" + way;
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, name VARCHAR(10))");
            s.execute("INSERT INTO " + t + " VALUES (1, 'ada'), (2, 'bob')");
            assertEquals(List.of("1:ann"), rows(s, "UPDATE " + t + " AS a SET name = 'ann' WHERE id = 1 "
                    + "RETURNING a.id, a.name"));
            assertEquals(List.of("2:bob"), rows(s, "DELETE FROM " + t + " d WHERE id = 2 RETURNING d.*"));
            // PostgreSQL: the alias hides the table's name, with or without its schema
            for (String sql : List.of("UPDATE " + t + " a SET name = 'x' RETURNING " + t + ".id",
                    "UPDATE " + t + " a SET name = 'x' RETURNING public." + t + ".id",
                    "DELETE FROM " + t + " AS d RETURNING " + t + ".name")) {
                final SQLException e = failure(s, sql);
                assertEquals("42P01", e.getSQLState(), sql);
                assertTrue(e.getMessage().contains("invalid reference to FROM-clause entry for table \"" + t + "\""),
                        e.getMessage());
            }
            assertEquals(List.of("1:ann"), rows(s, "SELECT id, name FROM " + t), "the refused statements wrote nothing");
            s.execute("DROP TABLE " + t);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "extended"})
    void shouldResolveColumnsQualifiedByTheAliasOfAnInsertWithOnConflict(final String mode) throws SQLException {
        try (Connection c = connect(mode); Statement s = c.createStatement()) {
            final String t = "uret_" + mode;
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, name VARCHAR(10))");
            assertEquals(List.of("1:ada"), rows(s, "INSERT INTO " + t + " AS a VALUES (1, 'ada') ON CONFLICT (id) "
                    + "DO UPDATE SET name = a.name || '!' RETURNING a.id, a.name"));
            assertEquals(List.of("1:ada!"), rows(s, "INSERT INTO " + t + " AS a VALUES (1, 'ada') ON CONFLICT (id) "
                    + "DO UPDATE SET name = a.name || '!' RETURNING a.id, a.name"));
            final SQLException e = failure(s, "INSERT INTO " + t + " AS a VALUES (2, 'bob') ON CONFLICT (id) "
                    + "DO NOTHING RETURNING " + t + ".id");
            assertEquals("42P01", e.getSQLState());
            assertTrue(e.getMessage().contains("invalid reference to FROM-clause entry for table \"" + t + "\""),
                    e.getMessage());
            s.execute("DROP TABLE " + t);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "extended", Conformance.MELD})
    void shouldRefuseAQualifierThatNamesAnotherTableAsPostgresqlDoes(final String way) throws SQLException {
        try (Connection c = connect(way); Statement s = c.createStatement()) {
            final String t = "xret_" + way;
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, name VARCHAR(10))");
            final String insert = "INSERT INTO " + t + " VALUES (1, 'ada') RETURNING ";
            // each as PostgreSQL 15 answers it
            final String[][] cases = {
                {"ret.id", "42P01", "missing FROM-clause entry for table \"ret\""},
                {"x.*", "42P01", "missing FROM-clause entry for table \"x\""},
                {"public.ret.id", "42P01", "missing FROM-clause entry for table \"ret\""},
                {"\"XRET_" + way + "\".id", "42P01", "missing FROM-clause entry for table \"XRET_" + way + "\""},
                {"nosuch." + t + ".id", "42P01", "invalid reference to FROM-clause entry for table \"" + t + "\""},
                {t + ".nope", "42703", "column " + t + ".nope does not exist"},
                {"other.public." + t + ".id", "0A000", "cross-database references are not implemented: other.public."
                    + t + ".id"},
                {"a.b.c.d.id", "42601", "improper qualified name (too many dotted names): a.b.c.d.id"},
            };
            for (String[] x : cases) {
                final SQLException e = failure(s, insert + x[0]);
                assertEquals(x[1], e.getSQLState(), x[0]);
                assertTrue(e.getMessage().contains(x[2]), x[0] + ": " + e.getMessage());
            }
            assertEquals(List.of(), rows(s, "SELECT id FROM " + t), "the refused statements wrote nothing");
            s.execute("DROP TABLE " + t);
        }
    }

    private static SQLException assertThrowsSql(final org.junit.jupiter.api.function.Executable e) {
        return org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, e);
    }

    @Test
    void shouldAnswerGeneratedKeysThroughPgjdbc() throws SQLException {
        try (Connection c = db.connectPg();
             PreparedStatement p = c.prepareStatement("INSERT INTO ret (name) VALUES (?)",
                     Statement.RETURN_GENERATED_KEYS);
             PreparedStatement named = c.prepareStatement("INSERT INTO ret (name) VALUES (?)", new String[] {"id"});
             Statement s = c.createStatement()) {
            final List<Long> keys = new ArrayList<>();
            for (String name : List.of("k1", "k2")) {
                p.setString(1, name);
                assertEquals(1, p.executeUpdate());
                try (ResultSet r = p.getGeneratedKeys()) {
                    assertTrue(r.next());
                    keys.add(r.getLong("id"));
                }
            }
            named.setString(1, "k3");
            named.executeUpdate();
            try (ResultSet r = named.getGeneratedKeys()) {
                assertTrue(r.next());
                keys.add(r.getLong(1));
            }
            assertEquals(keys.get(0) + 1, keys.get(1));
            assertEquals(keys.get(1) + 1, keys.get(2));
            assertEquals(1, s.executeUpdate("INSERT INTO ret (name) VALUES ('k4')", Statement.RETURN_GENERATED_KEYS));
            try (ResultSet r = s.getGeneratedKeys()) {
                assertTrue(r.next());
                assertEquals(keys.get(2) + 1, r.getLong("id"));
            }
            assertEquals(List.of("k1", "k2", "k3", "k4"), rows(s, "SELECT name FROM ret WHERE id >= " + keys.get(0)
                    + " ORDER BY id"));
        }
    }
}
