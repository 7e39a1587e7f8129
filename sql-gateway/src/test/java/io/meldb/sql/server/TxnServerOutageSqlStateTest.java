package io.meldb.sql.server;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A txn-server that is away while the client's connection to the gateway is alive is never a class 08 error (which
 * clients and pools take for a dead connection): 57P03 when no transaction could begin, 40001 when an open
 * transaction lost its server; the connection works again once the server is back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TxnServerOutageSqlStateTest {
    /** The embedded node's txn-server, with a switch that makes it refuse as a stopping server does. */
    private static final class Switchable implements TxnService {
        final TxnService real;
        volatile boolean down;

        Switchable(final TxnService real) {
            this.real = real;
        }

        private void check() {
            if (down) {
                throw new TxnException(TxnError.UNAVAILABLE, "server 1 is stopping");
            }
        }

        @Override
        public TxnSession begin(final IsolationLevel isolation, final boolean readOnly) {
            return begin(isolation, readOnly, 0);
        }

        @Override
        public TxnSession begin(final IsolationLevel isolation, final boolean readOnly, final int restarts) {
            check();
            return new ForwardingSession(real.begin(isolation, readOnly, restarts)) {
                @Override
                public long commit() {
                    check();
                    return session.commit();
                }

                @Override
                public java.util.concurrent.CompletableFuture<Long> commitAsync() {
                    if (down) {
                        return java.util.concurrent.CompletableFuture.failedFuture(
                                new TxnException(TxnError.UNAVAILABLE, "server 1 is stopping"));
                    }
                    return session.commitAsync();
                }
            };
        }

        @Override
        public TxnOutcome outcome(final TxnId id) {
            check();
            return real.outcome(id);
        }

        @Override
        public boolean beginsWithoutWaiting(final long requiredCsn) {
            return !down && real.beginsWithoutWaiting(requiredCsn);
        }

        @Override
        public ServerStatus status() {
            check();
            return real.status();
        }

        @Override
        public void close() {
        }
    }

    @Test
    void noTxnServerAtBeginIs57P03AndAServerLostUnderATransactionIs40001AndTheConnectionLives() throws Exception {
        try (EmbeddedGateway db = new EmbeddedGateway()) {
            final Switchable server = new Switchable(db.node.txnService());
            try (Gateway gateway = Gateway.start(new TxnRouter(List.of(server)), "127.0.0.1", 0, db.metrics,
                    io.meldb.sql.pg.PgServerConfig.loopback(0))) {
                final Properties p = new Properties();
                p.setProperty("user", "test");
                try (Connection c = DriverManager.getConnection(gateway.pgJdbcUrl(), p);
                     Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");

                    server.down = true;
                    final SQLException atBegin = assertThrows(SQLException.class,
                            () -> s.executeQuery("SELECT v FROM t WHERE id = 1"));
                    assertEquals("57P03", atBegin.getSQLState(), atBegin.getMessage());
                    assertTrue(atBegin.getMessage().contains("server 1 is stopping"), atBegin.getMessage());
                    server.down = false;
                    assertFalse(c.isClosed());
                    s.execute("INSERT INTO t VALUES (1, 10)");

                    c.setAutoCommit(false);
                    s.execute("UPDATE t SET v = 11 WHERE id = 1");
                    server.down = true;
                    final SQLException atCommit = assertThrows(SQLException.class, c::commit);
                    assertEquals("40001", atCommit.getSQLState(), atCommit.getMessage());
                    server.down = false;
                    c.setAutoCommit(true);
                    try (ResultSet rs = s.executeQuery("SELECT v FROM t WHERE id = 1")) {
                        assertTrue(rs.next());
                        assertEquals(10, rs.getInt(1), "the transaction whose server went away did not commit");
                    }
                }
            }
        }
    }

    @Test
    void noTxnErrorMapsToAConnectionExceptionClass() {
        for (TxnError error : EnumSet.allOf(TxnError.class)) {
            final String state = SqlErrors.fromTxn(new TxnException(error, "x")).sqlState();
            assertFalse(state.startsWith("08"), error + " is " + state + " on a live connection");
        }
        assertEquals("40001", SqlErrors.describe(new TxnException(TxnError.UNAVAILABLE, "stopping")).sqlState());
        assertEquals("40001", SqlErrors.describe(new TxnException(TxnError.SESSION_LOST, "broke")).sqlState());
        assertEquals("57P03", SqlErrors.describe(SqlErrors.atBegin(new TxnException(TxnError.UNAVAILABLE,
                "starting"))).sqlState());
        assertEquals("57P03", SqlErrors.describe(SqlErrors.atBegin(new TxnException(TxnError.SESSION_LOST,
                "broke"))).sqlState());
        assertEquals("53300", SqlErrors.describe(SqlErrors.atBegin(new TxnException(TxnError.OVERLOADED,
                "full"))).sqlState(), "other failures at begin keep their own code");
    }
}
