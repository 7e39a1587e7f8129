package io.meldb.txn;

import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TxnServerTest {
    @TempDir
    Path dir;

    static byte[] b(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void committedWritesAreVisibleToLaterTransactions() {
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            final TxnService db = node.txnService();
            try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                t.put(b("a"), b("1"));
                t.put(b("b"), b("2"));
                final long csn = t.commit();
                assertTrue(csn > 0);
            }
            try (TxnSession r = db.begin(IsolationLevel.SERIALIZABLE, true)) {
                assertArrayEquals(b("1"), r.get(b("a")));
                assertNull(r.get(b("zz")));
                final List<KeyValue> all = r.scan(null, true, null, true, false, 0);
                assertEquals(2, all.size());
                assertEquals(r.snapshotCsn(), r.commit());
            }
        }
    }

    @Test
    void abortsWriterWhenConcurrentCommitChangedWhatItRead() {
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            final TxnService db = node.txnService();
            try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                t.put(b("x"), b("0"));
                t.commit();
            }
            final TxnSession t1 = db.begin(IsolationLevel.SERIALIZABLE, false);
            final TxnSession t2 = db.begin(IsolationLevel.SERIALIZABLE, false);
            t1.get(b("x"));
            t2.get(b("x"));
            t1.put(b("x"), b("1"));
            t2.put(b("x"), b("2"));
            t1.commit();
            final TxnException e = assertThrows(TxnException.class, t2::commit);
            assertEquals(TxnError.CONFLICT, e.error());
            assertEquals(TxnOutcome.State.ABORTED, db.outcome(t2.id()).state());
            assertEquals(TxnOutcome.State.COMMITTED, db.outcome(t1.id()).state());
        }
    }

    @Test
    void recoversCommittedStateFromCheckpointAfterRestart() {
        long hash;
        long csn;
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(50))) {
            final TxnService db = node.txnService();
            for (int i = 0; i < 230; i++) {
                try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                    t.put(b("k" + (i % 97)), b("v" + i));
                    t.commit();
                }
            }
            hash = db.status().stateHash();
            csn = db.status().csn();
        }
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(50))) {
            final TxnService db = node.txnService();
            assertEquals(csn, db.status().csn());
            assertEquals(hash, db.status().stateHash());
            try (TxnSession r = db.begin(IsolationLevel.SNAPSHOT, true)) {
                assertArrayEquals(b("v229"), r.get(b("k" + (229 % 97))));
            }
            try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                t.put(b("k1"), b("after"));
                t.commit();
            }
        }
    }

    @Test
    void exposesPipelineMetricsPerStageInPrometheusText() {
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.cluster(new ClusterConfig(8192, 2, 2, true)))) {
            final TxnService db = node.txnService();
            for (int i = 0; i < 30; i++) {
                try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                    t.put(b("k" + i), b("v"));
                    t.commit();
                }
            }
            final String text = ((io.micrometer.prometheusmetrics.PrometheusMeterRegistry) node.txnServer().registry())
                .scrape();
            for (String name : List.of("meldb_txn_commits_total 30", "meldb_meld_final_melds_total",
                "meldb_meld_premeld_melds_total", "meldb_meld_group_formed_total", "meldb_meld_final_nodes_visited_sum",
                "meldb_meld_final_conflict_zone_effective_sum", "meldb_pipeline_meld_allocated_bytes_total",
                "meldb_txn_inflight", "jvm_gc_")) {
                assertTrue(text.contains(name), "missing " + name);
            }
        }
    }

    @Test
    void refusesWritesInReadOnlyTransactionAndOversizedKeys() {
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            final TxnService db = node.txnService();
            try (TxnSession r = db.begin(IsolationLevel.SERIALIZABLE, true)) {
                assertEquals(TxnError.READ_ONLY, assertThrows(TxnException.class, () -> r.put(b("a"), b("1"))).error());
            }
            try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                assertEquals(TxnError.TOO_LARGE, assertThrows(TxnException.class,
                    () -> t.put(new byte[TxnServerConfig.MAX_KEY_BYTES + 1], b("1"))).error());
                assertEquals(TxnError.BAD_REQUEST, assertThrows(TxnException.class,
                    () -> t.put(new byte[0], b("1"))).error());
            }
        }
    }
}
