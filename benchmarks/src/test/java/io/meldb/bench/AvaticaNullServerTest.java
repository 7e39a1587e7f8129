package io.meldb.bench;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The JDBC floor answers the benchmark's transaction through MeldDB's driver as a database would shape it. */
class AvaticaNullServerTest {
    @Test
    void shouldAnswerTheBenchmarksTransactionThroughMeldDbsDriver() throws Exception {
        try (AvaticaNullServer server = new AvaticaNullServer();
             Connection c = DriverManager.getConnection(server.jdbcUrl())) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            try (PreparedStatement update = c.prepareStatement(
                    "UPDATE " + SqlTxnBenchmark.TABLE + " SET balance = balance + ? WHERE id = ?");
                 PreparedStatement read = c.prepareStatement(
                         "SELECT balance, pad FROM " + SqlTxnBenchmark.TABLE + " WHERE id = ?")) {
                for (int txn = 0; txn < 3; txn++) {
                    update.setLong(1, 5);
                    update.setInt(2, txn);
                    assertEquals(1, update.executeUpdate());
                    read.setInt(1, txn);
                    try (ResultSet rs = read.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals(1000L, rs.getLong(1));
                        assertEquals(100, rs.getString(2).length());
                        assertFalse(rs.next());
                    }
                    c.commit();
                }
            }
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO " + SqlTxnBenchmark.TABLE + " (id, balance, pad) VALUES (?, ?, ?)")) {
                for (int i = 0; i < 3; i++) {
                    insert.setInt(1, i);
                    insert.setLong(2, 1000);
                    insert.setString(3, "x");
                    insert.addBatch();
                }
                assertEquals(3, insert.executeBatch().length);
                c.commit();
            }
        }
    }
}
