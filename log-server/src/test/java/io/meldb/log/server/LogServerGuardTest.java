package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogConnectionException;
import io.meldb.wire.auth.ClusterSecret;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.protocol.LogProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.meldb.log.server.LogServerTest.BLOCK;
import static io.meldb.log.server.LogServerTest.CONFIG;
import static io.meldb.log.server.LogServerTest.block;
import static io.meldb.log.server.LogServerTest.errorOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Who may use the log port, and for how long: the cluster handshake, idle timeouts and the TRIM rule, on real ports. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogServerGuardTest {
    private static final ClusterSecret SECRET = ClusterSecret.of("the cluster's secret");

    @TempDir
    Path dir;

    private LogServer start(ClusterSecret secret, Duration idle) throws IOException {
        return LogServer.start(LogServerConfig.at(dir).blockSize(BLOCK).metricsPort(-1).clusterSecret(secret)
                .idleTimeout(idle).handshakeTimeout(Duration.ofMillis(500)));
    }

    private static LogClientOptions options(LogServer server) {
        return LogClientOptions.to("127.0.0.1", server.port()).requestTimeout(Duration.ofSeconds(10));
    }

    @Test
    void aClientWithTheClusterSecretIsServed() throws IOException {
        try (LogServer server = start(SECRET, Duration.ofSeconds(60));
             LogClient client = LogClient.connect(options(server).clusterSecret(ClusterSecret.of("the cluster's secret\n")))) {
            client.create(BLOCK, CONFIG).join();
            assertEquals(1, client.append(block(1)).join());
            assertEquals(1, server.connectionCount());
            assertEquals(0, server.connectionsRefused());
        }
    }

    @Test
    void aClientWithoutTheSecretGetsUnauthenticatedAndNothingIsAppended() throws IOException {
        try (LogServer server = start(SECRET, Duration.ofSeconds(60));
             LogClient client = LogClient.connect(options(server))) {
            assertEquals(ErrorCode.UNAUTHENTICATED, errorOf(client.append(block(1))));
            assertEquals(1, server.connectionsRefused());
            assertTrue(!server.store().isCreated() && server.store().tail() <= 1, "nothing reached the store");
        }
    }

    @Test
    void aClientWithAnotherSecretCannotConnect() throws IOException {
        try (LogServer server = start(SECRET, Duration.ofSeconds(60))) {
            LogConnectionException e = assertThrows(LogConnectionException.class,
                    () -> LogClient.connect(options(server).clusterSecret(ClusterSecret.of("a guess"))));
            assertTrue(e.getMessage().contains("cluster secret"), e.getMessage());
            // parked, not spinning, so that the server's I/O thread gets the core it needs on a busy machine
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.connectionsRefused() < 1 && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
            }
            assertEquals(1, server.connectionsRefused(), "counted once the client hung up on the challenge");
        }
    }

    @Test
    void aRawClientSendingGarbageOrAReplayedFrameIsRefusedWithAnErrorAndClosed() throws IOException {
        try (LogServer server = start(SECRET, Duration.ofSeconds(60)); Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(5000);
            // a TRIM frame as an outsider would send it: answered ERROR UNAUTHENTICATED with its request id, then closed
            ByteBuffer trim = ByteBuffer.allocate(28).putInt(24).putInt(LogProtocol.MAGIC).put(LogProtocol.VERSION)
                    .put(LogProtocol.TRIM).putShort((short) 0).putLong(42).putLong(1_000_000);
            s.setTcpNoDelay(true);
            for (byte x : trim.array()) { // byte by byte: the refusal still names the request
                s.getOutputStream().write(x);
                s.getOutputStream().flush();
            }
            DataInputStream in = new DataInputStream(s.getInputStream());
            int length = in.readInt();
            assertTrue(length < 2048, "a short answer: " + length);
            byte[] rest = new byte[length];
            in.readFully(rest);
            ByteBuffer f = ByteBuffer.wrap(rest);
            assertEquals(LogProtocol.MAGIC, f.getInt());
            f.get();
            assertEquals(LogProtocol.ERROR, f.get());
            f.getShort();
            assertEquals(42, f.getLong());
            assertEquals(ErrorCode.UNAUTHENTICATED.code(), f.getShort());
            String message = new String(rest, f.position(), rest.length - f.position(), StandardCharsets.UTF_8);
            assertTrue(message.contains("--cluster-secret-file"), message);
            assertEquals(-1, in.read(), "closed after the refusal");
        }
    }

    @Test
    void aSilentUnauthenticatedConnectionIsClosedAfterTheHandshakeTimeout() throws IOException {
        try (LogServer server = start(SECRET, Duration.ofSeconds(60)); Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(5000);
            long start = System.nanoTime();
            drainUntilClosed(s.getInputStream());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "closed after the 0.5 s handshake timeout");
            assertEquals(1, server.connectionsRefused());
        }
    }

    @Test
    void aHalfSentFrameIsClosedByTheIdleTimeoutButAKeptAliveClientStays() throws Exception {
        // keepalives every 0.1 s against a 1.5 s timeout: robust to pauses of a loaded machine
        try (LogServer server = start(null, Duration.ofMillis(1500));
             LogClient quiet = LogClient.connect(options(server).keepaliveInterval(Duration.ofMillis(100)));
             Socket s = new Socket("127.0.0.1", server.port())) {
            quiet.create(BLOCK, CONFIG).join();
            s.setSoTimeout(5000);
            s.getOutputStream().write(new byte[] {0, 0, 0x20, 0, 'M', 'L'}); // half a header, then silence
            drainUntilClosed(s.getInputStream());
            Thread.sleep(3000);
            assertTrue(server.connectionsClosedIdle() >= 1);
            assertEquals(1, quiet.append(block(1)).join(), "the quiet client's connection is the one it had");
            assertEquals(1, server.connectionCount());
        }
    }

    @Test
    void aTrimAboveTheNewestCompleteCheckpointIsRefused() throws IOException {
        try (LogServer server = start(null, Duration.ofSeconds(60)); LogClient client = LogClient.connect(options(server))) {
            client.create(BLOCK, CONFIG).join();
            for (int i = 1; i <= 9; i++) {
                client.append(block(i)).join();
            }
            assertEquals(ErrorCode.TRIM_REFUSED, errorOf(client.trim(5)), "no checkpoint: nothing may be trimmed");
            // a checkpoint resuming at 4 whose last chunk spans three blocks, interleaved with another writer's
            var chunk = TestCheckpoints.lastChunk(BLOCK, 7, 4, 2 * BLOCK);
            assertEquals(3, chunk.size());
            client.append(chunk.get(0)).join();
            client.append(chunk.get(1)).join();
            assertEquals(ErrorCode.TRIM_REFUSED, errorOf(client.trim(4)), "the checkpoint is not complete yet");
            client.append(block(20)).join();
            client.append(chunk.get(2)).join();
            assertEquals(ErrorCode.TRIM_REFUSED, errorOf(client.trim(5)));
            assertEquals(4, client.trim(4).join());
            assertEquals(4, client.trim(2).join(), "below the trim point changes nothing");
            assertEquals(3, server.trimsRefused());
            // a newer checkpoint raises the ceiling
            client.append(TestCheckpoints.lastChunk(BLOCK, 8, 12, 0).get(0)).join();
            assertEquals(12, client.trim(12).join());
            assertEquals(ErrorCode.TRIM_REFUSED, errorOf(client.trim(13)));
        }
    }

    @Test
    void theSecretIsReadFromAFileAndTrimmed() throws IOException {
        Path file = Files.writeString(dir.resolve("secret"), "  s3cret\n");
        assertTrue(Files.exists(file));
        try (LogServer server = start(ClusterSecret.fromFile(file), Duration.ofSeconds(60));
             LogClient client = LogClient.connect(options(server).clusterSecret(ClusterSecret.of("s3cret")))) {
            client.create(BLOCK, CONFIG).join();
        }
        Path empty = Files.writeString(dir.resolve("empty"), " \n");
        assertThrows(IllegalArgumentException.class, () -> ClusterSecret.fromFile(empty));
        assertThrows(IllegalArgumentException.class, () -> ClusterSecret.fromFile(dir.resolve("missing")));
    }

    private static void drainUntilClosed(InputStream in) throws IOException {
        try {
            while (in.read() >= 0) {
                // the refusal's ERROR frame, if any
            }
        } catch (EOFException e) {
            // closed
        }
    }
}
