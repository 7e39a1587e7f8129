package io.meldb.txn;

import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded node's txn-server reaches its log in process ({@link io.meldb.log.server.InProcessLog}): no
 * connection to the log server, the same recovery from checkpoints in a trimmed log, and a log that txn-servers
 * over the network can still join.
 */
@Timeout(120)
class EmbeddedNodeTest {
    @TempDir
    Path dir;

    private static byte[] b(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long commit(final TxnService db, final String key, final String value) {
        try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
            t.put(b(key), b(value));
            return t.commit();
        }
    }

    @Test
    void txnServerUsesTheLogWithoutAConnectionToTheLogServer() {
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            for (int i = 0; i < 20; i++) {
                commit(node.txnService(), "k" + i, "v" + i);
            }
            assertEquals(0, node.logServer().connectionCount(), "connections to the log server");
            assertEquals(0, node.logServer().subscriberCount(), "subscriptions over the network");
            assertTrue(node.logServer().store().tail() > 20, "the commits are in the log's store");
        }
    }

    @Test
    void recoversFromTheLatestCheckpointOfATrimmedLogAfterRestart() {
        long hash;
        long csn;
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(50))) {
            for (int i = 0; i < 400; i++) {
                commit(node.txnService(), "k" + (i % 61), "v" + i);
            }
            // parked, not spinning: on 2 busy cores a spinning waiter starved the checkpoint it waits for
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (node.logServer().store().trimPoint() <= 1 && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
            }
            assertTrue(node.logServer().store().trimPoint() > 1, "the checkpoints trimmed the log");
            hash = node.txnService().status().stateHash();
            csn = node.txnService().status().csn();
        }
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(50))) {
            final TxnService db = node.txnService();
            assertEquals(csn, db.status().csn());
            assertEquals(hash, db.status().stateHash());
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                assertArrayEquals(b("v399"), r.get(b("k" + (399 % 61))));
            }
            assertTrue(commit(db, "after", "restart") > csn);
        }
    }

    @Test
    void txnServerOverTheNetworkJoinsTheEmbeddedLogAndReachesTheSameState() {
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            commit(node.txnService(), "before", "join");
            try (TxnServer remote = TxnServer.start(TxnServerConfig.log("127.0.0.1", node.logServer().port())
                .serverId(2))) {
                commit(remote, "from-network", "1");
                final long last = commit(node.txnService(), "from-in-process", "2");
                final long tail = remote.logTail() - 1;
                assertTrue(remote.awaitPosition(tail, 20_000) && node.txnServer().awaitPosition(tail, 20_000));
                assertEquals(node.txnService().status().csn(), remote.status().csn());
                assertTrue(remote.status().csn() >= last);
                assertEquals(node.txnService().status().stateHash(), remote.status().stateHash());
                assertTrue(node.logServer().connectionCount() > 0, "the remote server's connections");
            }
        }
    }
}
