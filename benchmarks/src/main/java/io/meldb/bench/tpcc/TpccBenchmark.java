package io.meldb.bench.tpcc;

import io.meldb.wire.CommandFlags;
import io.meldb.sql.fast.FastIncrement;
import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The order-entry benchmark (issue 21): TPC-C's schema and five transactions in the standard mix on several databases
 * in one run, alternating rounds. Targets: {@code meld} (MeldDB embedded, PostgreSQL protocol, pgjdbc; SQL
 * increments on), {@code meld-rmw} (the same database with {@link FastIncrement} off, so year-to-date updates are
 * read-modify-writes: the "before" of the abort profile), {@code h2} (H2's TCP server in this JVM, H2's driver) and
 * {@code postgres} (a server given by {@code --pg-url}; {@code benchmarks/run-tpcc.sh} starts a throwaway
 * PostgreSQL 15). Every target is loaded once with the largest warehouse count; a window at W warehouses binds
 * terminal i to warehouse {@code i % W + 1}. Each round runs every warehouse count, payment-read mode and target in
 * turn. Reported (TpccReport): committed tps and new-order tpm (medians over rounds), and per transaction type the
 * abort rate (retried attempts / attempts) and p99 latency over all rounds; then TPC-C's consistency conditions.
 *
 * <pre>java $(cat bin/jvm-flags) -Xmx2g -cp benchmarks/target/benchmarks.jar io.meldb.bench.tpcc.TpccBenchmark --help</pre>
 */
public final class TpccBenchmark {
    private static final String[][] FLAGS = {
        {"warehouses", "1,4", "comma list of warehouse counts to run (the largest is loaded)"},
        {"threads", "4", "terminals (client threads; two connections each)"},
        {"seconds", "10", "seconds per measured window"},
        {"warmup", "3", "seconds of unmeasured load before each window"},
        {"rounds", "3", "rounds; each runs every warehouse count, payment mode and target"},
        {"items", "10000", "items (TPC-C: 100000); also the stock rows per warehouse"},
        {"customers", "300", "customers per district, and initial orders per district (TPC-C: 3000)"},
        {"payment-reads", "inline", "inline (TPC-C as written) | apart (payment reads the warehouse and district "
            + "name and address in a read-only piece first; see Terminal) | both"},
        {"targets", "meld,meld-rmw,h2,postgres", "comma list of meld, meld-rmw, h2, postgres"},
        {"pg-url", "", "pgjdbc URL of a PostgreSQL server for target postgres (skipped when empty)"},
        {"load-batch", "500", "rows per load batch and transaction"},
    };
    private static final String USAGE = "usage: java $(cat bin/jvm-flags) -Xmx2g -cp benchmarks/target/benchmarks.jar "
            + "io.meldb.bench.tpcc.TpccBenchmark [--flag value]...\n"
            + "TPC-C's five transactions (standard mix, SERIALIZABLE, no think time) on MeldDB, H2 and PostgreSQL.";
    private static final List<String> TARGETS = List.of("meld", "meld-rmw", "h2", "postgres");

    private TpccBenchmark() {
    }

    /** A database under test and what its windows gave, keyed by warehouse count and payment mode. */
    static final class Target {
        final String id;
        final String label;
        final Properties props = new Properties();
        String url;
        String error;
        String loadNote = "";
        final Map<String, List<TpccWindow.Result>> windows = new java.util.TreeMap<>();

        Target(final String id, final String label) {
            this.id = id;
            this.label = label;
        }

        Connection open() throws SQLException {
            return DriverManager.getConnection(url, props);
        }

        boolean meld() {
            return id.startsWith("meld");
        }
    }

    /**
     * The flags, parsed and checked without running anything (null for {@code --help}); BenchmarkCommandsTest checks
     * the README's command, through {@code run-tpcc.sh}, with it. A bad flag or value is an
     * {@link IllegalArgumentException}.
     */
    static Map<String, String> parse(final String[] args) {
        final Map<String, String> opts = CommandFlags.parse(CommandFlags.withEnvironment("TPCC_", FLAGS), args);
        if (opts == null) {
            return null;
        }
        for (String t : opts.get("targets").split(",")) {
            if (!TARGETS.contains(t.trim())) {
                throw new IllegalArgumentException("unknown target '" + t + "'");
            }
        }
        if (!List.of("inline", "apart", "both").contains(opts.get("payment-reads"))) {
            throw new IllegalArgumentException("--payment-reads must be inline, apart or both");
        }
        for (String w : opts.get("warehouses").split(",")) {
            intValue("warehouses", w);
        }
        for (String n : new String[] {"threads", "seconds", "warmup", "rounds", "load-batch"}) {
            intValue(n, opts.get(n));
        }
        return opts;
    }

