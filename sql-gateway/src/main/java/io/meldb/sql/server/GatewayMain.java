package io.meldb.sql.server;

import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.TxnService;
import io.meldb.txn.rpc.TxnRpcClient;

import java.nio.file.Path;
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
        Path dataDir = Path.of("meldb-data");
        String txnServers = null;
        int localCluster = 0;
        String host = "127.0.0.1";
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--port" -> port = Integer.parseInt(value(args, ++i));
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
            final Gateway gateway = Gateway.start(new TxnRouter(services), host, port);
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
        System.out.flush();
        stopped.await();
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
