package io.meldb.txn;

import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.NodeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large intentions with a checkpoint interval counted in intentions that they never reach: the byte threshold
 * ({@code TxnServerConfig.checkpointBytes}) still starts new memory generations, so node memory stays bounded by the
 * live states plus the threshold. Before it existed, the node memory of TPC-C's ~70 KB intentions grew by 1.4 GB per
 * 20,000-intention interval and the embedded node ran out of direct memory (docs/perf/tpcc.md).
 */
class CheckpointByBytesTest {
    @TempDir
    Path dir;

    @Test
    void nodeMemoryStaysBoundedWhenIntentionsAreLargeAndTheCountThresholdIsFarAway() {
        final byte[] value = new byte[64 << 10];
        final int before = NodeMemory.segmentsInUse();
        int peak = 0;
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(1_000_000)
            .checkpointBytes(16L << 20).cluster(new ClusterConfig(8192, 0, 0, false, 50)))) {
            final TxnServer db = node.txnServer();
            // 2,000 commits of 64 KiB (125 MiB through node memory) over 20 keys (1.25 MiB live)
            for (int i = 0; i < 2_000; i++) {
                try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                    value[0] = (byte) i;
                    t.put(("key" + (i % 20)).getBytes(), value);
                    t.commit();
                }
                if (i % 20 == 0) {
                    peak = Math.max(peak, NodeMemory.segmentsInUse() - before);
                }
            }
            assertTrue(db.generations() >= 4, "checkpoints by bytes taken: " + (db.generations() - 1));
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                assertEquals(20, r.scan(null, true, null, true, false, 0).size());
                assertEquals((byte) 1999, r.get("key19".getBytes())[0]);
            }
        }
        // threshold 16 MiB + the checkpoint of 50 states (about 4 MiB, twice during a compaction) + partly used
        // segments of each arena: without the threshold this was past 32 segments (125 MiB)
        assertTrue(peak <= 16, "node memory segments in use peaked at " + peak);
    }
}
