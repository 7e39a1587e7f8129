package io.meldb.txn.pipeline;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.CommitPathProfile;
import io.meldb.txn.CommitPathProfile.Phase;
import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.TxnServer;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.HdrHistogram.Histogram;
import io.meldb.txn.ThreadingMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One commit's path through the txn-server (Hyder II §5.1-5.3), as {@link CommitPathProfile} measures it and as the
 * reader and deserializer threads allocate for it.
 */
class CommitPathTest {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;

    @Test
    void everyCommitRecordsEachHandOffAndThePipelinePhasesAddUpToTheTotal() throws Exception {
        final int commits = 300;
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            final CommitPathProfile profile = node.txnServer().commitPath();
            commit(node.txnService(), 50, 0); // warm-up, not counted
            awaitAll(profile, 50);
            profile.take();
            commit(node.txnService(), commits, 0);
            final Map<Phase, Histogram> phases = awaitAll(profile, commits);
            for (Phase p : Phase.values()) {
                assertEquals(commits, phases.get(p).getTotalCount(), p.label());
            }
            // append-to-delivered, then each stage up to the reply thread: they tile the txn-server's share exactly
            final double tiled = phases.get(Phase.DELIVERED).getMean() + phases.get(Phase.INTAKE_TO_READER).getMean()
                + phases.get(Phase.READER_TO_DECODED).getMean() + phases.get(Phase.DECODED_TO_MELDED).getMean()
                + phases.get(Phase.MELDED_TO_REPLY).getMean();
            final double total = phases.get(Phase.TOTAL).getMean();
            // HdrHistogram keeps 2 significant digits: each mean is within 1% of the true one
            assertTrue(Math.abs(tiled - total) <= 0.05 * total, "phases " + tiled + " ns, total " + total + " ns");
            assertTrue(CommitPathProfile.describe(phases).contains(commits + " commits"));
        }
    }

    @ParameterizedTest
    @EnumSource(value = ThreadingMode.class, names = {"DEDICATED", "CHAINED"})
    void theReaderAndDecoderThreadsDoNotCopyEachRecordIntoANewArray(final ThreadingMode mode) throws Exception {
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.threading(mode))) {
            final TxnServer server = node.txnServer();
            commit(node.txnService(), 500, 4096); // warm-up: buffers pooled, code compiled
            final int commits = 500;
            final long before = pipelineBytes();
            commit(node.txnService(), commits, 4096);
            final long perCommit = (pipelineBytes() - before) / commits;
            assertNull(server.failure());
            assertTrue(before > 0, "no pipeline thread allocated anything: the threads measured are not the ones "
                + "that read (" + mode + ")");
            // each record is over 4 KB; a copy per intention (the old reader) cost at least that; chained, the
            // subscription thread also melds and replies (outcome, ids) and must stay under it as well
            assertTrue(perCommit < 2048, perCommit + " B per commit on the reader and deserializer threads");
        }
    }

    /** {@code n} commits, one after another, each writing 4 keys with {@code payload} bytes of value in all. */
    private static void commit(final TxnService db, final int n, final int payload) {
        for (int i = 0; i < n; i++) {
            try (TxnSession s = db.begin(IsolationLevel.SNAPSHOT, false)) {
                for (int k = 0; k < 4; k++) {
                    s.put(ByteBuffer.allocate(4).putInt((i * 4 + k) % 1000).array(), new byte[payload / 4 + 8]);
                }
                s.commit();
            }
        }
    }

    /**
     * Phases recorded until each has all {@code commits}: the log's ack may trail the answer, and the reply thread
     * records after it has answered.
     */
    private static Map<Phase, Histogram> awaitAll(final CommitPathProfile profile, final int commits)
        throws InterruptedException {
        final Map<Phase, Histogram> sum = new EnumMap<>(Phase.class);
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            profile.take().forEach((p, h) -> sum.merge(p, h, (a, b) -> {
                a.add(b);
                return a;
            }));
            if (sum.values().stream().allMatch(h -> h.getTotalCount() >= commits) || System.nanoTime() > deadline) {
                return sum;
            }
            Thread.sleep(5);
        }
    }

    /** Bytes allocated so far by the reader and deserializer threads (the log subscription's, when it reads). */
    private static long pipelineBytes() {
        final Thread[] all = new Thread[Thread.activeCount() * 2 + 16];
        final int n = Thread.enumerate(all);
        long sum = 0;
        for (int i = 0; i < n; i++) {
            final String name = all[i].getName();
            // chained over the in-process log, the log's subscription thread is the reader
            if (name.startsWith("meldb-reader-") || name.startsWith("meldb-decode-") || name.equals("log-inproc-sub")) {
                sum += Math.max(0, THREADS.getThreadAllocatedBytes(all[i].getId()));
            }
        }
        return sum;
    }
}
