package io.meldb.launcher;

import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * A MeldDB command (log server, txn-server, gateway) as a real process for tests, on the test kit's
 * {@link ChildProcess}: {@code java} with this module's runtime class path (not the test class path, so the
 * command sees what {@code bin/meldb} sees) and the project's JVM flags. {@link #start} returns once a line of its
 * output matches the given pattern; closing stops it and every process it started.
 */
final class JavaProcess implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final ChildProcess child;
    private final MatchResult ready;

    private JavaProcess(final ChildProcess child, final MatchResult ready) {
        this.child = child;
        this.ready = ready;
    }

    /** How a process that ran to its end ended. */
    record Finished(int exitCode, String output) {
    }

    /** Starts {@code mainClass} and waits (up to 90 s) for a line of output matching {@code readyLine}. */
    static JavaProcess start(final String name, final Pattern readyLine, final String mainClass,
                             final String... args) throws IOException {
        final ChildProcess child = ChildProcess.start(name, command(mainClass, args), null, null, readyLine);
        try {
            return new JavaProcess(child, child.awaitReady(READY_TIMEOUT));
        } catch (RuntimeException e) {
            child.close();
            throw new IOException(name + " did not start: " + e.getMessage(), e);
        }
    }

    /** Runs {@code mainClass} to its end, for at most {@code timeout} (then kills it). */
    static Finished run(final Duration timeout, final String mainClass, final String... args) throws IOException {
        final ChildProcess.Finished f = ChildProcess.run(mainClass, command(mainClass, args), timeout);
        return new Finished(f.exitCode(), f.output());
    }

    private static List<String> command(final String mainClass, final String... args) {
        final Path module = Path.of("").toAbsolutePath();
        try {
            final String classpath = module.resolve("target/classes") + java.io.File.pathSeparator
                    + Files.readString(module.resolve("target/runtime-classpath.txt")).trim();
            return JavaCommand.main(mainClass).classpath(classpath).args(args).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long pid() {
        return child.pid();
    }

    /** Kills the process as {@code kill -9} does, and waits until it is gone. */
    void kill() {
        child.kill();
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
        return child.output();
    }

    /** The processes this one started (a local cluster's servers), as of now. */
    List<ProcessHandle> descendants() {
        return child.descendants();
    }

    @Override
    public void close() {
        child.close();
    }

    @Override
    public String toString() {
        return child.toString();
    }
}
