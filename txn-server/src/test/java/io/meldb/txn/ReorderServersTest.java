package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.ReorderConfig;
import io.meldb.wire.CommandFlags;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reorder window in txn-servers (issue 21): servers with different threading modes on one log decide every
 * window alike (same CSN and state hash), outcomes told to clients are the decisions meld made (every counter
 * increment acknowledged is in the final state, none other), a quiet log does not keep a partial window waiting,
 * and the window is part of the cluster configuration in block 0.
 */
class ReorderServersTest {
    private static final ClusterConfig REORDERED = new ClusterConfig(8192, 2, 2, false)
        .withReorder(new ReorderConfig(16, ReorderConfig.Algorithm.HYBRID, ReorderConfig.Policy.MIN_ABORTS));

    @TempDir
    Path dir;

    private static byte[] key(final int i) {
        return ("k" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static long value(final byte[] v) {
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    private static byte[] value(final long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    /** Increments random hot counters from four threads per server; returns the commits clients were told of. */
    private static int increments(final List<TxnService> servers, final int perThread, final long seed)
        throws InterruptedException {
        final AtomicInteger commits = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < servers.size(); s++) {
            for (int th = 0; th < 4; th++) {
                final TxnService db = servers.get(s);
                final Random random = new Random(seed + s * 10 + th);
                threads.add(new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                            final int k = random.nextInt(8);
                            t.put(key(k), value(value(t.get(key(k))) + 1));
                            // a blind write of another hot key: log order aborts a later reader of it
                            t.put(key(100 + random.nextInt(8)), value(i));
                            t.get(key(100 + random.nextInt(8)));
                            t.commit();
                            commits.incrementAndGet();
                        } catch (TxnException e) {
                            if (e.error() != TxnError.CONFLICT) {
                                throw e;
                            }
                        }
                    }
                }));
            }
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        return commits.get();
    }

    private static long counterSum(final TxnService db) {
        try (TxnSession t = db.begin(IsolationLevel.SNAPSHOT, true)) {
            long sum = 0;
            for (int k = 0; k < 8; k++) {
                sum += value(t.get(key(k)));
            }
            return sum;
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void serversWithDifferentThreadingModesDecideEveryWindowAlikeAndClientsAreToldTheDecisions() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer s1 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(1)
                 .cluster(REORDERED).checkpointEvery(50).trim(false).decodeThreads(2)
                 .threading(ThreadingMode.DEDICATED));
             TxnServer s2 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(2)
                 .checkpointEvery(0).threading(ThreadingMode.SHARED))) {
            assertEquals(REORDERED, s2.cluster(), "the window comes from block 0");
            final int commits = increments(List.of(s1, s2), 40, 11);
            assertTrue(commits > 50, "too few commits: " + commits);
            final long tail = s1.logTail() - 1;
            assertTrue(s1.awaitPosition(tail, 20_000), "server 1 did not catch up");
            assertTrue(s2.awaitPosition(tail, 20_000), "server 2 did not catch up");
            assertEquals(s1.status().csn(), s2.status().csn());
            assertEquals(s1.status().stateHash(), s2.status().stateHash());
            assertEquals(commits, counterSum(s1), "every acknowledged increment, and only those");
            assertEquals(commits, counterSum(s2));
            assertNull(s1.failure());
            assertNull(s2.failure());

            // one transaction alone on a quiet log: the partial window is nudged closed, the client is answered
            final long before = System.nanoTime();
            final long lone;
            try (TxnSession t = s2.begin(IsolationLevel.SERIALIZABLE, false)) {
                t.put(key(0), value(value(t.get(key(0))) + 1));
                lone = t.commit();
            }
            assertTrue(System.nanoTime() - before < TimeUnit.SECONDS.toNanos(10), "a lone commit waited");
            // server 1 learns server 2's commit from the log: wait until it has decided it (failed under load)
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (s1.status().csn() < lone && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(commits + 1, counterSum(s1));
        }
    }

    @Test
    void theWindowIsWrittenIntoBlockZeroAndAnOlderLogReadsAsWindowZero() {
        final ClusterConfig decoded = ClusterConfig.decode(REORDERED.encode());
        assertEquals(REORDERED, decoded);
        assertTrue(new String(REORDERED.encode(), StandardCharsets.UTF_8).startsWith(ClusterConfig.FORMAT_REORDER));
        final String previousVersion = "meldb-cluster-config 1\nblockSize=8192\npremeldThreads=2\npremeldDistance=2\n"
            + "groupMeld=false\nmaxSnapshotAge=10000\n";
        assertEquals(ReorderConfig.OFF, ClusterConfig.decode(previousVersion.getBytes(StandardCharsets.UTF_8)).reorder());
        assertEquals(previousVersion, new String(new ClusterConfig(8192, 2, 2, false).encode(), StandardCharsets.UTF_8),
            "without a window the text is what earlier versions wrote");
    }

    @Test
    void theReorderFlagsSetTheClusterConfigAndRefuseBadValues() {
        final TxnServerConfig c = TxnServerMain.configure(CommandFlags.parse(TxnServerMain.flags(),
            new String[] {"--reorder-window", "64", "--reorder-algorithm", "sort", "--reorder-policy", "tail-latency"}));
        assertEquals(new ReorderConfig(64, ReorderConfig.Algorithm.SORT, ReorderConfig.Policy.TAIL_LATENCY),
            c.cluster().reorder());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TxnServerMain.configure(
            CommandFlags.parse(TxnServerMain.flags(), new String[] {"--reorder-window", "65"})));
        assertTrue(e.getMessage().contains("--reorder-window"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TxnServerMain.configure(CommandFlags.parse(
            TxnServerMain.flags(), new String[] {"--reorder-window", "8", "--group-meld", "true"})));
    }
}
