package io.meldb.bench;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cluster form for {@link YcsbDriver}: one log-server process (or {@code --log-replicas} replicating one log,
 * issue 22) and N txn-server processes started with this
 * JVM's own classpath and module flags ({@code --add-opens}/{@code --add-exports}/{@code -Dchronicle...}, which
 * Chronicle Queue needs), on loopback with free ports. {@link #close()} kills every process it started; a shutdown
 * hook does the same if the driver is interrupted.
 */
final class YcsbCluster implements Closeable {
    private static final Pattern LISTENING = Pattern.compile("listening on ([^\\s:]+):(\\d+)");

    private final Path dir;
    private final List<Process> processes = new ArrayList<>();
    private final Thread hook = new Thread(this::killAll, "ycsb-cluster-kill");
    /** The log's address(es), a txn-server's {@code --log}. */
    final String logAddresses;
    /** With {@code logReplicas} &gt; 1: the replicated log's processes (issue 22). */
    private LogProcesses replicatedLog;
    final List<String> hosts = new ArrayList<>();
    final List<Integer> ports = new ArrayList<>();

    YcsbCluster(final int servers, final int logReplicas, final Integer premeldThreads, final Integer premeldDistance,
                final Boolean groupMeld, final int maxInFlight, final long checkpointEvery,
                final List<String> extraJvmArgs) throws IOException {
        dir = Files.createTempDirectory("meldb-ycsb-cluster");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean ok = false;
        try {
            if (logReplicas > 1) {
                replicatedLog = new LogProcesses(dir, logReplicas,
                    io.meldb.log.server.LogServerConfig.DEFAULT_BLOCK_SIZE);
                logAddresses = replicatedLog.addresses();
            } else {
                final String[] log = start("log-server", extraJvmArgs, "io.meldb.log.server.LogServerMain",
                    "--port", "0", "--metrics-port", "-1", "--data-dir", dir.resolve("log").toString());
                logAddresses = log[0] + ":" + log[1];
            }
            for (int i = 1; i <= servers; i++) {
                final List<String> args = new ArrayList<>(List.of("--server-id", Integer.toString(i),
                    "--log", logAddresses, "--port", "0", "--metrics-port", "-1",
                    "--max-in-flight", Integer.toString(maxInFlight),
                    "--checkpoint-every", Long.toString(checkpointEvery)));
                if (premeldThreads != null) {
                    args.addAll(List.of("--premeld-threads", premeldThreads.toString()));
                }
                if (premeldDistance != null) {
                    args.addAll(List.of("--premeld-distance", premeldDistance.toString()));
                }
                if (groupMeld != null) {
                    args.addAll(List.of("--group-meld", groupMeld.toString()));
                }
                final String[] txn = start("txn-server-" + i, extraJvmArgs, "io.meldb.txn.TxnServerMain",
                    args.toArray(String[]::new));
                hosts.add(txn[0]);
                ports.add(Integer.parseInt(txn[1]));
            }
            ok = true;
        } finally {
            if (!ok) {
                close();
            }
        }
    }

    /** Starts one server process and waits (60 s at most) for its "listening on HOST:PORT" line. */
    private String[] start(final String name, final List<String> extraJvmArgs, final String mainClass,
                           final String... args) throws IOException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-opens") || a.startsWith("--add-exports") || a.startsWith("-Dchronicle")) {
                cmd.add(a);
            }
        }
        cmd.addAll(extraJvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        final File err = dir.resolve(name + ".stderr").toFile();
        final Process p = new ProcessBuilder(cmd).redirectError(err).start();
        synchronized (processes) {
            processes.add(p);
        }
        final BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
            StandardCharsets.UTF_8));
        final CompletableFuture<String[]> ready = new CompletableFuture<>();
        final Thread reader = new Thread(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    final Matcher m = LISTENING.matcher(line);
                    if (!ready.isDone() && m.find()) {
                        ready.complete(new String[] {m.group(1), m.group(2)});
                    }
                }
            } catch (IOException ignored) {
                // process gone
            }
            ready.completeExceptionally(new IOException(name + " exited before it was ready; see " + err));
        }, name + "-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            final String[] hostPort = ready.get(60, TimeUnit.SECONDS);
            System.err.println("# started " + name + " pid " + p.pid() + " on " + hostPort[0] + ":" + hostPort[1]);
            return hostPort;
        } catch (Exception e) {
            throw new IOException(name + " did not start: " + e.getMessage() + " (stderr in " + err + ")", e);
        }
    }

    private void killAll() {
        final List<Process> ps;
        synchronized (processes) {
            ps = new ArrayList<>(processes);
            processes.clear();
        }
        // txn-servers first (newest first), the log server last
        for (int i = ps.size() - 1; i >= 0; i--) {
            ps.get(i).destroy();
        }
        for (int i = ps.size() - 1; i >= 0; i--) {
            final Process p = ps.get(i);
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        killAll();
        if (replicatedLog != null) {
            replicatedLog.close();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // already shutting down: the hook runs killAll anyway
        }
        YcsbDriver.deleteTree(dir);
    }
}
