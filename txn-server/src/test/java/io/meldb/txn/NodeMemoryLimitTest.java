package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.NodeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Node memory at {@code --max-node-memory}: update transactions are refused with OUT_OF_MEMORY (the gateway's
 * 53200), read-only ones still run, nothing committed is lost and the server keeps serving; with compaction by
 * bytes on, the same load stays under the limit.
 */
class NodeMemoryLimitTest {
    @TempDir
    Path dir;

    @Test
    void updatesAreRefusedAtTheNodeMemoryLimitWhileReadsGoOnAndTheServerStaysUp() {
        final byte[] value = new byte[64 << 10];
        final long limit = NodeMemory.bytesInUse() + (24L << 20);
        // no checkpoint at all: node memory only grows, so the limit must be reached
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(0).maxNodeMemory(limit))) {
            final TxnServer db = node.txnServer();
            int committed = 0;
            TxnException refused = null;
            while (refused == null && committed < 2_000) {
                try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                    value[0] = (byte) committed;
                    t.put(("key" + committed).getBytes(), value);
                    t.commit();
                    committed++;
                } catch (TxnException e) {
                    refused = e;
                }
            }
            assertTrue(refused != null, "no refusal after " + committed + " commits of 64 KiB");
            assertEquals(TxnError.OUT_OF_MEMORY, refused.error());
            assertTrue(refused.getMessage().contains("node memory"), refused.getMessage());
            assertTrue(refused.error().retryable());
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                assertEquals(committed, r.scan(null, true, null, true, false, 0).size());
                value[0] = (byte) (committed - 1);
                assertArrayEquals(value, r.get(("key" + (committed - 1)).getBytes()));
            }
            assertEquals(TxnError.OUT_OF_MEMORY, assertThrows(TxnException.class,
                () -> db.begin(IsolationLevel.SNAPSHOT, false)).error());
            assertNull(db.failure(), "the server failed");
        }
    }

    @Test
    void compactionByBytesKeepsNodeMemoryBoundedSoEveryUpdateCommits() throws InterruptedException {
        final byte[] value = new byte[64 << 10];
        final long limit = NodeMemory.bytesInUse() + (40L << 20);
        // compaction by bytes at 16 MiB frees memory as the load goes on: 1,500 commits of 64 KiB (94 MiB written)
        // all commit under a 40 MiB limit. Checkpoints run beside the load, so on a slow machine a burst may still
        // meet the limit for a moment: such a refusal is retryable, and a retry after a pause must get through.
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(1_000_000)
            .checkpointBytes(16L << 20).maxNodeMemory(limit).cluster(new ClusterConfig(8192, 0, 0, false, 50)))) {
            final TxnServer db = node.txnServer();
            int refusals = 0;
            for (int i = 0; i < 1_500; i++) {
                try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                    value[0] = (byte) i;
                    t.put(("key" + (i % 20)).getBytes(), value);
                    t.commit();
                } catch (TxnException e) {
                    assertEquals(TxnError.OUT_OF_MEMORY, e.error(), e.getMessage());
                    assertTrue(++refusals < 200, "refused " + refusals + " times: compaction does not keep up");
                    Thread.sleep(50);
                    i--;
                }
            }
            assertTrue(db.generations() >= 3, "generations " + db.generations());
            assertEquals(1, db.liveGenerations());
            assertNull(db.failure(), "the server failed");
        }
    }
}
