package io.meldb.txn;

import io.meldb.log.server.InProcessLog;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every pipeline shape ({@link ThreadingMode}) melds the same log to the same decisions and state hash: meld order
 * is log order whichever threads run the stages. The chained shape over the in-process log runs reader, meld and
 * reply on the log subscription's thread (no reader, meld or reply thread); over the network log it keeps a reader
 * thread; with group meld, whose held intentions need a timed nudge, it keeps one too.
 */
class PipelineShapesTest {
    @TempDir
    Path dir;

    @Test
    void everyShapeOverTheInProcessAndTheNetworkLogReachesTheSameDecisionsAndStateHash() throws Exception {
        final Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1))) {
            final List<TxnServer> servers = new ArrayList<>();
            try {
                // server 1 creates the log with premeld on (t = 2, d = 2), so every shape premelds
                servers.add(inProcess(log, 1, ThreadingMode.CHAINED).get());
                servers.add(inProcess(log, 2, ThreadingMode.SHARED).get());
                servers.add(inProcess(log, 3, ThreadingMode.DEDICATED).get());
                servers.add(TxnServer.start(network(log, 4).threading(ThreadingMode.CHAINED)));
                servers.add(TxnServer.start(network(log, 5).threading(ThreadingMode.DEDICATED_DECODE)));
                final TxnServer chained = servers.get(0);
                assertEquals(new ClusterConfig(8192, 2, 2, false), servers.get(4).cluster());
                final Set<String> threads = threadNames(before);
                assertFalse(threads.contains("meldb-reader-1"), "chained in process: no reader thread " + threads);
                assertFalse(threads.contains("meldb-meld-1"), threads.toString());
                assertFalse(threads.contains("meldb-reply-1"), threads.toString());
                assertTrue(threads.contains("meldb-reply-2"), "shared keeps its reply thread " + threads);
                assertTrue(threads.contains("meldb-meld-3") && threads.contains("meldb-reply-3"), threads.toString());
                assertTrue(threads.contains("meldb-reader-4"), "chained over the network: a reader " + threads);
                assertFalse(threads.contains("meldb-reply-4"), threads.toString());

                load(chained, 64);
                final int commits = churn(servers, 40, 5);
                assertTrue(commits > 100, "commits " + commits);
                final long tail = chained.logTail() - 1;
                for (TxnServer s : servers) {
                    assertTrue(s.awaitPosition(tail, 20_000), "server " + s.serverId() + " did not catch up");
                }
                for (TxnServer s : servers) {
                    assertNull(s.failure(), "server " + s.serverId());
                    assertEquals(chained.status().csn(), s.status().csn(), "csn of server " + s.serverId());
                    assertEquals(chained.status().stateHash(), s.status().stateHash(), "server " + s.serverId());
                }
                assertTrue(chained.meldThreadAllocatedBytes() > 0, "the subscription thread melds");
            } finally {
                for (int i = servers.size() - 1; i >= 0; i--) {
                    servers.get(i).close();
                }
            }
        }
    }

    @Test
    void theChainedShapeUnderGroupMeldKeepsAReaderThreadThatNudgesALoneCommit() throws Exception {
        final Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer s = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(1)
                 .cluster(new ClusterConfig(8192, 0, 0, true)).threading(ThreadingMode.CHAINED).checkpointEvery(0),
                 InProcessLog.over(log.store(), log.config().blockSize()))) {
            assertTrue(threadNames(before).contains("meldb-reader-1"));
            for (int i = 0; i < 3; i++) {
                final long started = System.nanoTime();
                try (TxnSession t = s.begin(IsolationLevel.SERIALIZABLE, false)) {
                    t.put(key(i), value(i));
                    t.commit();
                }
                // held for a partner that never comes, then decided alone after the nudge (2 ms of quiet)
                final long ms = (System.nanoTime() - started) / 1_000_000;
                assertTrue(ms < 5_000, "lone commit took " + ms + " ms");
            }
            assertNull(s.failure());
        }
    }

    private interface Start {
        TxnServer get();
    }

    private static Start inProcess(final LogServer log, final int id, final ThreadingMode mode) {
        return () -> TxnServer.start(network(log, id).threading(mode).decodeThreads(2),
            InProcessLog.over(log.store(), log.config().blockSize()));
    }

    private static TxnServerConfig network(final LogServer log, final int id) {
        // checkpoints every 30 intentions move each server to new memory while commits are in flight
        return TxnServerConfig.log("127.0.0.1", log.port()).serverId(id).cluster(new ClusterConfig(8192, 2, 2, false))
            .checkpointEvery(id == 1 ? 30 : 0).writeCheckpoints(false).trim(false);
    }

    /** Names of the live threads started since {@code before} (other tests' servers in this JVM use the same names). */
    private static Set<String> threadNames(final Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && !before.contains(t))
            .map(Thread::getName).collect(Collectors.toSet());
    }

    private static byte[] key(final int i) {
        return ("k" + i).getBytes();
    }

    private static byte[] value(final long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static void load(final TxnService db, final int keys) {
        try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
            for (int i = 0; i < keys; i++) {
                t.put(key(i), value(0));
            }
            t.commit();
        }
    }

    /** Random read-modify-write transactions, two client threads per server; returns the commits. */
    private static int churn(final List<TxnServer> servers, final int perThread, final long seed) throws Exception {
        final java.util.concurrent.atomic.AtomicInteger commits = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicReference<Throwable> failed =
            new java.util.concurrent.atomic.AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < servers.size(); s++) {
            for (int th = 0; th < 2; th++) {
                final TxnService db = servers.get(s);
                final Random random = new Random(seed + s * 10L + th);
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < perThread; i++) {
                            try (TxnSession t = db.begin(random.nextBoolean() ? IsolationLevel.SERIALIZABLE
                                : IsolationLevel.SNAPSHOT, false)) {
                                final int k = random.nextInt(64);
                                final byte[] old = t.get(key(k));
                                final long v = old == null ? 0 : ByteBuffer.wrap(old).getLong();
                                t.put(key(k), value(v + 1));
                                t.put(key(64 + random.nextInt(16)), value(i));
                                t.commit();
                                commits.incrementAndGet();
                            } catch (TxnException e) {
                                if (e.error() != TxnError.CONFLICT) {
                                    throw e;
                                }
                            }
                        }
                    } catch (Throwable e) {
                        failed.compareAndSet(null, e);
                    }
                }));
            }
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertNull(failed.get());
        return commits.get();
    }
}
