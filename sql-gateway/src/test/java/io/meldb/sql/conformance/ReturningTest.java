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
 * the rows as stored, after defaults and sequences.
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
