package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The round trips a JDBC transaction costs through MeldDB's driver, counted by the gateway per Avatica request kind:
 * one request per statement and one for the commit, nothing else (no connection sync, fetch or close between
 * transactions). A needless request coming back fails these tests.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcRoundTripsTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl());
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE trips (id INT PRIMARY KEY, balance BIGINT, pad VARCHAR(20))");
            for (int i = 0; i < 20; i++) {
                s.executeUpdate("INSERT INTO trips VALUES (" + i + ", 1000, 'p" + i + "')");
            }
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    /** The requests made by {@code work}, by kind. */
    private static Map<String, Long> requestsOf(final SqlWork work) throws SQLException {
        final Map<String, Long> before = db.gateway.jdbcRequestCounts();
        work.run();
        final Map<String, Long> after = db.gateway.jdbcRequestCounts();
        final Map<String, Long> made = new HashMap<>();
        after.forEach((kind, n) -> {
            final long d = n - before.getOrDefault(kind, 0L);
            if (d != 0) {
                made.put(kind, d);
            }
        });
        return made;
    }

    private interface SqlWork {
        void run() throws SQLException;
    }

    private static long read(final PreparedStatement select, final int id) throws SQLException {
        select.setInt(1, id);
        try (ResultSet r = select.executeQuery()) {
            assertTrue(r.next());
            return r.getLong(1);
        }
    }

    @Test
    void anUpdateTransactionCostsOneRequestPerStatementAndOneForTheCommit() throws SQLException {
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl())) {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            c.setAutoCommit(false);
            try (PreparedStatement update = c.prepareStatement("UPDATE trips SET balance = balance + ? WHERE id = ?");
                 PreparedStatement select = c.prepareStatement("SELECT balance, pad FROM trips WHERE id = ?")) {
                final SqlWork txn = () -> {
                    update.setLong(1, 5);
                    update.setInt(2, 1);
                    assertEquals(1, update.executeUpdate());
                    update.setLong(1, -5);
                    update.setInt(2, 2);
                    assertEquals(1, update.executeUpdate());
                    for (int k = 3; k < 11; k++) {
                        read(select, k);
                    }
                    c.commit();
                };
                txn.run(); // the first may sync the connection's settings
                assertEquals(Map.of("ExecuteRequest", 10L, "CommitRequest", 1L), requestsOf(txn));
                assertEquals(Map.of("ExecuteRequest", 10L, "CommitRequest", 1L), requestsOf(txn));
                assertEquals(2000L, read(select, 1) + read(select, 2), "the two updates cancel out");
                c.commit();
            }
        }
    }

    @Test
    void aReadOnlyTransactionCostsOneRequestPerQueryAndOneForTheCommit() throws SQLException {
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl())) {
            c.setAutoCommit(false);
            c.setReadOnly(true);
            try (PreparedStatement select = c.prepareStatement("SELECT balance, pad FROM trips WHERE id = ?")) {
                final SqlWork txn = () -> {
                    for (int k = 0; k < 10; k++) {
                        read(select, k);
                    }
                    c.commit();
                };
                txn.run();
                assertEquals(Map.of("ExecuteRequest", 10L, "CommitRequest", 1L), requestsOf(txn));
            }
        }
    }

    @Test
    void aConnectionSettingSentOnceIsNotSentAgain() throws SQLException {
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl());
             PreparedStatement select = c.prepareStatement("SELECT balance FROM trips WHERE id = ?")) {
            c.setAutoCommit(false);
            read(select, 1);
            c.commit();
            final Map<String, Long> made = requestsOf(() -> {
                c.setAutoCommit(false); // unchanged
                read(select, 1);
                c.commit();
            });
            assertEquals(Map.of("ExecuteRequest", 1L, "CommitRequest", 1L), made);
        }
    }
}
