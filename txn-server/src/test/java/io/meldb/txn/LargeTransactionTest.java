package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.NodeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Transactions whose intention outgrows a node-memory segment, and the server's limit on what one may write. */
class LargeTransactionTest {
    @TempDir
    Path dir;

    private static byte[] key(final int i) {
        return ("row" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static byte[] value(final int i) {
        final byte[] v = new byte[100];
        java.util.Arrays.fill(v, (byte) i);
        return v;
    }

    @ParameterizedTest(name = "checkpoint every {0} intentions")
    @ValueSource(longs = {20, 0})
    void aTransactionWritingMoreThanASegmentCommitsAndSurvivesARestart(final long checkpointEvery) {
        // with checkpoints, one is taken after the large intention; without, recovery reads it back from the log
        final int rows = 60_000; // about 8 MiB of intention, twice a segment
        final long hash;
        final long csn;
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(checkpointEvery))) {
            final TxnService db = node.txnService();
            try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                for (int i = 0; i < rows; i++) {
                    assertNull(t.get(key(i)));
                    t.put(key(i), value(i));
                }
                assertTrue(t.commit() > 0);
            }
            // enough small transactions after it for a checkpoint (and a new memory generation) to follow it
            for (int i = 0; i < 45; i++) {
                try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                    t.put(key(i), value(i + 1));
                    t.commit();
                }
            }
            hash = db.status().stateHash();
            csn = db.status().csn();
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                assertEquals(rows, r.scan(null, true, null, true, false, 0).size());
            }
        }
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(checkpointEvery))) {
            final TxnService db = node.txnService();
            assertEquals(csn, db.status().csn());
            assertEquals(hash, db.status().stateHash(), "recovered the same state");
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                assertArrayEquals(value(rows - 1), r.get(key(rows - 1)));
                assertArrayEquals(value(45), r.get(key(44)));
            }
        }
    }

    @Test
    void theWriteThatCrossesTheLimitFailsAtOnceAndEndsTheTransactionLosingNothingCommitted() {
        final int limit = 64 * 1024;
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.maxIntentionBytes(limit))) {
            final TxnService db = node.txnService();
            try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                t.put(key(-1), value(7));
                t.commit();
            }
            final int largeBefore = NodeMemory.largeSegmentsInUse();
            final TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false);
            int written = 0;
            TxnException refused = null;
            while (refused == null && written < 10_000) {
                try {
                    t.put(key(written), value(written));
                    written++;
                } catch (TxnException e) {
                    refused = e;
                }
            }
            assertTrue(refused != null, "refused before 10,000 rows of 100 bytes");
            assertEquals(TxnError.TOO_LARGE, refused.error());
            assertTrue(refused.getMessage().contains(String.valueOf(limit)), refused.getMessage());
            assertTrue(refused.getMessage().contains(TxnServerConfig.MAX_INTENTION_BYTES_FLAG), refused.getMessage());
            assertTrue(written > limit / 200 && written < limit / 100, written + " rows were written first");
            assertEquals(TxnError.UNKNOWN_TRANSACTION,
                assertThrows(TxnException.class, () -> t.put(key(0), value(0))).error(), "the transaction ended");
            t.abort();
            assertEquals(largeBefore, NodeMemory.largeSegmentsInUse());
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                assertArrayEquals(value(7), r.get(key(-1)));
                assertNull(r.get(key(0)));
            }
            try (TxnSession ok = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                ok.put(key(1), value(1));
                assertTrue(ok.commit() > 0, "the server goes on");
            }
            assertThrows(IllegalArgumentException.class, () -> new TxnServerConfig().maxIntentionBytes(100));
        }
    }

    @Test
    void warnsWhenDirectMemoryCannotHoldATransactionAtTheLimit() {
        assertNull(new TxnServerConfig().maxIntentionBytes(4096).directMemoryWarning());
        final String option = java.lang.management.ManagementFactory
            .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("MaxDirectMemorySize")
            .getValue();
        assumeTrue(Long.parseLong(option) == 0 && Runtime.getRuntime().maxMemory() < 4L << 30,
            "direct memory is limited by the heap, below 4 GiB (the build's -Xmx2g)");
        final String warning = new TxnServerConfig().maxIntentionBytes((1 << 30) - 64).directMemoryWarning();
        assertTrue(warning != null && warning.contains("--max-intention-bytes")
            && warning.contains("MaxDirectMemorySize"), String.valueOf(warning));
    }
}
