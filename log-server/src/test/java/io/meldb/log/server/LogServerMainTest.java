package io.meldb.log.server;

import io.meldb.log.Durability;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Flags of the {@code log-server} command. */
class LogServerMainTest {

    @Test
    void shouldApplyFlagsOverDefaults() {
        LogServerConfig c = LogServerMain.configure(LogServerMain.parse(new String[]{
                "--port", "0", "--data-dir", "/tmp/x", "--block-size=4096", "--durability", "fsync",
                "--roll-cycle", "test_secondly", "--io-threads", "3", "--read-threads", "4", "--min-free-space", "2g", "--max-append-bytes-in-store", "64m"}));
        assertEquals(0, c.port());
        assertEquals(0, c.metricsPort(), "a free metrics port when the log port is chosen freely");
        assertEquals(Path.of("/tmp/x"), c.store().dataDir());
        assertEquals(4096, c.blockSize());
        assertEquals(Durability.FSYNC, c.store().durability());
        assertEquals(TestRollCycles.TEST_SECONDLY, c.store().rollCycle());
        assertEquals(3, c.ioThreads());
        assertEquals(4, c.readThreads());
        assertEquals(2L << 30, c.store().minFreeSpace());
        assertEquals(64L << 20, c.maxAppendBytesInStore());
        assertEquals(512L << 20, LogServerMain.configure(LogServerMain.parse(new String[0])).store().minFreeSpace());
        assertEquals(65536, LogServerMain.configure(LogServerMain.parse(new String[]{"--min-free-space", "65536"}))
                .store().minFreeSpace());
    }

