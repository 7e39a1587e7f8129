package io.meldb.bench;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.meldb.log.Durability;
import io.meldb.launcher.EmbeddedNode;
import io.meldb.txn.CommitPathProfile;
import io.meldb.txn.TxnServer;
import io.meldb.txn.TxnServerConfig;
import io.meldb.txn.api.TxnService;
import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * The Hyder II SQL workload (issue 16), side by side on several databases in one run:
 * <ul>
 *   <li>{@code meld-pg}: MeldDB embedded (log server, txn-server and gateway in this JVM) through its PostgreSQL
 *       protocol front end and pgjdbc;</li>
 *   <li>{@code meld-avatica}: the same embedded MeldDB through the gateway's Avatica HTTP server and MeldDB's
 *       driver ({@code jdbc:meldb://});</li>
 *   <li>{@code meld-pg-process}: MeldDB as {@code bin/meldb} runs it, in a process of its own ({@link MeldProcess}),
 *       through pgjdbc: what a user who starts the database and connects to it measures, with the server's heap,
 *       GC and JIT apart from the clients', as PostgreSQL's are;</li>
 *   <li>{@code h2}: H2's TCP server started in this JVM (MVStore, file-backed under a temp dir), clients over
 *       {@code jdbc:h2:tcp://};</li>
 *   <li>{@code postgres}: a PostgreSQL server given by {@code --pg-url} (see {@code benchmarks/run-sql-benchmark.sh},
 *       which starts a throwaway PostgreSQL 15 cluster);</li>
 *   <li>{@code null-pg} and {@code null-avatica}: the machine's floors, servers that speak the PostgreSQL protocol
 *       ({@link PgNullServer}, pgjdbc) or MeldDB's JDBC endpoint ({@link AvaticaNullServer}, MeldDB's driver) and
 *       do no database work.</li>
 * </ul>
 * One table {@code sqlbench_accounts(id INTEGER PRIMARY KEY, balance BIGINT NOT NULL, pad VARCHAR(100))} of
 * {@code --rows} rows, keys uniform. Update transaction: 2 UPDATEs {@code SET balance = balance + ?} first (a
 * transfer: +x on one row, -x on another, distinct keys in ascending order, so lock-based engines do not deadlock),
 * then 8 point SELECTs by primary key, then COMMIT. Variant {@code update}: every transaction is that one. Variant
 * {@code readonly}: 95% of the transactions are 10 point SELECTs on a second connection of the same thread with
 * {@code setReadOnly(true)}, 5% the update transaction. SERIALIZABLE, autocommit off, {@code --threads} client
 * threads, statements prepared once per connection. A failure with SQLState class 40 (40001 serialization failure,
 * 40P01 deadlock), or H2's lock timeout / concurrent update, rolls back and retries the same transaction (same
 * keys), counted; any other error fails the window and is reported.
 *
 * <p>Each round runs every variant on every target in turn (alternating, so a noisy machine hits them alike): a
 * fresh set of connections, {@code --warmup} seconds unmeasured, then a {@code --seconds} window. Reported: medians
 * over the rounds of committed tps and p50/p99 transaction latency (first attempt to successful commit, retries
 * included; HdrHistogram), per round the p50/p99 of the two phases of the successful attempt (its statements, and
 * the COMMIT round trip: where a tail comes from), for MeldDB the p50/p99 of each hand-off of its commits inside the
 * txn-server ({@link CommitPathProfile}: append, log delivery, reader, decode, meld, reply), the abort rate (retried attempts / all attempts), the ratios
 * MeldDB / H2 and MeldDB /
 * PostgreSQL, and for the in-process servers their CPU per committed transaction by thread group
 * ({@link ThreadMXBean#getThreadCpuTime} summed over the JVM's threads other than the clients, sampled at window
 * start and end). At the end it checks that the sum of balances is unchanged (transfers preserve it).
 *
 * <pre>java $(cat bin/jvm-flags) -Xmx2g -cp benchmarks/target/benchmarks.jar io.meldb.bench.SqlTxnBenchmark --help</pre>
 */
public final class SqlTxnBenchmark {
    private static final String[][] FLAGS = {
        {"rows", "100000", "rows in the accounts table"},
        {"threads", "4", "client threads (one connection each; two in the readonly variant)"},
        {"seconds", "10", "seconds per measured window"},
        {"warmup", "3", "seconds of unmeasured load before each window"},
        {"rounds", "3", "rounds; each runs every variant on every target; medians are reported"},
        {"variant", "both", "update | readonly | both"},
        {"targets", "meld-pg,meld-avatica,meld-pg-process,h2,postgres,null-pg,null-avatica", "comma list of meld-pg, "
            + "meld-avatica, meld-pg-process (bin/meldb's database in a process of its own, pgjdbc), h2, postgres, "
            + "null-pg, null-avatica (servers that speak the PostgreSQL protocol or MeldDB's JDBC endpoint and do no "
            + "work: the floors of this machine, PgNullServer and AvaticaNullServer)"},
        {"pg-url", "", "pgjdbc URL of a PostgreSQL server for target postgres (skipped when empty)"},
        {"load-batch", "500", "rows per load transaction"},
        {"meld-durability", "page-cache", "MeldDB's log: page-cache (EmbeddedNode's default) | fsync (per batch)"},
        {"meld-separate-decoder", "", "txn-server: decode intentions on threads of their own (false: the log "
            + "reader decodes, premelds and melds in turn; empty: as --meld-threading)"},
        {"meld-threading", "", "txn-server pipeline shape: chained | shared | dedicated-decode | dedicated (empty: the "
            + "server's default, chained on up to 4 processors)"},
        {"meld-checkpoint-every", "", "txn-server: a checkpoint every N intentions (empty: the server's default)"},
        {"meld-write-checkpoints", "", "txn-server: append checkpoints to the log (empty: the server's default)"},
        {"cpu-detail", "false", "also print each window's busiest server threads (name: ms CPU)"},
    };
    private static final String USAGE = "usage: java $(cat bin/jvm-flags) -Xmx2g -cp benchmarks/target/benchmarks.jar "
            + "io.meldb.bench.SqlTxnBenchmark [--flag value]...\n"
            + "Hyder II SQL workload (2 updates + 8 point reads per transaction, SERIALIZABLE) on MeldDB via pgjdbc "
            + "and Avatica, H2 TCP server and PostgreSQL.";

    static final String TABLE = "sqlbench_accounts";
    private static final long INITIAL_BALANCE = 1000;
    static final String CLIENT_PREFIX = "sqlbench-client-";
    private static boolean cpuDetail;
    private static final List<String> VARIANTS = List.of("update", "readonly");

    private SqlTxnBenchmark() {
    }

    /** One measured window of one target and variant. */
    record Window(long commits, long retries, double seconds, Histogram latencyMicros, Map<String, Long> retryStates,
                  Map<String, Long> cpuNanos, long clientCpuNanos, long unattributedCpuNanos, String error) {
        double tps() {
            return commits / seconds;
        }

        double p50Ms() {
            return latencyMicros.getValueAtPercentile(50) / 1e3;
        }

        double p99Ms() {
            return latencyMicros.getValueAtPercentile(99) / 1e3;
        }
    }

    /** A database under test. */
    static final class Target {
        final String id;
        final String label;
        final boolean inProcess;
        String url;
        final Properties props = new Properties();
        String error;
        String isolation;
        /** The embedded txn-server's per-hand-off commit latencies (MeldDB targets only). */
        CommitPathProfile commitPath;
        /** The server's own process (target meld-pg-process), whose CPU the window measures as a whole. */
        MeldProcess child;
        final Map<String, List<Window>> windows = new LinkedHashMap<>();

        Target(final String id, final String label, final boolean inProcess) {
            this.id = id;
            this.label = label;
            this.inProcess = inProcess;
        }

        Connection open() throws SQLException {
            return DriverManager.getConnection(url, props);
        }

        boolean meld() {
            return id.startsWith("meld");
        }

        /** A server that does no work (the machine's floor for its protocol). */
        boolean floor() {
            return id.startsWith("null-");
        }

        /** Targets of one database share its load and its consistency check. */
        String database() {
            return child != null ? "meld-process" : meld() ? "meld" : id;
        }
    }

    /** Rejects values the flags do not allow (the parser knows only the flags' names). */
    private static void validate(final Map<String, String> o) {
        Durability.parse(o.get("meld-durability"));
        if (!List.of("update", "readonly", "both").contains(o.get("variant"))) {
            throw new IllegalArgumentException("--variant must be update, readonly or both");
        }
        for (String t : o.get("targets").split(",")) {
            if (!List.of("meld-pg", "meld-avatica", "meld-pg-process", "h2", "postgres", "null-pg",
                    "null-avatica")
                    .contains(t.trim())) {
                throw new IllegalArgumentException("unknown target '" + t + "'");
            }
        }
    }

    /**
     * The flags, parsed and checked without running anything (null for {@code --help}); BenchmarkCommandsTest checks
     * the README's commands, through {@code run-sql-benchmark.sh}, with it. A bad flag is an
     * {@link IllegalArgumentException}.
     */
    static Map<String, String> parse(final String[] args) {
        return DriverOptions.parse("SQLBENCH_", FLAGS, args, SqlTxnBenchmark::validate);
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> opts = DriverOptions.parseOrExit("SqlTxnBenchmark", USAGE, "SQLBENCH_", FLAGS, args,
                SqlTxnBenchmark::validate);
        if (opts == null) {
            return;
        }
        final int rows = DriverOptions.intValue(opts, "rows");
        final int threads = DriverOptions.intValue(opts, "threads");
        final int seconds = DriverOptions.intValue(opts, "seconds");
        final int warmup = DriverOptions.intValue(opts, "warmup");
        final int rounds = DriverOptions.intValue(opts, "rounds");
        final int loadBatch = DriverOptions.intValue(opts, "load-batch");
        final List<String> variants = opts.get("variant").equals("both") ? VARIANTS : List.of(opts.get("variant"));
        final List<String> wanted = Arrays.stream(opts.get("targets").split(",")).map(String::trim).toList();
        final String pgUrl = opts.get("pg-url").trim();
        final Durability durability = Durability.parse(opts.get("meld-durability"));
        cpuDetail = Boolean.parseBoolean(opts.get("cpu-detail"));
        final String separateDecoder = opts.get("meld-separate-decoder").trim();
        final String threading = opts.get("meld-threading").trim();
        final String checkpointEvery = opts.get("meld-checkpoint-every").trim();
        final String writeCheckpoints = opts.get("meld-write-checkpoints").trim();
        final java.util.function.UnaryOperator<TxnServerConfig> shape = c -> {
            if (!separateDecoder.isEmpty()) {
                c.separateDecoder(Boolean.parseBoolean(separateDecoder));
            }
            if (!checkpointEvery.isEmpty()) {
                c.checkpointEvery(Long.parseLong(checkpointEvery));
            }
            if (!writeCheckpoints.isEmpty()) {
                c.writeCheckpoints(Boolean.parseBoolean(writeCheckpoints));
            }
            if (!threading.isEmpty()) {
                c.threading(io.meldb.txn.ThreadingMode.valueOf(
                        threading.toUpperCase(Locale.ROOT).replace('-', '_')));
            }
            return c;
        };

        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (mx.isThreadCpuTimeSupported()) {
            mx.setThreadCpuTimeEnabled(true);
        }
        System.out.printf(Locale.ROOT, "Hyder II SQL workload: %d rows, %d threads, %d s windows after %d s warm-up, "
                        + "%d rounds, variants %s; JVM %s, %d CPUs%n", rows, threads, seconds, warmup, rounds,
                variants, Runtime.version(), Runtime.getRuntime().availableProcessors());

        final List<AutoCloseable> resources = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Path> dirs = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Target> targets = new ArrayList<>();
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
            for (Path dir : dirs) {
                deleteTree(dir);
            }
        };
        // also on SIGTERM / Ctrl-C: stop the servers and delete the temp dirs
        final Thread hook = new Thread(cleanup, "sqlbench-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            // ---- start what runs in this JVM ----
            Gateway gateway = null;
            CommitPathProfile meldCommitPath = null;
            String meldError = null;
            if (wanted.contains("meld-pg") || wanted.contains("meld-avatica")) {
                try {
                    final Path dir = Files.createTempDirectory("meldb-sqlbench");
                    dirs.add(dir);
                    final TxnService txn;
                    final TxnServer txnServer;
                    if (durability == Durability.PAGE_CACHE) {
                        final EmbeddedNode node = EmbeddedNode.start(dir, Durability.PAGE_CACHE,
                                shape);
                        resources.add(node);
                        txn = node.txnService();
                        txnServer = node.txnServer();
                    } else {
                        // EmbeddedNode's parts, with the log's durability changed
                        final LogServerConfig logConfig = LogServerConfig.at(dir.resolve("log")).port(0)
                                .metricsPort(-1);
                        logConfig.store().durability(durability);
                        final LogServer log = LogServer.start(logConfig);
                        resources.add(log);
                        final TxnServerConfig serverConfig = TxnServerConfig.log("127.0.0.1", log.port());
                        shape.apply(serverConfig);
                        final TxnServer server = TxnServer.start(serverConfig);
                        resources.add(server);
                        txn = server;
                        txnServer = server;
                    }
                    meldCommitPath = txnServer.commitPath();
                    gateway = Gateway.start(new TxnRouter(List.of(txn)), 0);
                    resources.add(gateway);
                } catch (Exception | Error e) {
                    meldError = "embedded MeldDB did not start: " + describe(e);
                }
            }
            if (wanted.contains("meld-pg")) {
                final Target t = new Target("meld-pg", "MeldDB embedded, pgjdbc", true);
                if (gateway != null) {
                    t.url = gateway.pgJdbcUrl();
                    t.props.setProperty("user", "sqlbench");
                }
                t.commitPath = meldCommitPath;
                t.error = meldError;
                targets.add(t);
            }
            if (wanted.contains("meld-avatica")) {
                final Target t = new Target("meld-avatica", "MeldDB embedded, Avatica", true);
                if (gateway != null) {
                    t.url = gateway.meldJdbcUrl();
                }
                t.commitPath = meldCommitPath;
                t.error = meldError;
                targets.add(t);
            }
            if (wanted.contains("meld-pg-process")) {
                final Target t = new Target("meld-pg-process", "MeldDB in its own process, pgjdbc", true);
                try {
                    final Path dir = Files.createTempDirectory("meldb-sqlbench-process");
                    dirs.add(dir);
                    t.child = MeldProcess.start(dir, durability);
                    resources.add(t.child);
                    t.url = "jdbc:postgresql://127.0.0.1:" + t.child.pgPort() + "/meldb";
                    t.props.setProperty("user", "sqlbench");
                } catch (Exception | Error e) {
                    t.error = "MeldDB's process did not start: " + describe(e);
                }
                targets.add(t);
            }
            if (wanted.contains("h2")) {
                final Target t = new Target("h2", "H2 TCP server (MVStore)", true);
                try {
                    final Path dir = Files.createTempDirectory("h2-sqlbench");
                    dirs.add(dir);
                    final org.h2.tools.Server h2 = org.h2.tools.Server.createTcpServer("-tcpPort", "0",
                            "-ifNotExists").start();
                    resources.add(h2::stop);
                    t.url = "jdbc:h2:tcp://localhost:" + h2.getPort() + "/" + dir.resolve("bench").toAbsolutePath();
                } catch (Exception | Error e) {
                    t.error = "H2 TCP server did not start: " + describe(e);
                }
                targets.add(t);
            }
            if (wanted.contains("null-pg")) {
                final Target t = new Target("null-pg", "no-op PostgreSQL-protocol server", true);
                final PgNullServer nullServer = new PgNullServer();
                resources.add(nullServer);
                t.url = nullServer.jdbcUrl();
                t.props.setProperty("user", "sqlbench");
                targets.add(t);
            }
            if (wanted.contains("null-avatica")) {
                final Target t = new Target("null-avatica", "no-op JDBC endpoint (MeldDB's driver)", true);
                final AvaticaNullServer nullServer = new AvaticaNullServer();
                resources.add(nullServer);
                t.url = nullServer.jdbcUrl();
                targets.add(t);
            }
            if (wanted.contains("postgres")) {
                if (pgUrl.isEmpty()) {
                    System.out.println("PostgreSQL: skipped (no --pg-url given)");
                } else {
                    final Target t = new Target("postgres", "PostgreSQL", false);
                    t.url = pgUrl;
                    targets.add(t);
                }
            }
            if (gateway != null) {
                System.out.println("MeldDB gateway: " + gateway.pgJdbcUrl() + " and " + gateway.meldJdbcUrl()
                        + "; log durability " + durability);
            }

            // ---- load (the two in-JVM MeldDB targets share one database) ----
            final java.util.Set<String> loaded = new java.util.HashSet<>();
            for (Target t : targets) {
                if (t.error != null || !loaded.add(t.database())) {
                    continue;
                }
                final long start = System.nanoTime();
                try (Connection c = t.open()) {
                    load(t, c, rows, loadBatch);
                    System.out.printf(Locale.ROOT, "%-26s loaded %d rows in %.1f s%n", t.label, rows,
                            (System.nanoTime() - start) / 1e9);
                } catch (Exception e) {
                    t.error = "load failed: " + describe(e);
                    System.out.println(t.label + ": " + t.error);
                    for (Target o : targets) {
                        if (o.database().equals(t.database()) && o.error == null) {
                            o.error = t.error;
                        }
                    }
                }
            }

            // ---- rounds: every variant on every target in turn ----
            for (int r = 1; r <= rounds; r++) {
                for (String variant : variants) {
                    for (Target t : targets) {
                        if (t.error != null) {
                            continue;
                        }
                        final Window w = measure(t, variant, rows, threads, warmup, seconds, mx);
                        t.windows.computeIfAbsent(variant, v -> new ArrayList<>()).add(w);
                        if (w.error() != null) {
                            System.out.printf(Locale.ROOT, "round %d %-8s %-26s FAILED: %s%n", r, variant, t.label,
                                    w.error());
                        } else {
                            System.out.printf(Locale.ROOT, "round %d %-8s %-26s %8.0f tps  p50 %7.2f ms  p99 %7.2f ms"
                                            + "  %d commits, %d retries %s%n", r, variant, t.label, w.tps(),
                                    w.p50Ms(), w.p99Ms(), w.commits(), w.retries(),
                                    w.retryStates().isEmpty() ? "" : w.retryStates());
                        }
                    }
                }
            }

            // ---- consistency: transfers keep the sum of balances ----
            final Map<String, String> consistency = new LinkedHashMap<>();
            final java.util.Set<String> checked = new java.util.HashSet<>();
            for (Target t : targets) {
                if (t.url == null || t.floor() || !checked.add(t.database())) {
                    continue;
                }
                final String name = t.database().equals("meld") ? "MeldDB" : t.label;
                try (Connection c = t.open(); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(balance) FROM " + TABLE)) {
                    rs.next();
                    final long count = rs.getLong(1);
                    final long sum = rs.getLong(2);
                    final boolean ok = count == rows && sum == INITIAL_BALANCE * rows;
                    consistency.put(name, (ok ? "OK" : "WRONG") + " (" + count + " rows, sum " + sum + ", expected "
                            + rows + " rows, sum " + INITIAL_BALANCE * rows + ")");
                } catch (Exception e) {
                    consistency.put(name, "check failed: " + describe(e));
                }
                if (t.id.equals("postgres")) {
                    try (Connection c = t.open(); Statement s = c.createStatement()) {
                        s.execute("DROP TABLE IF EXISTS " + TABLE);
                    } catch (SQLException e) {
                        System.err.println("could not drop " + TABLE + " on PostgreSQL: " + e.getMessage());
                    }
                }
            }

            SqlTxnReport.report(targets, variants, rounds, consistency);
        } finally {
            cleanup.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ load

    private static void load(final Target t, final Connection c, final int rows, final int batch) throws SQLException {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            if (!t.meld()) {
                s.execute("DROP TABLE IF EXISTS " + TABLE);
            }
            s.execute("CREATE TABLE " + TABLE + " (id INTEGER PRIMARY KEY, balance BIGINT NOT NULL, pad VARCHAR(100))");
        }
        c.setAutoCommit(false);
        final Random random = new Random(42);
        final char[] pad = new char[100];
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (id, balance, pad) VALUES (?, ?, ?)")) {
            for (int i = 0; i < rows; i++) {
                for (int k = 0; k < pad.length; k++) {
                    pad[k] = (char) ('a' + random.nextInt(26));
                }
                ps.setInt(1, i);
                ps.setLong(2, INITIAL_BALANCE);
                ps.setString(3, new String(pad));
                ps.addBatch();
                if (i % batch == batch - 1 || i == rows - 1) {
                    ps.executeBatch();
                    c.commit();
                }
            }
        }
        c.setAutoCommit(true);
        if (t.id.equals("postgres")) {
            try (Statement s = c.createStatement()) {
                s.execute("VACUUM ANALYZE " + TABLE);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ measure

    private static Window measure(final Target t, final String variant, final int rows, final int threads,
                                  final int warmup, final int seconds, final ThreadMXBean mx) throws Exception {
        final boolean mixed = variant.equals("readonly");
        final CountDownLatch ready = new CountDownLatch(threads);
        final AtomicReference<String> error = new AtomicReference<>();
        final Histogram[] histograms = new Histogram[threads];
        // the two phases of a transaction's successful attempt: its statements, and the COMMIT round trip
        final Histogram[] statementPhase = new Histogram[threads];
        final Histogram[] commitPhase = new Histogram[threads];
        final LongAdder retries = new LongAdder();
        final Map<String, LongAdder> retryStates = new ConcurrentHashMap<>();
        final Control control = new Control();
        final List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            final Histogram h = new Histogram(3_600_000_000L, 3);
            histograms[i] = h;
            final Histogram sp = new Histogram(3_600_000_000L, 3);
            final Histogram cp = new Histogram(3_600_000_000L, 3);
            statementPhase[i] = sp;
            commitPhase[i] = cp;
            final Thread w = new Thread(() -> {
                boolean counted = false;
                try (Connection rw = t.open(); Connection ro = mixed ? t.open() : null) {
                    final String iso = configure(rw, false);
                    if (ro != null) {
                        configure(ro, true);
                    }
                    if (t.isolation == null) {
                        t.isolation = iso;
                    }
                    final String select = "SELECT balance, pad FROM " + TABLE + " WHERE id = ?";
                    try (PreparedStatement update = rw.prepareStatement(
                            "UPDATE " + TABLE + " SET balance = balance + ? WHERE id = ?");
                         PreparedStatement read = rw.prepareStatement(select);
                         PreparedStatement roRead = ro == null ? null : ro.prepareStatement(select)) {
                        ready.countDown();
                        counted = true;
                        final ThreadLocalRandom random = ThreadLocalRandom.current();
                        final int[] keys = new int[10];
                        while (!control.stop) {
                            final boolean readOnly = mixed && random.nextInt(100) < 95;
                            for (int k = 0; k < keys.length; k++) {
                                keys[k] = random.nextInt(rows);
                            }
                            if (!readOnly) {
                                while (keys[1] == keys[0]) {
                                    keys[1] = random.nextInt(rows);
                                }
                                if (keys[0] > keys[1]) {
                                    final int k = keys[0];
                                    keys[0] = keys[1];
                                    keys[1] = k;
                                }
                            }
                            final long amount = 1 + random.nextInt(100);
                            final long start = System.nanoTime();
                            final Connection c = readOnly ? ro : rw;
                            long attempt = start;
                            long committing = start;
                            while (true) {
                                try {
                                    attempt = System.nanoTime();
                                    if (readOnly) {
                                        for (int k = 0; k < 10; k++) {
                                            pointRead(roRead, keys[k]);
                                        }
                                    } else {
                                        applyUpdate(update, keys[0], amount);
                                        applyUpdate(update, keys[1], -amount);
                                        for (int k = 2; k < 10; k++) {
                                            pointRead(read, keys[k]);
                                        }
                                    }
                                    committing = System.nanoTime();
                                    c.commit();
                                    break;
                                } catch (SQLException e) {
                                    rollbackQuietly(c);
                                    final String state = retryState(e);
                                    if (state == null) {
                                        throw e;
                                    }
                                    if (control.measuring) {
                                        retries.increment();
                                        retryStates.computeIfAbsent(state, s -> new LongAdder()).increment();
                                    }
                                    if (control.stop) {
                                        break;
                                    }
                                }
                            }
                            if (control.measuring) {
                                final long end = System.nanoTime();
                                h.recordValue(Math.max(1, (end - start) / 1000));
                                sp.recordValue(Math.max(1, (committing - attempt) / 1000));
                                cp.recordValue(Math.max(1, (end - committing) / 1000));
                            }
                        }
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, describe(e));
                    control.stop = true;
                } finally {
                    if (!counted) {
                        ready.countDown();
                    }
                }
            }, CLIENT_PREFIX + i);
            w.setDaemon(true);
            workers.add(w);
        }
        workers.forEach(Thread::start);
        ready.await(60, TimeUnit.SECONDS);
        sleepUnless(control, warmup * 1000L);
        final WindowCpu.Sample cpuStart = WindowCpu.sample(mx);
        final long childStart = t.child == null ? 0 : t.child.cpuNanos();
        if (t.commitPath != null) {
            t.commitPath.take(); // the window's commits only
        }
        control.measuring = true;
        final long start = System.nanoTime();
        sleepUnless(control, seconds * 1000L);
        control.measuring = false;
        final Map<CommitPathProfile.Phase, Histogram> commitPath = t.commitPath == null ? null : t.commitPath.take();
        final double elapsed = (System.nanoTime() - start) / 1e9;
        final WindowCpu.Sample cpuEnd = WindowCpu.sample(mx);
        final long childEnd = t.child == null ? 0 : t.child.cpuNanos();
        control.stop = true;
        for (Thread w : workers) {
            w.join(60_000);
            if (w.isAlive()) {
                error.compareAndSet(null, w.getName() + " did not stop within 60 s after the window");
            }
        }

        // CPU by group over the window
        final WindowCpu cpu = WindowCpu.between(cpuStart, cpuEnd);
        if (t.child != null) {
            cpu.groups().put(MeldProcess.CPU_GROUP, childEnd - childStart);
        }
        if (cpuDetail) {
            final StringBuilder b = new StringBuilder("  busiest server threads (ms CPU in the window):");
            cpu.byThread().entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(12)
                    .forEach(e -> b.append(' ').append(e.getKey()).append('=').append(e.getValue() / 1_000_000));
            System.out.println(b);
        }

        final Histogram all = new Histogram(3_600_000_000L, 3);
        for (Histogram h : histograms) {
            all.add(h);
        }
        final Histogram statements = new Histogram(3_600_000_000L, 3);
        final Histogram commits = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < threads; i++) {
            statements.add(statementPhase[i]);
            commits.add(commitPhase[i]);
        }
        if (statements.getTotalCount() > 0) {
            System.out.printf(Locale.ROOT, "  phases of the successful attempt: statements p50 %.2f p99 %.2f ms, "
                            + "COMMIT round trip p50 %.2f p99 %.2f ms%n",
                    statements.getValueAtPercentile(50) / 1e3, statements.getValueAtPercentile(99) / 1e3,
                    commits.getValueAtPercentile(50) / 1e3, commits.getValueAtPercentile(99) / 1e3);
        }
        if (commitPath != null) {
            System.out.println("  " + CommitPathProfile.describe(commitPath));
        }
        final Map<String, Long> states = new TreeMap<>();
        retryStates.forEach((k, v) -> states.put(k, v.sum()));
        return new Window(all.getTotalCount(), retries.sum(), elapsed, all, states, cpu.groups(), cpu.clientNanos(),
                cpu.unattributedNanos(), error.get());
    }

    /** Flags the workers read; volatile so the measurement window is sharp. */
    private static final class Control {
        volatile boolean measuring;
        volatile boolean stop;
    }

    /** SERIALIZABLE, autocommit off, read-only as asked; returns the isolation the connection reports. */
    private static String configure(final Connection c, final boolean readOnly) throws SQLException {
        String note = "";
        try {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        } catch (SQLException e) {
            note = " (SERIALIZABLE refused: " + e.getMessage() + ")";
        }
        c.setAutoCommit(false);
        c.setReadOnly(readOnly);
        final int level = c.getTransactionIsolation();
        c.commit(); // pgjdbc's getTransactionIsolation may have opened a transaction
        return switch (level) {
            case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
            case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
            case Connection.TRANSACTION_READ_COMMITTED -> "READ COMMITTED";
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
            default -> "level " + level;
        } + note;
    }

    private static void applyUpdate(final PreparedStatement update, final int id, final long amount)
            throws SQLException {
        update.setLong(1, amount);
        update.setInt(2, id);
        final int n = update.executeUpdate();
        if (n != 1) {
            throw new IllegalStateException("UPDATE of id " + id + " changed " + n + " rows");
        }
    }

    private static void pointRead(final PreparedStatement read, final int id) throws SQLException {
        read.setInt(1, id);
        try (ResultSet rs = read.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("SELECT of id " + id + " found no row");
            }
            rs.getLong(1);
            rs.getString(2);
        }
    }

    /**
     * The SQLState to count when {@code e} is worth retrying: class 40 (serialization failure, deadlock), and H2's
     * lock timeout (HYT00, 50200) and concurrent update (90131); null otherwise.
     */
    static String retryState(final SQLException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof SQLException s) {
                final String state = s.getSQLState();
                if (state != null && state.startsWith("40")) {
                    return state;
                }
                if (s.getErrorCode() == 50200 || s.getErrorCode() == 90131) {
                    return state + "/" + s.getErrorCode();
                }
            }
        }
        return null;
    }

    private static void rollbackQuietly(final Connection c) {
        try {
            c.rollback();
        } catch (SQLException | RuntimeException ignored) {
            // the connection is rolled back or broken; the retry or the next statement will tell
        }
    }

    private static void sleepUnless(final Control control, final long millis) throws InterruptedException {
        final long end = System.currentTimeMillis() + millis;
        while (!control.stop && System.currentTimeMillis() < end) {
            Thread.sleep(Math.min(100, Math.max(1, end - System.currentTimeMillis())));
        }
    }

    static String describe(final Throwable e) {
        final StringBuilder b = new StringBuilder(e.getClass().getSimpleName()).append(": ").append(e.getMessage());
        if (e instanceof SQLException s && s.getSQLState() != null) {
            b.append(" [SQLState ").append(s.getSQLState()).append(']');
        }
        if (e.getCause() != null && e.getCause() != e) {
            b.append(" caused by ").append(e.getCause().getClass().getSimpleName()).append(": ")
                    .append(e.getCause().getMessage());
        }
        return b.toString().replace('\n', ' ');
    }

    private static void deleteTree(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.err.println("could not delete " + dir + ": " + e.getMessage());
        }
    }
}
