package io.meldb.process;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * How to start one {@link ChildProcess}: the command, and where a caller needs more than the defaults, its working
 * directory, changes to the environment it inherits, the file its output also goes to (truncated or appended to),
 * the ready line and how many lines of output to keep in memory. The only place MeldDB calls {@link ProcessBuilder}
 * for a JVM child, so that output handling and stopping are the same everywhere.
 */
public final class ChildProcessBuilder {
    private final String name;
    private final List<String> command;
    private Path directory;
    private Consumer<Map<String, String>> environment;
    private Path outputFile;
    private boolean append;
    private Pattern readyPattern;
    private int keepLines = Integer.MAX_VALUE;

    ChildProcessBuilder(final String name, final List<String> command) {
        this.name = name;
        this.command = List.copyOf(command);
    }

    /** The child's working directory; null (the default): this JVM's. */
    public ChildProcessBuilder directory(final Path dir) {
        this.directory = dir;
        return this;
    }

    /** Edits the environment the child inherits from this JVM (the map is the child's, changes go nowhere else). */
    public ChildProcessBuilder environment(final Consumer<Map<String, String>> edit) {
        this.environment = edit;
        return this;
    }

    /** The file the output also goes to, truncated first; null (the default): memory only. */
    public ChildProcessBuilder output(final Path file) {
        this.outputFile = file;
        this.append = false;
        return this;
    }

    /** The file the output also goes to, after what it holds already (a restarted server's earlier runs). */
    public ChildProcessBuilder appendOutput(final Path file) {
        this.outputFile = file;
        this.append = true;
        return this;
    }

    /** The line {@link ChildProcess#awaitReady} waits for; null (the default): none. */
    public ChildProcessBuilder ready(final Pattern pattern) {
        this.readyPattern = pattern;
        return this;
    }

    /**
     * Keeps only the last {@code lines} lines of output in memory (the file keeps all): for a child that runs for
     * hours. Default: every line, as a test wants.
     */
    public ChildProcessBuilder keepLines(final int lines) {
        if (lines < 1) {
            throw new IllegalArgumentException("keepLines must be at least 1: " + lines);
        }
        this.keepLines = lines;
        return this;
    }

    /** Starts it; the output is read from now on. */
    public ChildProcess start() {
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        if (environment != null) {
            environment.accept(builder.environment());
        }
        return ChildProcess.start(name, command, builder, outputFile, append, readyPattern, keepLines);
    }
}
