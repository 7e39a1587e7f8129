package io.meldb.txn;

import io.meldb.txn.api.TxnService;
import io.meldb.log.Durability;
import io.meldb.log.server.InProcessLog;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * A whole MeldDB below SQL in one process: a log server (its data under {@code dataDir/log}, which survives
 * restarts) and one txn-server on it. The txn-server reaches the log's store directly ({@link InProcessLog}): no
 * socket, frames or I/O threads between them. The log server still listens on a loopback port, so that tools or
 * further txn-servers can join the same log over the network. The embedded database and tests start this; the
 * cluster form runs the same two as separate processes.
 *
 * <p>The tests' twin of the launcher module's {@code io.meldb.launcher.EmbeddedNode}, which the embedded database
 * runs: txn-server's and the gateway's tests start the pair through this one (txn-server's test-jar), since the
 * launcher sits above them and txn-server's main code no longer depends on the log server. Keep the two alike.
 */
public final class EmbeddedNode implements AutoCloseable {
    private final LogServer logServer;
    private final TxnServer txnServer;

    private EmbeddedNode(final LogServer logServer, final TxnServer txnServer) {
        this.logServer = logServer;
        this.txnServer = txnServer;
    }

    public static EmbeddedNode start(final Path dataDir) {
        return start(dataDir, UnaryOperator.identity());
    }

    /** {@code tune} may adjust the txn-server configuration (checkpoint interval, in-flight limit, ...). */
    public static EmbeddedNode start(final Path dataDir, final UnaryOperator<TxnServerConfig> tune) {
        return start(dataDir, Durability.PAGE_CACHE, tune);
    }

    /** As {@link #start(Path, UnaryOperator)}, with the log acknowledging appends at the given durability. */
    public static EmbeddedNode start(final Path dataDir, final Durability durability,
                                     final UnaryOperator<TxnServerConfig> tune) {
        final LogServer log;
        try {
            // the secret, if the caller gave one, guards the log port this node opens for tools and other servers
            final LogServerConfig config = LogServerConfig.at(dataDir.resolve("log")).port(0).metricsPort(-1)
                .clusterSecret(tune.apply(TxnServerConfig.log("127.0.0.1", 0)).clusterSecret());
            config.store().durability(durability);
            log = LogServer.start(config);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the log under " + dataDir, e);
        }
        try {
            final TxnServer txn = TxnServer.start(tune.apply(TxnServerConfig.log("127.0.0.1", log.port())),
                InProcessLog.over(log.store(), log.config().blockSize()));
            return new EmbeddedNode(log, txn);
        } catch (RuntimeException | Error e) {
            log.close();
            throw e;
        }
    }

    public TxnService txnService() {
        return txnServer;
    }

    public TxnServer txnServer() {
        return txnServer;
    }

    public LogServer logServer() {
        return logServer;
    }

    @Override
    public void close() {
        try {
            txnServer.close();
        } finally {
            logServer.close();
        }
    }
}
