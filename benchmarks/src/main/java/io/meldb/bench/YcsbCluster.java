package io.meldb.bench;

import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * The cluster form for {@link YcsbDriver}: one log-server process (or {@code --log-replicas} replicating one log,
 * issue 22) and N txn-server processes started with this
 * JVM's own classpath and module flags ({@link JavaCommand#isModuleFlag}: what Chronicle Queue needs) through the
 * process module's launcher, on loopback with free ports. {@link #close()} kills every process it started; a shutdown
 * hook does the same if the driver is interrupted.
 */
final class YcsbCluster implements Closeable {
    private static final Pattern LISTENING = Pattern.compile("listening on ([^\\s:]+):(\\d+)");

    private final Path dir;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    /** Lines of a server's output kept in memory for error messages; its log file has them all. */
    private static final int KEEP_LINES = 200;

    private final List<ChildProcess> processes = new ArrayList<>();
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

    /**
     * Starts one server process (output in {@code <dir>/<name>.log}) and waits (60 s at most) for its
     * "listening on HOST:PORT" line.
     */
    private String[] start(final String name, final List<String> extraJvmArgs, final String mainClass,
                           final String... args) throws IOException {
        final List<String> cmd = JavaCommand.main(mainClass).inheritJvmFlags(JavaCommand::isModuleFlag)
            .jvmArgs(extraJvmArgs.toArray(String[]::new)).args(args).build();
        final Path log = dir.resolve(name + ".log");
        final ChildProcess p = ChildProcess.builder(name, cmd).output(log).ready(LISTENING).keepLines(KEEP_LINES)
            .start();
        synchronized (processes) {
            processes.add(p);
        }
        try {
            final MatchResult m = p.awaitReady(READY_TIMEOUT);
            System.err.println("# started " + name + " pid " + p.pid() + " on " + m.group(1) + ":" + m.group(2));
            return new String[] {m.group(1), m.group(2)};
        } catch (IllegalStateException e) {
            throw new IOException(name + " did not start: " + e.getMessage() + " (output in " + log + ")", e);
        }
    }

    private void killAll() {
        final List<ChildProcess> ps;
        synchronized (processes) {
            ps = new ArrayList<>(processes);
            processes.clear();
        }
        // txn-servers first (newest first), the log server last
        for (int i = ps.size() - 1; i >= 0; i--) {
            ps.get(i).process().destroy();
        }
        for (int i = ps.size() - 1; i >= 0; i--) {
            ps.get(i).stop(STOP_GRACE);
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
