package io.meldb.log.server;

import io.meldb.wire.CommandFlags;
import io.meldb.log.Durability;
import io.meldb.wire.auth.ClusterSecret;
import io.meldb.log.replication.RaftPeers;
import io.meldb.log.replication.RaftPortGuard;
import io.meldb.log.replication.RaftTls;
import io.meldb.log.replication.ReplicationOptions;
import io.meldb.log.storage.RollCycleNames;
import io.meldb.log.storage.StoreOptions;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code log-server} command (run by {@code bin/log-server}): starts a {@link LogServer} (Hyder II §5.1 log
 * service) from flags or environment variables, prints one line with the bound ports, and runs until
 * SIGINT/SIGTERM, closing the store cleanly.
 */
public final class LogServerMain {

    private static final String[][] FLAGS = {
            // flag, environment variable, default, help
            {"host", "MELDB_LOG_HOST", "127.0.0.1", "address to listen on"},
            {"port", "MELDB_LOG_PORT", "7420", "log protocol port; 0 picks a free one (printed at start)"},
            {"metrics-port", "MELDB_LOG_METRICS_PORT", null, "port of /health and /metrics; default port+1, or 0 when port is 0; -1 turns it off"},
            {"data-dir", "MELDB_LOG_DATA_DIR", "data/log", "directory of the log (created if missing)"},
            {"block-size", "MELDB_LOG_BLOCK_SIZE", "8192", "block size in bytes; an existing log must have this size"},
            {"durability", "MELDB_LOG_DURABILITY", "page-cache", "page-cache (survives a process crash) or fsync (survives power loss)"},
            {"min-free-space", "MELDB_LOG_MIN_FREE_SPACE", "512m", "free disk space kept in reserve: below it appends are refused (STORAGE_FULL) until space is freed; 0 turns the check off"},
            {"roll-cycle", "MELDB_LOG_ROLL_CYCLE", "FIVE_MINUTELY", "Chronicle roll cycle: how much time one queue file covers (trim deletes whole files)"},
            {"io-threads", "MELDB_LOG_IO_THREADS", String.valueOf(LogServerConfig.defaultIoThreads()), "Netty I/O threads (default: half the processors)"},
            {"read-threads", "MELDB_LOG_READ_THREADS", "2", "threads reading stored blocks for READ and SUBSCRIBE, off the I/O threads"},
            {"max-append-bytes-in-store", "MELDB_LOG_MAX_APPEND_BYTES_IN_STORE", "256m", "blocks waiting for storage, all connections together, before the server stops reading requests (until half are stored)"},
            {"cluster-secret-file", "MELDB_CLUSTER_SECRET_FILE", null, "file holding the cluster secret (trimmed): when set, every connection must prove it before its first request"},
            {"idle-timeout", "MELDB_LOG_IDLE_TIMEOUT", "120", "seconds a connection may stay silent (or half-sent) before it is closed; 0 turns it off"},
            {"handshake-timeout", "MELDB_LOG_HANDSHAKE_TIMEOUT", "10", "seconds a new connection may take to prove the cluster secret"},
            {"replication-factor", "MELDB_LOG_REPLICATION_FACTOR", "1", "servers holding the log: 1 is this server alone; 3 replicates every append to a majority of --peers (Apache Ratis) before acknowledging it"},
            {"node-id", "MELDB_LOG_NODE_ID", null, "with --replication-factor > 1: this server's id in --peers"},
            {"peers", "MELDB_LOG_PEERS", null, "with --replication-factor > 1: id=host:raftPort[:logPort],... every replica's Raft address (and log port, default --port)"},
            {"replication-commit-timeout", "MELDB_LOG_REPLICATION_COMMIT_TIMEOUT", "5000", "milliseconds an append may wait for a majority before it is answered OUTCOME_UNKNOWN"},
            {"election-timeout", "MELDB_LOG_ELECTION_TIMEOUT", "1000", "Raft election timeout in milliseconds (randomised up to twice this): how long followers wait before replacing a silent leader"},
            {"raft-host", "MELDB_LOG_RAFT_HOST", null, "with --replication-factor > 1: address the Raft port listens on (default: --host)"},
            {"raft-tls-cert", "MELDB_LOG_RAFT_TLS_CERT", null, "PEM certificate (chain) this replica presents on the Raft port; with --raft-tls-key and --raft-tls-ca: mutual TLS between the replicas"},
            {"raft-tls-key", "MELDB_LOG_RAFT_TLS_KEY", null, "PEM PKCS#8 private key of --raft-tls-cert"},
            {"raft-tls-ca", "MELDB_LOG_RAFT_TLS_CA", null, "PEM CA certificate(s): only peers whose certificate these signed may connect to the Raft port"},
            {"raft-trust-network", "MELDB_LOG_RAFT_TRUST_NETWORK", "false", "with a cluster secret and no Raft TLS: start although the Raft port is not on loopback, because the network lets only the replicas reach it (a NetworkPolicy, a firewall)"},
            {"snapshot-every", "MELDB_LOG_SNAPSHOT_EVERY", "1024", "with --replication-factor > 1: Raft entries between snapshots; each forces the block store and purges the Raft log below it"},
            {"raft-segment-size", "MELDB_LOG_RAFT_SEGMENT_SIZE", "32m", "with --replication-factor > 1: largest Raft log segment file; purging deletes whole closed segments"},
            {"exit-with-parent", "MELDB_LOG_EXIT_WITH_PARENT", "false", "stop when the process that started this one ends"},
    };

    private static final String USAGE = "usage: log-server [--flag value]...\n"
            + "Serves the MeldDB shared log (append/read/tail/trim/subscribe of fixed-size blocks).";

