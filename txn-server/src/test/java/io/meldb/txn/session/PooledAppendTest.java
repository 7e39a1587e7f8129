package io.meldb.txn.session;

import io.meldb.log.client.BlockBufferPool;
import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The session's intention append (Hyder II §5.1) reuses its log block buffers: the blocks are framed in buffers of
 * the server's {@link BlockBufferPool}, which the in-process log gives back once written.
 */
class PooledAppendTest {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;

    @Test
    void commitsSpanningSeveralBlocksAllocateNoBlockBuffersInSteadyState() throws Exception {
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            final BlockBufferPool pool = node.txnServer().blockBuffers();
            final int blockSize = node.txnServer().cluster().blockSize();
            final int payload = 3 * blockSize; // each record spans about three blocks
            final byte[][] values = new byte[4][payload / 4];
            final TxnService db = node.txnService();
            commit(db, 300, values); // warm-up: pool filled, code compiled
            final long created = pool.created();
            final long thread = Thread.currentThread().getId();
            final int commits = 300;
            final long before = THREADS.getThreadAllocatedBytes(thread);
            commit(db, commits, values);
            final long perCommit = (THREADS.getThreadAllocatedBytes(thread) - before) / commits;
            assertNull(node.txnServer().failure());
            assertEquals(created, pool.created(), "appends in steady state take only buffers given back");
            // a new array per block appended (the old IntentionAppender.copy) cost 3 blocks per commit
            assertTrue(perCommit < blockSize, perCommit + " B per commit on the committing thread (blocks of "
                + blockSize + " B, about 3 per commit)");
        }
    }

    @Test
    void whatWasCommittedThroughPooledBlocksReadsBackAfterARestart() throws Exception {
        final int n = 200;
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            for (int i = 0; i < n; i++) {
                try (TxnSession s = node.txnService().begin(IsolationLevel.SNAPSHOT, false)) {
                    s.put(key(i), value(i, 5000));
                    s.commit();
                }
            }
        }
        try (EmbeddedNode node = EmbeddedNode.start(dir);
             TxnSession s = node.txnService().begin(IsolationLevel.SNAPSHOT, true)) {
            for (int i = 0; i < n; i++) {
                assertArrayEquals(value(i, 5000), s.get(key(i)), "key " + i);
            }
        }
    }

    /** {@code n} commits, each writing 4 keys with the given values (puts copy them: no allocation of the test's). */
    private static void commit(final TxnService db, final int n, final byte[][] values) {
        final byte[][] keys = new byte[4][];
        for (int k = 0; k < 4; k++) {
            keys[k] = key(k);
        }
        for (int i = 0; i < n; i++) {
            try (TxnSession s = db.begin(IsolationLevel.SNAPSHOT, false)) {
                for (int k = 0; k < 4; k++) {
                    s.put(keys[k], values[k]);
                }
                s.commit();
            }
        }
    }

    private static byte[] key(final int k) {
        return ByteBuffer.allocate(4).putInt(k).array();
    }

    private static byte[] value(final int i, final int length) {
        final byte[] v = new byte[length];
        Arrays.fill(v, (byte) i);
        return v;
    }
}
