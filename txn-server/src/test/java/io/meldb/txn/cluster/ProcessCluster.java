package io.meldb.txn.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
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
    private final List<String> jvm;
    private final List<ServerProcess> started = new CopyOnWriteArrayList<>();

    ProcessCluster(final Path dir) {
        this.dir = dir;
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags());
        cmd.add("-Xmx512m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        this.jvm = List.copyOf(cmd);
    }

    /** The flags of {@code bin/jvm-flags} (the module's tests run in the module directory). */
    private static List<String> jvmFlags() {
        final Path cwd = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path p : List.of(cwd.resolve("../bin/jvm-flags"), cwd.resolve("bin/jvm-flags"))) {
            if (Files.isRegularFile(p)) {
                try {
                    final String text = Files.readString(p).trim();
                    return text.isEmpty() ? List.of() : Arrays.asList(text.split("\\s+"));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        throw new IllegalStateException("bin/jvm-flags not found from " + cwd);
    }

    /** Starts a log server with its data under this cluster's directory and waits until it listens. */
    ServerProcess startLogServer() {
        final ServerProcess p = launch("log-server", LOG_READY, List.of("io.meldb.log.server.LogServerMain",
            "--host", "127.0.0.1", "--port", "0", "--metrics-port", "-1", "--data-dir", dir.resolve("log").toString()));
        p.awaitReady();
        return p;
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
        if (dead.process.isAlive()) {
            throw new IllegalStateException(dead.name + " is still running");
        }
        final ServerProcess p = launch(dead.name, dead.readyPattern, dead.args);
        p.awaitReady();
        return p;
    }

    private ServerProcess launch(final String name, final Pattern ready, final List<String> args) {
        final List<String> cmd = new ArrayList<>(jvm);
        cmd.addAll(args);
        int n = 1;
        Path out = dir.resolve(name + ".out");
        while (Files.exists(out)) {
            out = dir.resolve(name + "." + (++n) + ".out");
        }
        final Process process;
        try {
            Files.createDirectories(dir);
            process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
        final ServerProcess p = new ServerProcess(n == 1 ? name : name + "#" + n, ready, args, process, out);
        started.add(p);
        p.pump();
        return p;
    }

    List<ServerProcess> started() {
        return started;
    }

    /** Prints every process's output (the last {@code maxLines} lines of each). */
    void printOutputs(final PrintStream to, final int maxLines) {
        for (ServerProcess p : started) {
            final List<String> lines = p.outputLines();
            to.println("===== " + p.name + " (" + p.output + ", " + lines.size() + " lines"
                + (p.process.isAlive() ? ", running" : ", exit " + p.process.exitValue()) + ") =====");
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
            if (p.process.isAlive()) {
                p.process.destroy();
            }
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            all.get(i).stop(Duration.ofSeconds(10));
        }
    }

    /** One server process. */
    static final class ServerProcess {
        final String name;
        final Pattern readyPattern;
        final List<String> args;
        final Process process;
        final Path output;
        private final CompletableFuture<MatchResult> ready = new CompletableFuture<>();
        private final Object fileLock = new Object();

        ServerProcess(final String name, final Pattern readyPattern, final List<String> args, final Process process,
                      final Path output) {
            this.name = name;
            this.readyPattern = readyPattern;
            this.args = List.copyOf(args);
            this.process = process;
            this.output = output;
        }

        private void pump() {
            final Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8)); Writer w = Files.newBufferedWriter(output, StandardCharsets.UTF_8)) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        synchronized (fileLock) {
                            w.write(line);
                            w.write('\n');
                            w.flush();
                        }
                        if (!ready.isDone()) {
                            final Matcher m = readyPattern.matcher(line);
                            if (m.find()) {
                                ready.complete(m.toMatchResult());
                            }
                        }
                    }
                } catch (IOException e) {
                    // the process is gone; what it printed is in the file
                } finally {
                    ready.completeExceptionally(new IllegalStateException(name + " ended before it was ready"
                        + exitNote()));
                }
            }, "output-" + name);
            t.setDaemon(true);
            t.start();
        }

        private String exitNote() {
            try {
                return process.waitFor(2, TimeUnit.SECONDS) ? " (exit " + process.exitValue() + ")" : "";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "";
            }
        }

        /** Waits for the ready line and returns its groups. */
        MatchResult awaitReady() {
            try {
                return ready.get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause().getMessage() + "; output:\n" + tail(40), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException(name + " printed no ready line within " + READY_TIMEOUT
                    + "; output:\n" + tail(40));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
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
            return process.isAlive();
        }

        /** {@code kill -9}: {@link Process#destroyForcibly()} is SIGKILL on Linux. Waits until it is gone. */
        void kill() {
            process.destroyForcibly();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(name + " survived SIGKILL for 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }

        /** SIGTERM, then SIGKILL after {@code grace}. */
        void stop(final Duration grace) {
            try {
                if (process.isAlive()) {
                    process.destroy();
                    if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                        process.destroyForcibly();
                        process.waitFor(10, TimeUnit.SECONDS);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }

        List<String> outputLines() {
            synchronized (fileLock) {
                try {
                    return Files.exists(output) ? Files.readAllLines(output, StandardCharsets.UTF_8) : List.of();
                } catch (IOException e) {
                    return List.of("(cannot read " + output + ": " + e + ")");
                }
            }
        }

        /** Whether some line of the output so far matches {@code pattern}; the first match, or null. */
        MatchResult find(final Pattern pattern) {
            for (String l : outputLines()) {
                final Matcher m = pattern.matcher(l);
                if (m.find()) {
                    return m.toMatchResult();
                }
            }
            return null;
        }

        String tail(final int lines) {
            final List<String> all = outputLines();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
