package io.meldb.txn;

import io.meldb.core.NodeMemory;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server at its node-memory limit with compactions beside meld heals by itself: while it refuses updates
 * nothing new is melded, so it must compact (again, after a compaction was given up) without waiting for new
 * melds, and admit updates again once that freed memory. Before this, a compaction given up at the limit (its copy
 * did not fit in direct memory) was never tried again, and the server refused every update for good (TPC-C at
 * ~1,000 tps, docs/perf/tpcc.md).
 */
class CompactionAtLimitTest {
    @TempDir
    Path dir;

    @Test
    void aServerAtItsLimitWhoseCompactionsWereGivenUpCompactsWithoutNewMeldsAndAdmitsUpdatesAgain()
            throws InterruptedException {
        final byte[] value = new byte[256 << 10];
        final long limit = NodeMemory.bytesInUse() + (48L << 20);
        // neither the count nor the growth trigger fires; the first six compactions are given up as if their copy
        // did not fit, so the writer below reaches the limit while no compaction has freed anything. The live states
        // (8 states, 20 keys of 256 KiB) are a small part of what the writer melds
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(1_000_000).checkpointBytes(1L << 30)
            .maxNodeMemory(limit).failedCompactions(6)
            .cluster(new ClusterConfig(8192, 0, 0, false, 8)))) {
            final TxnServer db = node.txnServer();
            int refusals = 0;
            long longestRefusalMillis = 0;
            for (int i = 0; i < 200; i++) {
                final long firstTry = System.nanoTime();
                while (true) {
                    try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                        value[0] = (byte) i;
                        t.put(("key" + (i % 20)).getBytes(), value);
                        t.commit();
                        break;
                    } catch (TxnException e) {
                        assertEquals(TxnError.OUT_OF_MEMORY, e.error(), e.getMessage());
                        refusals++;
                        final long refusedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstTry);
                        longestRefusalMillis = Math.max(longestRefusalMillis, refusedMillis);
                        // only retrying: nothing else is done to the server
                        assertTrue(refusedMillis < 30_000, "commit " + i + " still refused after 30 s ("
                            + db.generations() + " generations): " + e.getMessage());
                        Thread.sleep(20);
                    }
                }
            }
            assertTrue(refusals > 0, "the writer never reached the node-memory limit");
            assertTrue(db.generations() >= 2, "no compaction succeeded: generations " + db.generations());
            assertTrue(NodeMemory.bytesInUse() < limit + (16L << 20), "node memory "
                + (NodeMemory.bytesInUse() >> 20) + " MiB, limit " + (limit >> 20) + " MiB");
            assertNull(db.failure(), "the server failed");
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                value[0] = (byte) 199;
                assertArrayEquals(value, r.get(("key" + (199 % 20)).getBytes()));
            }
            System.out.println("refusals " + refusals + ", longest refusal " + longestRefusalMillis + " ms, "
                + db.generations() + " generations");
        }
    }
}
