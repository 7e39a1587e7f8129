package io.meldb.launcher;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.GatewayHealth;
import io.meldb.sql.server.JdbcConfig;
import io.meldb.sql.server.MetricsEndpoint;
import io.meldb.sql.server.SqlMetrics;
import io.meldb.sql.server.TxnRouter;
import io.meldb.log.Durability;
import io.meldb.txn.TxnServerConfig;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnService;
import io.meldb.wire.auth.ClusterSecret;
import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.client.TxnRpcClientOptions;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import io.meldb.sql.pg.PgServerConfig;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * The {@code meldb} command: starts the SQL gateway and prints the JDBC URLs on two lines,
 * {@code MeldDB ready: jdbc:avatica:remote:url=http://127.0.0.1:PORT;serialization=PROTOBUF} (Avatica's remote
 * driver) and then {@code MeldDB JDBC (MeldDB driver): jdbc:meldb://127.0.0.1:PORT}
 * ({@link io.meldb.sql.client.MeldDriver}, which reports every failure as an SQLException). Before them it prints
 * {@code MeldDB metrics: http://127.0.0.1:PORT/metrics} (and {@code /health}) unless {@code --metrics-port -1}.
 *
 * <ul>
 *   <li>embedded (default): log server, txn-server and gateway in this JVM, data under {@code --data-dir};</li>
 *   <li>{@code --txn-servers host:port,...}: a gateway over running txn-servers;</li>
 *   <li>{@code --local-cluster N}: starts 1 log server (or {@code --log-replicas r} replicas of the log under Raft) and
 *   N txn-servers as child processes, then the gateway.</li>
 * </ul>
 */
public final class GatewayMain {
    private static final String USAGE = """
            usage: meldb [--port P] [--data-dir DIR] [--txn-servers host:port,...] [--local-cluster N]
              --port P              HTTP port of the JDBC (Avatica) endpoint; 0 = any free port (default 8765)
              --pg-port P           port of the PostgreSQL protocol; 0 = any free port (default 5432, or any
                                    free port when 5432 is taken or --port is 0)
              --users-file F        users and passwords of the PostgreSQL and JDBC ports, one user:password a
                                    line (also MELDB_PG_USERS=user:password,...; --pg-users-file is the old
                                    name); without users only clients on loopback connect, without a password
              --pg-message-timeout S      seconds a PostgreSQL client may leave a message half-sent before
                                    the connection is closed with 08P01 (default 60; idle sessions stay)
              --jdbc-max-request-bytes N  largest JDBC request body read (default 64m); larger get HTTP 413
              --jdbc-idle-timeout S       seconds a JDBC HTTP connection may stay silent or half-sent (default 60)
              --jdbc-max-connections N    JDBC connections open at once (default 10000); more get 53300
              --idle-in-transaction-timeout S  seconds a JDBC transaction may stay open without a statement
                                    before it is rolled back (25P03); default 300, 0 = never
              --host H              address to serve on (default 127.0.0.1; 0.0.0.0 = every interface)
              --metrics-port M      port of /health and /metrics; default the JDBC port + 1 (any free port
                                    when --port is 0); -1 = off
              --data-dir DIR        where the embedded database (or the local cluster) keeps its data
                                    (default ./meldb-data); it survives restarts; one MeldDB at a time
              --durability D        when the log acknowledges a commit: page-cache (default; survives a crash
                                    of the process) or fsync (survives power loss)
              --max-intention-bytes N  most bytes one transaction may write (its intention; default
                                    268435456, about 1.6 million inserted rows of 100 bytes); the statement
                                    crossing it fails with 54000. For the embedded database and
                                    --local-cluster (with --txn-servers, give it to each txn-server)
              --txn-servers LIST    run only the gateway, over these txn-servers
              --local-cluster N     start 1 log server and N txn-servers as local processes, then the gateway
              --log-replicas R      with --local-cluster: R log servers replicating the log under Raft (3 or 5;
                                    default 1); an append is acknowledged once a majority holds it
              --cluster-secret-file F  the cluster secret (file content, trimmed; also MELDB_CLUSTER_SECRET_FILE):
                                    presented to the txn-servers, and required on the embedded log port;
                                    --local-cluster generates one for its children when none is given
            """;

    /** --metrics-port not given: the JDBC port + 1, or any free port when that is 0. */
    private static final int METRICS_PORT_DEFAULT = -2;

    private GatewayMain() {
    }

    public static void main(final String[] args) throws Exception {
        int port = 8765;
        int pgPort = -1;
        Path pgUsersFile = null;
        Path dataDir = Path.of("meldb-data");
        String txnServers = null;
        int localCluster = 0;
        int logReplicas = 1;
        String host = "127.0.0.1";
        Durability durability = null;
        int metricsPort = METRICS_PORT_DEFAULT;
        Integer maxIntentionBytes = null;
        String secretFlag = null;
        JdbcConfig jdbc = JdbcConfig.defaults();
        java.time.Duration pgMessageTimeout = PgServerConfig.DEFAULT_MESSAGE_TIMEOUT;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--port" -> port = port(args, ++i);
                    case "--pg-port" -> pgPort = port(args, ++i);
                    case "--pg-users-file", "--users-file" -> pgUsersFile = Path.of(value(args, ++i));
                    case "--pg-message-timeout" -> pgMessageTimeout = java.time.Duration.ofSeconds(
                            positive(args, ++i));
                    case "--jdbc-max-request-bytes" -> jdbc = jdbc.withMaxRequestBytes(size(args, ++i));
                    case "--jdbc-idle-timeout" -> jdbc = jdbc.withIdleTimeout(java.time.Duration.ofSeconds(positive(args, ++i)));
                    case "--jdbc-max-connections" -> jdbc = jdbc.withMaxConnections(positive(args, ++i));
                    case "--idle-in-transaction-timeout" -> jdbc = jdbc.withIdleInTransactionTimeout(
                            java.time.Duration.ofSeconds(nonNegative(args, ++i)));
                    case "--host" -> host = value(args, ++i);
                    case "--metrics-port" -> metricsPort = metricsPort(args, ++i);
                    case "--data-dir" -> dataDir = Path.of(value(args, ++i));
                    case "--durability" -> durability = Durability.parse(value(args, ++i));
                    case "--txn-servers" -> txnServers = value(args, ++i);
                    case "--local-cluster" -> localCluster = positive(args, ++i);
                    case "--log-replicas" -> logReplicas = positive(args, ++i);
                    case "--max-intention-bytes" -> maxIntentionBytes = maxIntentionBytes(args, ++i);
                    case "--cluster-secret-file" -> secretFlag = value(args, ++i);
                    case "--help", "-h" -> {
                        System.out.print(USAGE);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown flag " + args[i]);
                }
            }
            if (logReplicas > 1 && localCluster == 0) {
                throw new IllegalArgumentException("--log-replicas is for the log servers --local-cluster starts");
            }
            if (txnServers != null && durability != null) {
                throw new IllegalArgumentException("--durability is for the log this command starts; with "
                        + "--txn-servers it starts none (give it to the log server)");
            }
            if (txnServers != null && maxIntentionBytes != null) {
                throw new IllegalArgumentException("--max-intention-bytes is for the txn-servers this command "
                        + "starts; with --txn-servers it starts none (give it to each txn-server)");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("meldb: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        if (metricsPort == METRICS_PORT_DEFAULT) {
            metricsPort = port == 0 ? 0 : port + 1;
        }
        if (pgPort < 0 && port == 0) {
            pgPort = 0; // --port 0 asks for free ports: the PostgreSQL port too
        }
        final PgServerConfig pg;
        ClusterSecret secret;
        try {
            secret = ClusterSecret.fromFlagOrEnvironment(secretFlag);
            pg = pgConfig(host, pgPort, pgUsersFile).withMessageTimeout(pgMessageTimeout);
            PortCheck.requireFree(host, List.of(new PortCheck.Port("--port", port),
                    new PortCheck.Port("--metrics-port", metricsPort), new PortCheck.Port("--pg-port", pg.port())));
        } catch (IllegalArgumentException e) {
            System.err.println("meldb: " + e.getMessage());
            System.exit(1);
            return;
        }

        final List<AutoCloseable> resources = new ArrayList<>();
        final List<TxnService> services = new ArrayList<>();
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final Gateway gateway;
        MetricsEndpoint metrics = null;
        try {
            if (txnServers == null) {
                resources.add(DataDirLock.acquire(dataDir, DataDirLock.WAIT, m -> System.err.println("meldb: " + m)));
            }
            final Durability logDurability = durability == null ? Durability.PAGE_CACHE : durability;
            final boolean embedded = txnServers == null && localCluster == 0;
            if (!embedded) {
                List<String> addresses;
                if (localCluster > 0) {
                    final String secretPath = secretFlag != null ? secretFlag : System.getenv(ClusterSecret.ENVIRONMENT);
                    final LocalCluster cluster = LocalCluster.start(dataDir.toAbsolutePath(), localCluster,
                            logDurability, secretPath == null || secretPath.isBlank() ? null : Path.of(secretPath.trim()),
                            maxIntentionBytes == null ? List.of()
                                    : List.of(TxnServerConfig.MAX_INTENTION_BYTES_FLAG, maxIntentionBytes.toString()),
                            logReplicas);
                    resources.add(cluster);
                    secret = ClusterSecret.fromFile(cluster.secretFile());
                    addresses = cluster.txnServers();
                } else {
                    addresses = List.of(txnServers.split(","));
                }
                final List<String> unreachable = new ArrayList<>();
                for (String address : addresses) {
                    final String a = address.trim();
                    final int colon = a.lastIndexOf(':');
                    final int txnPort;
                    try {
                        if (colon <= 0) {
                            throw new NumberFormatException();
                        }
                        txnPort = Integer.parseInt(a.substring(colon + 1));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--txn-servers wants host:port,host:port,..., got '"
                                + a + "'");
                    }
                    final TxnRpcClientOptions options = TxnRpcClientOptions.to(a.substring(0, colon), txnPort)
                            .clusterSecret(secret);
                    TxnRpcClient client;
                    try {
                        client = TxnRpcClient.connect(options);
                    } catch (TxnException e) {
                        // start with the servers that are up; this one is picked up once it answers
                        unreachable.add(e.getMessage());
                        client = TxnRpcClient.open(options);
                    }
                    services.add(client);
                    resources.add(client);
                }
                if (unreachable.size() == addresses.size()) {
                    throw new IllegalStateException("no txn-server is reachable: " + String.join("; ", unreachable));
                }
                for (String why : unreachable) {
                    System.err.println("meldb: " + why + "; starting without it, it is picked up once it answers");
                }
            }
            Supplier<String> scrape = registry::scrape;
            if (embedded) {
                // the txn-server's meters (JVM memory and GC among them) go into the gateway's registry
                final ClusterSecret embeddedSecret = secret;
                final Integer limit = maxIntentionBytes;
                final EmbeddedNode node = EmbeddedNode.start(dataDir.toAbsolutePath(), logDurability,
                        c -> limit == null ? c.registry(registry).clusterSecret(embeddedSecret)
                                : c.registry(registry).clusterSecret(embeddedSecret).maxIntentionBytes(limit));
                resources.add(node);
                services.add(node.txnService());
                scrape = () -> registry.scrape() + node.logServer().metrics().scrape();
            } else {
                new JvmMemoryMetrics().bindTo(registry);
                final JvmGcMetrics gc = new JvmGcMetrics();
                gc.bindTo(registry);
                resources.add(gc);
            }
            final TxnRouter router = new TxnRouter(services);
            gateway = Gateway.start(router, host, port, new SqlMetrics(registry), pg, jdbc);
            resources.add(gateway);
            if (metricsPort >= 0) {
                final GatewayHealth health = new GatewayHealth(router);
                resources.add(health);
                metrics = MetricsEndpoint.start(host, metricsPort, health::check, scrape);
                resources.add(metrics);
            }
        } catch (RuntimeException e) {
            closeAll(resources);
            System.err.println("meldb: " + messageOf(e));
            System.exit(1);
            return;
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                closeAll(resources);
                stopped.countDown();
            }, "meldb-shutdown"));
        } catch (IllegalStateException shuttingDown) {
            // SIGTERM arrived while starting (a pod deleted at once): stop what started, without a stack trace
            closeAll(resources);
            return;
        }
        if (metrics != null) {
            System.out.println("MeldDB metrics: http://" + gateway.host() + ":" + metrics.port() + "/metrics");
        }
        System.out.println("MeldDB ready: " + gateway.jdbcUrl());
        System.out.println("MeldDB JDBC (MeldDB driver): " + gateway.meldJdbcUrl());
        System.out.println("MeldDB PostgreSQL: " + gateway.pgUrl() + "   (psql " + gateway.pgUrl()
                + ", pgjdbc " + gateway.pgJdbcUrl() + ")");
        System.out.flush();
        stopped.await();
    }

    /** The PostgreSQL server's settings: port 5432 unless it is taken (or another is asked for), the users. */
    private static PgServerConfig pgConfig(final String host, final int pgPort, final Path usersFile) {
        int port = pgPort;
        if (port < 0) {
            port = portFree(host, PgServerConfig.DEFAULT_PORT) ? PgServerConfig.DEFAULT_PORT : 0;
        }
        final Map<String, String> users = new LinkedHashMap<>();
        final String env = System.getenv("MELDB_PG_USERS");
        if (env != null && !env.isBlank()) {
            for (String entry : env.split(",")) {
                addUser(users, entry, "MELDB_PG_USERS");
            }
        }
        if (usersFile != null) {
            try {
                for (String line : Files.readAllLines(usersFile)) {
                    if (!line.isBlank() && !line.startsWith("#")) {
                        addUser(users, line, usersFile.toString());
                    }
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read the users file " + usersFile + ": " + e);
            }
        }
        return PgServerConfig.loopback(port).withHost(host).withUsers(users);
    }

    private static void addUser(final Map<String, String> users, final String entry, final String source) {
        final int colon = entry.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(source + " wants user:password entries");
        }
        users.put(entry.substring(0, colon).trim(), entry.substring(colon + 1));
    }

    private static boolean portFree(final String host, final int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(host, port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The message, and its cause's when it adds what went wrong ("cannot open the log": why not). */
    private static String messageOf(final Throwable e) {
        final Throwable cause = e.getCause();
        if (cause == null || cause.getMessage() == null || e.getMessage().contains(cause.getMessage())) {
            return e.getMessage();
        }
        return e.getMessage() + ": " + cause.getMessage();
    }

    private static int port(final String[] args, final int i) {
        final int p = integer(args, i);
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException(args[i - 1] + " wants a port 0..65535, got " + p);
        }
        return p;
    }

    private static int metricsPort(final String[] args, final int i) {
        final int p = integer(args, i);
        if (p < -1 || p > 65535) {
            throw new IllegalArgumentException(args[i - 1] + " wants a port 0..65535, or -1 for none, got " + p);
        }
        return p;
    }

    private static int maxIntentionBytes(final String[] args, final int i) {
        final int n = integer(args, i);
        new TxnServerConfig().maxIntentionBytes(n); // the same bounds, checked before anything starts
        return n;
    }

    private static int positive(final String[] args, final int i) {
        final int n = integer(args, i);
        if (n < 1) {
            throw new IllegalArgumentException(args[i - 1] + " wants a number of at least 1, got " + n);
        }
        return n;
    }

    private static int nonNegative(final String[] args, final int i) {
        final int n = integer(args, i);
        if (n < 0) {
            throw new IllegalArgumentException(args[i - 1] + " wants a number of at least 0, got " + n);
        }
        return n;
    }

    /** A size in bytes, with an optional k, m or g (1024-based). */
    private static long size(final String[] args, final int i) {
        final Map<String, String> v = Map.of(args[i - 1].substring(2), value(args, i));
        return io.meldb.wire.CommandFlags.sizeValue(v, args[i - 1].substring(2));
    }

    private static int integer(final String[] args, final int i) {
        final String v = value(args, i);
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(args[i - 1] + " wants a number, got '" + v + "'");
        }
    }

    private static String value(final String[] args, final int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static void closeAll(final List<AutoCloseable> resources) {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                System.err.println("meldb: while stopping: " + e);
            }
        }
        resources.clear();
    }
}
