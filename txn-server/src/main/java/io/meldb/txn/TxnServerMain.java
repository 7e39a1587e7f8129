package io.meldb.txn;

import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnException;
import io.meldb.wire.CommandFlags;
import io.meldb.wire.MetricsHttpServer;
import io.meldb.txn.rpc.TxnRpcServer;
import io.meldb.txn.rpc.TxnRpcServerOptions;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code txn-server} command (run by {@code bin/txn-server}): joins the cluster whose log is at
 * {@code --log host:port} (creating the log with the given meld configuration if it is empty), serves the
 * transaction RPC, and exposes {@code /health} and {@code /metrics}. Prints one line once it has caught up with the
 * log: {@code txn-server N listening on HOST:PORT (metrics on :PORT2) incarnation I csn C}.
 */
public final class TxnServerMain {
    private static final String[][] FLAGS = {
        {"server-id", "MELDB_TXN_SERVER_ID", "1", "1..65535, unique in the cluster"},
        {"pod-name", "MELDB_TXN_POD_NAME", null, "a StatefulSet pod's name, NAME-ORDINAL: the server id is then ORDINAL + 1 (overrides --server-id)"},
        {"log", "MELDB_TXN_LOG", "127.0.0.1:7420", "the log server, host:port; a replicated log's servers as host:port,host:port,... (the leader is found among them)"},
        {"host", "MELDB_TXN_HOST", "127.0.0.1", "address to listen on"},
        {"port", "MELDB_TXN_PORT", "7430", "transaction RPC port; 0 picks a free one"},
        {"metrics-port", "MELDB_TXN_METRICS_PORT", "-2", "port of /health and /metrics; default port+1 (0 when port is 0); -1 off"},
        {"max-in-flight", "MELDB_TXN_MAX_IN_FLIGHT", "256", "transactions open at once before begin waits, then refuses"},
        {"max-intention-bytes", "MELDB_TXN_MAX_INTENTION_BYTES", String.valueOf(TxnServerConfig.DEFAULT_MAX_INTENTION_BYTES), "most bytes one transaction may write (its intention); the statement crossing it fails with 54000"},
        {"checkpoint-every", "MELDB_TXN_CHECKPOINT_EVERY", "20000", "write a checkpoint every N intentions; 0 = never"},
        {"checkpoint-bytes", "MELDB_TXN_CHECKPOINT_BYTES", "268435456", "also checkpoint once the node memory melded "
            + "since the last one reaches N bytes (or the last checkpoint's size, if larger); 0 = by count only"},
        {"max-node-memory", "MELDB_TXN_MAX_NODE_MEMORY", "0", "refuse new update transactions (SQLSTATE 53200) "
            + "while node memory holds N bytes or more; 0 = 70% of the JVM's direct-memory limit"},
        {"trim", "MELDB_TXN_TRIM", "true", "trim the log behind the previous checkpoint after each checkpoint"},
        {"adopt-own-intentions", "MELDB_TXN_ADOPT_OWN_INTENTIONS", "true", "meld this server's own intentions from "
            + "the trees it built instead of decoding their records read back from the log (same result)"},
        {"threading", "MELDB_TXN_THREADING", null, "pipeline threads: chained | shared | dedicated-decode | dedicated; "
            + "default chained on up to 4 processors, else dedicated (overrides the two flags below)"},
        {"separate-decoder", "MELDB_TXN_SEPARATE_DECODER", null, "decode intentions on a thread of their own, ahead of meld (false: --threading shared)"},
        {"decode-threads", "MELDB_TXN_DECODE_THREADS", "1", "deserializer threads (with --separate-decoder)"},
        {"premeld-on-threads", "MELDB_TXN_PREMELD_ON_THREADS", null, "run premeld on t threads of its own (needs --separate-decoder; false: --threading dedicated-decode)"},
        {"premeld-threads", "MELDB_TXN_PREMELD_THREADS", null, "cluster meld config, used when creating the log: premeld t"},
        {"premeld-distance", "MELDB_TXN_PREMELD_DISTANCE", null, "cluster meld config: premeld distance d"},
        {"group-meld", "MELDB_TXN_GROUP_MELD", null, "cluster meld config: group meld true|false"},
        {"block-size", "MELDB_TXN_BLOCK_SIZE", null, "cluster meld config: block size"},
        {"reorder-window", "MELDB_TXN_REORDER_WINDOW", null, "cluster meld config: reorder window W, 0 (off, default) to 64 intentions"},
        {"reorder-algorithm", "MELDB_TXN_REORDER_ALGORITHM", null, "cluster meld config: reorder FVS algorithm scc | sort | hybrid (default)"},
        {"reorder-policy", "MELDB_TXN_REORDER_POLICY", null, "cluster meld config: reorder policy min-aborts (default) | tail-latency"},
        {"max-snapshot-age", "MELDB_TXN_MAX_SNAPSHOT_AGE", null, "cluster meld config: intentions a transaction's snapshot may lag its commit (default 10000)"},
        {"cluster-secret-file", "MELDB_CLUSTER_SECRET_FILE", null, "file holding the cluster secret (trimmed): proven to the log server, and required of every client of the RPC port"},
        {"idle-timeout", "MELDB_TXN_IDLE_TIMEOUT", "120", "seconds an RPC connection may stay silent (or half-sent) before it is closed; 0 turns it off"},
        {"max-inflight-frame-bytes", "MELDB_TXN_MAX_INFLIGHT_FRAME_BYTES", "64m", "bytes of partly received frames held for all RPC connections together; beyond it connections wait"},
            {"exit-with-parent", "MELDB_TXN_EXIT_WITH_PARENT", "false", "stop when the process that started this one ends"},
    };
    private static final String USAGE = "usage: txn-server [--flag value]...\n"
        + "Runs a MeldDB transaction server: executes transactions and melds the shared log.\n"
        + "Cluster meld flags, when given, must match the log's configuration (or create it).";

