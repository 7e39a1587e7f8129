package io.meldb.bench;

import io.meldb.log.server.LogServerMain;
import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Log-server processes for the replication benchmark (issue 22): one server (r = 1) or r replicas of one log
 * (node ids n1..nr), on loopback ports picked here, started with this JVM's class path and module flags. Each
 * server's output goes to a file, which is where the leader is read from (the state machine logs every leader
 * change). {@link #kill} is SIGKILL; {@link #close()} stops whatever still runs.
 */
final class LogProcesses implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("log-server listening on ");
    /** Lines of a server's output kept in memory; the leader is read from its output file, which has them all. */
    private static final int KEEP_LINES = 200;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final Pattern LEADER_LINE = Pattern.compile("replicated log: (\\S+) sees (\\S+) as the leader");

    private final Path dir;
    private final int r;
    private final int[] logPorts;
    private final List<List<String>> commands = new ArrayList<>();
    private final ChildProcess[] processes;

    LogProcesses(final Path dir, final int r, final int blockSize) throws IOException {
        this.dir = dir;
        this.r = r;
        this.logPorts = new int[r];
        this.processes = new ChildProcess[r];
        final int[] raftPorts = new int[r];
        final StringBuilder peers = new StringBuilder();
        for (int i = 0; i < r; i++) {
            logPorts[i] = freePort();
            raftPorts[i] = freePort();
            peers.append(i == 0 ? "" : ",").append('n').append(i + 1).append("=127.0.0.1:").append(raftPorts[i])
                .append(':').append(logPorts[i]);
        }
        for (int i = 0; i < r; i++) {
            final List<String> args = new ArrayList<>(List.of("--host", "127.0.0.1",
                "--port", String.valueOf(logPorts[i]), "--metrics-port", "-1", "--block-size", String.valueOf(blockSize),
                "--data-dir", dir.resolve("log-n" + (i + 1)).toString()));
            if (r > 1) {
                args.addAll(List.of("--replication-factor", String.valueOf(r), "--node-id", "n" + (i + 1),
                    "--peers", peers.toString()));
            }
            commands.add(args);
        }
        boolean ok = false;
        try {
            for (int i = 0; i < r; i++) {
                processes[i] = launch(i);
            }
            for (int i = 0; i < r; i++) {
                awaitReady(i);
            }
            ok = true;
        } finally {
            if (!ok) {
                close();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private Path output(final int i) {
        return dir.resolve("log-n" + (i + 1) + ".out");
    }

    private ChildProcess launch(final int i) throws IOException {
        final List<String> cmd = JavaCommand.main(LogServerMain.class.getName())
            .inheritJvmFlags(JavaCommand::isModuleFlag)
            .args(commands.get(i)).build();
        return ChildProcess.builder("log-n" + (i + 1), cmd).output(output(i)).ready(READY)
            .keepLines(KEEP_LINES).start();
    }

    private void awaitReady(final int i) throws IOException {
        try {
            processes[i].awaitReady(READY_TIMEOUT);
        } catch (IllegalStateException e) {
            throw new IOException("log server n" + (i + 1) + " did not start; see " + output(i) + ": "
                + e.getMessage(), e);
        }
    }

    private String read(final int i) throws IOException {
        return Files.exists(output(i)) ? Files.readString(output(i), StandardCharsets.UTF_8) : "";
    }

    /** {@code host:port,...} of every server, for a client or a txn-server's {@code --log}. */
    String addresses() {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < r; i++) {
            b.append(i == 0 ? "" : ",").append("127.0.0.1:").append(logPorts[i]);
        }
        return b.toString();
    }

    /** The replica a majority of the running ones last named as leader, or -1 if none yet. */
    int leader() throws IOException {
        final int[] votes = new int[r];
        for (int i = 0; i < r; i++) {
            if (processes[i] == null || !processes[i].alive()) {
                continue;
            }
            String latest = null;
            final Matcher m = LEADER_LINE.matcher(read(i));
            while (m.find()) {
                latest = m.group(2);
            }
            if (latest != null && latest.startsWith("n")) {
                votes[Integer.parseInt(latest.substring(1)) - 1]++;
            }
        }
        for (int i = 0; i < r; i++) {
            if (votes[i] > r / 2 && processes[i].alive()) {
                return i;
            }
        }
        return -1;
    }

    /** Waits for a leader the running replicas agree on. */
    int awaitLeader() throws IOException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            final int l = leader();
            if (l >= 0) {
                return l;
            }
            sleep(50);
        }
        throw new IOException("no leader within 60 s");
    }

    /** SIGKILL, and waits until it is gone. */
    void kill(final int i) {
        processes[i].kill();
    }

    /** Starts replica {@code i} again on its directory and ports, and waits until it listens. */
    void restart(final int i) throws IOException {
        processes[i] = launch(i);
        awaitReady(i);
    }

    private static void sleep(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        for (ChildProcess p : processes) {
            if (p != null) {
                p.process().destroy();
            }
        }
        for (ChildProcess p : processes) {
            if (p != null) {
                p.stop(STOP_GRACE);
            }
        }
    }
}
