package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The classic isolation anomalies, each scripted over two JDBC connections (T1, T2), at SERIALIZABLE (meld's
 * serializable) and REPEATABLE READ (snapshot isolation). MeldDB is optimistic: nothing blocks; a transaction
 * that may not commit fails at COMMIT with SQLState 40001.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IsolationAnomalyTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kv (k INT PRIMARY KEY, v INT NOT NULL)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @BeforeEach
    void reset() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM kv");
            s.executeUpdate("INSERT INTO kv VALUES (1, 10), (2, 20)");
        }
    }

    private static Connection open(final int isolation) throws SQLException {
        final Connection c = db.connect();
        c.setTransactionIsolation(isolation);
        c.setAutoCommit(false);
        return c;
    }

    private static String commitState(final Statement s) {
        try {
            s.execute("COMMIT");
            return "committed";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    private static List<String> rows(final String sql) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            return column(s.executeQuery(sql));
        }
    }

    private static int value(final Statement s, final int k) throws SQLException {
        return Integer.parseInt(column(s.executeQuery("SELECT v FROM kv WHERE k = " + k)).get(0));
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ})
    void dirtyWriteIsPreventedTheSecondWriterAborts(final int isolation) throws SQLException {
        try (Connection c1 = open(isolation); Connection c2 = open(isolation);
             Statement t1 = c1.createStatement(); Statement t2 = c2.createStatement()) {
            t1.executeUpdate("UPDATE kv SET v = 11 WHERE k = 1");
            t2.executeUpdate("UPDATE kv SET v = 12 WHERE k = 1");
            assertEquals("committed", commitState(t1));
            assertEquals("40001", commitState(t2));
        }
        assertEquals(List.of("11"), rows("SELECT v FROM kv WHERE k = 1"));
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ})
    void dirtyReadIsPreventedUncommittedWritesAreInvisible(final int isolation) throws SQLException {
        try (Connection c1 = open(isolation); Connection c2 = open(isolation);
             Statement t1 = c1.createStatement(); Statement t2 = c2.createStatement()) {
            t1.executeUpdate("UPDATE kv SET v = 99 WHERE k = 1");
            assertEquals(10, value(t2, 1));
            c1.rollback();
            assertEquals("committed", commitState(t2));
        }
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ})
    void lostUpdateIsPreventedTheSecondReadModifyWriteAborts(final int isolation) throws SQLException {
        try (Connection c1 = open(isolation); Connection c2 = open(isolation);
             Statement t1 = c1.createStatement(); Statement t2 = c2.createStatement()) {
            final int v1 = value(t1, 1);
            final int v2 = value(t2, 1);
            t1.executeUpdate("UPDATE kv SET v = " + (v1 + 1) + " WHERE k = 1");
            t2.executeUpdate("UPDATE kv SET v = " + (v2 + 1) + " WHERE k = 1");
            assertEquals("committed", commitState(t1));
            assertEquals("40001", commitState(t2));
        }
        assertEquals(List.of("11"), rows("SELECT v FROM kv WHERE k = 1"));
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ})
    void readSkewIsPreventedAReaderSeesOneSnapshot(final int isolation) throws SQLException {
        try (Connection c1 = open(isolation); Connection c2 = open(isolation);
             Statement t1 = c1.createStatement(); Statement t2 = c2.createStatement()) {
            final int x = value(t1, 1);
            t2.executeUpdate("UPDATE kv SET v = v - 5 WHERE k = 1");
            t2.executeUpdate("UPDATE kv SET v = v + 5 WHERE k = 2");
            assertEquals("committed", commitState(t2));
            final int y = value(t1, 2);
            assertEquals(30, x + y, "T1 sees the total of one snapshot");
            assertEquals("committed", commitState(t1), "a transaction that only read commits");
        }
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ})
    void writeSkewIsPreventedOnlyBySerializable(final int isolation) throws SQLException {
        final String second;
        try (Connection c1 = open(isolation); Connection c2 = open(isolation);
             Statement t1 = c1.createStatement(); Statement t2 = c2.createStatement()) {
            // constraint: v(1) + v(2) >= 0; each withdraws 30 from a different row after checking the sum
            final int sum1 = value(t1, 1) + value(t1, 2);
            final int sum2 = value(t2, 1) + value(t2, 2);
            assertEquals(30, sum1);
            assertEquals(30, sum2);
            t1.executeUpdate("UPDATE kv SET v = v - 30 WHERE k = 1");
            t2.executeUpdate("UPDATE kv SET v = v - 30 WHERE k = 2");
            assertEquals("committed", commitState(t1));
            second = commitState(t2);
        }
        if (isolation == Connection.TRANSACTION_SERIALIZABLE) {
            assertEquals("40001", second, "serializable aborts one of the two");
        } else {
            assertEquals("committed", second, "snapshot isolation allows write skew");
        }
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ})
    void phantomIsPreventedOnlyBySerializable(final int isolation) throws SQLException {
        final String first;
        try (Connection c1 = open(isolation); Connection c2 = open(isolation);
             Statement t1 = c1.createStatement(); Statement t2 = c2.createStatement()) {
            assertEquals(List.of("2"), column(t1.executeQuery("SELECT COUNT(*) FROM kv WHERE k BETWEEN 1 AND 10")));
            t2.executeUpdate("INSERT INTO kv VALUES (5, 50)");
            assertEquals("committed", commitState(t2));
            assertEquals(List.of("2"), column(t1.executeQuery("SELECT COUNT(*) FROM kv WHERE k BETWEEN 1 AND 10")),
                    "the new row stays invisible to T1's snapshot");
            t1.executeUpdate("INSERT INTO kv VALUES (100, 2)"); // T1 acts on the count it saw
            first = commitState(t1);
        }
        if (isolation == Connection.TRANSACTION_SERIALIZABLE) {
            assertEquals("40001", first, "serializable detects the phantom in the range T1 read");
        } else {
            assertEquals("committed", first);
        }
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ})
    void aRetriedTransactionCommitsAfterASerializationFailure(final int isolation) throws SQLException {
        try (Connection c1 = open(isolation); Connection c2 = open(isolation);
             Statement t1 = c1.createStatement(); Statement t2 = c2.createStatement()) {
            t1.executeUpdate("UPDATE kv SET v = v + 1 WHERE k = 2");
            t2.executeUpdate("UPDATE kv SET v = v + 1 WHERE k = 2");
            assertEquals("committed", commitState(t1));
            assertEquals("40001", assertThrows(SQLException.class, () -> t2.execute("COMMIT")).getSQLState());
            t2.executeUpdate("UPDATE kv SET v = v + 1 WHERE k = 2");
            assertEquals("committed", commitState(t2));
        }
        assertEquals(List.of("22"), rows("SELECT v FROM kv WHERE k = 2"));
    }
}
