package io.meldb.sql.server;

import io.meldb.sql.pg.PgServer;
import io.meldb.sql.pg.PgServerConfig;
import io.meldb.sql.jdbc.JdbcServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.Map;

/**
 * The SQL gateway as a server: the JDBC endpoint (Avatica's protobuf over HTTP, on Netty: {@link JdbcServer}) over
 * {@link MeldMeta} and the PostgreSQL protocol, routing transactions to
 * the given txn-servers. Any JDBC client connects with {@link #jdbcUrl()} and the Avatica remote driver, or with
 * {@link #meldJdbcUrl()} and MeldDB's driver.
 */
public final class Gateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final JdbcServer server;
    private final PgServer pgServer;
    private final TxnRouter router;
    private final String host;
    private final MeldMeta meta;

    private Gateway(final JdbcServer server, final PgServer pgServer, final TxnRouter router, final String host,
                    final MeldMeta meta) {
        this.meta = meta;
        this.server = server;
        this.pgServer = pgServer;
        this.router = router;
        this.host = host;
    }

    /**
     * Starts serving JDBC on {@code port} (0 = any free port) and the PostgreSQL protocol on a free port, both on
     * loopback. The gateway does not own the txn services: closing it leaves them open.
     */
    public static Gateway start(final TxnRouter router, final int port) {
        return start(router, "127.0.0.1", port, PgServerConfig.loopback(0));
    }

    /** Starts serving JDBC on {@code bindHost:port} ("0.0.0.0" serves on every interface) and PostgreSQL's protocol. */
    public static Gateway start(final TxnRouter router, final String bindHost, final int port,
                                final PgServerConfig pg) {
        return start(router, bindHost, port, SqlMetrics.unexported(), pg);
    }

    /** As {@link #start(TxnRouter, String, int, PgServerConfig)}, recording statements and transactions in {@code metrics}. */
    public static Gateway start(final TxnRouter router, final String bindHost, final int port,
                                final SqlMetrics metrics, final PgServerConfig pg) {
        return start(router, bindHost, port, metrics, pg, JdbcConfig.defaults());
    }

    /**
     * As {@link #start(TxnRouter, String, int, SqlMetrics, PgServerConfig)}, with the JDBC port's bounds; its users
     * are the PostgreSQL port's.
     */
    public static Gateway start(final TxnRouter router, final String bindHost, final int port,
                                final SqlMetrics metrics, final PgServerConfig pg, final JdbcConfig jdbc) {
        final SqlEngine engine = new SqlEngine(router, metrics);
        final MeldMeta meta;
        try {
            meta = new MeldMeta(engine, jdbc);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the gateway's Calcite driver", e);
        }
        engine.bootstrap();
        GatewayWarmUp.run(router);
        final PgServer pgServer = PgServer.start(engine, pg);
        final JdbcServer server;
        try {
            server = new JdbcServer(meta, bindHost, port, pg.users(), jdbc.maxRequestBytes(), jdbc.idleTimeout(),
                    jdbc.maxConnections());
        } catch (RuntimeException e) {
            pgServer.close();
            meta.close();
            throw e;
        }
        final String advertised = bindHost.equals("0.0.0.0") ? "127.0.0.1" : bindHost;
        final Gateway gateway = new Gateway(server, pgServer, router, advertised, meta);
        LOG.info("SQL gateway serving {} and {} over {} txn-server(s)", gateway.jdbcUrl(), gateway.pgUrl(),
                router.services().size());
        return gateway;
    }

    /** The port of the PostgreSQL protocol. */
    public int pgPort() {
        return pgServer.port();
    }

    /** A libpq URL ({@code postgresql://host:port/meldb}) for psql, psycopg and other PostgreSQL clients. */
    public String pgUrl() {
        return pgServer.url(host);
    }

    /** The pgjdbc URL of the PostgreSQL protocol. */
    public String pgJdbcUrl() {
        return "jdbc:" + pgUrl();
    }

    /** The address clients are told to connect to (127.0.0.1 when serving on every interface). */
    public String host() {
        return host;
    }

    public int port() {
        return server.port();
    }

    /** JDBC requests served so far by Avatica request kind (e.g. {@code ExecuteRequest=10}): clients' round trips. */
    public Map<String, Long> jdbcRequestCounts() {
        return server.requestCounts();
    }

    /** The URL a JDBC client (with the Avatica remote driver) connects to. */
    public String jdbcUrl() {
        return jdbcUrl(host, port());
    }

    public static String jdbcUrl(final String host, final int port) {
        return "jdbc:avatica:remote:url=http://" + host + ":" + port + ";serialization=PROTOBUF";
    }

    /**
     * The URL for MeldDB's own driver ({@link io.meldb.sql.client.MeldDriver}), which throws SQLExceptions where
     * Avatica's driver throws unchecked ones (e.g. a meld abort during {@code Connection.commit()}).
     */
    public String meldJdbcUrl() {
        return io.meldb.sql.client.MeldDriver.url(host, port());
    }

    public TxnRouter router() {
        return router;
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            try {
                pgServer.close();
            } finally {
                meta.close();
            }
        }
    }
}