    @Test
    void shouldReadTheClusterSecretFileAndTheTimeouts(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path secret = java.nio.file.Files.writeString(dir.resolve("secret"), "s3cret\n");
        LogServerConfig c = LogServerMain.configure(LogServerMain.parse(new String[]{
            "--cluster-secret-file", secret.toString(), "--idle-timeout", "30", "--handshake-timeout", "3"}));
        assertEquals("the file " + secret, c.clusterSecret().source());
        assertEquals(java.time.Duration.ofSeconds(30), c.idleTimeout());
        assertEquals(java.time.Duration.ofSeconds(3), c.handshakeTimeout());
        if (System.getenv("MELDB_CLUSTER_SECRET_FILE") == null) {
            assertNull(LogServerMain.configure(LogServerMain.parse(new String[0])).clusterSecret(), "no secret: open port");
        }
        Map<String, String> missing = LogServerMain.parse(new String[]{"--cluster-secret-file", dir.resolve("none").toString()});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(missing));
        assertTrue(e.getMessage().contains("cannot read the cluster secret file"), e.getMessage());
    }

    @Test
    void shouldPutMetricsNextToAFixedPortUnlessToldOtherwise() {
        assertEquals(7421, LogServerMain.configure(LogServerMain.parse(new String[]{"--port", "7420"})).metricsPort());
        assertEquals(-1, LogServerMain.configure(LogServerMain.parse(new String[]{"--port", "7420", "--metrics-port", "-1"})).metricsPort());
    }

    @Test
    void shouldRefuseUnknownFlagsAndBadValues() {
        assertThrows(IllegalArgumentException.class, () -> LogServerMain.parse(new String[]{"--colour", "red"}));
        assertThrows(IllegalArgumentException.class, () -> LogServerMain.parse(new String[]{"--port"}));
        Map<String, String> badDurability = LogServerMain.parse(new String[]{"--durability", "sometimes"});
        assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(badDurability));
        Map<String, String> badSize = LogServerMain.parse(new String[]{"--block-size", "12"});
        assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(badSize));
        for (String size : new String[]{"lots", "-1m", "12x", "9999999999t", ""}) {
            Map<String, String> badFree = LogServerMain.parse(new String[]{"--min-free-space", size});
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(badFree));
            assertTrue(e.getMessage().contains("--min-free-space must be a size"), e.getMessage());
        }
        for (String flag : new String[]{"--io-threads", "--read-threads"}) {
            Map<String, String> none = LogServerMain.parse(new String[]{flag, "0"});
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(none));
            assertTrue(e.getMessage().contains("must be at least 1"), e.getMessage());
        }
        assertNull(LogServerMain.parse(new String[]{"--help"}));
    }

    @Test
    void replicationFlagsBuildTheRaftOptionsAndAreRefusedWhenIncomplete() {
        LogServerConfig one = LogServerMain.configure(LogServerMain.parse(new String[0]));
        assertNull(one.replication(), "the default is one server, no Raft");
        LogServerConfig three = LogServerMain.configure(LogServerMain.parse(new String[]{"--port", "7000",
                "--replication-factor", "3", "--node-id", "b", "--peers", "a=h1:9100,b=h2:9100,c=h3:9100",
                "--election-timeout", "1500", "--replication-commit-timeout", "4000", "--snapshot-every", "64",
                "--raft-segment-size", "1m"}));
        assertEquals(64, three.replication().snapshotEvery());
        assertEquals(1 << 20, three.replication().raftSegmentBytes());
        assertEquals(1024, LogServerMain.configure(LogServerMain.parse(new String[]{"--replication-factor", "3",
                "--node-id", "a", "--peers", "a=h1:9100,b=h2:9100,c=h3:9100"})).replication().snapshotEvery(), "the default");
        IllegalArgumentException noSnapshots = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(
                LogServerMain.parse(new String[]{"--replication-factor", "3", "--node-id", "a",
                        "--peers", "a=h1:9100,b=h2:9100,c=h3:9100", "--snapshot-every", "0"})));
        assertTrue(noSnapshots.getMessage().contains("--snapshot-every must be at least 1"), noSnapshots.getMessage());
        assertEquals(3, three.replication().factor());
        assertEquals("b", three.replication().nodeId());
        assertEquals("h2:7000", three.replication().peers().peer("b").clientAddress(), "log port: --port");
        assertEquals(java.time.Duration.ofMillis(1500), three.replication().electionTimeoutMin());
        assertEquals(java.time.Duration.ofMillis(3000), three.replication().electionTimeoutMax());
        assertEquals(java.time.Duration.ofMillis(4000), three.replication().commitTimeout());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(
                LogServerMain.parse(new String[]{"--replication-factor", "3"})));
        assertTrue(missing.getMessage().contains("needs --peers and --node-id"), missing.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(
                LogServerMain.parse(new String[]{"--replication-factor", "0"})));
        assertTrue(zero.getMessage().contains("at least 1"), zero.getMessage());
    }
    @Test
    void aClusterSecretWithAnOpenRaftPortIsRefusedUnlessTlsLoopbackOrATrustedNetworkGuardsIt(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path secret = java.nio.file.Files.writeString(dir.resolve("secret"), "s3cret\n");
        java.util.function.Function<String[], String[]> replica = more -> java.util.stream.Stream.concat(
                java.util.stream.Stream.of("--cluster-secret-file", secret.toString(), "--replication-factor", "3",
                        "--node-id", "a", "--peers", "a=h1:9100,b=h2:9100,c=h3:9100"),
                java.util.Arrays.stream(more)).toArray(String[]::new);
        IllegalArgumentException open = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(
                LogServerMain.parse(replica.apply(new String[]{"--host", "0.0.0.0"}))));
        assertTrue(open.getMessage().contains("unguarded") && open.getMessage().contains("--raft-tls-cert")
                && open.getMessage().contains("--raft-trust-network true"), open.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(LogServerMain.parse(
                replica.apply(new String[]{"--host", "127.0.0.1", "--raft-host", "10.1.2.3"}))), "--raft-host counts");
        LogServerConfig trusted = LogServerMain.configure(LogServerMain.parse(
                replica.apply(new String[]{"--host", "0.0.0.0", "--raft-trust-network", "true"})));
        assertEquals("0.0.0.0", trusted.replication().raftHost());
        assertNull(trusted.replication().tls());
        LogServerConfig loopback = LogServerMain.configure(LogServerMain.parse(
                replica.apply(new String[]{"--host", "0.0.0.0", "--raft-host", "127.0.0.1"})));
        assertEquals("127.0.0.1", loopback.replication().raftHost(), "a loopback Raft port needs no guard");
        if (System.getenv("MELDB_CLUSTER_SECRET_FILE") == null) {
            assertEquals("0.0.0.0", LogServerMain.configure(LogServerMain.parse(new String[]{"--host", "0.0.0.0",
                    "--replication-factor", "3", "--node-id", "a", "--peers", "a=h1:9100,b=h2:9100,c=h3:9100"}))
                    .replication().raftHost(), "no cluster secret: every port open, the Raft port too");
        }
        IllegalArgumentException partial = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(
                LogServerMain.parse(replica.apply(new String[]{"--raft-tls-cert", secret.toString()}))));
        assertTrue(partial.getMessage().contains("all three"), partial.getMessage());
        IllegalArgumentException notPem = assertThrows(IllegalArgumentException.class, () -> LogServerMain.configure(
                LogServerMain.parse(replica.apply(new String[]{"--raft-tls-cert", secret.toString(),
                        "--raft-tls-key", secret.toString(), "--raft-tls-ca", secret.toString()}))));
        assertTrue(notPem.getMessage().startsWith("--raft-tls-cert " + secret), notPem.getMessage());
    }
}
