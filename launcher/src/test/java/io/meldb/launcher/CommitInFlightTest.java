package io.meldb.launcher;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 18, definite outcomes, without timing luck: the txn-server holding a transaction dies while its COMMIT is
 * in flight, and the client still gets COMMIT or 40001, whichever the log says, because the gateway asks the other
 * txn-server ({@code io.meldb.sql.server.ResolvingSession}). The commit is held in flight by stopping the log server (SIGSTOP) before
 * COMMIT: the test waits until the intention's bytes sit unread in the log server's socket (Linux's
 * {@code /proc/net/tcp} receive queue), then kill -9s the txn-server and lets the log go on (SIGCONT).
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CommitInFlightTest {
    private static final Pattern LOG_READY = Pattern.compile("log-server listening on ([^:\\s]+):(\\d+)");
    private static final Pattern TXN_READY = Pattern.compile("txn-server \\d+ listening on ([^:\\s]+):(\\d+)");
    /** Less than an intention block (8 KiB), more than any other message a txn-server sends the log while idle. */
    private static final long INTENTION_BYTES = 4096;

    @Test
    void aCommitWhoseTxnServerIsKilledInFlightIsAnsweredAsTheLogDecidedItByTheOtherServer() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/net/tcp")), "needs Linux's /proc/net/tcp");
        final Path dataDir = Files.createTempDirectory("meldb-commit-in-flight-test");
        final int logPort = freePort();
        final int[] txnPorts = {freePort(), freePort()};
        JavaProcess log = null;
        JavaProcess txn1 = null;
        JavaProcess txn2 = null;
        GatewayProcess gateway = null;
        try {
            log = JavaProcess.start("log-server", LOG_READY, "io.meldb.log.server.LogServerMain", "--port",
                    String.valueOf(logPort), "--metrics-port", "-1", "--data-dir", dataDir.resolve("log").toString());
            txn1 = startTxn(1, logPort, txnPorts[0]);
            // txn-server 2 is down when the gateway starts, so the transaction below can only be on txn-server 1
            gateway = GatewayProcess.start("--port", "0", "--pg-port", "0", "--metrics-port", "-1",
                    "--txn-servers", "127.0.0.1:" + txnPorts[0] + ",127.0.0.1:" + txnPorts[1]);
            try (Connection c = connect(gateway); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE ledger (id BIGINT PRIMARY KEY, note VARCHAR(20))");
                s.executeUpdate("INSERT INTO ledger VALUES (1, 'before')");
            }
            try (Connection c = connect(gateway); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                s.executeUpdate("INSERT INTO ledger VALUES (2, 'in flight')");
                txn2 = startTxn(2, logPort, txnPorts[1]);

                assertEquals(0, unreadBytes(logPort), "the log server reads what it is sent while it runs");
                signal(log, "STOP");
                final CompletableFuture<String> commit = CompletableFuture.supplyAsync(() -> {
                    try {
                        c.commit();
                        return "COMMIT";
                    } catch (SQLException e) {
                        return e.getSQLState() + " " + e.getMessage();
                    }
                });
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (unreadBytes(logPort) < INTENTION_BYTES) {
                    if (System.nanoTime() - deadline > 0) {
                        fail("the commit's intention never reached the stopped log server's socket; commit: "
                                + (commit.isDone() ? commit.join() : "pending"));
                    }
                    Thread.sleep(10);
                }
                assertFalse(commit.isDone(), "the commit cannot finish while the log server is stopped");
                txn1.kill();
                signal(log, "CONT");

                final String answer = commit.get(60, TimeUnit.SECONDS);
                assertTrue(answer.equals("COMMIT") || answer.startsWith("40001 "),
                        "expected COMMIT or 40001 as the log decided, got: " + answer + "\n" + gateway.output());
                try (Connection check = connect(gateway); Statement q = check.createStatement()) {
                    assertEquals(answer.equals("COMMIT") ? List.of("1", "2") : List.of("1"),
                            column(q.executeQuery("SELECT id FROM ledger ORDER BY id")), answer);
                }
                // COMMIT: the gateway logged the resolution; 40001: the resolution's own message, not a meld conflict
                assertTrue(gateway.output().contains("lost its answer") || answer.contains("was not committed"),
                        "the outcome was not resolved by the other server: " + answer + "\n" + gateway.output());
                System.out.println("commit in flight at a killed txn-server answered: " + answer);
            }
        } finally {
            if (log != null) {
                signal(log, "CONT"); // a stopped process would not hear the SIGTERM that closing sends
            }
            for (AutoCloseable p : new AutoCloseable[] {gateway, txn2, txn1, log}) {
                if (p != null) {
                    p.close();
                }
            }
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    private static Connection connect(final GatewayProcess gateway) throws SQLException {
        final Properties p = new Properties();
        p.setProperty("user", "test");
        p.setProperty("connectTimeout", "5");
        p.setProperty("socketTimeout", "90");
        return DriverManager.getConnection(gateway.pgJdbcUrl(), p);
    }

    private static JavaProcess startTxn(final int id, final int logPort, final int port) throws IOException {
        return JavaProcess.start("txn-server-" + id, TXN_READY, "io.meldb.txn.TxnServerMain",
                "--server-id", String.valueOf(id), "--log", "127.0.0.1:" + logPort, "--port", String.valueOf(port),
                "--metrics-port", "-1");
    }

    /** Bytes received but not yet read on the established TCP sockets whose local port is {@code port}. */
    private static long unreadBytes(final int port) throws IOException {
        long total = 0;
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            final Path p = Path.of(table);
            if (!Files.isReadable(p)) {
                continue;
            }
            final List<String> lines = Files.readAllLines(p);
            for (String line : lines.subList(1, lines.size())) {
                final String[] f = line.trim().split("\\s+");
                final String local = f[1];
                final int localPort = Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16);
                if (localPort == port && f[3].equals("01")) { // 01: ESTABLISHED
                    total += Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16);
                }
            }
        }
        return total;
    }

    private static void signal(final JavaProcess process, final String signal) throws Exception {
        final Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
                .redirectErrorStream(true).start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS), "kill -" + signal + " did not finish");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
