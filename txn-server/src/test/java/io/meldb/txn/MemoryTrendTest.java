package io.meldb.txn;

import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.NodeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The short form of the soak run: at steady load on a fixed key set, off-heap node memory stays flat because every
 * checkpoint moves melding to a fresh generation and frees the old one. Without checkpoints the same load grows
 * memory by about one 4 MiB segment per phase, so the assertion can fail.
 */
class MemoryTrendTest {
    @TempDir
    Path dir;

    @Test
    void offHeapNodeMemoryStaysFlatAtSteadyLoad() {
        final byte[] value = new byte[4096];
        final List<Integer> segments = new ArrayList<>();
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(250)
            .cluster(new ClusterConfig(8192, 0, 0, false, 100)))) {
            final TxnServer db = node.txnServer();
            for (int phase = 0; phase < 4; phase++) {
                for (int i = 0; i < 750; i++) {
                    try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                        value[0] = (byte) i;
                        t.put(("key" + (i % 100)).getBytes(), value);
                        t.put(("other" + (i % 50)).getBytes(), value);
                        t.commit();
                    }
                    if (i % 50 == 0) {
                        segments.add(NodeMemory.segmentsInUse());
                    }
                }
            }
            assertTrue(db.generations() >= 10, "checkpoints taken: " + (db.generations() - 1));
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                assertEquals(150, r.scan(null, true, null, true, false, 0).size());
            }
        }
        // 3,000 commits of 8 KiB each (about 6 segments) passed through node memory; the live state is about 600 KiB
        final int half = segments.size() / 2;
        final int firstHalfMax = segments.subList(0, half).stream().max(Integer::compare).orElseThrow();
        final int secondHalfMax = segments.subList(half, segments.size()).stream().max(Integer::compare).orElseThrow();
        assertTrue(secondHalfMax <= firstHalfMax + 1, "node memory grew: segments in use " + segments);
    }
}
