package io.meldb.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server process started by a test, a local cluster or a benchmark: its output (stdout and stderr together) is
 * kept line by line in memory (all of it, or the last lines only for a long-running child) and, when asked, in a
 * file that outlives it; the first line matching the ready pattern is remembered. Closing it stops the process
 * (SIGTERM, then SIGKILL) and every process it started, so a failing caller leaves nothing running. Started by
 * {@link ChildProcessBuilder} (working directory, environment, output file).
 */
public final class ChildProcess implements AutoCloseable {
    private final String name;
    private final List<String> command;
    private final Process process;
    private final Pattern readyPattern;
    private final Path outputFile;
    private final ArrayDeque<String> lines = new ArrayDeque<>();
    private final int keepLines;
    private final CompletableFuture<MatchResult> ready = new CompletableFuture<>();

    private ChildProcess(final String name, final List<String> command, final Process process,
                         final Pattern readyPattern, final Path outputFile, final int keepLines) {
        this.name = name;
        this.keepLines = keepLines;
        this.command = List.copyOf(command);
        this.process = process;
        this.readyPattern = readyPattern;
        this.outputFile = outputFile;
    }

    /**
     * Starts {@code command} in {@code workDir} (null: this JVM's), its output also written to {@code outputFile}
     * (null: memory only); {@code readyPattern} (null: none) is the line {@link #awaitReady} waits for.
     */
    public static ChildProcess start(final String name, final List<String> command, final Path workDir,
                                     final Path outputFile, final Pattern readyPattern) {
        return builder(name, command).directory(workDir).output(outputFile).ready(readyPattern).start();
    }

    /** A child to start: {@code command} (usually {@link JavaCommand#build()}), named {@code name} in messages. */
    public static ChildProcessBuilder builder(final String name, final List<String> command) {
        return new ChildProcessBuilder(name, command);
    }

    /** Starts the process {@code builder} describes and begins reading its output. */
    static ChildProcess start(final String name, final List<String> command, final ProcessBuilder builder,
                              final Path outputFile, final boolean append, final Pattern readyPattern,
                              final int keepLines) {
        // the file is there (created, truncated or opened at its end) when start returns, before any output
        final Writer out = outputFile == null ? null : openOutput(outputFile, append);
        final Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            closeQuietly(out);
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
        final ChildProcess child = new ChildProcess(name, command, process, readyPattern, outputFile, keepLines);
        child.pump(out);
        return child;
    }

    /** Runs {@code command} to its end, for at most {@code timeout} (then kills it and fails). */
    public static Finished run(final String name, final List<String> command, final Duration timeout) {
        try (ChildProcess child = start(name, command, null, null, null)) {
            if (!child.waitFor(timeout)) {
                throw new AssertionError(name + " did not end within " + timeout + ":\n" + child.output());
            }
            child.awaitOutputEnd();
            return new Finished(child.process.exitValue(), child.output());
        }
    }

    /** How a process that ran to its end ended. */
    public record Finished(int exitCode, String output) {
    }

    private static Writer openOutput(final Path file, final boolean append) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            return append ? Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND) : Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the output file " + file, e);
        }
    }

    private static void closeQuietly(final Writer w) {
        if (w != null) {
            try {
                w.close();
            } catch (IOException e) {
                // nothing was written to it
            }
        }
    }

    private void pump(final Writer out) {
        final Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8)); Writer w = out) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (lines) {
                        if (lines.size() == keepLines) {
                            lines.removeFirst();
                        }
                        lines.addLast(line);
                    }
                    if (w != null) {
                        w.write(line);
                        w.write('\n');
                        w.flush();
                    }
                    if (readyPattern != null && !ready.isDone()) {
                        final Matcher m = readyPattern.matcher(line);
                        if (m.find()) {
                            ready.complete(m.toMatchResult());
                        }
                    }
                }
            } catch (IOException e) {
                // the process is gone; what it printed is kept
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

    private void awaitOutputEnd() {
        try {
            ready.handle((r, e) -> null).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // output is as complete as it will get
        }
    }

    /** Waits up to {@code timeout} for the ready line and returns its groups; fails with the output's tail. */
    public MatchResult awaitReady(final Duration timeout) {
        try {
            return ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage() + "; output:\n" + tail(40), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + " printed no ready line within " + timeout + "; output:\n"
                    + tail(40));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public String name() {
        return name;
    }

    public List<String> command() {
        return command;
    }

    public Pattern readyPattern() {
        return readyPattern;
    }

    public Path outputFile() {
        return outputFile;
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Waits up to {@code timeout} for the process to end; whether it did. */
    public boolean waitFor(final Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The processes this one started, as of now. */
    public List<ProcessHandle> descendants() {
        return process.descendants().toList();
    }

    /** Every line printed so far (the last ones only, if the builder said how many to keep). */
    public List<String> outputLines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** Everything printed so far, one line per line. */
    public String output() {
        final StringBuilder b = new StringBuilder();
        for (String l : outputLines()) {
            b.append(l).append('\n');
        }
        return b.toString();
    }

    /** The last {@code n} lines printed. */
    public String tail(final int n) {
        final List<String> all = outputLines();
        return String.join("\n", all.subList(Math.max(0, all.size() - n), all.size()));
    }

    /** The first line printed so far that matches {@code pattern}, or null. */
    public MatchResult find(final Pattern pattern) {
        for (String l : outputLines()) {
            final Matcher m = pattern.matcher(l);
            if (m.find()) {
                return m.toMatchResult();
            }
        }
        return null;
    }

    /** {@code kill -9} ({@link Process#destroyForcibly()} is SIGKILL on Linux); waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        if (!waitFor(Duration.ofSeconds(30))) {
            throw new IllegalStateException(name + " survived SIGKILL for 30 s");
        }
    }

    /** SIGTERM, then SIGKILL after {@code grace}; then whatever it started and left running. */
    public void stop(final Duration grace) {
        final List<ProcessHandle> children = descendants();
        if (process.isAlive()) {
            process.destroy();
            if (!waitFor(grace)) {
                process.destroyForcibly();
                waitFor(Duration.ofSeconds(10));
            }
        }
        for (ProcessHandle child : children) {
            if (child.isAlive()) {
                child.destroyForcibly();
            }
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
