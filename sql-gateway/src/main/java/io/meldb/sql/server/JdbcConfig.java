package io.meldb.sql.server;

import java.time.Duration;

/**
 * What the JDBC (Avatica) port bounds: the biggest request body it reads, how long an HTTP connection may stay
 * silent or half-sent, how many JDBC connections may be open, and how long one may hold a transaction open
 * without a statement. Users and passwords are the PostgreSQL port's ({@link io.meldb.sql.pg.PgServerConfig#users()}).
 *
 * @param maxRequestBytes          largest request body read; larger ones get 413 unread
 * @param idleTimeout              HTTP connections silent (or half-sent) this long are closed
 * @param maxConnections           JDBC connections open at once; more are refused with 53300, never evicted
 * @param idleInTransactionTimeout a connection whose transaction saw no statement for this long loses it (25P03);
 *                                 zero turns it off
 */
public record JdbcConfig(long maxRequestBytes, Duration idleTimeout, int maxConnections,
                         Duration idleInTransactionTimeout) {
    public static final long DEFAULT_MAX_REQUEST_BYTES = 64L << 20;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    public static final Duration DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT = Duration.ofMinutes(5);

    public JdbcConfig {
        if (maxRequestBytes < 1024 || maxRequestBytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("the JDBC request limit must be 1 KiB..2 GiB, got " + maxRequestBytes);
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("the JDBC idle timeout must be positive, got " + idleTimeout);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("the JDBC connection limit must be positive, got " + maxConnections);
        }
        if (idleInTransactionTimeout.isNegative()) {
            throw new IllegalArgumentException("the idle-in-transaction timeout must not be negative");
        }
    }

    public static JdbcConfig defaults() {
        return new JdbcConfig(DEFAULT_MAX_REQUEST_BYTES, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
                DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT);
    }

    public JdbcConfig withMaxRequestBytes(final long bytes) {
        return new JdbcConfig(bytes, idleTimeout, maxConnections, idleInTransactionTimeout);
    }

    public JdbcConfig withIdleTimeout(final Duration timeout) {
        return new JdbcConfig(maxRequestBytes, timeout, maxConnections, idleInTransactionTimeout);
    }

    public JdbcConfig withMaxConnections(final int n) {
        return new JdbcConfig(maxRequestBytes, idleTimeout, n, idleInTransactionTimeout);
    }

    public JdbcConfig withIdleInTransactionTimeout(final Duration timeout) {
        return new JdbcConfig(maxRequestBytes, idleTimeout, maxConnections, timeout);
    }
}
