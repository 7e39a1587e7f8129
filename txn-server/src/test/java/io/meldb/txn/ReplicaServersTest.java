package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several txn-servers in one JVM on one log: they must reach the same decisions and state hashes with premeld and
 * group meld on, and a server restarted from a checkpoint must rejoin with the same hash as its peer.
 */
class ReplicaServersTest {
    private static final ClusterConfig PIPELINED = new ClusterConfig(8192, 2, 2, true);

    @TempDir
    Path dir;

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

    /** Runs random read-modify-write transactions from several threads on every server; returns commits. */
    private static int churn(final List<TxnService> servers, final int perThread, final long seed)
        throws InterruptedException {
        final AtomicInteger commits = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < servers.size(); s++) {
            for (int th = 0; th < 2; th++) {
                final TxnService db = servers.get(s);
                final Random random = new Random(seed + s * 10 + th);
                threads.add(new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        try (TxnSession t = db.begin(random.nextBoolean() ? IsolationLevel.SERIALIZABLE
                            : IsolationLevel.SNAPSHOT, false)) {
                            final int k = random.nextInt(64);
                            final byte[] old = t.get(key(k));
                            final long v = old == null ? 0 : ByteBuffer.wrap(old).getLong();
                            t.put(key(k), value(v + 1));
                            if (random.nextInt(8) == 0) {
                                t.delete(key(64 + random.nextInt(16)));
                            } else {
                                t.put(key(64 + random.nextInt(16)), value(i));
                            }
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

    private static void awaitSameCsn(final TxnServer a, final TxnServer b) {
        final long tail = a.logTail() - 1;
        assertTrue(a.awaitPosition(tail, 20_000), "server " + a.serverId() + " did not catch up");
        assertTrue(b.awaitPosition(tail, 20_000), "server " + b.serverId() + " did not catch up");
    }

    @Test
    void serversWithPremeldAndGroupMeldReachTheSameStateAndRejoinOrJoinFromACheckpoint() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1))) {
            // server 1: two deserializer threads and two premeld threads ahead of its meld thread
            final TxnServerConfig c1 = TxnServerConfig.log("127.0.0.1", log.port()).serverId(1).cluster(PIPELINED)
                .checkpointEvery(60).trim(false).decodeThreads(2);
            TxnServer s2 = null;
            try (TxnServer s1 = TxnServer.start(c1)) {
                // server 2 decodes and melds on one thread, server 1 on two: they must still agree
                s2 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(2).checkpointEvery(0)
                    .separateDecoder(false));
                assertEquals(PIPELINED, s2.cluster());
                load(s1, 80);
                final int commits = churn(List.of(s1, s2), 60, 7);
                assertTrue(commits > 100, "too few commits: " + commits);
                awaitSameCsn(s1, s2);
                assertEquals(s1.status().csn(), s2.status().csn());
                assertEquals(s1.status().stateHash(), s2.status().stateHash());

                // server 2 restarts: it recovers from server 1's newest checkpoint and rolls forward
                final long oldIncarnation = s2.incarnation();
                s2.close();
                churn(List.of(s1), 40, 8);
                s2 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(2).checkpointEvery(0));
                assertNotEquals(oldIncarnation, s2.incarnation());
                churn(List.of(s1, s2), 30, 9);
                awaitSameCsn(s1, s2);
                assertEquals(s1.status().csn(), s2.status().csn());
                assertEquals(s1.status().stateHash(), s2.status().stateHash());
                assertNull(s2.failure());

                // a brand-new server joins the same way: from the newest checkpoint, then the log
                try (TxnServer s3 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(3)
                    .checkpointEvery(0))) {
                    churn(List.of(s1, s3), 20, 10);
                    awaitSameCsn(s1, s3);
                    assertEquals(s1.status().stateHash(), s3.status().stateHash());
                    assertNull(s3.failure());
                }
            } finally {
                if (s2 != null) {
                    s2.close();
                }
            }
        }
    }

    /**
     * A server melds its own intentions from the trees its sessions built (OwnIntentions, meld paper App. E); its
     * peer on the same log decodes every record, its own included. Both must decide alike and reach the same state,
     * across checkpoints that move the adopting server's state to new memory while commits are in flight.
     */
    @Test
    void aServerThatAdoptsItsOwnIntentionsReachesTheStateOfOneThatDecodesThem() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer adopting = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(1)
                 .cluster(PIPELINED).checkpointEvery(25).writeCheckpoints(false).decodeThreads(2));
             TxnServer decoding = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(2)
                 .checkpointEvery(0).adoptOwnIntentions(false))) {
            load(adopting, 80);
            final int commits = churn(List.of(adopting, decoding), 60, 11);
            assertTrue(commits > 100, "too few commits: " + commits);
            awaitSameCsn(adopting, decoding);
            assertEquals(adopting.status().csn(), decoding.status().csn());
            assertEquals(adopting.status().stateHash(), decoding.status().stateHash());
            assertTrue(adopting.intentionsAdopted() > 10, "adopted: " + adopting.intentionsAdopted());
            assertEquals(0, decoding.intentionsAdopted());
            assertTrue(adopting.generations() > 2, "checkpoints while adopting: " + adopting.generations());
            assertEquals(0, adopting.ownIntentionsHeld(), "every held tree was released");
            assertNull(adopting.failure());
            assertNull(decoding.failure());
        }
    }

    /**
     * Transactions whose snapshots are older than a checkpoint point at nodes of states the checkpoint had to keep.
     * A server that compacts often must meld them exactly like one that never compacts, and both must reject the
     * ones past the cluster's snapshot-age limit.
     */
    @Test
    void oldSnapshotsAcrossCheckpointsMeldAlikeOnACompactingAndANonCompactingServer() throws Exception {
        final ClusterConfig premeld = new ClusterConfig(8192, 2, 4, false, 40);
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer compacting = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(1)
                 .cluster(premeld).checkpointEvery(7).writeCheckpoints(false).maxInFlight(1024).decodeThreads(3));
             TxnServer plain = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(2)
                 .checkpointEvery(0).separateDecoder(false))) {
            load(compacting, 300);
            final Random random = new Random(3);
            for (int round = 0; round < 6; round++) {
                final List<TxnSession> sessions = new ArrayList<>();
                for (int i = 0; i < 60; i++) {
                    sessions.add(compacting.begin(i % 3 == 0 ? IsolationLevel.SNAPSHOT : IsolationLevel.SERIALIZABLE, false));
                }
                final List<java.util.concurrent.CompletableFuture<Long>> commits = new ArrayList<>();
                for (TxnSession t : sessions) {
                    t.get(key(random.nextInt(300)));
                    t.put(key(random.nextInt(300)), value(round));
                    t.put(key(300 + random.nextInt(50)), value(round));
                    commits.add(t.commitAsync());
                }
                for (java.util.concurrent.CompletableFuture<Long> c : commits) {
                    try {
                        c.join();
                    } catch (java.util.concurrent.CompletionException e) {
                        assertEquals(TxnError.CONFLICT, ((TxnException) e.getCause()).error(), e.toString());
                    }
                }
            }
            awaitSameCsn(compacting, plain);
            assertNull(compacting.failure());
            assertTrue(compacting.generations() > 20, "compactions: " + compacting.generations());
            assertTrue(compacting.stats().snapshotsTooOld() > 0, "no snapshot exceeded the age limit");
            assertEquals(plain.status().stateHash(), compacting.status().stateHash());
        }
    }

    @Test
    void refusesToJoinALogWithAnotherMeldConfiguration() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer s1 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).cluster(PIPELINED))) {
            final TxnException e = assertThrows(TxnException.class, () -> TxnServer.start(
                TxnServerConfig.log("127.0.0.1", log.port()).serverId(2).cluster(ClusterConfig.DEFAULT)));
            assertTrue(e.getMessage().contains("refusing to join"), e.getMessage());
            assertNull(s1.failure());
        }
    }

    @Test
    void aLoneTransactionCommitsPromptlyUnderGroupMeld() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer s1 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).cluster(PIPELINED))) {
            for (int i = 0; i < 5; i++) {
                final long start = System.nanoTime();
                try (TxnSession t = s1.begin(IsolationLevel.SERIALIZABLE, false)) {
                    t.put(key(i), value(i));
                    t.commit();
                }
                assertTrue(System.nanoTime() - start < 2_000_000_000L, "a lone commit waited for a partner");
            }
            try (TxnSession r = s1.begin(IsolationLevel.SERIALIZABLE, true)) {
                assertEquals(5, r.scan(null, true, null, true, false, 0).size());
            }
        }
    }
}
