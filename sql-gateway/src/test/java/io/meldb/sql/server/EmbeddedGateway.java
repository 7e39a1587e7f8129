package io.meldb.sql.server;

import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.TxnServerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/** A whole MeldDB in the test's JVM: an embedded node under a temporary directory and a gateway over it. */
public final class EmbeddedGateway implements AutoCloseable {
    final Path dataDir;
    final EmbeddedNode node;
    public final Gateway gateway;
    /** What the gateway counts (statements, rows read, ...). */
    public final SqlMetrics metrics = new SqlMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());

    public EmbeddedGateway() {
        this(c -> c);
    }

    /** As {@link #EmbeddedGateway()}, with the txn-server's configuration adjusted (a limit, say). */
    public EmbeddedGateway(final UnaryOperator<TxnServerConfig> tune) {
        try {
            dataDir = Files.createTempDirectory("meldb-sql-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        node = EmbeddedNode.start(dataDir, tune);
        gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), "127.0.0.1", 0, metrics,
                io.meldb.sql.pg.PgServerConfig.loopback(0));
    }

    /**
     * Another gateway over the same txn-server, as a gateway restarted on the same cluster: it has read nothing yet,
     * so it decodes the catalog from the tree. The caller closes it.
     */
    public Gateway anotherGateway() {
        return Gateway.start(new TxnRouter(List.of(node.txnService())), "127.0.0.1", 0, metrics,
                io.meldb.sql.pg.PgServerConfig.loopback(0));
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(gateway.jdbcUrl());
    }

    /** A pgjdbc connection over the PostgreSQL protocol, with extra connection properties. */
    public Connection connectPg(final String... properties) throws SQLException {
        final java.util.Properties p = new java.util.Properties();
        p.setProperty("user", "test");
        for (String kv : properties) {
            final int eq = kv.indexOf('=');
            p.setProperty(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return DriverManager.getConnection(gateway.pgJdbcUrl(), p);
    }

    @Override
    public void close() {
        try {
            gateway.close();
        } finally {
            node.close();
            deleteTree(dataDir);
        }
    }

    public static void deleteTree(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
    }
}
