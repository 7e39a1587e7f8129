package io.meldb.sql.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DEFERRABLE FOREIGN KEY constraints and SET CONSTRAINTS as PostgreSQL 15 has them (Django creates every foreign
 * key DEFERRABLE INITIALLY DEFERRED): a deferred check waits for COMMIT, where a violation fails the commit with
 * 23503 and writes nothing; a violation repaired before COMMIT passes; SET CONSTRAINTS ... IMMEDIATE runs the
 * pending checks at once; a DEFERRABLE INITIALLY IMMEDIATE constraint checks each row until SET CONSTRAINTS defers
 * it; the catalog shows the timing; and the DDL and SET CONSTRAINTS errors are PostgreSQL's.
 */
class DeferredForeignKeyTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aDeferredCheckWaitsForCommitWhereAViolationFailsItAndWritesNothing(final String protocol)
            throws SQLException {
        final String p = "dfp_" + protocol;
        final String ch = "dfc_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + p + " (id INTEGER PRIMARY KEY)");
            s.execute("CREATE TABLE " + ch + " (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES " + p
                    + " DEFERRABLE INITIALLY DEFERRED)");
            c.setAutoCommit(false);
            // the child first, its parent later in the same transaction: fine at COMMIT
            s.executeUpdate("INSERT INTO " + ch + " VALUES (1, 10)");
            s.executeUpdate("INSERT INTO " + p + " VALUES (10)");
            c.commit();
            // an orphan at COMMIT: the commit fails and nothing of the transaction stays
            s.executeUpdate("INSERT INTO " + p + " VALUES (20)");
            s.executeUpdate("INSERT INTO " + ch + " VALUES (2, 99)");
            final SQLException atCommit = assertThrows(SQLException.class, c::commit);
            assertEquals("23503", atCommit.getSQLState());
            assertTrue(atCommit.getMessage().contains("insert or update on table \"" + ch + "\" violates foreign key "
                    + "constraint \"" + ch + "_pid_fkey\""), atCommit.getMessage());
            if (protocol.equals(Conformance.PG)) {
                assertEquals("Key (pid)=(99) is not present in table \"" + p + "\".",
                        assertInstanceOf(PSQLException.class, atCommit).getServerErrorMessage().getDetail());
            }
            c.rollback();
            assertEquals(List.of("10"), rows(s, "SELECT id FROM " + p + " ORDER BY id"), "the failed commit wrote nothing");
            c.commit();
            // an orphan deleted again before COMMIT, and a parent deleted then written back: both pass
            s.executeUpdate("INSERT INTO " + ch + " VALUES (3, 77)");
            s.executeUpdate("DELETE FROM " + ch + " WHERE id = 3");
            s.executeUpdate("DELETE FROM " + p + " WHERE id = 10");
            s.executeUpdate("INSERT INTO " + p + " VALUES (10)");
            c.commit();
            // a parent deleted while its child stays: the commit fails
            s.executeUpdate("DELETE FROM " + p + " WHERE id = 10");
            final SQLException referenced = assertThrows(SQLException.class, c::commit);
            assertEquals("23503", referenced.getSQLState());
            assertTrue(referenced.getMessage().contains("update or delete on table \"" + p + "\" violates foreign "
                    + "key constraint \"" + ch + "_pid_fkey\" on table \"" + ch + "\""), referenced.getMessage());
            c.rollback();
            // a child re-pointed at a parent inserted afterwards
            s.executeUpdate("UPDATE " + ch + " SET pid = 30 WHERE id = 1");
            s.executeUpdate("INSERT INTO " + p + " VALUES (30)");
            c.commit();
            assertEquals(List.of("1:30"), rows(s, "SELECT id, pid FROM " + ch + " ORDER BY id"));
            c.commit();
            // autocommit: each statement is its own transaction, so the check runs as it commits
            c.setAutoCommit(true);
            assertEquals("23503", failure(s, "INSERT INTO " + ch + " VALUES (4, 404)").getSQLState());
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + ch + " ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void setConstraintsImmediateRunsThePendingChecksAndDeferredPostponesThem(final String protocol)
            throws SQLException {
        final String p = "scp_" + protocol;
        final String ch = "scc_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + p + " (id INTEGER PRIMARY KEY)");
            s.execute("CREATE TABLE " + ch + " (id INTEGER PRIMARY KEY, pid INTEGER, CONSTRAINT " + ch
                    + "_fk FOREIGN KEY (pid) REFERENCES " + p + " (id) DEFERRABLE)");
            s.executeUpdate("INSERT INTO " + p + " VALUES (1)");
            c.setAutoCommit(false);
            // DEFERRABLE INITIALLY IMMEDIATE: checked as written
            assertEquals("23503", failure(s, "INSERT INTO " + ch + " VALUES (1, 5)").getSQLState());
            c.rollback();
            // deferred by name, then made immediate while an orphan is pending: SET CONSTRAINTS fails
            s.execute("SET CONSTRAINTS " + ch + "_fk DEFERRED");
            s.executeUpdate("INSERT INTO " + ch + " VALUES (1, 5)");
            final SQLException immediate = failure(s, "SET CONSTRAINTS " + ch + "_fk IMMEDIATE");
            assertEquals("23503", immediate.getSQLState());
            c.rollback();
            // ALL DEFERRED, repaired, then ALL IMMEDIATE passes and the rest of the transaction is checked per row
            s.execute("SET CONSTRAINTS ALL DEFERRED");
            s.executeUpdate("INSERT INTO " + ch + " VALUES (2, 6)");
            s.executeUpdate("INSERT INTO " + p + " VALUES (6)");
            s.execute("SET CONSTRAINTS ALL IMMEDIATE");
            assertEquals("23503", failure(s, "INSERT INTO " + ch + " VALUES (3, 7)").getSQLState());
            c.rollback();
            // the mode lasts one transaction
            assertEquals("23503", failure(s, "INSERT INTO " + ch + " VALUES (3, 7)").getSQLState());
            c.rollback();
            // a qualified and a quoted name; unknown and non-deferrable names are PostgreSQL's errors
            s.execute("SET CONSTRAINTS public.\"" + ch + "_fk\" DEFERRED");
            s.executeUpdate("INSERT INTO " + ch + " VALUES (4, 8)");
            s.executeUpdate("DELETE FROM " + ch + " WHERE id = 4");
            c.commit();
            assertEquals("42704", failure(s, "SET CONSTRAINTS no_such_constraint DEFERRED").getSQLState());
            c.rollback();
            assertEquals("42809", failure(s, "SET CONSTRAINTS " + p + "_pkey DEFERRED").getSQLState());
            c.rollback();
            assertEquals("42601", failure(s, "SET CONSTRAINTS ALL LATER").getSQLState());
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + p + " ORDER BY id"));
        }
    }

    @Test
    void setConstraintsOutsideATransactionBlockOnlyWarnsAsInPostgres() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("SET CONSTRAINTS ALL DEFERRED");
            final SQLWarning warning = s.getWarnings();
            assertNotNull(warning);
            assertEquals("25P01", warning.getSQLState());
        }
    }

    @Test
    void theCatalogShowsTheTimingAndTheDdlErrorsArePostgres() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE dct_p (id INTEGER PRIMARY KEY)");
            s.execute("CREATE TABLE dct_c (id INTEGER PRIMARY KEY, a INTEGER REFERENCES dct_p DEFERRABLE INITIALLY "
                    + "DEFERRED, b INTEGER REFERENCES dct_p DEFERRABLE, d INTEGER REFERENCES dct_p NOT DEFERRABLE)");
            s.execute("ALTER TABLE dct_c ADD COLUMN e INTEGER");
            s.execute("ALTER TABLE dct_c ADD CONSTRAINT dct_c_e_fk FOREIGN KEY (e) REFERENCES dct_p (id) "
                    + "DEFERRABLE INITIALLY DEFERRED");
            assertEquals(List.of(
                    "dct_c_a_fkey:t:t:FOREIGN KEY (a) REFERENCES dct_p(id) DEFERRABLE INITIALLY DEFERRED",
                    "dct_c_b_fkey:t:f:FOREIGN KEY (b) REFERENCES dct_p(id) DEFERRABLE",
                    "dct_c_d_fkey:f:f:FOREIGN KEY (d) REFERENCES dct_p(id)",
                    "dct_c_e_fk:t:t:FOREIGN KEY (e) REFERENCES dct_p(id) DEFERRABLE INITIALLY DEFERRED"),
                    rows(s, "SELECT conname, CASE WHEN condeferrable THEN 't' ELSE 'f' END, CASE WHEN condeferred "
                            + "THEN 't' ELSE 'f' END, pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'f' "
                            + "AND conrelid = 'dct_c'::regclass ORDER BY conname"));
            assertEquals(List.of("dct_c_a_fkey:YES:YES", "dct_c_b_fkey:YES:NO", "dct_c_d_fkey:NO:NO",
                    "dct_c_e_fk:YES:YES"), rows(s, "SELECT constraint_name, is_deferrable, initially_deferred FROM "
                    + "information_schema.table_constraints WHERE table_name = 'dct_c' AND constraint_type = "
                    + "'FOREIGN KEY' ORDER BY constraint_name"));
            assertEquals("42601", failure(s, "CREATE TABLE dct_x (a INTEGER REFERENCES dct_p NOT DEFERRABLE "
                    + "INITIALLY DEFERRED)").getSQLState());
            assertEquals("42601", failure(s, "CREATE TABLE dct_x (a INTEGER REFERENCES dct_p DEFERRABLE "
                    + "NOT DEFERRABLE)").getSQLState());
        }
    }
}
