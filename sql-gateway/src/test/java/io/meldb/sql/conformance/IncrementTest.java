package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code UPDATE t SET c = c ± x WHERE pk = ?} on the fast path is an increment in meld (io.meldb.sql.fast.FastIncrement):
 * concurrent counters all commit and sum exactly, overflow is still 22003 (also when only the committed value at
 * meld time overflows), and a statement that needs the value (a CHECK on it, a read of it) keeps the ordinary
 * read-modify-write and its conflicts.
 */
class IncrementTest extends ConformanceTest {
    private static Connection txn(final String protocol, final int isolation) throws SQLException {
        final Connection c = Conformance.connect(db, protocol);
        c.setTransactionIsolation(isolation);
        c.setAutoCommit(false);
        return c;
    }

    /** Runs {@code sql} (one parameter: the delta) in {@code n} open transactions on one snapshot, then commits all. */
    private static List<String> concurrently(final String protocol, final int isolation, final int n, final String sql)
            throws SQLException {
        final List<Connection> open = new ArrayList<>();
        final List<String> outcomes = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                final Connection c = txn(protocol, isolation);
                open.add(c);
                try (PreparedStatement p = c.prepareStatement(sql)) {
                    p.setInt(1, i + 1);
                    assertEquals(1, p.executeUpdate(), sql);
                }
            }
            for (Connection c : open) {
                try {
                    c.commit();
                    outcomes.add("ok");
                } catch (SQLException e) {
                    outcomes.add(e.getSQLState());
                    c.rollback();
                }
            }
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
        return outcomes;
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void concurrentIncrementsOfOneRowAllCommitAndTheSumIsExact(final String protocol) throws SQLException {
        final String t = "inc_" + protocol;
        final String guarded = "inc_guarded_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, n BIGINT, note VARCHAR(10))");
            s.execute("INSERT INTO " + t + " VALUES (1, 1000, 'x')");
            // a CHECK that reads n: the update needs the value, so it is a read-modify-write
            s.execute("CREATE TABLE " + guarded + " (id INT PRIMARY KEY, n BIGINT CHECK (n >= 0))");
            s.execute("INSERT INTO " + guarded + " VALUES (1, 1000)");
        }
        for (int isolation : new int[] {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ}) {
            assertEquals(List.of("ok", "ok", "ok", "ok", "ok", "ok"),
                concurrently(protocol, isolation, 6, "UPDATE " + t + " SET n = n + ? WHERE id = 1"));
            assertEquals(List.of("ok", "ok", "ok"),
                concurrently(protocol, isolation, 3, "UPDATE " + t + " SET n = n - ? WHERE id = 1"));
            assertEquals(List.of("ok", "40001", "40001"),
                concurrently(protocol, isolation, 3, "UPDATE " + guarded + " SET n = n + ? WHERE id = 1"));
        }
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1:1030:x"), rows(s, "SELECT * FROM " + t), "1000 + 2 x (21 - 6)");
            assertEquals(List.of("1002"), rows(s, "SELECT n FROM " + guarded), "one +1 committed each time");
            // an absent row is no row; a NULL stays NULL; a constant works too
            assertEquals(0, s.executeUpdate("UPDATE " + t + " SET n = n + 1 WHERE id = 2"));
            s.execute("INSERT INTO " + t + " VALUES (3, NULL, 'y')");
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET n = n + 5 WHERE id = 3"));
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET n = n - 30 WHERE id = 1"));
            assertEquals(List.of("1:1000:x", "3:null:y"), rows(s, "SELECT * FROM " + t + " ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void anIncrementThatOverflowsOnlyAtCommitFailsWith22003AndChangesNothing(final String protocol)
            throws SQLException {
        final String t = "inc_ovf_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, flag BOOLEAN NOT NULL, sm SMALLINT NOT NULL, "
                + "i INTEGER NOT NULL, b BIGINT)");
            s.execute("INSERT INTO " + t + " VALUES (1, true, 0, 2147483600, 9223372036854775747)");
            assertEquals("22003", failure(s, "UPDATE " + t + " SET sm = sm + 40000 WHERE id = 1").getSQLState());
            assertEquals("22003", failure(s, "UPDATE " + t + " SET b = b + 61 WHERE id = 1").getSQLState());
        }
        for (String column : List.of("sm", "i", "b")) {
            final int delta = column.equals("sm") ? 20000 : 40;
            try (Connection a = txn(protocol, Connection.TRANSACTION_REPEATABLE_READ);
                 Connection b = txn(protocol, Connection.TRANSACTION_REPEATABLE_READ)) {
                // the offsets of sm, i and b are fixed: every column before them is fixed-width and NOT NULL
                final String sql = "UPDATE " + t + " SET " + column + " = " + column + " + ? WHERE id = ?";
                for (Connection x : List.of(a, b)) {
                    try (PreparedStatement p = x.prepareStatement(sql)) {
                        p.setInt(1, delta);
                        p.setInt(2, 1);
                        assertEquals(1, p.executeUpdate(), "fits the snapshot's value");
                    }
                }
                a.commit();
                assertEquals("22003", assertThrows(SQLException.class, b::commit).getSQLState(), column);
                b.rollback();
            }
        }
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("20000:2147483640:9223372036854775787"), rows(s, "SELECT sm, i, b FROM " + t),
                "each column took exactly one increment");
        }
    }
}
