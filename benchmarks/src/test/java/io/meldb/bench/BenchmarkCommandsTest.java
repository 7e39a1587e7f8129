package io.meldb.bench;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's "Measured" table names, for each figure, the command that reproduces it; this test checks every such
 * command still parses, without running it. A {@code java -jar benchmarks.jar REGEX ...} command is JMH's: its
 * options must parse (JMH's own parser), its regex must match a benchmark of the jar's benchmark list (the one in
 * target/classes, which the shade plugin copies), and each {@code -p} must name a parameter of every benchmark
 * matched. A {@code java ... -cp benchmarks/target/benchmarks.jar CLASS ARGS} command must name a class with a main
 * method, and its arguments must pass that class's {@code static parse(String[])} (the driver's own parser, which
 * throws IllegalArgumentException on a bad argument). A script must exist and be executable, the environment
 * variables set before it must be read by it, and its arguments must pass the parser of the driver the script hands
 * {@code "$@"} to. Renaming a class, a benchmark or a flag fails it.
 */
class BenchmarkCommandsTest {
    private static final Path ROOT = Path.of("..");
    private static final String JAR = "benchmarks/target/benchmarks.jar";
    /** A driver a script forwards its arguments to: {@code -cp "$jar" io.meldb.bench.X ... "$@"}. */
    private static final Pattern FORWARD = Pattern.compile("(io\\.meldb\\.bench\\.[\\w.]+)[^\\n]*\"\\$@\"");

    @Test
    void everyCommandOfTheReadmesMeasuredTableStillParses() throws Exception {
        final List<String> commands = measuredCommands(Files.readString(ROOT.resolve("README.md")));
        assertTrue(commands.size() >= 5, "the Measured table lost its commands: " + commands);
        for (String command : commands) {
            check(command);
        }
    }

    @Test
    void aRenamedBenchmarkOrDriverOrFlagIsCaught() {
        assertThrows("JMH regex matching nothing",
            "java -jar " + JAR + " 'MeldBenchmarkRenamed.meld$' -p txnSize=8");
        assertThrows("unknown JMH parameter",
            "java -jar " + JAR + " 'MeldBenchmark.meld$' -p txnSizes=8");
        assertThrows("unknown JMH option", "java -jar " + JAR + " 'MeldBenchmark.meld$' --no-such-option");
        assertThrows("missing class",
            "java $(cat bin/jvm-flags) -cp " + JAR + " io.meldb.bench.NoSuchBenchmark 8");
        assertThrows("unknown flag",
            "java $(cat bin/jvm-flags) -cp " + JAR + " io.meldb.bench.ReplicatedLogBenchmark --second 10");
        assertThrows("bad positional argument",
            "java $(cat bin/jvm-flags) -cp " + JAR + " io.meldb.bench.CounterBenchmark 8 8 4 serialisable");
        assertThrows("unknown script flag", "benchmarks/run-tpcc.sh --warehouse 1,4");
        assertThrows("environment variable the script does not read",
            "PGBENCH_SECOND=20 benchmarks/run-sql-benchmark.sh");
        assertThrows("missing script", "benchmarks/run-no-such-benchmark.sh --rows 1");
    }

    private static void assertThrows(final String what, final String command) {
        try {
            check(command);
        } catch (AssertionError e) {
            return;
        } catch (Exception e) {
            fail(what + ": " + e);
        }
        fail(what + " passed: " + command);
    }

    /** The first backticked span of the last column of each row of the Measured table ("the same run": none). */
    static List<String> measuredCommands(final String readme) {
        final int start = readme.indexOf("\n## Measured");
        assertTrue(start >= 0, "README.md has no Measured section");
        final int end = readme.indexOf("\n## ", start + 1);
        final List<String> commands = new ArrayList<>();
        int rows = 0;
        for (String line : readme.substring(start, end < 0 ? readme.length() : end).split("\n")) {
            if (!line.startsWith("|") || line.startsWith("| ---") || line.startsWith("|---")) {
                continue;
            }
            final String trimmed = line.strip();
            final String[] cells = trimmed.substring(1, trimmed.length() - 1).split("\\|");
            final String last = cells[cells.length - 1].strip();
            if (rows++ == 0) {
                assertEquals("command", last, "the Measured table's last column is no longer the command");
                continue;
            }
            final Matcher m = Pattern.compile("`([^`]+)`").matcher(last);
            if (m.find()) {
                commands.add(m.group(1));
            } else {
                assertTrue(last.startsWith("the same run"), "a figure without a command: " + line);
            }
        }
        return commands;
    }

    static void check(final String command) throws Exception {
        final List<String> words = words(command);
        final List<String> environment = new ArrayList<>();
        while (!words.isEmpty() && words.get(0).matches("[A-Z_][A-Z0-9_]*=.*")) {
            environment.add(words.remove(0).replaceFirst("=.*", ""));
        }
        assertFalse(words.isEmpty(), "an empty command: " + command);
        if (words.get(0).equals("java")) {
            checkJava(command, words.subList(1, words.size()));
            assertTrue(environment.isEmpty(), "environment for java: " + command);
        } else {
            checkScript(command, words.get(0), environment, words.subList(1, words.size()));
        }
    }

