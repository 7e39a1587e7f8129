package io.meldb.bench;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

/**
 * What a sequence costs an INSERT: one pgjdbc connection to a gateway in this JVM ({@link EmbeddedNode} +
 * {@link Gateway}) inserts rows keyed by an explicit id and rows keyed by a BIGSERIAL default (nextval from the
 * gateway's reserved range, on the fast path), in alternating rounds, and prints microseconds per insert of each
 * round. Arguments: rows per round (default 5000), rounds (default 6).
 */
public final class SequenceInsertBenchmark {
    private SequenceInsertBenchmark() {
    }

    public static void main(final String[] args) throws Exception {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
        final Path dir = Files.createTempDirectory("meldb-seqbench");
        try (EmbeddedNode node = EmbeddedNode.start(dir);
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0)) {
            final Properties p = new Properties();
            p.setProperty("user", "bench");
            try (Connection c = DriverManager.getConnection(gateway.pgJdbcUrl(), p);
                 Statement s = c.createStatement()) {
                s.execute("CREATE TABLE explicit_key (id BIGINT PRIMARY KEY, v INTEGER)");
                s.execute("CREATE TABLE serial_key (id BIGSERIAL PRIMARY KEY, v INTEGER)");
                try (PreparedStatement explicit = c.prepareStatement("INSERT INTO explicit_key VALUES (?, ?)");
                     PreparedStatement serial = c.prepareStatement("INSERT INTO serial_key (v) VALUES (?)")) {
                    System.out.println("# round  explicit-key-us  bigserial-us  (" + rows + " inserts each)");
                    long next = 0;
                    for (int round = 1; round <= rounds; round++) {
                        final long t0 = System.nanoTime();
                        for (int i = 0; i < rows; i++) {
                            explicit.setLong(1, next++);
                            explicit.setInt(2, i);
                            explicit.executeUpdate();
                        }
                        final long t1 = System.nanoTime();
                        for (int i = 0; i < rows; i++) {
                            serial.setInt(1, i);
                            serial.executeUpdate();
                        }
                        final long t2 = System.nanoTime();
                        System.out.printf("%7d  %15.1f  %12.1f%n", round, (t1 - t0) / 1e3 / rows,
                                (t2 - t1) / 1e3 / rows);
                    }
                }
            }
        } catch (SQLException e) {
            System.err.println("failed: " + e.getSQLState() + " " + e.getMessage());
            System.exit(1);
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