    private TxnServerMain() {
    }

    public static void main(final String[] args) throws Exception {
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.showDateTime", "true");
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd HH:mm:ss.SSS");
        final Map<String, String> v;
        final TxnServerConfig config;
        final int port;
        final int metricsPort;
        try {
            v = CommandFlags.parse(FLAGS, args);
            if (v == null) {
                CommandFlags.usage(System.out, USAGE, FLAGS);
                return;
            }
            config = configure(v);
            port = CommandFlags.intValue(v, "port");
            final int m = CommandFlags.intValue(v, "metrics-port");
            metricsPort = m == -2 ? (port == 0 ? 0 : port + 1) : m;
        } catch (IllegalArgumentException e) {
            System.err.println("txn-server: " + e.getMessage());
            CommandFlags.usage(System.err, USAGE, FLAGS);
            System.exit(2);
            return;
        }
        if (CommandFlags.booleanValue(v, "exit-with-parent")) {
            CommandFlags.exitWithParent();
        }
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        config.registry(registry);
        final TxnServer server;
        try {
            server = TxnServer.start(config);
        } catch (TxnException e) {
            System.err.println("txn-server: " + e.getMessage());
            System.exit(1);
            return;
        }
        final TxnRpcServer rpc = TxnRpcServer.start(server, TxnRpcServerOptions.on(v.get("host"), port)
            .meterRegistry(registry)
            .clusterSecret(config.clusterSecret())
            .idleTimeout(java.time.Duration.ofSeconds(CommandFlags.intValue(v, "idle-timeout")))
            .maxInflightFrameBytes(CommandFlags.sizeValue(v, "max-inflight-frame-bytes")));
        final MultiThreadIoEventLoopGroup httpLoop = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("txn-http"), NioIoHandler.newFactory());
        final MetricsHttpServer http = metricsPort < 0 ? null : new MetricsHttpServer(v.get("host"), metricsPort,
            httpLoop, httpLoop, () -> health(server), registry::scrape);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            rpc.close();
            if (http != null) {
                http.close();
            }
            httpLoop.shutdownGracefully();
            server.close();
            stopped.countDown();
        }, "txn-server-shutdown"));
        final ServerStatus s = server.status();
        System.out.println("txn-server " + server.serverId() + " listening on " + v.get("host") + ":" + rpc.port()
            + (http != null ? " (metrics on :" + http.port() + ")" : " (metrics off)") + " incarnation "
            + server.incarnation() + " csn " + s.csn());
        System.out.flush();
        stopped.await();
    }

    static String[][] flags() {
        return FLAGS;
    }

    static MetricsHttpServer.Health health(final TxnServer server) {
        final ServerStatus s = server.status();
        final String failure = server.failure();
        final String json = "{\"status\":\"" + (server.ready() ? "UP" : "DOWN") + "\",\"serverId\":" + s.serverId()
            + ",\"incarnation\":" + s.incarnation() + ",\"csn\":" + s.csn() + ",\"stateHash\":\""
            + Long.toHexString(s.stateHash()) + "\",\"inFlight\":" + s.inFlight()
            + (failure != null ? ",\"error\":\"" + MetricsHttpServer.jsonEscaped(failure) + "\"" : "") + "}";
        return new MetricsHttpServer.Health(server.ready(), json);
    }

    static TxnServerConfig configure(final Map<String, String> v) {
        final String log = v.get("log");
        final String[] first = log.split(",")[0].trim().split(":");
        if (first.length != 2 || first[0].isEmpty()) {
            throw new IllegalArgumentException("--log must be host:port[,host:port...], got '" + log + "'");
        }
        for (final String a : log.split(",")) {
            final int colon = a.trim().lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("--log must be host:port[,host:port...], got '" + log + "'");
            }
            parsePort(a.trim().substring(colon + 1));
        }
        final TxnServerConfig c = TxnServerConfig.log(first[0], parsePort(first[1])).logAddresses(log)
            .serverId(v.get("pod-name") != null ? serverIdOfPod(v.get("pod-name"))
                : CommandFlags.intValue(v, "server-id"))
            .maxInFlight(CommandFlags.intValue(v, "max-in-flight"))
            .maxIntentionBytes(CommandFlags.intValue(v, "max-intention-bytes"))
            .checkpointEvery(CommandFlags.longValue(v, "checkpoint-every"))
            .checkpointBytes(CommandFlags.longValue(v, "checkpoint-bytes"))
            .maxNodeMemory(CommandFlags.longValue(v, "max-node-memory"))
            .trim(CommandFlags.booleanValue(v, "trim"))
            .adoptOwnIntentions(CommandFlags.booleanValue(v, "adopt-own-intentions"))
            .decodeThreads(CommandFlags.intValue(v, "decode-threads"))
            .clusterSecret(io.meldb.wire.auth.ClusterSecret.fromFlagOrEnvironment(v.get("cluster-secret-file")));
        if (v.get("separate-decoder") != null) {
            c.separateDecoder(CommandFlags.booleanValue(v, "separate-decoder"));
        }
        if (v.get("premeld-on-threads") != null) {
            c.premeldOnThreads(CommandFlags.booleanValue(v, "premeld-on-threads"));
        }
        if (v.get("threading") != null) {
            c.threading(threadingMode(v.get("threading")));
        }
        if (v.get("premeld-threads") != null || v.get("premeld-distance") != null || v.get("group-meld") != null
            || v.get("block-size") != null || v.get("max-snapshot-age") != null || v.get("reorder-window") != null
            || v.get("reorder-algorithm") != null || v.get("reorder-policy") != null) {
            final ClusterConfig d = ClusterConfig.DEFAULT;
            c.cluster(new ClusterConfig(
                v.get("block-size") != null ? CommandFlags.intValue(v, "block-size") : d.blockSize(),
                v.get("premeld-threads") != null ? CommandFlags.intValue(v, "premeld-threads") : d.premeldThreads(),
                v.get("premeld-distance") != null ? CommandFlags.intValue(v, "premeld-distance")
                    : d.premeldDistance(),
                v.get("group-meld") != null ? CommandFlags.booleanValue(v, "group-meld") : d.groupMeld(),
                v.get("max-snapshot-age") != null ? CommandFlags.intValue(v, "max-snapshot-age")
                    : d.maxSnapshotAge(), reorderConfig(v)));
        }
        return c;
    }

    /** The reorder window flags; an unknown algorithm or policy names the flag. */
    static io.meldb.core.ReorderConfig reorderConfig(final Map<String, String> v) {
        final io.meldb.core.ReorderConfig d = io.meldb.core.ReorderConfig.OFF;
        try {
            return new io.meldb.core.ReorderConfig(
                v.get("reorder-window") != null ? CommandFlags.intValue(v, "reorder-window") : d.window(),
                v.get("reorder-algorithm") != null ? io.meldb.core.ReorderConfig.algorithm(v.get("reorder-algorithm"))
                    : d.algorithm(),
                v.get("reorder-policy") != null ? io.meldb.core.ReorderConfig.policy(v.get("reorder-policy")) : d.policy());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--reorder-window/--reorder-algorithm/--reorder-policy: " + e.getMessage(), e);
        }
    }

    /**
     * The server id of a StatefulSet pod: its ordinal + 1 (ids start at 1), so that a restarted pod comes back as
     * the same server and no two pods of the set share an id.
     */
    static int serverIdOfPod(final String podName) {
        final int dash = podName.lastIndexOf('-');
        final String ordinal = podName.substring(dash + 1);
        if (dash <= 0 || ordinal.isEmpty() || !ordinal.chars().allMatch(c -> c >= '0' && c <= '9')
            || ordinal.length() > 5) {
            throw new IllegalArgumentException("--pod-name must be a StatefulSet pod's name, NAME-ORDINAL, got '"
                + podName + "'");
        }
        final int id = Integer.parseInt(ordinal) + 1;
        if (id > 65535) {
            throw new IllegalArgumentException("--pod-name " + podName + ": ordinal " + ordinal
                + " is past the last server id, 65535");
        }
        return id;
    }

    /** The value of --threading: a {@link ThreadingMode} in lower case, with '-' for '_'. */
    static ThreadingMode threadingMode(final String value) {
        try {
            return ThreadingMode.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--threading must be chained, shared, dedicated-decode or dedicated, got '"
                + value + "'");
        }
    }

    private static int parsePort(final String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--log port must be an integer, got '" + s + "'");
        }
    }
}
