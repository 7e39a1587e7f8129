package io.meldb.sql.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Statements that schema tools send around their work: advisory locks (granted at once: MeldDB has no lock
 * manager, see AdvisoryLocks) over both front ends, and SET ROLE / RESET ROLE (the PostgreSQL front end's; only
 * the session's own user, since MeldDB has no roles).
 */
class ToolStatementsTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void advisoryLocksAreGrantedAtOnceInEveryForm(final String protocol) throws SQLException {
        final String t = protocol.equals(Conformance.PG) ? "t" : "true"; // PostgreSQL's text form of a boolean
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of(t + ":" + t + ":" + t), Conformance.rows(s, "SELECT "
                    + "pg_try_advisory_xact_lock(77431708279161), pg_try_advisory_lock(1, 2), "
                    + "pg_advisory_unlock(77431708279161)"));
            assertEquals(List.of(":"), Conformance.rows(s, "SELECT pg_advisory_lock(5), pg_advisory_xact_lock(5)"));
            c.setAutoCommit(false);
            assertEquals(List.of(t), Conformance.rows(s, "SELECT PG_TRY_ADVISORY_XACT_LOCK(42)"));
            c.commit();
        }
    }

    @Test
    void setRoleAcceptsTheSessionsOwnUserAndRefusesOtherRolesWith0A000() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            final String user = Conformance.rows(s, "SELECT current_user").get(0);
            s.execute("SET ROLE '" + user + "'");
            s.execute("SET SESSION ROLE " + user);
            s.execute("SET ROLE NONE");
            s.execute("RESET ROLE");
            final SQLException e = Conformance.failure(s, "SET ROLE someone_else");
            assertEquals("0A000", e.getSQLState());
            assertTrue(e.getMessage().contains("no roles"), e.getMessage());
            assertEquals(List.of(user), Conformance.rows(s, "SELECT current_user"), "the session goes on");
        }
    }
}