    public static void main(final String[] args) throws Exception {
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        final String[][] flags = CommandFlags.withEnvironment("TPCC_", FLAGS);
        final Map<String, String> opts;
        try {
            opts = parse(args);
            if (opts == null) {
                CommandFlags.usage(System.out, USAGE, flags);
                return;
            }
        } catch (IllegalArgumentException e) {
            System.err.println("TpccBenchmark: " + e.getMessage());
            CommandFlags.usage(System.err, USAGE, flags);
            System.exit(2);
            return;
        }
        final int[] warehouseCounts = Arrays.stream(opts.get("warehouses").split(",")).mapToInt(s ->
                intValue("warehouses", s)).toArray();
        final int threads = intValue("threads", opts.get("threads"));
        final int seconds = intValue("seconds", opts.get("seconds"));
        final int warmup = intValue("warmup", opts.get("warmup"));
        final int rounds = intValue("rounds", opts.get("rounds"));
        final int loadBatch = intValue("load-batch", opts.get("load-batch"));
        final TpccScale scale = new TpccScale(Arrays.stream(warehouseCounts).max().orElse(1),
                intValue("items", opts.get("items")), intValue("customers", opts.get("customers")));
        final List<Boolean> paymentModes = switch (opts.get("payment-reads")) {
            case "inline" -> List.of(false);
            case "apart" -> List.of(true);
            default -> List.of(false, true);
        };
        final List<String> wanted = Arrays.stream(opts.get("targets").split(",")).map(String::trim).toList();
        final String pgUrl = opts.get("pg-url").trim();

        System.out.printf(Locale.ROOT, "Order-entry (TPC-C mix): warehouses %s (loaded %d), %d items, %d customers per "
                        + "district, %d terminals, %d s windows after %d s warm-up, %d rounds, payment reads %s; "
                        + "JVM %s, %d CPUs%n", Arrays.toString(warehouseCounts), scale.warehouses(), scale.items(),
                scale.customersPerDistrict(), threads, seconds, warmup, rounds, opts.get("payment-reads"),
                Runtime.version(), Runtime.getRuntime().availableProcessors());

        final List<AutoCloseable> resources = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Path> dirs = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicBoolean cleaned = new java.util.concurrent.atomic.AtomicBoolean();
        final Runnable cleanup = () -> {
            if (!cleaned.compareAndSet(false, true)) {
                return;
            }
            for (int i = resources.size() - 1; i >= 0; i--) {
                try {
                    resources.get(i).close();
                } catch (Exception e) {
                    System.err.println("while stopping a server: " + e);
                }
            }
            dirs.forEach(TpccBenchmark::deleteTree);
        };
        final Thread hook = new Thread(cleanup, "tpcc-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        final List<Target> targets = new ArrayList<>();
        try {
            startTargets(wanted, pgUrl, targets, resources, dirs);
            load(targets, scale, loadBatch);
            ConflictProfile conflicts = null;
            for (Target t : targets) {
                if (t.meld() && t.error == null && conflicts == null) {
                    conflicts = ConflictProfile.start(t.url, t.props);
                }
            }
            for (int r = 1; r <= rounds; r++) {
                for (int w : warehouseCounts) {
                    for (boolean apart : paymentModes) {
                        for (Target t : targets) {
                            if (t.error != null) {
                                continue;
                            }
                            if (t.meld()) {
                                FastIncrement.enabled(t.id.equals("meld"));
                                conflicts.clear();
                            }
                            final TpccWindow.Result res = TpccWindow.run(t::open, scale, w, threads, apart,
                                    t.id.equals("h2"), warmup, seconds, r * 100L + w, null);
                            t.windows.computeIfAbsent(TpccReport.key(w, apart), k -> new ArrayList<>()).add(res);
                            TpccReport.printWindow(r, w, apart, t, res);
                            if (t.meld()) {
                                for (String line : conflicts.lines()) {
                                    System.out.println("    conflict aborts (warm-up included): " + line);
                                }
                            }
                        }
                    }
                }
            }
            FastIncrement.enabled(true);
            TpccReport.report(targets, warehouseCounts, paymentModes, rounds, threads, consistency(targets));
        } finally {
            cleanup.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
        }
    }

    private static void startTargets(final List<String> wanted, final String pgUrl, final List<Target> targets,
                                     final List<AutoCloseable> resources, final List<Path> dirs) {
        if (wanted.contains("meld") || wanted.contains("meld-rmw")) {
            String url = null;
            String error = null;
            try {
                final Path dir = Files.createTempDirectory("meldb-tpcc");
                dirs.add(dir);
                final EmbeddedNode node = EmbeddedNode.start(dir);
                resources.add(node);
                final Gateway gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0);
                resources.add(gateway);
                url = gateway.pgJdbcUrl();
            } catch (Exception | Error e) {
                error = "embedded MeldDB did not start: " + TpccWindow.describe(e);
            }
            for (String id : List.of("meld", "meld-rmw")) {
                if (wanted.contains(id)) {
                    final Target t = new Target(id, id.equals("meld") ? "MeldDB, increments"
                            : "MeldDB, read-modify-write");
                    t.url = url;
                    t.error = error;
                    t.props.setProperty("user", "tpcc");
                    targets.add(t);
                }
            }
        }
        if (wanted.contains("h2")) {
            final Target t = new Target("h2", "H2 TCP server");
            try {
                final Path dir = Files.createTempDirectory("h2-tpcc");
                dirs.add(dir);
                final org.h2.tools.Server h2 = org.h2.tools.Server.createTcpServer("-tcpPort", "0", "-ifNotExists")
                        .start();
                resources.add(h2::stop);
                t.url = "jdbc:h2:tcp://localhost:" + h2.getPort() + "/" + dir.resolve("tpcc").toAbsolutePath();
            } catch (Exception | Error e) {
                t.error = "H2 TCP server did not start: " + TpccWindow.describe(e);
            }
            targets.add(t);
        }
        if (wanted.contains("postgres")) {
            if (pgUrl.isEmpty()) {
                System.out.println("PostgreSQL: skipped (no --pg-url given)");
            } else {
                final Target t = new Target("postgres", "PostgreSQL");
                t.url = pgUrl;
                targets.add(t);
            }
        }
    }