    private static void checkJava(final String command, final List<String> words) throws Exception {
        int i = 0;
        while (i < words.size() && (words.get(i).startsWith("-") || words.get(i).startsWith("$("))) {
            final String w = words.get(i);
            if (w.equals("-jar") || w.equals("-cp")) {
                assertEquals(JAR, words.get(i + 1), "not the benchmarks jar in " + command);
                if (w.equals("-jar")) {
                    checkJmh(command, words.subList(i + 2, words.size()));
                    return;
                }
                i += 2;
                break;
            }
            if (w.startsWith("$(")) {
                assertEquals("$(cat bin/jvm-flags)", w, command);
                assertTrue(Files.isRegularFile(ROOT.resolve("bin/jvm-flags")), "bin/jvm-flags is gone");
            } else {
                assertTrue(w.startsWith("-X") || w.startsWith("-D"), "unexpected JVM option " + w + " in " + command);
            }
            i++;
        }
        assertTrue(i < words.size(), "no main class in " + command);
        checkDriver(command, words.get(i), words.subList(i + 1, words.size()));
    }

    private static void checkJmh(final String command, final List<String> args) throws IOException {
        final CommandLineOptions options;
        try {
            options = new CommandLineOptions(args.toArray(new String[0]));
        } catch (CommandLineOptionException e) {
            throw new AssertionError("JMH rejects the options of " + command + ": " + e.getMessage(), e);
        }
        final List<BenchmarkListEntry> benchmarks = benchmarkList();
        assertFalse(options.getIncludes().isEmpty(), "no benchmark regex in " + command);
        for (String regex : options.getIncludes()) {
            final Pattern p = Pattern.compile(regex);
            final List<BenchmarkListEntry> matched = benchmarks.stream()
                .filter(b -> p.matcher(b.getUsername()).find()).toList();
            assertFalse(matched.isEmpty(), "'" + regex + "' matches no benchmark of the jar: " + command);
            for (int i = 0; i < args.size() - 1; i++) {
                if (args.get(i).equals("-p")) {
                    final String name = args.get(i + 1).replaceFirst("=.*", "");
                    for (BenchmarkListEntry b : matched) {
                        final Map<String, String[]> params = b.getParams().orElse(Map.of());
                        assertTrue(params.containsKey(name), b.getUsername() + " has no parameter " + name + " ("
                            + params.keySet() + "): " + command);
                    }
                }
            }
        }
    }

    /** The JMH benchmarks the annotation processor listed (what the shade plugin puts in the jar). */
    static List<BenchmarkListEntry> benchmarkList() throws IOException {
        try (InputStream in = BenchmarkCommandsTest.class.getResourceAsStream(BenchmarkList.BENCHMARK_LIST)) {
            assertNotNull(in, BenchmarkList.BENCHMARK_LIST + " is not on the class path");
            return BenchmarkList.readBenchmarkList(in);
        }
    }

    private static void checkDriver(final String command, final String className, final List<String> args)
        throws Exception {
        final Class<?> driver;
        try {
            driver = Class.forName(className);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("no class " + className + " in the benchmarks: " + command, e);
        }
        assertNotNull(driver.getMethod("main", String[].class), className + " has no main");
        final Method parse;
        try {
            parse = driver.getDeclaredMethod("parse", String[].class);
        } catch (NoSuchMethodException e) {
            throw new AssertionError(className + " has no static parse(String[]) to check its arguments with", e);
        }
        parse.setAccessible(true);
        try {
            parse.invoke(null, (Object) args.toArray(new String[0]));
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException) {
                throw new AssertionError(className + " rejects " + args + ": " + e.getCause().getMessage() + " ("
                    + command + ")", e.getCause());
            }
            throw e;
        }
    }

    private static void checkScript(final String command, final String script, final List<String> environment,
                                    final List<String> args) throws Exception {
        final Path file = ROOT.resolve(script);
        assertTrue(Files.isRegularFile(file), "no script " + script + ": " + command);
        assertTrue(Files.isExecutable(file), script + " is not executable");
        final String text = Files.readString(file);
        for (String variable : environment) {
            assertTrue(Pattern.compile("\\$\\{" + variable + "[}:-]").matcher(text).find(),
                script + " does not read " + variable + ": " + command);
        }
        final Matcher m = FORWARD.matcher(text);
        assertTrue(m.find(), script + " hands its arguments to no benchmark driver");
        checkDriver(command, m.group(1), args);
    }

    /** Shell words: quotes removed, a {@code $(...)} kept as one word. */
    static List<String> words(final String command) {
        final List<String> words = new ArrayList<>();
        final StringBuilder w = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < command.length(); i++) {
            final char c = command.charAt(i);
            if (c == '\'' || c == '"') {
                final int close = command.indexOf(c, i + 1);
                assertTrue(close > i, "unbalanced quote in " + command);
                w.append(command, i + 1, close);
                i = close;
                inWord = true;
            } else if (c == '$' && i + 1 < command.length() && command.charAt(i + 1) == '(') {
                final int close = command.indexOf(')', i);
                assertTrue(close > i, "unbalanced $( in " + command);
                w.append(command, i, close + 1);
                i = close;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(w.toString());
                    w.setLength(0);
                    inWord = false;
                }
            } else {
                w.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(w.toString());
        }
        return words;
    }
}
