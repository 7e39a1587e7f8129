package io.meldb.txn;

import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An embedded database with no transactions to run costs (almost) no CPU: every pipeline thread parks until there is
 * work (see {@link StageIdler}); and a transaction after a quiet spell commits promptly, so the parked threads were
 * woken by the work, not by a timer. Before the threads parked, each of the decoder, meld and reply threads burned
 * about 3-6% of a core idling.
 */
class IdleNodeTest {
    /** The whole node's threads may use at most this share of one core while idle. */
    private static final double MAX_IDLE_CORE_SHARE = 0.01;
    private static final long IDLE_MILLIS = 3_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void idleNodeThreadsUseUnderOnePercentOfACoreAndWakeForTheNextCommit() throws Exception {
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final Set<Long> before = threadIds(mx);
        try (EmbeddedNode node = EmbeddedNode.start(dir)) {
            final TxnService db = node.txnService();
            commit(db, 0); // every stage has run once
            Thread.sleep(500); // past the spin and yield phases, and the start's own work
            final Set<Long> nodeThreads = threadIds(mx);
            nodeThreads.removeAll(before);
            nodeThreads.remove(Thread.currentThread().getId());
            assertTrue(nodeThreads.size() >= 3, "found only threads " + nodeThreads);

            final long cpuBefore = cpuNanos(mx, nodeThreads);
            final long start = System.nanoTime();
            Thread.sleep(IDLE_MILLIS);
            final long cpu = cpuNanos(mx, nodeThreads) - cpuBefore;
            final long wall = System.nanoTime() - start;
            assertTrue(cpu < MAX_IDLE_CORE_SHARE * wall, "the idle node's " + nodeThreads.size() + " threads used "
                + TimeUnit.NANOSECONDS.toMillis(cpu) + " ms of CPU in " + TimeUnit.NANOSECONDS.toMillis(wall)
                + " ms (" + String.format("%.2f", 100.0 * cpu / wall) + "% of a core)");

            // after each quiet spell, parked stages wake for the commit: far below the 100 ms a timer would take
            final long[] latencies = new long[5];
            for (int i = 0; i < latencies.length; i++) {
                Thread.sleep(300);
                final long t0 = System.nanoTime();
                commit(db, i + 1);
                latencies[i] = System.nanoTime() - t0;
            }
            Arrays.sort(latencies);
            final long median = latencies[latencies.length / 2];
            assertTrue(median < TimeUnit.MILLISECONDS.toNanos(50), "commits after idling took "
                + Arrays.toString(Arrays.stream(latencies).map(TimeUnit.NANOSECONDS::toMicros).toArray()) + " µs");
        }
    }

    private static void commit(final TxnService db, final int i) {
        try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
            t.put(("key" + i).getBytes(), ("value" + i).getBytes());
            t.commit();
        }
    }

    private static Set<Long> threadIds(final ThreadMXBean mx) {
        final Set<Long> ids = new HashSet<>();
        for (long id : mx.getAllThreadIds()) {
            ids.add(id);
        }
        return ids;
    }

    /** CPU time of those threads that are still alive (a thread that ended adds nothing more). */
    private static long cpuNanos(final ThreadMXBean mx, final Set<Long> ids) {
        long sum = 0;
        for (long id : ids) {
            final long t = mx.getThreadCpuTime(id);
            if (t > 0) {
                sum += t;
            }
        }
        return sum;
    }
}
