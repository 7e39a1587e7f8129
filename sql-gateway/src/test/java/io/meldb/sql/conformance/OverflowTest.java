package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Values are never silently wrong: arithmetic, casts, literals and parameters either fit exactly or fail with
 * 22003 (out of range), wrong-type values with 22P02/42804, a missing parameter with the driver's state; an empty
 * statement is answered as PostgreSQL answers it. Over both front ends, on the Calcite path and the fast path.
 */
class OverflowTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void integerArithmeticAndCastsThatOverflowFailWith22003(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            for (String sql : List.of("SELECT 2147483647 + 1", "SELECT 2147483647 * 2", "SELECT -2147483647 - 2",
                    "SELECT CAST(40000 AS SMALLINT)", "SELECT CAST(3000000000 AS INTEGER)",
                    "SELECT CAST(9223372036854775807 AS BIGINT) + 1", "SELECT CAST(1e300 AS REAL)",
                    "SELECT CAST(123.456 AS NUMERIC(4, 2))", "SELECT CAST(1e19 AS BIGINT)")) {
                assertEquals("22003", failure(s, sql).getSQLState(), sql);
            }
            final String t = "ovf_" + protocol;
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, i INT, sm SMALLINT, b BIGINT)");
            s.execute("INSERT INTO " + t + " VALUES (1, 2147483647, 32767, 9223372036854775807)");
            for (String sql : List.of("SELECT i + 1 FROM " + t, "SELECT i * i FROM " + t, "SELECT sm + sm FROM " + t,
                    "SELECT b + 1 FROM " + t, "SELECT -b - 2 FROM " + t, "UPDATE " + t + " SET i = i + 1 WHERE id = 1",
                    "UPDATE " + t + " SET sm = 100000 WHERE id = 1", "INSERT INTO " + t + " VALUES (2, 3000000000, 1, 1)",
                    "INSERT INTO " + t + " VALUES (3, 1, 40000, 1)")) {
                assertEquals("22003", failure(s, sql).getSQLState(), sql);
            }
            assertEquals(List.of("1:2147483647:32767:9223372036854775807"), rows(s, "SELECT * FROM " + t),
                    "a failed statement changed nothing");
            // PostgreSQL sums integers into a bigint, so the sum does not wrap around
            s.execute("INSERT INTO " + t + " VALUES (4, 2147483647, 1, 1)");
            assertEquals(List.of("4294967294"), rows(s, "SELECT SUM(i) FROM " + t));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void parametersThatDoNotFitOrHaveTheWrongTypeFailWithTheirStates(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final String t = "par_" + protocol;
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, i INT, d DATE)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " (id, i) VALUES (?, ?)")) {
                p.setInt(1, 1);
                p.setLong(2, 1L << 40);
                assertEquals("22003", state(p));
                p.setDouble(2, 1e20);
                assertEquals("22003", state(p));
                p.setString(2, "abc");
                assertEquals("22P02", state(p));
                p.setString(2, "1.5");
                assertEquals("22P02", state(p));
                p.setBoolean(2, true);
                assertEquals("42804", state(p));
                p.clearParameters();
                p.setInt(1, 1);
                final String missing = state(p);
                // pgjdbc refuses it itself (22023); the MeldDB driver's server answers 07001
                assertEquals(protocol.equals(Conformance.PG) ? "22023" : "07001", missing);
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " (id, d) VALUES (?, ?)")) {
                p.setInt(1, 2);
                p.setString(2, "2023-02-29");
                assertNotEquals("XX000", state(p));
                if (protocol.equals(Conformance.MELD)) {
                    p.setInt(2, 0); // not 1970-01-01
                    assertEquals("42804", state(p));
                }
            }
            try (PreparedStatement p = c.prepareStatement("SELECT i FROM " + t + " WHERE id = ?")) {
                p.setLong(1, 1L << 40);
                assertEquals("22003", assertThrows(SQLException.class, p::executeQuery).getSQLState());
            }
            assertEquals(List.of(), rows(s, "SELECT id FROM " + t));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void anEmptyStatementAnswersWithoutAResultOrAnError(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            for (String sql : List.of("", " ", ";", " ; ")) {
                assertFalse(s.execute(sql), "'" + sql + "' has no result set");
            }
            assertEquals(List.of("1"), rows(s, "SELECT 1"), "the connection still works");
        }
    }

    private static String state(final PreparedStatement p) {
        return assertThrows(SQLException.class, p::executeUpdate).getSQLState();
    }
}
