package io.meldb.txn.pipeline;

import io.meldb.core.IntField;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.ClusterConfig;
import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.ThreadingMode;
import io.meldb.txn.TxnServer;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The meld thread allocates nothing on the heap per intention in steady state (Hyder II §5.3): the typed messages
 * between stages are allocated by the reader, decisions go out on them through preallocated queues.
 */
class MeldThreadAllocationTest {
    private static final int WARMUP = 4000;
    private static final int MEASURED = 3000;
    private static final int CLIENTS = 4;

    @TempDir
    Path dir;

    @Test
    void theMeldThreadAllocatesLessThanOneSmallObjectPerIntentionWithPremeldThreads() throws Exception {
        // premeld on threads of its own; no group meld (its nudges on a quiet log allocate); checkpoints keep the
        // node directory from growing (and rehashing on the meld thread) without end
        // the dedicated shape, whatever this machine's default: its meld thread does nothing but meld (in the chained
        // shape the same thread also reads and replies, which allocate per intention)
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.cluster(new ClusterConfig(8192, 2, 2, false))
                .threading(ThreadingMode.DEDICATED).checkpointEvery(1000).writeCheckpoints(false))) {
            final TxnServer server = node.txnServer();
            assertTrue(server.meldThreadAllocatedBytes() >= 0, "this JVM counts no per-thread allocation");
            try (TxnSession s = node.txnService().begin(IsolationLevel.SNAPSHOT, false)) {
                for (int c = 0; c < COUNTERS; c++) {
                    s.put(counter(c), new byte[8]);
                }
                s.commit();
            }
            // the first generation's node directory grows (and rehashes) until the first checkpoints presize it
            run(node.txnService(), WARMUP);
            final long csnBefore = server.lcsCsn();
            final long bytesBefore = server.meldThreadAllocatedBytes();
            run(node.txnService(), MEASURED);
            final long intentions = server.lcsCsn() - csnBefore;
            final long bytes = server.meldThreadAllocatedBytes() - bytesBefore;
            assertNull(server.failure());
            assertTrue(intentions >= MEASURED, "melded " + intentions);
            // one object per intention would be at least 16 bytes each; a checkpoint costs the meld thread ~170 B
            assertTrue(bytes < 8 * intentions, bytes + " bytes over " + intentions + " intentions");
        }
    }

    private static final int COUNTERS = 4;

    private static byte[] counter(final int c) {
        return ByteBuffer.allocate(4).putInt(1_000_000 + c).array();
    }

    private static void run(final TxnService db, final int transactions) throws Exception {
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < CLIENTS; t++) {
            final SplittableRandom rnd = new SplittableRandom(t);
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < transactions / CLIENTS; i++) {
                        try (TxnSession s = db.begin(IsolationLevel.SNAPSHOT, false)) {
                            for (int k = 0; k < 3; k++) {
                                s.put(ByteBuffer.allocate(4).putInt(rnd.nextInt(2000)).array(), new byte[32]);
                            }
                            // an increment: final meld applies it, allocating its new value in node memory only
                            s.add(counter(rnd.nextInt(COUNTERS)), IntField.int64(0), 1);
                            s.commit();
                        } catch (TxnException e) {
                            // a conflict is a decision like any other; the test counts melded intentions
                        }
                    }
                } catch (Throwable e) {
                    failed.compareAndSet(null, e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertNull(failed.get());
    }
}
