package io.meldb.sql.server;

import io.meldb.sql.pg.PgServerConfig;
import io.meldb.txn.EmbeddedNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MeldDB's driver across a restart of the gateway (here: the gateway stopped and a new one started on the same port
 * over the same txn-server, which forgets every connection and statement, as a restarted process does; the
 * multi-process version is the launcher module's {@code GatewayRestartTest}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MeldDriverReconnectTest {
    private Path dataDir;
    private EmbeddedNode node;
    private TxnRouter router;
    private Gateway gateway;
    private int port;
    private final List<Connection> opened = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        dataDir = Files.createTempDirectory("meldb-reconnect-test");
        node = EmbeddedNode.start(dataDir);
        router = new TxnRouter(List.of(node.txnService()));
        gateway = Gateway.start(router, 0);
        port = gateway.port();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
        }
    }

    @AfterEach
    void stop() {
        for (Connection c : opened) {
            try {
                c.close();
            } catch (SQLException e) {
                // closing is best effort here
            }
        }
        try {
            if (gateway != null) {
                gateway.close();
            }
        } finally {
            node.close();
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    private Connection connect() throws SQLException {
        final Connection c = DriverManager.getConnection(io.meldb.sql.client.MeldDriver.url("127.0.0.1", port));
        opened.add(c);
        return c;
    }

    private void restartGateway() {
        gateway.close();
        gateway = null;
        gateway = Gateway.start(router, "127.0.0.1", port, PgServerConfig.loopback(0));
    }

    @Test
    void shouldReconnectAnIdleConnectionAndReuseItsStatementsTransparently() throws Exception {
        final Connection c = connect();
        final Statement s = c.createStatement();
        assertEquals(List.of("0"), column(s.executeQuery("SELECT COUNT(*) FROM t")));
        restartGateway();
        assertEquals(1, s.executeUpdate("INSERT INTO t VALUES (1, 10)"));
        try (Statement fresh = c.createStatement()) {
            assertEquals(List.of("10"), column(fresh.executeQuery("SELECT v FROM t WHERE id = 1")));
        }
        assertNotNull(c.getMetaData().getTables(null, null, "%", null));
    }

    @Test
    void shouldRePrepareAPreparedStatementWithTheParametersSetBeforeTheRestart() throws Exception {
        final Connection c = connect();
        final PreparedStatement insert = c.prepareStatement("INSERT INTO t VALUES (?, ?)");
        insert.setInt(1, 1);
        insert.setInt(2, 11);
        insert.executeUpdate();
        insert.setInt(1, 2); // parameter 2 stays 11, as JDBC keeps parameters until cleared
        restartGateway();
        assertEquals(1, insert.executeUpdate());
        insert.setInt(1, 3);
        insert.setInt(2, 13);
        assertEquals(1, insert.executeUpdate());
        try (PreparedStatement q = c.prepareStatement("SELECT v FROM t WHERE id >= ? ORDER BY id")) {
            q.setInt(1, 1);
            assertEquals(List.of("11", "11", "13"), column(q.executeQuery()));
        }
    }

    @Test
    void shouldHealAStatementMadeBeforeTwoRestartsInARow() throws Exception {
        final Connection c = connect();
        final Statement s = c.createStatement();
        final Statement untouched = c.createStatement();
        s.setMaxRows(1);
        s.executeUpdate("INSERT INTO t VALUES (1, 1), (2, 2)");
        restartGateway();
        assertEquals(List.of("1"), column(s.executeQuery("SELECT id FROM t ORDER BY id")));
        restartGateway();
        // made on the first connection, healed after the second restart; the other was made on neither since
        assertEquals(List.of("1"), column(s.executeQuery("SELECT id FROM t ORDER BY id")));
        assertEquals(List.of("1", "2"), column(untouched.executeQuery("SELECT id FROM t ORDER BY id")));
    }

    @Test
    void shouldKeepTheConnectionsSettingsAcrossTheRestart() throws Exception {
        final Connection manual = connect();
        manual.setAutoCommit(false);
        final Connection readOnly = connect();
        readOnly.setReadOnly(true);
        assertEquals(List.of("0"), column(readOnly.createStatement().executeQuery("SELECT COUNT(*) FROM t")));
        restartGateway();

        // autocommit is still off on the new server-side connection: the INSERT is undone by the rollback
        final Statement s = manual.createStatement();
        s.executeUpdate("INSERT INTO t VALUES (1, 1)");
        manual.rollback();
        assertEquals(List.of("0"), column(s.executeQuery("SELECT COUNT(*) FROM t")));
        manual.commit();
        assertFalse(manual.getAutoCommit());

        final SQLException e = assertThrows(SQLException.class,
                () -> readOnly.createStatement().executeUpdate("INSERT INTO t VALUES (2, 2)"));
        assertEquals("25006", e.getSQLState(), e.getMessage());
    }

    @Test
    void shouldReportALostTransactionOnceThenWorkAgainAfterRollback() throws Exception {
        final Connection c = connect();
        c.setAutoCommit(false);
        final Statement s = c.createStatement();
        s.executeUpdate("INSERT INTO t VALUES (1, 1)");
        restartGateway();

        final SQLException lost = assertThrows(SQLException.class, () -> s.executeUpdate("INSERT INTO t VALUES (2, 2)"));
        assertEquals("08003", lost.getSQLState(), lost.getMessage());
        assertInstanceOf(SQLNonTransientConnectionException.class, lost);
        // until the program rolls back, nothing may pretend the lost work is still there
        assertEquals("25P02", assertThrows(SQLException.class, c::commit).getSQLState());
        assertEquals("25P02", assertThrows(SQLException.class,
                () -> s.executeUpdate("INSERT INTO t VALUES (3, 3)")).getSQLState());
        c.rollback();

        s.executeUpdate("INSERT INTO t VALUES (4, 4)");
        c.commit();
        c.setAutoCommit(true);
        assertEquals(List.of("4"), column(s.executeQuery("SELECT id FROM t ORDER BY id")));
    }

    @Test
    void shouldAnswerCommitWithTheLossWhenTheTransactionWasLostBeforeIt() throws Exception {
        final Connection c = connect();
        c.setAutoCommit(false);
        c.createStatement().executeUpdate("INSERT INTO t VALUES (1, 1)");
        restartGateway();
        assertEquals("08003", assertThrows(SQLException.class, c::commit).getSQLState());
        c.rollback();
        c.createStatement().executeUpdate("INSERT INTO t VALUES (2, 2)");
        c.commit();
        assertEquals(List.of("2"), column(c.createStatement().executeQuery("SELECT id FROM t")));
    }

    @Test
    void aCommitThatCannotReachTheGatewayIs08006AndTheLostTransaction08003NeverANullSqlState() throws Exception {
        final Connection c = connect();
        c.setAutoCommit(false);
        c.createStatement().executeUpdate("INSERT INTO t VALUES (5, 5)");
        gateway.close();
        gateway = null;
        final SQLException unreached = assertThrows(SQLException.class, c::commit);
        assertEquals("08006", unreached.getSQLState(), unreached.getMessage());
        gateway = Gateway.start(router, "127.0.0.1", port, PgServerConfig.loopback(0));
        final SQLException lost = assertThrows(SQLException.class,
                () -> c.createStatement().executeQuery("SELECT id FROM t"));
        assertEquals("08003", lost.getSQLState(), lost.getMessage());
        c.rollback();
        assertEquals(List.of(), column(c.createStatement().executeQuery("SELECT id FROM t")),
                "the transaction whose commit never reached the gateway did not commit");
    }

    @Test
    void shouldAnswerConnectionFailureWhileTheGatewayIsDownAndHealOnceItIsBack() throws Exception {
        final Connection c = connect();
        final Statement s = c.createStatement();
        gateway.close();
        gateway = null;
        final SQLException down = assertThrows(SQLException.class, () -> s.executeQuery("SELECT COUNT(*) FROM t"));
        assertEquals("08006", down.getSQLState(), down.getMessage());
        gateway = Gateway.start(router, "127.0.0.1", port, PgServerConfig.loopback(0));
        assertEquals(List.of("0"), column(s.executeQuery("SELECT COUNT(*) FROM t")));
    }

    @Test
    void shouldNameTheLossOfAResultSetWhoseRowsWereStillOnTheGateway() throws Exception {
        final Connection c = connect();
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO t VALUES (?, 0)")) {
            for (int i = 0; i < 300; i++) {
                insert.setInt(1, i);
                insert.addBatch();
            }
            insert.executeBatch();
        }
        final Statement s = c.createStatement();
        s.setFetchSize(10);
        final ResultSet rs = s.executeQuery("SELECT id FROM t");
        assertTrue(rs.next());
        restartGateway();
        final SQLException e = assertThrows(SQLException.class, () -> {
            while (rs.next()) {
                rs.getInt(1);
            }
        });
        assertEquals("08003", e.getSQLState(), e.getMessage());
        assertEquals(List.of("300"), column(s.executeQuery("SELECT COUNT(*) FROM t")));
    }
}