    private LogServerMain() {
    }

    public static void main(String[] args) throws Exception {
        // a database must not phone home, whatever the launcher forgot (bin/jvm-flags sets these too)
        CommandFlags.defaultProperty("chronicle.analytics.disable", "true");
        CommandFlags.defaultProperty("chronicle.announcer.disable", "true");
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.log.net.openhft", "warn");
        // Ratis logs every follower it cannot reach at INFO/WARN with stack traces; the log server reports what matters
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.log.org.apache.ratis", "error");
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.showDateTime", "true");
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd HH:mm:ss.SSS");

        Map<String, String> values;
        try {
            values = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("log-server: " + e.getMessage());
            CommandFlags.usage(System.err, USAGE, FLAGS);
            System.exit(2);
            return;
        }
        if (values == null) {
            CommandFlags.usage(System.out, USAGE, FLAGS);
            return;
        }

        if (Boolean.parseBoolean(values.get("exit-with-parent"))) {
            CommandFlags.exitWithParent();
        }
        LogServerConfig config;
        try {
            config = configure(values);
        } catch (IllegalArgumentException e) {
            System.err.println("log-server: " + e.getMessage());
            System.exit(2);
            return;
        }

        LogServer server;
        try {
            server = LogServer.start(config);
        } catch (IOException e) {
            System.err.println("log-server: " + e.getMessage());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "log-server-shutdown"));
        if (config.replication() != null) {
            var r = config.replication();
            System.out.println("log-server: Raft port " + r.raftHost() + ":" + r.peers().peer(r.nodeId()).raftPort()
                    + (r.tls() != null ? " under mutual TLS as " + r.tls().subject() : " without TLS"));
        }
        System.out.println("log-server listening on " + server.address().getHostString() + ":" + server.port()
                + (server.metricsPort() >= 0 ? " (metrics on :" + server.metricsPort() + ")" : " (metrics off)")
                + (config.replication() == null ? "" : " replica " + config.replication().nodeId() + " of "
                + config.replication().factor()));
        System.out.flush();
        stopped.await();
    }

    static Map<String, String> parse(String[] args) {
        return CommandFlags.parse(FLAGS, args);
    }

    /** The Raft port's TLS from the three --raft-tls-* files (all or none), or null. */
    private static RaftTls raftTls(Map<String, String> v) {
        String cert = v.get("raft-tls-cert");
        String key = v.get("raft-tls-key");
        String ca = v.get("raft-tls-ca");
        if (cert == null && key == null && ca == null) {
            return null;
        }
        if (cert == null || key == null || ca == null) {
            throw new IllegalArgumentException("Raft TLS needs all three of --raft-tls-cert, --raft-tls-key and --raft-tls-ca");
        }
        return RaftTls.load(Path.of(cert), Path.of(key), Path.of(ca));
    }

    static LogServerConfig configure(Map<String, String> v) {
        int port = CommandFlags.intValue(v, "port");
        int metricsPort = v.get("metrics-port") != null ? CommandFlags.intValue(v, "metrics-port") : (port == 0 ? 0 : port + 1);
        LogServerConfig config = LogServerConfig.at(Path.of(v.get("data-dir")))
                .host(v.get("host"))
                .port(port)
                .metricsPort(metricsPort)
                .blockSize(CommandFlags.intValue(v, "block-size"))
                .ioThreads(CommandFlags.intValue(v, "io-threads"))
                .readThreads(CommandFlags.intValue(v, "read-threads"))
                .maxAppendBytesInStore(CommandFlags.sizeValue(v, "max-append-bytes-in-store"))
                .clusterSecret(ClusterSecret.fromFlagOrEnvironment(v.get("cluster-secret-file")))
                .idleTimeout(Duration.ofSeconds(CommandFlags.intValue(v, "idle-timeout")))
                .handshakeTimeout(Duration.ofSeconds(Math.max(1, CommandFlags.intValue(v, "handshake-timeout"))));
        int factor = CommandFlags.intValue(v, "replication-factor");
        if (factor < 1) {
            throw new IllegalArgumentException("--replication-factor must be at least 1, got " + factor);
        }
        if (factor > 1) {
            if (v.get("peers") == null || v.get("node-id") == null) {
                throw new IllegalArgumentException("--replication-factor " + factor + " needs --peers and --node-id");
            }
            int election = CommandFlags.intValue(v, "election-timeout");
            RaftTls tls = raftTls(v);
            String raftHost = v.get("raft-host") != null ? v.get("raft-host") : v.get("host");
            RaftPortGuard.check(config.clusterSecret() != null, raftHost, tls,
                    CommandFlags.booleanValue(v, "raft-trust-network"));
            config.replication(new ReplicationOptions(factor, v.get("node-id"), RaftPeers.parse(v.get("peers"), port))
                    .commitTimeout(Duration.ofMillis(CommandFlags.intValue(v, "replication-commit-timeout")))
                    .electionTimeout(Duration.ofMillis(election), Duration.ofMillis(2L * election))
                    .raftHost(raftHost).tls(tls)
                    .snapshotEvery(CommandFlags.intValue(v, "snapshot-every"))
                    .raftSegmentBytes(CommandFlags.sizeValue(v, "raft-segment-size")));
        }
        StoreOptions store = config.store();
        store.durability(Durability.parse(v.get("durability")));
        store.rollCycle(RollCycleNames.parse(v.get("roll-cycle")));
        store.minFreeSpace(CommandFlags.sizeValue(v, "min-free-space"));
        return config;
    }

}
