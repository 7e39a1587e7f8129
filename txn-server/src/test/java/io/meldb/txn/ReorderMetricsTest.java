package io.meldb.txn;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.core.ReorderConfig;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reorder window's server meters ({@link ReorderMetrics}): they move under a contended load when the window is
 * on, survive checkpoints (each generation has its own pipeline), are consistent with each other and with log
 * order's count on the same windows, appear in the Prometheus text, and are absent when the window is off.
 */
class ReorderMetricsTest {
    @TempDir
    Path dir;

    private static byte[] key(final int i) {
        return ("k" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static long value(final byte[] v) {
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    private static byte[] value(final long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    /** Four threads of read-modify-writes of 4 hot keys; aborted ones are counted, not retried. */
    private static int contend(final TxnService db, final int perThread) throws InterruptedException {
        final AtomicInteger aborts = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();
        for (int th = 0; th < 4; th++) {
            final Random random = new Random(th);
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < perThread; i++) {
                        try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                            final int k = random.nextInt(4);
                            t.put(key(k), value(value(t.get(key(k))) + 1));
                            t.get(key(10 + random.nextInt(4)));
                            t.put(key(10 + random.nextInt(4)), value(i));
                            t.commit();
                        } catch (TxnException e) {
                            if (e.error() != TxnError.CONFLICT) {
                                throw e;
                            }
                            aborts.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(failures.isEmpty(), () -> "a client failed: " + failures.get(0));
        return aborts.get();
    }

    private static double count(final MeterRegistry r, final String name, final String... tags) {
        return r.get(name).tags(tags).functionCounter().count();
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void windowMetersMoveUnderContentionAndSurviveCheckpoints() throws Exception {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final ClusterConfig cluster = ClusterConfig.DEFAULT.withReorder(
            new ReorderConfig(16, ReorderConfig.Algorithm.HYBRID, ReorderConfig.Policy.MIN_ABORTS));
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer server = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).cluster(cluster)
                 .registry(registry).checkpointEvery(20).trim(false))) {
            final double windowsBefore = count(registry, "meldb.reorder.windows");
            final int clientAborts = contend(server, 40);
            assertTrue(server.awaitPosition(server.logTail() - 1, 20_000), "the server did not catch up");
            assertNull(server.failure());

            final double windows = count(registry, "meldb.reorder.windows");
            final double members = count(registry, "meldb.reorder.window.members");
            assertTrue(windows > windowsBefore, "no window closed");
            double closed = 0;
            for (String reason : List.of("full", "snapshot_inside", "marker", "rejected", "flush")) {
                closed += count(registry, "meldb.reorder.windows.closed", "reason", reason);
            }
            assertEquals(windows, closed, "every window closed for one reason");
            final double mean = registry.get("meldb.reorder.window.mean.size").gauge().value();
            assertEquals(members / windows, mean, 1e-9);
            assertTrue(mean >= 1 && mean <= 16, "mean size " + mean);

            final double commits = registry.get("meldb.txn.commits").counter().count();
            final double inWindow = count(registry, "meldb.reorder.aborts", "class", "in_window");
            double windowAborts = inWindow;
            for (String cls : List.of("premeld", "before_window", "final_meld")) {
                windowAborts += count(registry, "meldb.reorder.aborts", "class", cls);
            }
            // 160 transactions, each a member of one window; checkpoints started 3+ generations, whose counts add up
            assertTrue(server.stats().generations() > 2, "no checkpoint was taken: " + server.stats().generations());
            assertTrue(members >= commits + clientAborts, members + " members < " + commits + " commits + "
                + clientAborts + " aborts: counts lost at a checkpoint");
            assertEquals(clientAborts, windowAborts, "every abort a client saw is in one class");
            assertTrue(clientAborts > 0, "the hot keys caused no abort");
            assertTrue(inWindow <= count(registry, "meldb.reorder.log.order.aborts"),
                "min-aborts never aborts more inside a window than log order");

            final String text = registry.scrape();
            for (String line : List.of("meldb_reorder_windows_total", "meldb_reorder_window_mean_size",
                "meldb_reorder_windows_closed_total{reason=\"full\"}", "meldb_reorder_aborts_total{class=\"in_window\"}",
                "meldb_reorder_log_order_aborts_total")) {
                assertTrue(text.contains(line), "missing " + line);
            }
        }
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void withTheWindowOffThereAreNoWindowMeters() throws Exception {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer server = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).registry(registry))) {
            try (TxnSession t = server.begin(IsolationLevel.SERIALIZABLE, false)) {
                t.put(key(1), value(1));
                t.commit();
            }
            assertNull(registry.find("meldb.reorder.windows").meter());
            assertFalse(registry.scrape().contains("meldb_reorder_"));
        }
    }
}
