package io.meldb.sql.server;

import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.TxnService;
import io.meldb.txn.rpc.TxnRpcClient;

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

/**
 * The {@code meldb} command: starts the SQL gateway and prints the JDBC URLs on two lines,
 * {@code MeldDB ready: jdbc:avatica:remote:url=http://127.0.0.1:PORT;serialization=PROTOBUF} (Avatica's remote
 * driver) and then {@code MeldDB JDBC (MeldDB driver): jdbc:meldb://127.0.0.1:PORT}
 * ({@link io.meldb.sql.client.MeldDriver}, which reports every failure as an SQLException).
 *
 * <ul>
 *   <li>embedded (default): log server, txn-server and gateway in this JVM, data under {@code --data-dir};</li>
 *   <li>{@code --txn-servers host:port,...}: a gateway over running txn-servers;</li>
 *   <li>{@code --local-cluster N}: starts 1 log server and N txn-servers as child processes, then the gateway.</li>
 * </ul>
 */
public final class GatewayMain {
    private static final String USAGE = """
            usage: meldb [--port P] [--data-dir DIR] [--txn-servers host:port,...] [--local-cluster N]
              --port P              HTTP port of the JDBC (Avatica) endpoint; 0 = any free port (default 8765)
              --pg-port P           port of the PostgreSQL protocol; 0 = any free port (default 5432, or any
                                    free port when 5432 is taken)
              --pg-users-file F     users and passwords of the PostgreSQL protocol, one user:password a line
                                    (also MELDB_PG_USERS=user:password,...); without users only clients on
                                    loopback connect, without a password
              --host H              address to serve on (default 127.0.0.1; 0.0.0.0 = every interface)
              --data-dir DIR        where the embedded database (or the local cluster) keeps its data
                                    (default ./meldb-data); it survives restarts
              --txn-servers LIST    run only the gateway, over these txn-servers
              --local-cluster N     start 1 log server and N txn-servers as local processes, then the gateway
            """;

    private GatewayMain() {
    }

    public static void main(final String[] args) throws Exception {
        int port = 8765;
        int pgPort = -1;
        Path pgUsersFile = null;
        Path dataDir = Path.of("meldb-data");
        String txnServers = null;
        int localCluster = 0;
        String host = "127.0.0.1";
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--port" -> port = Integer.parseInt(value(args, ++i));
                    case "--pg-port" -> pgPort = Integer.parseInt(value(args, ++i));
                    case "--pg-users-file" -> pgUsersFile = Path.of(value(args, ++i));
                    case "--host" -> host = value(args, ++i);
                    case "--data-dir" -> dataDir = Path.of(value(args, ++i));
                    case "--txn-servers" -> txnServers = value(args, ++i);
                    case "--local-cluster" -> localCluster = Integer.parseInt(value(args, ++i));
                    case "--help", "-h" -> {
                        System.out.print(USAGE);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown flag " + args[i]);
                }
            }
        } catch (IllegalArgumentException e) {
            System.err.println("meldb: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }

        final List<AutoCloseable> resources = new ArrayList<>();
        final List<TxnService> services = new ArrayList<>();
        try {
            if (txnServers != null || localCluster > 0) {
                List<String> addresses;
                if (localCluster > 0) {
                    final LocalCluster cluster = LocalCluster.start(dataDir.toAbsolutePath(), localCluster);
                    resources.add(cluster);
                    addresses = cluster.txnServers();
                } else {
                    addresses = List.of(txnServers.split(","));
                }
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
                    final TxnRpcClient client = TxnRpcClient.connect(a.substring(0, colon), txnPort);
                    services.add(client);
                    resources.add(client);
                }
            } else {
                final EmbeddedNode node = EmbeddedNode.start(dataDir.toAbsolutePath());
                resources.add(node);
                services.add(node.txnService());
            }
            final Gateway gateway = Gateway.start(new TxnRouter(services), host, port, pgConfig(host, pgPort, pgUsersFile));
            resources.add(gateway);
        } catch (RuntimeException e) {
            closeAll(resources);
            System.err.println("meldb: " + e.getMessage());
            System.exit(1);
            return;
        }
        final Gateway gateway = (Gateway) resources.get(resources.size() - 1);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            closeAll(resources);
            stopped.countDown();
        }, "meldb-shutdown"));
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
                throw new IllegalArgumentException("cannot read --pg-users-file " + usersFile + ": " + e);
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
