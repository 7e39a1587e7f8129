package io.meldb.bench.tpcc;

import io.meldb.core.NodeMemory;
import io.meldb.wire.CommandFlags;
import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;
import io.meldb.txn.TxnServer;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The order-entry mix on an embedded MeldDB alone for a long time, printing the node's memory every few seconds:
 * generations started and still held, pooled and large node-memory segments, JVM direct and heap bytes. This is how
 * the direct-memory failure of docs/perf/tpcc.md was found and how its fix is shown to keep memory flat.
 *
 * <pre>java $(cat bin/jvm-flags) -Xmx2g -cp benchmarks/target/benchmarks.jar io.meldb.bench.tpcc.TpccMemoryRun --help</pre>
 */
public final class TpccMemoryRun {
    private static final String[][] FLAGS = {
        {"warehouses", "1", "warehouses loaded and used"},
        {"threads", "4", "terminals (two connections each)"},
        {"seconds", "300", "seconds of load"},
        {"sample", "10", "seconds between memory samples"},
        {"items", "10000", "items, and stock rows per warehouse"},
        {"customers", "300", "customers and initial orders per district"},
        {"checkpoint-every", "20000", "the txn-server's checkpoint interval in intentions"},
    };

    private TpccMemoryRun() {
    }

    public static void main(final String[] args) throws Exception {
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        final Map<String, String> opts = CommandFlags.parse(CommandFlags.withEnvironment("TPCC_", FLAGS), args);
        if (opts == null) {
            CommandFlags.usage(System.out, "usage: TpccMemoryRun [--flag value]...", FLAGS);
            return;
        }
        final int warehouses = Integer.parseInt(opts.get("warehouses"));
        final int threads = Integer.parseInt(opts.get("threads"));
        final int seconds = Integer.parseInt(opts.get("seconds"));
        final int sample = Integer.parseInt(opts.get("sample"));
        final long checkpointEvery = Long.parseLong(opts.get("checkpoint-every"));
        final TpccScale scale = new TpccScale(warehouses, Integer.parseInt(opts.get("items")),
            Integer.parseInt(opts.get("customers")));
        final Path dir = Files.createTempDirectory("meldb-tpcc-memory");
        try (EmbeddedNode node = EmbeddedNode.start(dir, c -> c.checkpointEvery(checkpointEvery));
             Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0)) {
            final Properties props = new Properties();
            props.setProperty("user", "tpcc");
            final String url = gateway.pgJdbcUrl();
            try (var c = DriverManager.getConnection(url, props)) {
                TpccSchema.create(c);
                final long rows = TpccSchema.load(c, scale, 500);
                System.out.printf(Locale.ROOT, "loaded %d rows%n", rows);
            }
            final long start = System.nanoTime();
            final Thread sampler = new Thread(() -> {
                try {
                    while (true) {
                        print(node.txnServer(), (System.nanoTime() - start) / 1e9);
                        Thread.sleep(sample * 1000L);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "tpcc-memory-sampler");
            sampler.setDaemon(true);
            sampler.start();
            final TpccWindow.Result r = TpccWindow.run(() -> DriverManager.getConnection(url, props), scale,
                warehouses, threads, false, 0, seconds, 42, null);
            sampler.interrupt();
            print(node.txnServer(), (System.nanoTime() - start) / 1e9);
            System.out.printf(Locale.ROOT, "%.0f tps over %.0f s%s%n", r.tps(), r.seconds(),
                r.error() == null ? "" : ", error: " + r.error());
            checkpointCost(node.txnServer(), (System.nanoTime() - start) / 1e9);
            try (var c = DriverManager.getConnection(url, props)) {
                final List<String> bad = TpccConsistency.check(c);
                System.out.println(bad.isEmpty() ? "consistency conditions 1-3 hold" : "VIOLATED: " + bad);
            }
        } finally {
            deleteTree(dir);
        }
    }

    /**
     * What checkpoints cost the run: the meld stage waits while a checkpoint is serialized (onto the heap) and
     * loaded into a new generation, so their total duration is time melding stood still.
     */
    private static void checkpointCost(final TxnServer txn, final double seconds) {
        final io.micrometer.core.instrument.MeterRegistry registry = txn.registry();
        final io.micrometer.core.instrument.Timer timer = registry.find("meldb.checkpoint.duration").timer();
        final io.micrometer.core.instrument.Counter bytes = registry.find("meldb.checkpoint.bytes").counter();
        final io.micrometer.core.instrument.Counter nodes = registry.find("meldb.checkpoint.nodes").counter();
        if (timer == null || timer.count() == 0) {
            System.out.println("checkpoints: none");
            return;
        }
        final long n = timer.count();
        final double total = timer.totalTime(java.util.concurrent.TimeUnit.SECONDS);
        System.out.printf(Locale.ROOT, "checkpoints: %d in %.0f s (one per %.0f intentions), melding stalled %.1f s"
                + " (%.1f%% of the run), mean %.0f ms, max %.0f ms; %.0f MB and %.0f k nodes serialized per"
                + " checkpoint%n", n, seconds, (double) txn.stats().lcsCsn() / n, total, 100 * total / seconds,
            timer.mean(java.util.concurrent.TimeUnit.MILLISECONDS), timer.max(java.util.concurrent.TimeUnit.MILLISECONDS),
            bytes == null ? 0 : bytes.count() / n / 1e6, nodes == null ? 0 : nodes.count() / n / 1e3);
    }

    private static void print(final TxnServer txn, final double at) {
        long direct = 0;
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                direct = b.getMemoryUsed();
            }
        }
        final long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.out.printf(Locale.ROOT, "t=%5.0fs csn=%9d generations=%3d live=%2d segments in use=%4d created=%4d "
                + "large=%6.1f MB direct=%7.1f MB heap=%7.1f MB%n", at, txn.stats().lcsCsn(), txn.generations(),
            txn.liveGenerations(), NodeMemory.segmentsInUse(), NodeMemory.segmentsCreated(),
            NodeMemory.largeBytesInUse() / 1e6, direct / 1e6, heap / 1e6);
    }

    private static void deleteTree(final Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.err.println("could not delete " + dir + ": " + e);
        }
    }
}
