package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Savepoints through pgjdbc and through MeldDB's own driver, by the JDBC API and as SQL text: a rollback to a
 * savepoint undoes exactly what came after it, the transaction goes on and commits the rest.
 */
class SavepointTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void rollingBackToASavepointUndoesOnlyTheWritesAfterIt(final String protocol) throws SQLException {
        final String table = "sp_api_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id INTEGER PRIMARY KEY, v VARCHAR(10))");
            c.setAutoCommit(false);
            s.execute("INSERT INTO " + table + " VALUES (1, 'kept')");
            final Savepoint unnamed = c.setSavepoint();
            s.execute("INSERT INTO " + table + " VALUES (2, 'undone')");
            s.execute("UPDATE " + table + " SET v = 'changed' WHERE id = 1");
            c.rollback(unnamed);
            final Savepoint named = c.setSavepoint("after_undo");
            assertEquals("after_undo", named.getSavepointName());
            s.execute("INSERT INTO " + table + " VALUES (3, 'released')");
            c.releaseSavepoint(named);
            c.commit();
            c.setAutoCommit(true);
            assertEquals(List.of("1:kept", "3:released"), rows(s, "SELECT id, v FROM " + table + " ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void savepointStatementsAsTextWorkAndAFailedStatementIsRecoverable(final String protocol) throws SQLException {
        final String table = "sp_sql_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id INTEGER PRIMARY KEY)");
            c.setAutoCommit(false);
            s.execute("INSERT INTO " + table + " VALUES (1)");
            s.execute("SAVEPOINT before_dup");
            assertEquals("23505", failure(s, "INSERT INTO " + table + " VALUES (1)").getSQLState());
            s.execute("ROLLBACK TO SAVEPOINT before_dup");
            s.execute("INSERT INTO " + table + " VALUES (2)");
            s.execute("RELEASE before_dup");
            assertEquals("3B001", failure(s, "ROLLBACK TO before_dup").getSQLState(), "released savepoints are gone");
            s.execute("ROLLBACK");
            c.setAutoCommit(true);
            assertEquals(List.of(), rows(s, "SELECT id FROM " + table), "the rollback took the whole transaction");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aSavepointNeedsATransaction(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertThrows(SQLException.class, c::setSavepoint);
            assertEquals("25P01", failure(s, "SAVEPOINT outside").getSQLState());
            assertEquals(List.of("1"), rows(s, "SELECT 1"), "the connection goes on");
        }
    }
}
