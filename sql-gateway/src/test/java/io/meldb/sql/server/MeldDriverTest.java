package io.meldb.sql.server;

import io.meldb.sql.client.MeldDriver;
import org.apache.calcite.avatica.AvaticaClientRuntimeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MeldDB's JDBC driver ({@link MeldDriver}) against a gateway: a meld abort during {@code Connection.commit()}
 * arrives as an SQLException (SQLState 40001), as do all other failures; plain JDBC use works through it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MeldDriverTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl()); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @BeforeEach
    void reset() throws SQLException {
        try (Connection c = meld(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM account");
            s.executeUpdate("INSERT INTO account VALUES (1, 100), (2, 200)");
        }
    }

    private static Connection meld() throws SQLException {
        return DriverManager.getConnection(db.gateway.meldJdbcUrl());
    }

    @Test
    void shouldTellInItsMetadataWhichTransactionsAndIsolationLevelsMeldDbSupports() throws SQLException {
        try (Connection c = meld()) {
            final java.sql.DatabaseMetaData md = c.getMetaData();
            assertEquals("MeldDB", md.getDatabaseProductName());
            org.junit.jupiter.api.Assertions.assertTrue(md.supportsTransactions());
            org.junit.jupiter.api.Assertions.assertTrue(md.supportsDataDefinitionAndDataManipulationTransactions());
            org.junit.jupiter.api.Assertions.assertTrue(
                    md.supportsTransactionIsolationLevel(Connection.TRANSACTION_SERIALIZABLE));
            org.junit.jupiter.api.Assertions.assertTrue(
                    md.supportsTransactionIsolationLevel(Connection.TRANSACTION_REPEATABLE_READ));
            org.junit.jupiter.api.Assertions.assertFalse(
                    md.supportsTransactionIsolationLevel(Connection.TRANSACTION_NONE));
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, md.getDefaultTransactionIsolation());
        }
    }

    @Test
    void shouldRefuseAParameterNeverSetAndAcceptAnEmptyStatement() throws SQLException {
        try (Connection c = meld(); Statement s = c.createStatement()) {
            s.execute(""); // does nothing, as in PostgreSQL
            try (java.sql.PreparedStatement p = c.prepareStatement("INSERT INTO account VALUES (?, ?)")) {
                p.setInt(1, 77);
                final SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                        p::executeUpdate);
                assertEquals("07001", e.getSQLState());
            }
            assertEquals(List.of(), column(s.executeQuery("SELECT balance FROM account WHERE id = 77")),
                    "nothing was stored with a NULL in place of the missing value");
        }
    }

    /** Two SERIALIZABLE transactions both read and write account 1; the first commits. */
    private static void raceOnAccountOne(final Connection first, final Connection second) throws SQLException {
        for (Connection c : List.of(first, second)) {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            c.setAutoCommit(false);
        }
        try (Statement s1 = first.createStatement(); Statement s2 = second.createStatement()) {
            assertEquals(List.of("100"), column(s1.executeQuery("SELECT balance FROM account WHERE id = 1")));
            assertEquals(List.of("100"), column(s2.executeQuery("SELECT balance FROM account WHERE id = 1")));
            s1.executeUpdate("UPDATE account SET balance = balance + 1 WHERE id = 1");
            s2.executeUpdate("UPDATE account SET balance = balance + 10 WHERE id = 1");
        }
        first.commit();
    }

    @Test
    void commitOfATransactionMeldAbortedThrowsSqlTransactionRollbackExceptionWithSqlState40001() throws Exception {
        try (Connection c1 = meld(); Connection c2 = meld()) {
            raceOnAccountOne(c1, c2);
            final SQLException e = assertThrows(SQLException.class, c2::commit);
            assertEquals("40001", e.getSQLState());
            assertEquals(0, e.getErrorCode());
            assertInstanceOf(SQLTransactionRollbackException.class, e);
            assertTrue(e.getMessage().contains("could not serialize access"), e.getMessage());

            // the transaction is over: the retry runs and commits
            try (Statement s2 = c2.createStatement()) {
                s2.executeUpdate("UPDATE account SET balance = balance + 10 WHERE id = 1");
            }
            c2.commit();
        }
        try (Connection c = meld(); Statement s = c.createStatement()) {
            assertEquals(List.of("111"), column(s.executeQuery("SELECT balance FROM account WHERE id = 1")));
        }
    }

    @Test
    void avaticasOwnDriverAlsoReports40001ButInWhateverFormItChooses() throws Exception {
        try (Connection c1 = DriverManager.getConnection(db.gateway.jdbcUrl());
             Connection c2 = DriverManager.getConnection(db.gateway.jdbcUrl())) {
            raceOnAccountOne(c1, c2);
            Throwable failure = null;
            try {
                c2.commit();
            } catch (SQLException | RuntimeException e) {
                failure = e;
            }
            assertNotNull(failure, "the second commit must fail");
            final String state = failure instanceof SQLException e ? e.getSQLState()
                    : failure instanceof AvaticaClientRuntimeException e ? e.getSqlState() : null;
            assertEquals("40001", state, failure.toString());
        }
    }

    @Test
    void turningAutocommitBackOnCommitsAndReportsAnAbortAsSqlException() throws Exception {
        try (Connection c1 = meld(); Connection c2 = meld()) {
            raceOnAccountOne(c1, c2);
            final SQLException e = assertThrows(SQLException.class, () -> c2.setAutoCommit(true));
            assertEquals("40001", e.getSQLState());
        }
    }

    @Test
    void turningAutocommitBackOnCommitsEvenWhenTheConnectionIsClosedRightAfter() throws Exception {
        try (Connection c = meld(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.executeUpdate("UPDATE account SET balance = 7 WHERE id = 2");
            c.setAutoCommit(true);
        }
        try (Connection c = meld(); Statement s = c.createStatement()) {
            assertEquals(List.of("7"), column(s.executeQuery("SELECT balance FROM account WHERE id = 2")));
        }
    }

    @Test
    void statementErrorsCarryTheirSqlStateAndTheMatchingSubclass() throws Exception {
        try (Connection c = meld(); Statement s = c.createStatement()) {
            final SQLException missing = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM missing"));
            assertEquals("42P01", missing.getSQLState());
            assertInstanceOf(SQLSyntaxErrorException.class, missing);

            c.setAutoCommit(false);
            s.executeUpdate("UPDATE account SET balance = 0 WHERE id = 2");
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(List.of("200"), column(s.executeQuery("SELECT balance FROM account WHERE id = 2")));
        }
    }

    @Test
    void objectsReachedThroughTheConnectionLeadBackToTheConnectionTheProgramHolds() throws Exception {
        try (Connection c = meld(); Statement s = c.createStatement();
             PreparedStatement ps = c.prepareStatement("SELECT balance FROM account WHERE id = ?")) {
            assertSame(c, s.getConnection());
            assertSame(c, ps.getConnection());
            assertSame(c, c.getMetaData().getConnection());
            ps.setInt(1, 2);
            try (ResultSet rs = ps.executeQuery()) {
                assertSame(ps, rs.getStatement());
                assertTrue(rs.next());
                assertEquals(200, rs.getLong(1));
                assertFalse(rs.next());
            }
            assertTrue(c.isWrapperFor(Connection.class));
            assertNotNull(c.unwrap(org.apache.calcite.avatica.AvaticaConnection.class));
        }
        assertInstanceOf(MeldDriver.class, DriverManager.getDriver("jdbc:meldb://localhost:1"));
    }

    @Test
    void meldbUrlsBecomeAvaticaProtobufUrls() throws SQLException {
        assertEquals("jdbc:avatica:remote:url=http://h:9000;serialization=PROTOBUF",
                MeldDriver.avaticaUrl("jdbc:meldb://h:9000"));
        assertEquals("jdbc:avatica:remote:url=http://h:8765;serialization=PROTOBUF",
                MeldDriver.avaticaUrl("jdbc:meldb://h/"));
        assertEquals("jdbc:avatica:remote:url=http://h:9000;serialization=PROTOBUF",
                MeldDriver.avaticaUrl("jdbc:meldb:url=http://h:9000"));
        assertEquals("jdbc:avatica:remote:url=http://h:9000;serialization=JSON",
                MeldDriver.avaticaUrl("jdbc:meldb:url=http://h:9000;serialization=JSON"));
        assertEquals("jdbc:avatica:remote:url=http://h:9000;timeZone=UTC;serialization=PROTOBUF",
                MeldDriver.avaticaUrl("jdbc:meldb://h:9000;timeZone=UTC"));
        final SQLException bad = assertThrows(SQLException.class, () -> MeldDriver.avaticaUrl("jdbc:meldb:h:9000"));
        assertEquals("08001", bad.getSQLState());
        assertTrue(bad.getMessage().startsWith("not a MeldDB JDBC URL"), bad.getMessage());
        assertThrows(SQLException.class, () -> MeldDriver.avaticaUrl("jdbc:meldb://h:port"));
    }

    @Test
    void aGatewayThatIsNotThereIsAConnectionSqlException() throws Exception {
        final int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        final SQLException e = assertThrows(SQLException.class, () -> {
            try (Connection c = DriverManager.getConnection(MeldDriver.url("127.0.0.1", port));
                 Statement s = c.createStatement()) {
                s.executeQuery("SELECT 1");
            }
        });
        assertTrue(e.getSQLState().startsWith("08"), e + " state " + e.getSQLState());
        assertInstanceOf(SQLNonTransientConnectionException.class, e);
    }
}
