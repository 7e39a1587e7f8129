package io.meldb.sql.pg;

import java.time.Duration;
import java.util.Map;

/**
 * How a gateway serves the PostgreSQL protocol: where it listens, who may connect, and its bounds.
 *
 * @param host            address to listen on ("0.0.0.0" for every interface)
 * @param port            port; 0 picks a free one
 * @param users           user name to password; empty means no passwords: clients on loopback are trusted
 *                        and clients elsewhere are refused
 * @param maxConnections  connections served at once; more are refused with 53300
 * @param maxMessageBytes largest frontend message; a larger one closes the connection with 54000
 * @param startupTimeout  how long a client may take to finish its start-up and authentication (PostgreSQL's
 *                        authentication_timeout); a silent or half-sent connection is closed after it
 * @param messageTimeout  how long an open session may leave a message half-sent: no byte for this long while a
 *                        message is incomplete closes the connection with a FATAL 08P01 (an idle session that has
 *                        sent whole messages is never closed for it; PostgreSQL itself would wait forever)
 */
public record PgServerConfig(String host, int port, Map<String, String> users, int maxConnections,
                             int maxMessageBytes, Duration startupTimeout, Duration messageTimeout) {
    public static final int DEFAULT_PORT = 5432;
    public static final int DEFAULT_MAX_CONNECTIONS = 512;
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 << 20;
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_MESSAGE_TIMEOUT = Duration.ofSeconds(60);

    public PgServerConfig {
        users = Map.copyOf(users);
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1");
        }
        if (startupTimeout.isNegative() || startupTimeout.isZero()) {
            throw new IllegalArgumentException("startupTimeout must be positive");
        }
        if (messageTimeout.isNegative() || messageTimeout.isZero()) {
            throw new IllegalArgumentException("messageTimeout must be positive");
        }
        if (maxMessageBytes < 1024) {
            throw new IllegalArgumentException("maxMessageBytes must be at least 1024");
        }
    }

    /** Loopback only, trusted, on {@code port}. */
    public static PgServerConfig loopback(final int port) {
        return new PgServerConfig("127.0.0.1", port, Map.of(), DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_MESSAGE_BYTES,
                DEFAULT_STARTUP_TIMEOUT, DEFAULT_MESSAGE_TIMEOUT);
    }

    public PgServerConfig withUsers(final Map<String, String> newUsers) {
        return new PgServerConfig(host, port, newUsers, maxConnections, maxMessageBytes, startupTimeout,
                messageTimeout);
    }

    public PgServerConfig withHost(final String newHost) {
        return new PgServerConfig(newHost, port, users, maxConnections, maxMessageBytes, startupTimeout,
                messageTimeout);
    }

    public PgServerConfig withStartupTimeout(final Duration timeout) {
        return new PgServerConfig(host, port, users, maxConnections, maxMessageBytes, timeout, messageTimeout);
    }

    public PgServerConfig withMessageTimeout(final Duration timeout) {
        return new PgServerConfig(host, port, users, maxConnections, maxMessageBytes, startupTimeout, timeout);
    }
}
