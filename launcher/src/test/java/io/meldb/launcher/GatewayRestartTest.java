package io.meldb.launcher;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Issue 18, "the cluster heals itself" (a), as real processes: MeldDB-driver connections (one idle, one with
 * prepared statements, one in the middle of a transaction) while the embedded database is killed with kill -9 and
 * started again on the same port and data. The idle and prepared ones carry on as if nothing happened; the one whose
 * transaction was lost gets 08003 once (25P02 until it rolls back) and then works again; committed rows survive and
 * the lost transaction's row is nowhere.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GatewayRestartTest {
    @Test
    void driverConnectionsHealAfterTheGatewayIsKilledAndRestartedAndOnlyTheOpenTransactionIsReportedLost()
            throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-gateway-restart-test");
        final int port = freePort();
        final String[] args = {"--port", String.valueOf(port), "--pg-port", "0", "--metrics-port", "-1",
                "--data-dir", dataDir.toString()};
        final List<Connection> connections = new ArrayList<>();
        GatewayProcess meldb = GatewayProcess.start(args);
        try {
            final String url = meldb.meldUrl();
            final Connection idle = open(url, connections);
            final Connection prepared = open(url, connections);
            final Connection inTransaction = open(url, connections);

            final Statement idleStatement = idle.createStatement();
            idleStatement.execute("CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(20))");
            idleStatement.executeUpdate("INSERT INTO kv VALUES (1, 'before')");
            final PreparedStatement insert = prepared.prepareStatement("INSERT INTO kv VALUES (?, ?)");
            final PreparedStatement lookup = prepared.prepareStatement("SELECT v FROM kv WHERE k = ?");
            insert.setInt(1, 2);
            insert.setString(2, "prepared");
            insert.executeUpdate();
            lookup.setInt(1, 1);
            assertEquals(List.of("before"), column(lookup.executeQuery()));
            inTransaction.setAutoCommit(false);
            final Statement txStatement = inTransaction.createStatement();
            txStatement.executeUpdate("INSERT INTO kv VALUES (100, 'lost')");

            meldb.kill();
            // while it is down: a connection failure with its SQLState, not "Remote driver error: null"
            final SQLException down = assertThrows(SQLException.class,
                    () -> idleStatement.executeQuery("SELECT COUNT(*) FROM kv"));
            assertEquals("08006", down.getSQLState(), down.getMessage());
            meldb = GatewayProcess.start(args);
            assertEquals(url, meldb.meldUrl());

            // the idle connection: its old statement and new ones work
            assertEquals(List.of("2"), column(idleStatement.executeQuery("SELECT COUNT(*) FROM kv")));
            try (Statement fresh = idle.createStatement()) {
                fresh.executeUpdate("INSERT INTO kv VALUES (3, 'after')");
            }
            // the prepared statements are prepared again on first use, keeping the parameters already set
            assertEquals(List.of("before"), column(lookup.executeQuery()));
            insert.setInt(1, 4);
            assertEquals(1, insert.executeUpdate());
            lookup.setInt(1, 4);
            assertEquals(List.of("prepared"), column(lookup.executeQuery()));

            // the connection whose transaction was lost: told once, then refused until it rolls back
            final SQLException lost = assertThrows(SQLException.class,
                    () -> txStatement.executeUpdate("INSERT INTO kv VALUES (101, 'lost')"));
            assertEquals("08003", lost.getSQLState(), lost.getMessage());
            final SQLException refused = assertThrows(SQLException.class, inTransaction::commit);
            assertEquals("25P02", refused.getSQLState(), refused.getMessage());
            inTransaction.rollback();
            txStatement.executeUpdate("INSERT INTO kv VALUES (5, 'new txn')");
            inTransaction.commit();

            try (Connection check = DriverManager.getConnection(meldb.meldUrl()); Statement s = check.createStatement()) {
                assertEquals(List.of("1", "2", "3", "4", "5"), column(s.executeQuery("SELECT k FROM kv ORDER BY k")));
            }
        } finally {
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException e) {
                    // closing is best effort
                }
            }
            meldb.close();
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    private static Connection open(final String url, final List<Connection> opened) throws SQLException {
        final Connection c = DriverManager.getConnection(url);
        opened.add(c);
        return c;
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
