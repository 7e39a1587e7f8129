package io.meldb.bench;

import io.meldb.log.Durability;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.meldb.log.server.LogServerMain;
import io.meldb.log.storage.ChronicleLogStore;
import io.meldb.log.storage.StoreOptions;
import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Load driver for the log service (issue 3; Hyder II §6.3 measured its CORFU log the same way): appends of
 * fixed-size blocks over loopback from 1, 4 and 16 concurrent pipelined clients, against the raw storage rate
 * measured in the same run on the same disk, plus append latency at half the peak rate.
 *
 * <ul>
 *   <li><b>raw</b>: {@link ChronicleLogStore#append} called directly with {@code --raw-window} appends in flight: the
 *   server's storage path (CRC32C, Chronicle excerpt, batching, durability) without the network. The ceiling.</li>
 *   <li><b>N clients</b>: an in-process {@link LogServer} on a loopback port and N {@link LogClient}s (N
 *   connections, sharing {@code --client-threads} I/O threads), each keeping {@code --window} appends in flight by
 *   issuing the next append from the previous one's completion.</li>
 *   <li><b>latency</b>: the largest client count, open loop at half the highest throughput measured: a pacer
 *   issues appends on a fixed schedule, and latency is measured from the scheduled time (so a stall counts for
 *   every append it delays, no coordinated omission).</li>
 * </ul>
 * Every measurement uses a fresh data directory (deleted afterwards), warms up, then counts acknowledgements for a
 * fixed time. The table reports the median of {@code --runs} runs. Server and clients share this JVM and machine.
 *
 * <pre>
 *   ./mvnw -q -B -o -pl benchmarks -am package -DskipTests
 *   java $(cat bin/jvm-flags) -cp benchmarks/target/benchmarks.jar io.meldb.bench.LogAppendBenchmark [--runs 3] ...
 * </pre>
 */
public final class LogAppendBenchmark {
    /**
     * How long an open-loop pacer sleeps between rounds: each round issues every append that fell due meanwhile,
     * each timed from its own schedule, so the wait counts against the latency measured (at most 0.2 ms more, about
     * 0.1 ms at the median). Sleeping only until the next append fell due (about 27 µs at 37,000 appends/s) made the
     * pacer wake for nearly every append: it then took about a quarter of a CPU from the server it measures, and
     * CPU idle during the latency measurement fell from about 39% to 26%.
     */
    private static final long PACER_PARK_NANOS = 200_000;

    private final Map<String, String> args;
    private final int blockSize;
    private final Durability durability;
    private final Path baseDir;
    private final double warmupSeconds;
    private final double measureSeconds;
    private final int window;
    private final int rawWindow;
    private final int clientThreads;
    private final int[] clientCounts;
    private final byte[] block;
    private final boolean pretouch;
    private final int serverIoThreads;
    private final boolean serverProcess;
    /** CPUs the server process is confined to ({@code taskset -c} list), or empty for no confinement. */
    private final String serverCpus;
    /** The server-side p99 of the last open-loop measurement (µs; -1 when the server ran in its own process). */
    private double lastServerP99 = -1;
    /**
     * How late the pacer itself issued appends in the last open-loop window, p99 in µs: the part of every latency
     * that the load generator's own scheduling adds, since each append is timed from its schedule.
     */
    private double lastPacerLateP99;
    /** Heap bytes per append of the server's event loops and writer in the last latency window; null if unknown. */
    private double[] lastServerAllocation;
    /** Heap the benchmark's own client side (client event loops and pacer) allocated per append in the last latency window. */
    private double lastClientAllocation = -1;

    private LogAppendBenchmark(Map<String, String> args) throws IOException {
        this.args = args;
        blockSize = countArg("block-size");
        durability = Durability.parse(args.get("durability"));
        baseDir = Path.of(args.get("dir"));
        Files.createDirectories(baseDir);
        warmupSeconds = doubleArg("warmup");
        measureSeconds = doubleArg("seconds");
        if (!(measureSeconds > 0) || !(warmupSeconds >= 0)) {
            throw new IllegalArgumentException("--seconds must be above 0 and --warmup at least 0");
        }
        window = countArg("window");
        rawWindow = countArg("raw-window");
        clientThreads = countArg("client-threads");
        clientCounts = Arrays.stream(args.get("clients").split(",")).mapToInt(v -> atLeastOne("clients", DriverOptions.intValue("clients", v))).toArray();
        pretouch = Boolean.parseBoolean(args.get("pretouch"));
        serverIoThreads = intArg("server-io-threads");
        serverProcess = Boolean.parseBoolean(args.get("server-process"));
        serverCpus = args.get("server-cpus");
        if (!serverCpus.isEmpty() && !serverProcess) {
            throw new IllegalArgumentException("--server-cpus needs --server-process true (it confines the server "
                    + "process)");
        }
        block = new byte[blockSize];
        new Random(42).nextBytes(block);
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("runs", "3");
        args.put("warmup", "2");
        args.put("seconds", "5");
        args.put("clients", "1,4,16");
        args.put("window", "64");
        args.put("raw-window", "1024");
        args.put("client-threads", "2");
        args.put("server-io-threads", "0");
        args.put("server-process", "false");
        args.put("server-cpus", "");
        args.put("block-size", "8192");
        args.put("durability", "page-cache");
        args.put("latency-rate", "0");
        args.put("pretouch", "true");
        args.put("dir", Path.of(System.getProperty("java.io.tmpdir"), "meldb-log-bench").toString());
        for (int i = 0; i < argv.length; i++) {
            String name = argv[i].replaceFirst("^--", "");
            if (name.equals("help") || !args.containsKey(name) || i + 1 >= argv.length) {
                System.out.println("usage: LogAppendBenchmark " + args.keySet().stream().map(k -> "[--" + k + " " + args.get(k) + "]")
                        .reduce((a, b) -> a + " " + b).orElse(""));
                System.exit(name.equals("help") ? 0 : 2);
            }
            args.put(name, argv[++i]);
        }
        try {
            new LogAppendBenchmark(args).run();
        } catch (IllegalArgumentException e) {
            System.err.println("LogAppendBenchmark: " + e.getMessage());
            System.exit(2);
        }
    }

    private void run() throws Exception {
        int runs = countArg("runs");
        System.out.printf(Locale.ROOT, "log append benchmark: %d-byte blocks, durability %s, %d run(s) of %.0f s warm-up + %.0f s "
                        + "per measurement, window %d per client (raw %d), %d client I/O threads, %d CPUs, data in %s%n",
                blockSize, durability.flag(), runs, warmupSeconds, measureSeconds, window, rawWindow, clientThreads,
                Runtime.getRuntime().availableProcessors(), baseDir);
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        List<double[]> latencies = new ArrayList<>(); // {rate, p50, p99, p999, max, clients} in µs
        List<double[]> rawLatencies = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            double raw = measureRaw();
            rates.computeIfAbsent("raw", k -> new ArrayList<>()).add(raw);
            System.out.printf(Locale.ROOT, "run %d: raw %,.0f appends/s%n", run, raw);
            double peak = 0;
            for (int n : clientCounts) {
                double r = measureServer(n, 0, null);
                rates.computeIfAbsent(n + " clients", k -> new ArrayList<>()).add(r);
                System.out.printf(Locale.ROOT, "run %d: %d client(s) %,.0f appends/s (%.0f%% of raw)%n", run, n, r, 100 * r / raw);
                peak = Math.max(peak, r);
            }
            int latencyClients = clientCounts[clientCounts.length - 1];
            double fixed = doubleArg("latency-rate");
            double target = fixed > 0 ? fixed : peak / 2;
            Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            double achieved = measureServer(latencyClients, target, h);
            double[] l = {achieved, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                    h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3, latencyClients, lastServerP99};
            latencies.add(l);
            System.out.printf(Locale.ROOT, "run %d: %d clients at %,.0f appends/s (50%% of peak %,.0f): p50 %.0f µs, p99 %.0f µs, "
                    + "p99.9 %.0f µs, max %.0f µs; inside the server p99 %s; pacer late p99 %.0f µs%n", run, latencyClients, achieved,
                    peak, l[1], l[2], l[3], l[4], lastServerP99 < 0 ? (serverProcess ? "n/a (own process)" : "n/a (none answered)")
                            : String.format(Locale.ROOT, "≤ %.0f µs", lastServerP99), lastPacerLateP99);
            if (lastServerAllocation != null) {
                System.out.printf(Locale.ROOT, "run %d: heap allocated inside the server per append: event loops %.0f B, store writer %.0f B%n",
                        run, lastServerAllocation[0], lastServerAllocation[1]);
            }
            if (lastClientAllocation >= 0) {
                System.out.printf(Locale.ROOT, "run %d: heap allocated by the benchmark's clients per append: %.0f B (client event loops and pacer)%n",
                        run, lastClientAllocation);
            }
            Histogram rh = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            double rawAchieved = measureRawLatency(target, rh);
            double[] rl = {rawAchieved, rh.getValueAtPercentile(50) / 1e3, rh.getValueAtPercentile(99) / 1e3,
                    rh.getValueAtPercentile(99.9) / 1e3, rh.getMaxValue() / 1e3};
            rawLatencies.add(rl);
            System.out.printf(Locale.ROOT, "run %d: raw storage at %,.0f appends/s: p50 %.0f µs, p99 %.0f µs, p99.9 %.0f µs, "
                    + "max %.0f µs; pacer late p99 %.0f µs%n", run, rawAchieved, rl[1], rl[2], rl[3], rl[4], lastPacerLateP99);
        }

        double rawMedian = median(rates.get("raw"));
        System.out.println();
        System.out.printf(Locale.ROOT, "| %-22s | %12s | %8s | %9s |%n", "configuration (median of " + runs + ")", "appends/s", "MB/s", "% of raw");
        System.out.println("|------------------------|-------------:|---------:|----------:|");
        for (Map.Entry<String, List<Double>> e : rates.entrySet()) {
            double m = median(e.getValue());
            String name = e.getKey().equals("raw") ? "raw storage (no network)" : e.getKey() + " over loopback";
            System.out.printf(Locale.ROOT, "| %-22s | %,12.0f | %8.0f | %8.0f%% |%n", name, m, m * blockSize / 1e6, 100 * m / rawMedian);
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "| %-32s | %12s | %8s | %8s | %8s |%n", "latency at 50% of peak (median)", "appends/s", "p50 µs", "p99 µs", "p99.9 µs");
        System.out.println("|----------------------------------|-------------:|---------:|---------:|---------:|");
        System.out.printf(Locale.ROOT, "| %-32s | %,12.0f | %8.0f | %8.0f | %8.0f |%n",
                (int) latencies.get(0)[5] + " clients, open loop",
                median(latencies, 0), median(latencies, 1), median(latencies, 2), median(latencies, 3));
        System.out.printf(Locale.ROOT, "| %-32s | %,12.0f | %8.0f | %8.0f | %8.0f |%n", "raw storage, open loop",
                median(rawLatencies, 0), median(rawLatencies, 1), median(rawLatencies, 2), median(rawLatencies, 3));
    }

    private int intArg(String name) {
        return DriverOptions.intValue(args, name);
    }

    /** A count that must be at least 1. */
    private int countArg(String name) {
        return atLeastOne(name, intArg(name));
    }

    private static int atLeastOne(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException("--" + name + " must be at least 1, not " + value);
        }
        return value;
    }

    private double doubleArg(String name) {
        try {
            return Double.parseDouble(args.get(name).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " takes a number, not '" + args.get(name) + "'");
        }
    }


    // ------------------------------------------------------------------------------------------------ raw

    private StoreOptions storeOptions(Path dir) {
        return StoreOptions.at(dir).durability(durability).pretouch(pretouch);
    }

    private double measureRaw() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(baseDir, "raw-");
        try (ChronicleLogStore store = ChronicleLogStore.open(storeOptions(dir))) {
            store.create(blockSize, new byte[0]);
            Semaphore inFlight = new Semaphore(rawWindow);
            AtomicLong acked = new AtomicLong();
            LogStore.AppendCallback callback = new LogStore.AppendCallback() {
                @Override
                public void appended(long position) {
                    acked.incrementAndGet();
                    inFlight.release();
                }

                @Override
                public void failed(LogErrorException error) {
                    inFlight.release();
                    throw error;
                }
            };
            AtomicBoolean stop = new AtomicBoolean();
            Thread producer = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        if (!inFlight.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                    store.append(Unpooled.wrappedBuffer(block), callback);
                }
            }, "raw-producer");
            producer.start();
            double rate = count(acked);
            stop.set(true);
            producer.join();
            inFlight.acquire(rawWindow);
            return rate;
        } finally {
            delete(dir);
        }
    }

    /**
     * Storage alone, open loop at {@code rate}: the same pacing as the server's latency measurement, so the two rows
     * separate what the disk and page cache cost from what the network, the server and the clients add. Appends
     * complete in submission order, so a ring of scheduled times, indexed by submission count, pairs each
     * completion with its schedule.
     */
    private double measureRawLatency(double rate, Histogram histogram) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(baseDir, "raw-latency-");
        try (ChronicleLogStore store = ChronicleLogStore.open(storeOptions(dir))) {
            store.create(blockSize, new byte[0]);
            long[] scheduledAt = new long[1 << 20];
            int mask = scheduledAt.length - 1;
            Recorder recorder = new Recorder(3);
            AtomicLong acked = new AtomicLong();
            LogStore.AppendCallback callback = new LogStore.AppendCallback() {
                @Override
                public void appended(long position) {
                    long n = acked.getAndIncrement();
                    recorder.recordValue(System.nanoTime() - scheduledAt[(int) (n & mask)]);
                }

                @Override
                public void failed(LogErrorException error) {
                    throw error;
                }
            };
            long[] submitted = {0};
            return openLoop(rate, "raw-pacer", recorder, acked, histogram, () -> { }, scheduled -> {
                if (submitted[0] - acked.get() >= scheduledAt.length) {
                    throw new IllegalStateException("storage fell more than " + scheduledAt.length + " appends behind");
                }
                scheduledAt[(int) (submitted[0]++ & mask)] = scheduled;
                store.append(Unpooled.wrappedBuffer(block), callback);
            });
        } finally {
            delete(dir);
        }
    }

    // ------------------------------------------------------------------------------------------------ server

    /**
     * Throughput with {@code clients} closed-loop clients when {@code targetRate} is 0; otherwise open loop at that
     * rate, recording latencies from each append's scheduled time into {@code histogram}.
     */
    private double measureServer(int clients, double targetRate, Histogram histogram) throws Exception {
        Path dir = Files.createTempDirectory(baseDir, "server-");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(clientThreads,
                new DefaultThreadFactory("bench-client"), NioIoHandler.newFactory());
        List<LogClient> connections = new ArrayList<>();
        try (ServerUnderTest server = serverProcess ? ServerUnderTest.process(dir, this) : ServerUnderTest.inProcess(dir, this)) {
            for (int i = 0; i < clients; i++) {
                connections.add(LogClient.connect(LogClientOptions.to("127.0.0.1", server.port())
                        .eventLoopGroup(group).requestTimeout(Duration.ofSeconds(30)).maxInFlight(Math.max(window, 4096))));
            }
            connections.get(0).create(blockSize, new byte[0]).join();
            AtomicLong acked = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            double rate;
            if (targetRate <= 0) {
                for (LogClient c : connections) {
                    for (int w = 0; w < window; w++) {
                        closedLoop(c, acked, stop);
                    }
                }
                rate = count(acked);
            } else {
                Recorder recorder = new Recorder(3);
                int[] next = {0};
                long[] clientAtStart = new long[2]; // {bytes allocated, appends acknowledged}
                rate = openLoop(targetRate, "pacer", recorder, acked, histogram, () -> {
                    server.startWindow();
                    clientAtStart[0] = allocatedByThreads("bench-client", "pacer");
                    clientAtStart[1] = acked.get();
                }, scheduled ->
                        connections.get(next[0]++ % connections.size()).append(block).whenComplete((p, e) -> {
                            if (e == null) {
                                recorder.recordValue(System.nanoTime() - scheduled);
                                acked.incrementAndGet();
                            }
                        }));
                lastServerP99 = server.serverP99Micros();
                lastServerAllocation = server.allocatedPerAppend();
                long clientBytes = allocatedByThreads("bench-client", "pacer");
                long appends = acked.get() - clientAtStart[1];
                lastClientAllocation = clientBytes < 0 || appends <= 0 ? -1 : (double) (clientBytes - clientAtStart[0]) / appends;
            }
            stop.set(true);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (connections.stream().mapToInt(LogClient::inFlight).sum() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            for (LogClient c : connections) {
                c.close();
            }
            connections.clear();
            return rate;
        } finally {
            for (LogClient c : connections) {
                c.close();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            delete(dir);
        }
    }

    /**
     * The log server being measured: in this JVM (one process, like the raw measurement), or as its own
     * {@code LogServerMain} process with this JVM's flags (the deployment shape: the clients' garbage collection,
     * JIT compilation and safepoints no longer stall the server, though both still share the machine's cores).
     */
    private interface ServerUnderTest extends AutoCloseable {
        int port();

        /** The measurement window starts now: {@link #serverP99Micros} counts appends answered from here on. */
        default void startWindow() {
        }

        /**
         * The server's own p99 append latency since {@link #startWindow} (from an APPEND decoded to its answer
         * written, from the {@code meldb.log.append.latency} histogram, to its bucket's upper bound), in µs; -1 if
         * not in this JVM or none was answered.
         */
        default double serverP99Micros() {
            return -1;
        }

        /**
         * Java heap allocated per answered append since {@link #startWindow} by the server's event loops and by its
         * store writer, in bytes (from the JVM's per-thread allocation counters); null if not in this JVM or none
         * was answered.
         */
        default double[] allocatedPerAppend() {
            return null;
        }

        @Override
        void close() throws Exception;

        static ServerUnderTest inProcess(Path dir, LogAppendBenchmark b) throws IOException {
            LogServerConfig config = LogServerConfig.at(dir).blockSize(b.blockSize).metricsPort(-1);
            if (b.serverIoThreads > 0) {
                config.ioThreads(b.serverIoThreads);
            }
            config.store().durability(b.durability).pretouch(b.pretouch);
            LogServer server = LogServer.start(config);
            return new ServerUnderTest() {
                /** The histogram when the window started: the Prometheus histogram counts since the server started. */
                private HistogramSnapshot atStart = server.metrics().appendLatency().takeSnapshot();
                private long[] allocatedAtStart = serverAllocation();

                @Override
                public int port() {
                    return server.port();
                }

                @Override
                public void startWindow() {
                    atStart = server.metrics().appendLatency().takeSnapshot();
                    allocatedAtStart = serverAllocation();
                }

                @Override
                public double[] allocatedPerAppend() {
                    long[] now = serverAllocation();
                    double appends = server.metrics().appendLatency().takeSnapshot().count() - atStart.count();
                    if (appends <= 0 || now == null || allocatedAtStart == null) {
                        return null;
                    }
                    return new double[]{(now[0] - allocatedAtStart[0]) / appends, (now[1] - allocatedAtStart[1]) / appends};
                }

                /** Bytes allocated so far by this server's event loops and by its store's writer thread. */
                private long[] serverAllocation() {
                    long eventLoops = allocatedByThreads("log-io");
                    return eventLoops < 0 ? null
                            : new long[]{eventLoops, allocatedByThreads("log-writer-" + dir.getFileName())};
                }

                @Override
                public double serverP99Micros() {
                    HistogramSnapshot now = server.metrics().appendLatency().takeSnapshot();
                    CountAtBucket[] before = atStart.histogramCounts();
                    CountAtBucket[] after = now.histogramCounts();
                    double total = now.count() - atStart.count();
                    if (total <= 0) {
                        return -1;
                    }
                    for (int i = 0; i < after.length; i++) {
                        if (after[i].count() - before[i].count() >= 0.99 * total) {
                            return after[i].bucket(TimeUnit.MICROSECONDS);
                        }
                    }
                    return now.max(TimeUnit.MICROSECONDS);
                }

                @Override
                public void close() {
                    server.close();
                }
            };
        }

        static ServerUnderTest process(Path dir, LogAppendBenchmark b) throws IOException, InterruptedException {
            if (!b.pretouch) {
                throw new IllegalArgumentException("--pretouch false needs --server-process false (the server command has no such flag)");
            }
            JavaCommand java = JavaCommand.main(LogServerMain.class.getName()).inheritJvmFlags();
            if (!b.serverCpus.isEmpty()) {
                java.runUnder("taskset", "-c", b.serverCpus);
            }
            java.args("--port", "0", "--metrics-port", "-1", "--data-dir", dir.toString(),
                    "--block-size", String.valueOf(b.blockSize), "--durability", b.durability.flag(),
                    "--exit-with-parent", "true");
            if (b.serverIoThreads > 0) {
                java.args("--io-threads", String.valueOf(b.serverIoThreads));
            }
            // its output stays in memory only, and only the last lines of it (for the error when it fails to start)
            ChildProcess process = ChildProcess.builder("log-server", java.build())
                    .ready(Pattern.compile("log-server listening on [^ ]*:(\\d+)")).keepLines(100).start();
            int port;
            try {
                port = Integer.parseInt(process.awaitReady(Duration.ofSeconds(120)).group(1));
            } catch (IllegalStateException e) {
                process.kill();
                throw new IOException("the log server process did not start: " + e.getMessage(), e);
            }
            int listening = port;
            return new ServerUnderTest() {
                @Override
                public int port() {
                    return listening;
                }

                @Override
                public void close() {
                    process.stop(Duration.ofSeconds(30));
                }
            };
        }
    }

    /** One slot of a client's window: appends, and on completion appends again until stopped. */
    private void closedLoop(LogClient client, AtomicLong acked, AtomicBoolean stop) {
        client.append(block).whenComplete((p, e) -> {
            if (e != null) {
                System.err.println("append failed: " + e);
                return;
            }
            acked.incrementAndGet();
            if (!stop.get()) {
                closedLoop(client, acked, stop);
            }
        });
    }

    /**
     * Open loop at {@code rate}: a pacer thread calls {@code issue} with each append's scheduled time (the caller
     * records latency from it, so a stall counts for every append it delays). Returns the acknowledged rate over
     * the measurement time and adds that window's latencies, from {@code recorder}, to {@code histogram}.
     * {@code windowStarts} runs when the warm-up ends.
     */
    private double openLoop(double rate, String name, Recorder recorder, AtomicLong acked, Histogram histogram,
                            Runnable windowStarts, LongConsumer issue) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        Recorder late = new Recorder(3);
        Thread pacer = new Thread(() -> {
            long interval = (long) (1e9 / rate);
            long next = System.nanoTime();
            while (!stop.get()) {
                long now = System.nanoTime();
                if (now < next) {
                    LockSupport.parkNanos(PACER_PARK_NANOS);
                    continue;
                }
                late.recordValue(now - next);
                issue.accept(next);
                next += interval;
            }
        }, name);
        pacer.start();
        try {
            sleep(warmupSeconds);
            recorder.reset();
            late.reset();
            windowStarts.run();
            double achieved = measure(acked);
            histogram.add(recorder.getIntervalHistogram());
            lastPacerLateP99 = late.getIntervalHistogram().getValueAtPercentile(99) / 1e3;
            return achieved;
        } finally {
            stop.set(true);
            pacer.join();
        }
    }

    /**
     * Heap allocated so far by the live threads of this JVM whose names start with one of {@code prefixes}, from the
     * JVM's per-thread counters; -1 where the JVM does not count.
     */
    private static long allocatedByThreads(String... prefixes) {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx)
                || !mx.isThreadAllocatedMemoryEnabled()) {
            return -1;
        }
        long bytes = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            for (String prefix : prefixes) {
                if (t.getName().startsWith(prefix)) {
                    bytes += mx.getThreadAllocatedBytes(t.getId());
                    break;
                }
            }
        }
        return bytes;
    }

    /** Warm-up, then acknowledgements per second over the measurement time. */
    private double count(AtomicLong acked) throws InterruptedException {
        sleep(warmupSeconds);
        return measure(acked);
    }

    /** Acknowledgements per second over the measurement time, from now. */
    private double measure(AtomicLong acked) throws InterruptedException {
        long start = acked.get();
        long t0 = System.nanoTime();
        sleep(measureSeconds);
        return (acked.get() - start) / ((System.nanoTime() - t0) / 1e9);
    }

    private static void sleep(double seconds) throws InterruptedException {
        Thread.sleep((long) (seconds * 1000));
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double median(List<double[]> rows, int column) {
        List<Double> values = new ArrayList<>();
        for (double[] r : rows) {
            values.add(r[column]);
        }
        return median(values);
    }

    /**
     * Deletes a measurement's data and lets the file system settle ({@code sync}), so that writing back or
     * discarding gigabytes of one measurement does not stall the next one.
     */
    private static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
        try {
            new ProcessBuilder("sync").inheritIO().start().waitFor(60, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            // no sync command (not Linux): measurements may overlap with write-back
        }
    }
}
