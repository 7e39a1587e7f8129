package io.meldb.txn;

import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.meldb.testkit.Await;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnSession;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checkpoints that do not stop meld (issue 21): melding goes on while a checkpoint's generation is built and while
 * the checkpoint is written to the log, a server recovering from such a checkpoint agrees with its peers, and two
 * servers checkpointing the same state of the same log write the same checkpoint.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConcurrentCheckpointTest {
    private static final ClusterConfig CLUSTER = new ClusterConfig(8192, 2, 2, false, 200);

    @TempDir
    Path dir;

    private static byte[] b(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void load(final TxnServer s, final int keys, final int valueBytes) {
        for (int from = 0; from < keys; from += 100) {
            try (TxnSession t = s.begin(IsolationLevel.SERIALIZABLE, false)) {
                for (int i = from; i < Math.min(keys, from + 100); i++) {
                    t.put(b("key" + i), new byte[valueBytes]);
                }
                t.commit();
            }
        }
    }

    /** One read-modify-write transaction; a conflict is a decision like any other. */
    private static void update(final TxnServer s, final int i) {
        try (TxnSession t = s.begin(IsolationLevel.SERIALIZABLE, false)) {
            t.get(b("key" + (i * 7 % 400)));
            t.put(b("key" + (i * 13 % 400)), b("value " + i));
            t.commit();
        } catch (io.meldb.txn.api.TxnException e) {
            assertEquals(io.meldb.txn.api.TxnError.CONFLICT, e.error(), e.getMessage());
        }
    }

    private static double counter(final TxnServer s, final String name) {
        final Counter c = s.registry().find(name).counter();
        return c == null ? 0 : c.count();
    }

    private static long checkpointsWritten(final TxnServer s) {
        final Timer t = s.registry().find("meldb.checkpoint.duration").timer();
        return t == null ? 0 : t.count();
    }

    private static double gauge(final TxnServer s, final String name) {
        return s.registry().find(name).gauge().value();
    }

    private static void awaitSameCsn(final TxnServer... servers) {
        final long tail = servers[0].logTail() - 1;
        for (TxnServer s : servers) {
            assertTrue(s.awaitPosition(tail, 30_000), "server " + s.serverId() + " did not catch up");
        }
    }

    @Test
    void meldDecidesWhileACheckpointIsBuiltAndWrittenAndAServerRecoveringFromItAgreesWithItsPeers() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1))) {
            // small chunks, each append followed by a pause: a checkpoint takes about half a second to write
            final TxnServerConfig c1 = TxnServerConfig.log("127.0.0.1", log.port()).serverId(1).cluster(CLUSTER)
                .checkpointEvery(150).checkpointBytes(0).checkpointChunkBytes(16384).checkpointChunkDelayMillis(12)
                .trim(false);
            try (TxnServer s1 = TxnServer.start(c1);
                 TxnServer s2 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(2)
                     .checkpointEvery(0))) {
                load(s1, 400, 200);
                // one client, one transaction at a time: each intention is appended after the one before was decided
                final AtomicBoolean stop = new AtomicBoolean();
                final AtomicReference<Throwable> failed = new AtomicReference<>();
                final Thread client = new Thread(() -> {
                    try {
                        for (int i = 0; !stop.get(); i++) {
                            update(i % 2 == 0 ? s1 : s2, i);
                        }
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                });
                client.start();
                try {
                    Await.until(Duration.ofSeconds(60), "two checkpoints written by server 1",
                        () -> checkpointsWritten(s1) >= 2 || failed.get() != null);
                } finally {
                    stop.set(true);
                    client.join();
                }
                assertNull(failed.get());
                assertNull(s1.failure());
                assertTrue(counter(s1, "meldb.checkpoint.melded.during") > 0,
                    "no intention was melded between a checkpoint's CSN and its generation switch");
                assertTrue(gauge(s1, "meldb.checkpoint.switch.csn") > gauge(s1, "meldb.checkpoint.csn"));

                // in the log: intentions decided after a checkpoint's state landed between its first and last chunk
                final LogScan scan = LogScan.of("127.0.0.1", log.port(), CLUSTER.blockSize());
                final Map<Long, LogScan.Checkpoint> written = scan.completeCheckpointsOf(1);
                assertTrue(written.size() >= 2, "complete checkpoints of server 1: " + written.keySet());
                long interleaved = 0;
                for (LogScan.Checkpoint c : written.values()) {
                    final long first = c.chunkPositions.get(0);
                    final long last = c.chunkPositions.get(c.chunkPositions.size() - 1);
                    assertTrue(c.chunkPositions.size() > 10, "chunks: " + c.chunkPositions.size());
                    assertTrue(scan.csnAt(first) >= c.manifest.lcsCsn(), "written before its state was melded");
                    interleaved += scan.csnAt(last) - scan.csnAt(first);
                }
                assertTrue(interleaved > 0, "no intention was appended while a checkpoint was being written");

                // a server that starts now recovers from server 1's newest complete checkpoint and agrees
                try (TxnServer s3 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(3)
                    .checkpointEvery(0))) {
                    final long newest = written.keySet().stream().max(Long::compare).orElseThrow();
                    assertEquals(newest, (long) gauge(s3, "meldb.recovery.checkpoint.csn"));
                    update(s3, 1);
                    update(s1, 2);
                    awaitSameCsn(s1, s2, s3);
                    assertEquals(s1.status().csn(), s3.status().csn());
                    assertEquals(s2.status().stateHash(), s1.status().stateHash());
                    assertEquals(s1.status().stateHash(), s3.status().stateHash());
                    assertNull(s3.failure());
                }
            }
        }
    }

    private static TxnServerConfig checkpointingEvery50(final int logPort, final int serverId) {
        return TxnServerConfig.log("127.0.0.1", logPort).serverId(serverId).cluster(CLUSTER).checkpointEvery(50)
            .checkpointBytes(0).checkpointChunkBytes(4096).trim(false);
    }

    /**
     * Which CSN a server checkpoints may depend on timing (a byte threshold, or a checkpoint still under way when
     * the next comes due); what it writes for a given CSN may not. Two servers whose count trigger fires at the same
     * block write byte-identical checkpoints; only the record headers (checkpoint id, first chunk's position) and
     * where in the log the chunks land differ.
     */
    @Test
    void twoServersCheckpointingTheSameStateOfTheSameLogWriteTheSameCheckpoint() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1))) {
            try (TxnServer s1 = TxnServer.start(checkpointingEvery50(log.port(), 1));
                 TxnServer s2 = TxnServer.start(checkpointingEvery50(log.port(), 2))) {
                load(s1, 400, 100);
                for (int round = 1; round <= 4; round++) {
                    for (int i = 0; i < 60; i++) {
                        update(i % 2 == 0 ? s1 : s2, round * 100 + i);
                    }
                    // both finish their checkpoint before the next one comes due
                    final long expected = round; // at csn 50, 110, 170, 230 (the load took 4)
                    Await.until(Duration.ofSeconds(30), "checkpoint " + expected + " written by both servers",
                        () -> checkpointsWritten(s1) >= expected && checkpointsWritten(s2) >= expected);
                }
                assertNull(s1.failure());
                assertNull(s2.failure());
            }
            final LogScan scan = LogScan.of("127.0.0.1", log.port(), CLUSTER.blockSize());
            final Map<Long, LogScan.Checkpoint> one = scan.completeCheckpointsOf(1);
            final Map<Long, LogScan.Checkpoint> two = scan.completeCheckpointsOf(2);
            int common = 0;
            for (Map.Entry<Long, LogScan.Checkpoint> e : one.entrySet()) {
                final LogScan.Checkpoint other = two.get(e.getKey());
                if (other != null) {
                    common++;
                    assertArrayEquals(e.getValue().content(), other.content(), "checkpoint of csn " + e.getKey());
                    assertTrue(e.getValue().chunkPositions.size() > 1);
                }
            }
            assertTrue(common >= 4, "checkpoint CSNs of server 1 " + one.keySet() + ", of server 2 " + two.keySet());
        }
    }
}
