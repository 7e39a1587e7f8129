package io.meldb.txn.cluster;

import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * Real MeldDB server processes for multi-process tests: a log server and txn-servers, each a separate {@code java}
 * process started with this test's class path and the project's JVM flags ({@code bin/jvm-flags}), listening on
 * loopback with port 0 (the ports are read from the line each server prints when it is ready). Each process's
 * output goes to a file under the test's directory; {@link #printOutputs} shows them when a test fails.
 * {@link #close()} stops every process this cluster started, killed or not.
 */
final class ProcessCluster implements AutoCloseable {
    static final Pattern LOG_READY = Pattern.compile("log-server listening on (\\S+):(\\d+)");
    static final Pattern TXN_READY = Pattern.compile(
        "txn-server (\\d+) listening on (\\S+):(\\d+) \\((?:metrics on :(\\d+)|metrics off)\\) incarnation (\\d+)"
            + " csn (\\d+)");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final Path dir;
    private final List<ServerProcess> started = new CopyOnWriteArrayList<>();

    ProcessCluster(final Path dir) {
        this.dir = dir;
    }

    /** Starts a log server with its data under this cluster's directory and waits until it listens. */
    ServerProcess startLogServer() {
        final ServerProcess p = launch("log-server", LOG_READY, List.of("io.meldb.log.server.LogServerMain",
            "--host", "127.0.0.1", "--port", "0", "--metrics-port", "-1", "--data-dir", dir.resolve("log").toString()));
        p.awaitReady();
        return p;
    }

    /**
     * Starts {@code r} log servers replicating one log (issue 22), node ids {@code n1..nr}, on loopback ports picked
     * here (Raft and log), and waits until all listen. {@link #logAddresses} lists their log addresses.
     */
    List<ServerProcess> startReplicatedLogServers(final int r) {
        // named before any server starts: distinct, and below the range outgoing connections take theirs from
        final int[] ports;
        try {
            ports = io.meldb.testkit.FreePorts.distinctBelowEphemeralRange(2 * r);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        final int[] raft = java.util.Arrays.copyOfRange(ports, 0, r);
        final int[] log = java.util.Arrays.copyOfRange(ports, r, 2 * r);
        final StringBuilder peers = new StringBuilder();
        for (int i = 0; i < r; i++) {
            peers.append(i == 0 ? "" : ",").append("n").append(i + 1).append("=127.0.0.1:").append(raft[i]).append(':')
                .append(log[i]);
        }
        final List<ServerProcess> servers = new ArrayList<>();
        for (int i = 0; i < r; i++) {
            servers.add(launch("log-server-n" + (i + 1), LOG_READY, List.of("io.meldb.log.server.LogServerMain",
                "--host", "127.0.0.1", "--port", String.valueOf(log[i]), "--metrics-port", "-1",
                "--data-dir", dir.resolve("log-n" + (i + 1)).toString(), "--replication-factor", String.valueOf(r),
                "--node-id", "n" + (i + 1), "--peers", peers.toString())));
        }
        for (ServerProcess p : servers) {
            p.awaitReady();
        }
        return servers;
    }

    /** {@code host:port,...} of these log servers, for a txn-server's {@code --log}. */
    static String logAddresses(final List<ServerProcess> servers) {
        final StringBuilder b = new StringBuilder();
        for (ServerProcess p : servers) {
            b.append(b.isEmpty() ? "" : ",").append(p.address());
        }
        return b.toString();
    }

    /** Starts (without waiting for it) txn-server {@code serverId} on the log at {@code log}. */
    ServerProcess launchTxnServer(final int serverId, final String log, final String... flags) {
        final List<String> args = new ArrayList<>(List.of("io.meldb.txn.TxnServerMain", "--server-id",
            String.valueOf(serverId), "--log", log, "--host", "127.0.0.1", "--port", "0", "--metrics-port", "-1"));
        args.addAll(Arrays.asList(flags));
        return launch("txn-server-" + serverId, TXN_READY, args);
    }

    /** Starts the same command as {@code dead} again (same server id, same log, same flags) and waits. */
    ServerProcess restart(final ServerProcess dead) {
        if (dead.alive()) {
            throw new IllegalStateException(dead.name + " is still running");
        }
        final ServerProcess p = launch(dead.name, dead.readyPattern, dead.args);
        p.awaitReady();
        return p;
    }

    /**
     * Starts the same command as {@code dead} again on the port it listened on (its {@code --port 0} replaced by
     * that port), so that clients configured with its address find it again, and waits until it listens.
     */
    ServerProcess restartOnSamePort(final ServerProcess dead) {
        if (dead.alive()) {
            throw new IllegalStateException(dead.name + " is still running");
        }
        final List<String> args = new ArrayList<>(dead.args);
        args.set(args.indexOf("--port") + 1, String.valueOf(dead.port()));
        final ServerProcess p = launch(dead.name, dead.readyPattern, args);
        p.awaitReady();
        return p;
    }

    /** {@code args}: the main class, then its arguments. */
    private ServerProcess launch(final String name, final Pattern ready, final List<String> args) {
        int n = 1;
        Path out = dir.resolve(name + ".out");
        while (Files.exists(out)) {
            out = dir.resolve(name + "." + (++n) + ".out");
        }
        final List<String> cmd = JavaCommand.main(args.get(0)).args(args.subList(1, args.size())).build();
        final ChildProcess child = ChildProcess.start(n == 1 ? name : name + "#" + n, cmd, dir, out, ready);
        final ServerProcess p = new ServerProcess(name, ready, args, child);
        started.add(p);
        return p;
    }

    List<ServerProcess> started() {
        return started;
    }

    /** Prints every process's output (the last {@code maxLines} lines of each). */
    void printOutputs(final PrintStream to, final int maxLines) {
        for (ServerProcess p : started) {
            final List<String> lines = p.outputLines();
            to.println("===== " + p.child.name() + " (" + p.child.outputFile() + ", " + lines.size() + " lines"
                + (p.alive() ? ", running" : ", exit " + p.child.process().exitValue()) + ") =====");
            for (String l : lines.subList(Math.max(0, lines.size() - maxLines), lines.size())) {
                to.println(l);
            }
        }
        to.flush();
    }

    /** Stops every process, txn-servers before the log server (newest first), gracefully and then by force. */
    @Override
    public void close() {
        final List<ServerProcess> all = new ArrayList<>(started);
        for (int i = all.size() - 1; i >= 0; i--) {
            final ServerProcess p = all.get(i);
            if (p.alive()) {
                p.child.process().destroy();
            }
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            all.get(i).child.stop(Duration.ofSeconds(10));
        }
    }

    /** One server process, with what its ready line says (address, incarnation, CSN). */
    static final class ServerProcess {
        final String name;
        final Pattern readyPattern;
        final List<String> args;
        final ChildProcess child;

        ServerProcess(final String name, final Pattern readyPattern, final List<String> args,
                      final ChildProcess child) {
            this.name = name;
            this.readyPattern = readyPattern;
            this.args = List.copyOf(args);
            this.child = child;
        }

        /** Waits for the ready line and returns its groups. */
        MatchResult awaitReady() {
            return child.awaitReady(READY_TIMEOUT);
        }

        /** The ready line's matched groups (waits for it). */
        MatchResult readyLine() {
            return awaitReady();
        }

        String host() {
            return readyPattern == TXN_READY ? readyLine().group(2) : readyLine().group(1);
        }

        int port() {
            return Integer.parseInt(readyPattern == TXN_READY ? readyLine().group(3) : readyLine().group(2));
        }

        String address() {
            return host() + ":" + port();
        }

        /** Incarnation printed in a txn-server's ready line. */
        long incarnation() {
            return Long.parseLong(readyLine().group(5));
        }

        /** CSN printed in a txn-server's ready line. */
        long readyCsn() {
            return Long.parseLong(readyLine().group(6));
        }

        boolean alive() {
            return child.alive();
        }

        /** {@code kill -9}; waits until it is gone. */
        void kill() {
            child.kill();
        }

        List<String> outputLines() {
            return child.outputLines();
        }

        /** The first line of the output so far that matches {@code pattern}, or null. */
        MatchResult find(final Pattern pattern) {
            return child.find(pattern);
        }

        String tail(final int lines) {
            return child.tail(lines);
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
