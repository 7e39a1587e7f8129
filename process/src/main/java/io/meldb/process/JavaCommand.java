package io.meldb.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * The command line of a MeldDB server JVM started as a child process: this JDK's {@code java}, the project's JVM
 * flags, a heap size, a class path (by default this JVM's own) and the main class with its arguments. The flags come
 * from {@code bin/jvm-flags} (the one place they are written), or, for a child of a MeldDB process that was itself
 * started with them (bin/meldb, a benchmark run as {@code java $(cat bin/jvm-flags) ...}), from this JVM's own
 * options, so that a checkout need not be around and the caller's extra options (MELDB_JAVA_OPTS) carry over.
 */
public final class JavaCommand {
    private final String mainClass;
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final List<String> wrapper = new ArrayList<>();
    private String classpath = System.getProperty("java.class.path");
    private String heap = "512m";
    private Predicate<String> inheritFlags;

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

    /**
     * The flags of this JVM ({@link #thisJvmFlags()}) instead of {@code bin/jvm-flags}, and no {@code -Xmx} of its
     * own unless {@link #heap} is called after this: the child runs as its parent was started.
     */
    public JavaCommand inheritJvmFlags() {
        return inheritJvmFlags(flag -> true);
    }

    /** As {@link #inheritJvmFlags()}, keeping only the options {@code keep} accepts (say, not the parent's heap). */
    public JavaCommand inheritJvmFlags(final Predicate<String> keep) {
        this.inheritFlags = keep;
        this.heap = null;
        return this;
    }

    /** {@code -Xmx} of the child, e.g. {@code "512m"}; null: none (the JVM's default, or an inherited one). */
    public JavaCommand heap(final String maxHeap) {
        this.heap = maxHeap;
        return this;
    }

    /** A command the JVM runs under, before {@code java} (say {@code taskset -c 2-3}, to pin the child's CPUs). */
    public JavaCommand runUnder(final String... command) {
        wrapper.addAll(Arrays.asList(command));
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
        final List<String> cmd = new ArrayList<>(wrapper);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (inheritFlags == null) {
            cmd.addAll(jvmFlags());
        } else {
            thisJvmFlags().stream().filter(inheritFlags).forEach(cmd::add);
        }
        if (heap != null) {
            cmd.add("-Xmx" + heap);
        }
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return List.copyOf(cmd);
    }

    /** A tool of this JDK ({@code keytool}, {@code jcmd}): its path beside this JVM's {@code java}. */
    public static String jdkTool(final String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    /** The flags of {@code bin/jvm-flags}, looked for from the working directory (a module's or the root) upwards. */
    public static List<String> jvmFlags() {
        return readFlags(flagsFile());
    }

    /**
     * Whether {@code flag} is one of the kinds {@code bin/jvm-flags} holds for Chronicle Queue and Agrona (module
     * access, Chronicle's switches) rather than a heap or GC setting: what a benchmark passes on to its servers,
     * with {@link #inheritJvmFlags(Predicate)}, while giving them heaps of their own.
     */
    public static boolean isModuleFlag(final String flag) {
        return flag.startsWith("--add-opens") || flag.startsWith("--add-exports") || flag.startsWith("-Dchronicle");
    }

    /** The options this JVM was started with (its {@code bin/jvm-flags}, heap and any others). */
    public static List<String> thisJvmFlags() {
        return List.copyOf(ManagementFactory.getRuntimeMXBean().getInputArguments());
    }

    /**
     * {@code bin/jvm-flags}: the file named by the system property {@code meldb.jvm.flags.file} if set, else the one
     * of this checkout, looked for from the working directory upwards.
     */
    public static Path flagsFile() {
        final String named = System.getProperty("meldb.jvm.flags.file");
        if (named != null && !named.isBlank()) {
            final Path file = Path.of(named);
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException("meldb.jvm.flags.file names no file: " + named);
            }
            return file;
        }
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
