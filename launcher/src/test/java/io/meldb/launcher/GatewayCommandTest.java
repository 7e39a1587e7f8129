package io.meldb.launcher;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the {@code meldb} command checks before it starts: its ports, its data directory, its flags. */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GatewayCommandTest {
    @Test
    void shouldRefuseATakenPortAtOnceWithoutCreatingTheDataDirectory() throws Exception {
        final Path parent = Files.createTempDirectory("meldb-port-test");
        final Path dataDir = parent.resolve("data");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final JavaProcess.Finished run = JavaProcess.run(Duration.ofSeconds(60),
                    "io.meldb.launcher.GatewayMain", "--port", String.valueOf(taken.getLocalPort()),
                    "--data-dir", dataDir.toString());
            assertEquals(1, run.exitCode(), run.output());
            assertTrue(run.output().contains("meldb: port " + taken.getLocalPort() + " (--port)"), run.output());
            assertFalse(run.output().contains("Exception"), run.output());
            assertFalse(Files.exists(dataDir), "the data directory was created");
        } finally {
            EmbeddedGateway.deleteTree(parent);
        }
    }

    @Test
    void shouldNameTheMeldDbThatHasTheDataDirectoryAndStartRightAfterItIsKilled() throws Exception {
        final Path dataDir = Files.createTempDirectory("meldb-lock-test");
        try {
            try (GatewayProcess first = GatewayProcess.start("--port", "0", "--data-dir", dataDir.toString())) {
                try (Connection c = DriverManager.getConnection(first.url()); Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
                    s.execute("INSERT INTO t VALUES (1)");
                }
                final JavaProcess.Finished second = JavaProcess.run(Duration.ofSeconds(60),
                        "io.meldb.launcher.GatewayMain", "--port", "0", "--data-dir", dataDir.toString());
                assertEquals(1, second.exitCode(), second.output());
                assertTrue(second.output().contains(dataDir.toAbsolutePath()
                        + " is already in use by another MeldDB (pid " + first.pid() + ")"), second.output());
                assertFalse(second.output().contains("Exception"), second.output());

                first.kill();
            }
            try (GatewayProcess again = GatewayProcess.start("--port", "0", "--data-dir", dataDir.toString());
                 Connection c = DriverManager.getConnection(again.url()); Statement s = c.createStatement()) {
                assertEquals(List.of("1"), column(s.executeQuery("SELECT id FROM t")));
            }
        } finally {
            EmbeddedGateway.deleteTree(dataDir);
        }
    }

    @Test
    void shouldExplainABadFlagValueWithoutAStackTrace() throws Exception {
        final JavaProcess.Finished run = JavaProcess.run(Duration.ofSeconds(60), "io.meldb.launcher.GatewayMain",
                "--port", "0", "--durability", "sometimes");
        assertEquals(2, run.exitCode(), run.output());
        assertTrue(run.output().startsWith("meldb: unknown durability 'sometimes' (expected page-cache or fsync)"),
                run.output());
    }

    @Test
    void shouldRefuseAnIntentionLimitOutsideItsBoundsBeforeStarting() throws Exception {
        final JavaProcess.Finished run = JavaProcess.run(Duration.ofSeconds(60), "io.meldb.launcher.GatewayMain",
                "--port", "0", "--max-intention-bytes", "100");
        assertEquals(2, run.exitCode(), run.output());
        assertTrue(run.output().startsWith("meldb: max intention bytes 100 outside 4096..1073741803"), run.output());
    }
}
