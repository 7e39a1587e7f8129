package io.meldb.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The command line of a MeldDB server JVM started by a test: this JDK's {@code java}, the project's JVM flags from
 * {@code bin/jvm-flags} (the one place they are written), a heap size, a class path (by default the test JVM's
 * own) and the main class with its arguments.
 */
public final class JavaCommand {
    private final String mainClass;
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private String classpath = System.getProperty("java.class.path");
    private String heap = "512m";

    private JavaCommand(final String mainClass) {
        this.mainClass = mainClass;
    }

    /** A command that runs {@code mainClass}. */
    public static JavaCommand main(final String mainClass) {
        return new JavaCommand(mainClass);
    }

    public JavaCommand classpath(final String newClasspath) {
        this.classpath = newClasspath;
        return this;
    }

    /** {@code -Xmx} of the child, e.g. {@code "512m"}. */
    public JavaCommand heap(final String maxHeap) {
        this.heap = maxHeap;
        return this;
    }

    /** JVM options after the project's flags (system properties, GC settings). */
    public JavaCommand jvmArgs(final String... more) {
        jvmArgs.addAll(Arrays.asList(more));
        return this;
    }

    public JavaCommand args(final String... more) {
        args.addAll(Arrays.asList(more));
        return this;
    }

    public JavaCommand args(final List<String> more) {
        args.addAll(more);
        return this;
    }

    public List<String> build() {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags());
        cmd.add("-Xmx" + heap);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return List.copyOf(cmd);
    }

    /** The flags of {@code bin/jvm-flags}, looked for from the working directory (a module's or the root) upwards. */
    public static List<String> jvmFlags() {
        return readFlags(flagsFile());
    }

    /** {@code bin/jvm-flags} of this checkout. */
    public static Path flagsFile() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (dir != null) {
            final Path candidate = dir.resolve("bin").resolve("jvm-flags");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("bin/jvm-flags not found from " + System.getProperty("user.dir"));
    }

    static List<String> readFlags(final Path file) {
        try {
            final String text = Files.readString(file).trim();
            return text.isEmpty() ? List.of() : List.of(text.split("\\s+"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
