package io.meldb.txn.cluster;

import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.meldb.testkit.Await;
import io.meldb.txn.ClusterConfig;
import io.meldb.txn.LogScan;
import io.meldb.txn.TxnServer;
import io.meldb.txn.TxnServerConfig;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.cluster.ProcessCluster.ServerProcess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A txn-server killed with SIGKILL while its checkpoint is being written to the log in the background (issue 21):
 * the log holds that checkpoint's first chunks and never its last one, and a server that starts afterwards
 * recovers from the checkpoint before it and reaches the same state as a peer that never stopped.
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CheckpointKillTest {
    private static final Pattern WRITTEN = Pattern.compile("checkpoint of csn (\\d+) \\((\\d+) chunks\\) written");
    private static final Pattern WRITING = Pattern.compile("writing the checkpoint of csn (\\d+) to the log");

    @TempDir
    Path dir;

    private static byte[] b(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The CSNs of the lines of {@code p}'s output that match {@code pattern}, in order. */
    private static List<Long> csns(final ServerProcess p, final Pattern pattern) {
        return p.outputLines().stream().map(pattern::matcher).filter(Matcher::find)
            .map(m -> Long.parseLong(m.group(1))).toList();
    }

    /** Whether the log holds chunks of server 1's checkpoint of {@code csn} but not its last one. */
    private static boolean partial(final int logPort, final long csn) {
        return LogScan.of("127.0.0.1", logPort, ClusterConfig.DEFAULT.blockSize()).checkpoints.stream()
            .anyMatch(c -> c.writer == 1 && c.id % 1_000_000L == csn % 1_000_000L && !c.complete());
    }

    @Test
    void aServerKilledWhileWritingACheckpointRecoversFromThePreviousOne() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             ProcessCluster cluster = new ProcessCluster(dir);
             TxnServer peer = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(2)
                 .checkpointEvery(0))) {
            // about 2.5 MB of rows: a checkpoint of ten or more 256 KiB chunks
            for (int batch = 0; batch < 20; batch++) {
                try (TxnSession t = peer.begin(IsolationLevel.SERIALIZABLE, false)) {
                    for (int i = 0; i < 100; i++) {
                        t.put(b("row" + (batch * 100 + i)), new byte[1024]);
                    }
                    t.commit();
                }
            }
            // the server under test pauses 300 ms after each chunk it appends: a write lasts seconds, melding not
            final ServerProcess child = cluster.launchTxnServerWithJvmArgs(1, "127.0.0.1:" + log.port(),
                List.of("-Dmeldb.checkpoint.chunk-delay-ms=300"), "--checkpoint-every", "200",
                "--checkpoint-bytes", "0", "--trim", "false");
            try {
                child.awaitReady();
                final AtomicBoolean stop = new AtomicBoolean();
                final AtomicReference<Throwable> failed = new AtomicReference<>();
                final Thread load = new Thread(() -> {
                    try {
                        for (int i = 0; !stop.get(); i++) {
                            try (TxnSession t = peer.begin(IsolationLevel.SERIALIZABLE, false)) {
                                t.put(b("row" + (i * 37 % 2000)), b("update " + i));
                                t.commit();
                            } catch (TxnException e) {
                                assertEquals(TxnError.CONFLICT, e.error(), e.getMessage());
                            }
                        }
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                });
                load.start();
                final long previous;
                final long killedDuring;
                try {
                    previous = Await.value(Duration.ofSeconds(90), "a checkpoint written by server 1",
                        () -> csns(child, WRITTEN).stream().findFirst().orElse(null));
                    killedDuring = Await.value(Duration.ofSeconds(90), "the next checkpoint's write starting",
                        () -> csns(child, WRITING).stream().filter(c -> c > previous).findFirst().orElse(null));
                    // kill it once the log holds the first chunks of that checkpoint (each append is followed by a
                    // pause, so the kill lands well before the last one)
                    Await.until(Duration.ofSeconds(30), "a chunk of the checkpoint of csn " + killedDuring,
                        () -> partial(log.port(), killedDuring));
                    child.kill();
                } finally {
                    stop.set(true);
                    load.join();
                }
                assertNull(failed.get());
                assertTrue(csns(child, WRITTEN).stream().noneMatch(c -> c == killedDuring),
                    "the checkpoint of csn " + killedDuring + " was written whole before the kill");

                // the log holds the first chunks of the checkpoint being written, never its last one
                final LogScan scan = LogScan.of("127.0.0.1", log.port(), ClusterConfig.DEFAULT.blockSize());
                assertTrue(scan.completeCheckpointsOf(1).containsKey(previous));
                assertTrue(partial(log.port(), killedDuring), "no partial checkpoint of csn " + killedDuring);
                assertTrue(scan.completeCheckpointsOf(1).keySet().stream().allMatch(c -> c <= previous));

                // a server starting now recovers from the checkpoint before and agrees with the peer
                try (TxnServer recovered = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port())
                    .serverId(3).checkpointEvery(0))) {
                    assertEquals(previous, (long) recovered.registry().find("meldb.recovery.checkpoint.csn").gauge()
                        .value());
                    final long tail = peer.logTail() - 1;
                    assertTrue(peer.awaitPosition(tail, 30_000));
                    assertTrue(recovered.awaitPosition(tail, 30_000));
                    assertEquals(peer.status().csn(), recovered.status().csn());
                    assertEquals(peer.status().stateHash(), recovered.status().stateHash());
                    assertNull(recovered.failure());
                }
            } catch (AssertionError | RuntimeException e) {
                cluster.printOutputs(System.out, 60);
                throw e;
            }
        }
    }
}
