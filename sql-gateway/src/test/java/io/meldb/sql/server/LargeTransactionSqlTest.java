package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.PGConnection;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transaction that would write more than the txn-server's {@code --max-intention-bytes}: the statement that
 * crosses the limit fails at once with 54000 naming the limit and the setting, over both front ends and for COPY,
 * the transaction is then failed (25P02 until ROLLBACK), and nothing committed is lost.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LargeTransactionSqlTest {
    private static final int LIMIT = 256 * 1024;
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway(c -> c.maxIntentionBytes(LIMIT));
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    private static void assertTooLarge(final SQLException e) {
        assertEquals("54000", e.getSQLState(), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(LIMIT)), e.getMessage());
        assertTrue(e.getMessage().contains("--max-intention-bytes"), e.getMessage());
    }

    private static long count(final Statement s, final String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("select count(*) from " + table)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    /** Inserts rows of 200 bytes one statement at a time until one fails; answers its error and the rows before. */
    private static int insertUntilRefused(final Connection c, final String table, final SQLException[] error)
            throws SQLException {
        try (PreparedStatement p = c.prepareStatement("insert into " + table + " values (?, ?)")) {
            for (int i = 1; i <= 20_000; i++) {
                p.setInt(1, i);
                p.setString(2, "x".repeat(200));
                try {
                    p.executeUpdate();
                } catch (SQLException e) {
                    error[0] = e;
                    return i - 1;
                }
            }
        }
        return 20_000;
    }

    private static void refusesTheCrossingStatementAndFailsTheTransaction(final Connection c, final String table)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("create table " + table + " (k int primary key, v varchar(250))");
            s.executeUpdate("insert into " + table + " values (0, 'committed before')");
            c.setAutoCommit(false);
            final SQLException[] error = new SQLException[1];
            final int written = insertUntilRefused(c, table, error);
            assertTrue(error[0] != null, "refused within 20,000 rows");
            assertTooLarge(error[0]);
            assertTrue(written > LIMIT / 400 && written < LIMIT / 200, written + " rows went in before the refusal");
            assertEquals("25P02", assertThrows(SQLException.class, () -> count(s, table)).getSQLState(),
                    "the transaction is failed until it ends");
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(1, count(s, table), "the committed row is there, none of the refused transaction's");
            s.executeUpdate("insert into " + table + " values (1, 'after')");
            assertEquals(2, count(s, table));
            s.execute("drop table " + table);
        }
    }

    @Test
    void shouldRefuseTheStatementCrossingTheLimitWith54000OverThePostgresProtocol() throws SQLException {
        try (Connection c = db.connectPg()) {
            refusesTheCrossingStatementAndFailsTheTransaction(c, "big_pg");
        }
    }

    @Test
    void shouldRefuseTheStatementCrossingTheLimitWith54000OverAvatica() throws SQLException {
        try (Connection c = db.connect()) {
            refusesTheCrossingStatementAndFailsTheTransaction(c, "big_jdbc");
        }
    }

    @Test
    void shouldRefuseACopyLargerThanTheLimitWith54000AndKeepTheTableAsItWas() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("create table big_copy (k int primary key, v varchar(250))");
            s.executeUpdate("insert into big_copy values (0, 'committed before')");
            final StringBuilder rows = new StringBuilder();
            for (int i = 1; i <= 5_000; i++) {
                rows.append(i).append('\t').append("y".repeat(200)).append('\n');
            }
            final SQLException e = assertThrows(SQLException.class, () -> c.unwrap(PGConnection.class)
                    .getCopyAPI().copyIn("copy big_copy from stdin", new StringReader(rows.toString())));
            assertTooLarge(e);
            assertEquals(1, count(s, "big_copy"));
            assertEquals(0, c.unwrap(PGConnection.class).getCopyAPI().copyIn("copy big_copy from stdin",
                    new StringReader("")), "the connection goes on");
            s.execute("drop table big_copy");
        }
    }
}
