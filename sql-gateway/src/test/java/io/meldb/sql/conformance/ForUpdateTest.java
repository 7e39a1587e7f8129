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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code SELECT ... FOR UPDATE | FOR NO KEY UPDATE | FOR SHARE | FOR KEY SHARE [OF t] [NOWAIT | SKIP LOCKED]} over
 * both front ends: every form is accepted and answers the query's rows; a read-only transaction refuses it (25006);
 * and rows read FOR UPDATE count as written in meld's conflict test, so the read-modify-write patterns it guards
 * abort (40001) instead of losing an update or skewing, under snapshot isolation (REPEATABLE READ) too.
 */
class ForUpdateTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void everyLockingFormIsAcceptedAndAnswersTheRows(final String protocol) throws SQLException {
        final String t = "fu_forms_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, v INTEGER)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 10), (2, 20), (3, 30)");
            final String[] clauses = {"FOR UPDATE", "for no key update", "FOR SHARE", "FOR KEY SHARE",
                "FOR UPDATE OF " + t, "FOR UPDATE NOWAIT", "FOR UPDATE SKIP LOCKED", "FOR SHARE OF x NOWAIT",
                "FOR UPDATE OF x FOR SHARE OF " + t};
            for (boolean autoCommit : new boolean[] {true, false}) {
                c.setAutoCommit(autoCommit);
                for (String clause : clauses) {
                    assertEquals(List.of("2:20", "3:30"), rows(s, "SELECT id, v FROM " + t + " x WHERE id >= 2 "
                            + "ORDER BY id " + clause), clause);
                }
                assertEquals(List.of("1:10"), rows(s, "SELECT id, v FROM " + t + " ORDER BY id LIMIT 1 FOR UPDATE"));
                assertEquals(List.of("1:10"), rows(s, "SELECT id, v FROM " + t + " ORDER BY id FOR UPDATE LIMIT 1;"));
                try (PreparedStatement p = c.prepareStatement("SELECT v FROM " + t + " WHERE id = ? FOR UPDATE")) {
                    p.setInt(1, 3);
                    try (ResultSet r = p.executeQuery()) {
                        assertTrue(r.next());
                        assertEquals(30, r.getInt(1));
                    }
                }
                if (!autoCommit) {
                    c.commit();
                }
            }
            c.setAutoCommit(true);
            assertEquals("42601", failure(s, "SELECT id FROM " + t + " FOR UPDATE OF 7").getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aReadOnlyTransactionRefusesIt(final String protocol) throws SQLException {
        final String t = "fu_ro_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY)");
            if (protocol.equals(Conformance.PG)) {
                // pgjdbc's setReadOnly only applies to transactions it opens; psql's way for the session
                s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
            } else {
                c.setReadOnly(true);
            }
            assertEquals("25006", failure(s, "SELECT id FROM " + t + " FOR UPDATE").getSQLState(), "autocommit");
            c.setReadOnly(true);
            c.setAutoCommit(false);
            assertEquals("25006", failure(s, "SELECT id FROM " + t + " FOR SHARE").getSQLState(), "a transaction");
            c.rollback();
            assertEquals(List.of(), rows(s, "SELECT id FROM " + t), "a plain query still runs");
            c.rollback();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aRowReadForUpdateConflictsWithAConcurrentWriteOfIt(final String protocol) throws SQLException {
        final String t = "fu_rw_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, balance INTEGER)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 100), (2, 100)");
        }
        try (Connection a = snapshot(protocol); Connection b = snapshot(protocol);
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            // a locks row 1 and writes nothing else; b changes row 1 and commits first: a must not commit
            assertEquals(List.of("100"), rows(sa, "SELECT balance FROM " + t + " WHERE id = 1 FOR UPDATE"));
            assertEquals(1, sb.executeUpdate("UPDATE " + t + " SET balance = 50 WHERE id = 1"));
            b.commit();
            assertEquals("40001", assertThrows(SQLException.class, a::commit).getSQLState());
            a.rollback();
            // the same without FOR UPDATE commits: a read alone is no write under snapshot isolation
            assertEquals(List.of("50"), rows(sa, "SELECT balance FROM " + t + " WHERE id = 1"));
            assertEquals(1, sb.executeUpdate("UPDATE " + t + " SET balance = 60 WHERE id = 1"));
            b.commit();
            a.commit();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void writeSkewGuardedByForUpdateUnderSnapshotIsolationLetsExactlyOneCommit(final String protocol)
            throws SQLException {
        final String t = "fu_skew_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, on_call BOOLEAN)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, TRUE), (2, TRUE)");
        }
        // the rule: at least one doctor stays on call. Each transaction checks that two are, then leaves.
        assertEquals(2, skewCommits(protocol, t, ""), "unguarded, snapshot isolation lets both commit");
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + t + " SET on_call = TRUE");
        }
        assertEquals(1, skewCommits(protocol, t, " FOR UPDATE"), "guarded, exactly one commits");
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1"), rows(s, "SELECT COUNT(*) FROM " + t + " WHERE on_call"));
        }
    }

    /** Two doctors go off call at once, each after seeing two on call; answers how many transactions committed. */
    private static int skewCommits(final String protocol, final String t, final String clause) throws SQLException {
        int committed = 0;
        try (Connection a = snapshot(protocol); Connection b = snapshot(protocol);
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            assertEquals(List.of("1", "2"), rows(sa, "SELECT id FROM " + t + " WHERE on_call ORDER BY id" + clause));
            assertEquals(List.of("1", "2"), rows(sb, "SELECT id FROM " + t + " WHERE on_call ORDER BY id" + clause));
            sa.executeUpdate("UPDATE " + t + " SET on_call = FALSE WHERE id = 1");
            sb.executeUpdate("UPDATE " + t + " SET on_call = FALSE WHERE id = 2");
            for (Connection c : new Connection[] {a, b}) {
                try {
                    c.commit();
                    committed++;
                } catch (SQLException e) {
                    assertEquals("40001", e.getSQLState(), e.getMessage());
                    c.rollback();
                }
            }
        }
        return committed;
    }

    /** A connection in an explicit transaction at snapshot isolation (REPEATABLE READ). */
    private static Connection snapshot(final String protocol) throws SQLException {
        final Connection c = Conformance.connect(db, protocol);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        c.setAutoCommit(false);
        return c;
    }
}