    /** Loads every target (the MeldDB targets share one database); a failed load takes the target out. */
    private static void load(final List<Target> targets, final TpccScale scale, final int batch) {
        boolean meldLoaded = false;
        for (Target t : targets) {
            if (t.error != null || (t.meld() && meldLoaded)) {
                continue;
            }
            final long start = System.nanoTime();
            try (Connection c = t.open()) {
                TpccSchema.create(c);
                final long rows = TpccSchema.load(c, scale, batch);
                if (t.id.equals("postgres")) {
                    c.setAutoCommit(true);
                    try (var s = c.createStatement()) {
                        s.execute("VACUUM ANALYZE");
                    }
                }
                t.loadNote = String.format(Locale.ROOT, "%d rows in %.1f s", rows, (System.nanoTime() - start) / 1e9);
                System.out.printf(Locale.ROOT, "%-28s loaded %s%n", t.meld() ? "MeldDB" : t.label, t.loadNote);
            } catch (Exception e) {
                t.error = "load failed: " + TpccWindow.describe(e);
                System.out.println(t.label + ": " + t.error);
            }
            if (t.meld()) {
                meldLoaded = true;
                for (Target o : targets) {
                    if (o.meld() && o != t) {
                        o.error = t.error;
                        o.loadNote = t.loadNote;
                    }
                }
            }
        }
    }

    /** TPC-C's consistency conditions 1-3 per database (MeldDB once); drops PostgreSQL's tables after. */
    private static Map<String, String> consistency(final List<Target> targets) {
        final Map<String, String> out = new java.util.LinkedHashMap<>();
        boolean meldChecked = false;
        for (Target t : targets) {
            if (t.url == null || (t.meld() && meldChecked)) {
                continue;
            }
            meldChecked |= t.meld();
            final String name = t.meld() ? "MeldDB" : t.label;
            try (Connection c = t.open()) {
                final List<String> bad = TpccConsistency.check(c);
                out.put(name, bad.isEmpty() ? "OK (conditions 1-3)" : "VIOLATED: " + String.join("; ", bad));
                if (t.id.equals("postgres")) {
                    TpccSchema.drop(c);
                }
            } catch (Exception e) {
                out.put(name, "check failed: " + TpccWindow.describe(e));
            }
        }
        return out;
    }

    private static int intValue(final String name, final String value) {
        try {
            return Integer.parseInt(value.trim().replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be an integer, got '" + value + "'");
        }
    }

    private static void deleteTree(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.err.println("could not delete " + dir + ": " + e.getMessage());
        }
    }
}
