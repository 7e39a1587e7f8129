package io.meldb.sql.pg;

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
 */
public record PgServerConfig(String host, int port, Map<String, String> users, int maxConnections,
                             int maxMessageBytes) {
    public static final int DEFAULT_PORT = 5432;
    public static final int DEFAULT_MAX_CONNECTIONS = 512;
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 << 20;

    public PgServerConfig {
        users = Map.copyOf(users);
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1");
        }
        if (maxMessageBytes < 1024) {
            throw new IllegalArgumentException("maxMessageBytes must be at least 1024");
        }
    }

    /** Loopback only, trusted, on {@code port}. */
    public static PgServerConfig loopback(final int port) {
        return new PgServerConfig("127.0.0.1", port, Map.of(), DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_MESSAGE_BYTES);
    }

    public PgServerConfig withUsers(final Map<String, String> newUsers) {
        return new PgServerConfig(host, port, newUsers, maxConnections, maxMessageBytes);
    }

    public PgServerConfig withHost(final String newHost) {
        return new PgServerConfig(newHost, port, users, maxConnections, maxMessageBytes);
    }
}
