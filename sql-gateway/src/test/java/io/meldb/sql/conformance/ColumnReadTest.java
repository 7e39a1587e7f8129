package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Column-granular reads against increments (issue 21): a serializable point read on the fast path records the value
 * bytes of the columns it returns (io.meldb.sql.catalog.ReadColumns), so a concurrent {@code SET c = c + ?} of another
 * column of the row does not abort it; a read of the incremented column, of the whole row, or a read planned by
 * Calcite (a predicate on a value column) still does, as does any concurrent write that is not an increment. The
 * statements are prepared, so that both front ends run them on the fast path (the Avatica one runs plain statements
 * through Calcite, whose reads and {@code SET c = c + ?} stay row-level).
 */
class ColumnReadTest extends ConformanceTest {
    private static Connection txn(final String protocol) throws SQLException {
        final Connection c = Conformance.connect(db, protocol);
        c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        c.setAutoCommit(false);
        return c;
    }

    /**
     * Opens a transaction that runs {@code read} (and a write of its own, so it reaches meld), lets {@code concurrent}
     * commit in another transaction, then commits the first: "ok" or the SQLSTATE.
     */
    private static String readThenConcurrent(final String protocol, final String side, final String read,
                                             final String concurrent) throws SQLException {
        // prepared statements: the Avatica front end runs only those on the fast path (MeldMeta)
        try (Connection a = txn(protocol); Connection b = txn(protocol)) {
            try (PreparedStatement p = a.prepareStatement(read); ResultSet rs = p.executeQuery();
                 Statement s = a.createStatement()) {
                while (rs.next()) {
                    rs.getObject(1);
                }
                s.executeUpdate("INSERT INTO " + side + " VALUES (DEFAULT)");
            }
            try (PreparedStatement p = b.prepareStatement(concurrent)) {
                assertEquals(1, p.executeUpdate(), concurrent);
            }
            b.commit();
            try {
                a.commit();
                return "ok";
            } catch (SQLException e) {
                a.rollback();
                return e.getSQLState();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aReadOfOtherColumnsStandsAgainstAConcurrentIncrement(final String protocol) throws SQLException {
        final String t = "colread_" + protocol;
        final String side = "colread_side_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, ytd BIGINT NOT NULL, tax INTEGER NOT NULL, "
                + "name VARCHAR(10), street VARCHAR(20))");
            s.execute("INSERT INTO " + t + " VALUES (1, 0, 5, 'w', 's')");
            s.execute("CREATE TABLE " + side + " (id SERIAL PRIMARY KEY)");
        }
        final String inc = "UPDATE " + t + " SET ytd = ytd + 7 WHERE id = 1";
        final List<String> outcomes = new ArrayList<>();
        for (String columns : List.of("tax", "name", "street", "tax, name, street", "id, tax")) {
            outcomes.add(columns + ": " + readThenConcurrent(protocol, side,
                "SELECT " + columns + " FROM " + t + " WHERE id = 1", inc));
        }
        assertEquals(List.of("tax: ok", "name: ok", "street: ok", "tax, name, street: ok", "id, tax: ok"), outcomes,
            "reads of columns the increment does not touch");
        outcomes.clear();
        for (String columns : List.of("ytd", "*", "tax, ytd")) {
            outcomes.add(columns + ": " + readThenConcurrent(protocol, side,
                "SELECT " + columns + " FROM " + t + " WHERE id = 1", inc));
        }
        assertEquals(List.of("ytd: 40001", "*: 40001", "tax, ytd: 40001"), outcomes, "reads of the incremented column");
        // a predicate on a value column: the statement depends on ytd too
        assertEquals("40001", readThenConcurrent(protocol, side,
            "SELECT tax FROM " + t + " WHERE id = 1 AND ytd >= 0", inc));
        // an increment of the column read, and a write that is not an increment, still conflict
        assertEquals("40001", readThenConcurrent(protocol, side, "SELECT tax FROM " + t + " WHERE id = 1",
            "UPDATE " + t + " SET tax = tax + 1 WHERE id = 1"));
        assertEquals("40001", readThenConcurrent(protocol, side, "SELECT tax FROM " + t + " WHERE id = 1",
            "UPDATE " + t + " SET street = 'x' WHERE id = 1"));
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1:63:6:w:x"), rows(s, "SELECT * FROM " + t), "nine increments of 7, one of 1");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void newOrdersNextIdConflictsWithAnotherNewOrderButNotWithAPayment(final String protocol) throws SQLException {
        final String d = "colread_district_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + d + " (w INT NOT NULL, id INT NOT NULL, ytd BIGINT NOT NULL, "
                + "next_o_id INTEGER NOT NULL, tax INTEGER NOT NULL, name VARCHAR(10), PRIMARY KEY (w, id))");
            s.execute("INSERT INTO " + d + " VALUES (1, 1, 0, 3001, 7, 'd')");
        }
        final String read = "SELECT tax, next_o_id FROM " + d + " WHERE w = ? AND id = ?";
        final String next = "UPDATE " + d + " SET next_o_id = next_o_id + 1 WHERE w = ? AND id = ?";
        try (Connection newOrder = txn(protocol); Connection other = txn(protocol); Connection payment = txn(protocol)) {
            final List<Integer> ids = new ArrayList<>();
            for (Connection c : List.of(newOrder, other)) {
                try (PreparedStatement r = c.prepareStatement(read); PreparedStatement u = c.prepareStatement(next)) {
                    r.setInt(1, 1);
                    r.setInt(2, 1);
                    try (ResultSet rs = r.executeQuery()) {
                        rs.next();
                        ids.add(rs.getInt(2));
                    }
                    u.setInt(1, 1);
                    u.setInt(2, 1);
                    assertEquals(1, u.executeUpdate());
                }
            }
            assertEquals(List.of(3001, 3001), ids, "both read the same next order id");
            try (PreparedStatement p = payment.prepareStatement("UPDATE " + d + " SET ytd = ytd + ? WHERE w = 1 AND id = 1")) {
                p.setInt(1, 500);
                assertEquals(1, p.executeUpdate());
            }
            payment.commit();
            newOrder.commit(); // the payment's increment of ytd is not in the columns it read
            final SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, other::commit);
            assertEquals("40001", e.getSQLState(), "the second new-order read next_o_id, which the first incremented");
            other.rollback();
        }
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1:1:500:3002:7:d"), rows(s, "SELECT * FROM " + d));
        }
    }
}
