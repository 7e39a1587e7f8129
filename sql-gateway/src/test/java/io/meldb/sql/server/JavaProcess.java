package io.meldb.sql.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A MeldDB command (log server, txn-server, gateway) as a real process for tests: {@code java} with this module's
 * runtime classpath and the project's JVM flags. {@link #start} returns once a line of its output matches the
 * given pattern; closing stops it and every process it started (SIGTERM, then kill).
 */
final class JavaProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Matcher ready;
    private final StringBuilder output;

    private JavaProcess(final String name, final Process process, final Matcher ready, final StringBuilder output) {
        this.name = name;
        this.process = process;
        this.ready = ready;
        this.output = output;
    }

    /** How a process that ran to its end ended. */
    record Finished(int exitCode, String output) {
    }

    /** Starts {@code mainClass} and waits (up to 90 s) for a line of output matching {@code readyLine}. */
    static JavaProcess start(final String name, final Pattern readyLine, final String mainClass,
                             final String... args) throws IOException {
        final List<String> command = command(mainClass, args);
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final CompletableFuture<Matcher> ready = new CompletableFuture<>();
        final StringBuilder output = new StringBuilder();
        final Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    final Matcher m = readyLine.matcher(line);
                    if (!ready.isDone() && m.find()) {
                        ready.complete(m);
                    }
                }
            } catch (IOException e) {
                // process ended
            }
            ready.completeExceptionally(new IOException(name + " exited before it was ready"));
        }, name + "-output");
        reader.setDaemon(true);
        reader.start();
        try {
            return new JavaProcess(name, p, ready.get(90, TimeUnit.SECONDS), output);
        } catch (Exception e) {
            stop(p);
            synchronized (output) {
                throw new IOException(name + " did not start: " + e + "\n" + output, e);
            }
        }
    }

    /** Runs {@code mainClass} to its end, for at most {@code timeout} (then kills it). */
    static Finished run(final Duration timeout, final String mainClass, final String... args)
            throws IOException, InterruptedException {
        final Process p = new ProcessBuilder(command(mainClass, args)).redirectErrorStream(true).start();
        final CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = p.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(output unreadable: " + e + ")";
            }
        });
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            stop(p);
            throw new IOException(mainClass + " did not end within " + timeout + ":\n" + output.join());
        }
        return new Finished(p.exitValue(), output.join());
    }

    private static List<String> command(final String mainClass, final String... args) throws IOException {
        final Path module = Path.of("").toAbsolutePath();
        final String classpath = module.resolve("target/classes") + java.io.File.pathSeparator
                + Files.readString(module.resolve("target/runtime-classpath.txt")).trim();
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(Files.readString(module.resolve("../bin/jvm-flags")).trim().split("\\s+")));
        command.add("-Xmx512m");
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }

    long pid() {
        return process.pid();
    }

    /** Kills the process as {@code kill -9} does, and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Group {@code i} of the ready line. */
    String group(final int i) {
        return ready.group(i);
    }

    /** host:port when the ready line's groups 1 and 2 are host and port. */
    String address() {
        return group(1) + ":" + group(2);
    }

    /** Everything the process has printed so far. */
    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    /** The processes this one started (a local cluster's servers), as of now. */
    List<ProcessHandle> descendants() {
        return process.descendants().toList();
    }

    @Override
    public void close() {
        stop(process);
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }

    private static void stop(final Process process) {
        final List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        for (ProcessHandle child : children) { // what the process did not stop itself
            if (child.isAlive()) {
                child.destroyForcibly();
            }
        }
    }
}
