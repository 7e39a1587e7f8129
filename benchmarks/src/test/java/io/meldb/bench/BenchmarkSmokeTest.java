package io.meldb.bench;

import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Benchmarks that cannot break silently (issue 37): every JMH benchmark and every load driver of this module runs
 * from the shipped jar ({@code target/benchmarks.jar}, built by the package phase before this tier runs) for a moment
 * with its smallest arguments, and must start, measure and stop: exit 0 and print a figure. It measures nothing.
 * The JMH benchmarks run in one JMH invocation, one fork each (the fork takes its flags from the benchmark's
 * {@code @Fork}, i.e. bin/jvm-flags), no warm-up and one 100 ms iteration at each parameter's smallest value; each
 * must have a score in JMH's result file. A driver new to the module fails {@link #everyMainClassHasASmokeRun}
 * until it is given a run here.
 */
@Tag("process")
class BenchmarkSmokeTest {
    private static final Path JAR = Path.of("target", "benchmarks.jar");

    /** One driver's smoke run: its smallest arguments and a regex (multi-line) of the figure it must print. */
    private record Driver(String mainClass, String figure, String... args) {
    }

    /** Everything a driver starts, it starts itself (servers in its JVM or as its children); MeldDB targets only. */
    private static final List<Driver> DRIVERS = List.of(
        new Driver("io.meldb.bench.AlterTableBenchmark", "^\\s+1000\\s+\\d+\\.\\d\\s+\\d+\\.\\d", "1000"),
        new Driver("io.meldb.bench.CounterBenchmark", "^\\s+2\\s+off\\s+\\d+\\s+\\d+\\.\\d+\\s+\\d+\\.\\d\\s+yes$",
            "2", "1", "2", "serializable"),
        new Driver("io.meldb.bench.SequenceInsertBenchmark", "^\\s+1\\s+\\d+\\.\\d\\s+\\d+\\.\\d$", "100", "1"),
        new Driver("io.meldb.bench.ReorderBenchmark", "^\\| uniform \\(meld cost\\) \\| 8 \\| W=64 [^|]+\\| [\\d.]+ "
            + "\\| [\\d,]+ \\|", "8", "100"),
        new Driver("io.meldb.bench.CommitThreadCpu", "^\\d+ commits/s; committer=", "--commits", "200", "--rows",
            "1000"),
        new Driver("io.meldb.bench.ServerReorderBenchmark", "Median of 1 rounds[\\s\\S]*^\\| high contention "
            + "0.1%/95% \\| W=64 \\| [\\d,]+ \\|", "4", "1", "1", "0", "min-aborts"),
        new Driver("io.meldb.bench.PgStatementAllocation", "^txn\\s+\\d+\\.\\d\\s", "--statements", "200",
            "--warmup", "200", "--rows", "100"),
        new Driver("io.meldb.bench.tpcc.TpccMemoryRun", "^\\d+ tps over 2 s$[\\s\\S]*consistency conditions 1-3 hold",
            "--warehouses", "1", "--threads", "1", "--seconds", "2", "--items", "100", "--customers", "30",
            "--sample", "1"),
        new Driver("io.meldb.bench.LargeTxnBenchmark", "^UPDATE of every row \\(one statement\\)\\s+1000\\s.*\\d$",
            "--rows", "1000"),
        new Driver("io.meldb.bench.ReplicatedLogBenchmark", "^\\| r = 3 \\| [\\d,]+ \\|", "--seconds", "1",
            "--window", "4", "--failovers", "1"),
        new Driver("io.meldb.bench.LogAppendBenchmark", "^\\| 1 clients over loopback \\|\\s+[\\d,]+ \\|",
            "--runs", "1", "--warmup", "1", "--seconds", "1", "--clients", "1", "--pretouch", "false"),
        new Driver("io.meldb.bench.LogCatchUpBenchmark", "^\\| while a subscriber catches up from disk "
            + "\\([\\d,]+ blocks/s\\) \\| [\\d.]+ \\|", "--blocks", "1000", "--rate", "500",
            "--seconds", "1", "--runs", "1"),
        new Driver("io.meldb.bench.YcsbDriver", "^median of 1: committed tps \\d+, abort rate", "--records", "1000",
            "--duration", "1", "--warmup", "1", "--runs", "1", "--threads", "1"),
        new Driver("io.meldb.bench.JdbcYcsbBenchmark", "^\\| MeldDB embedded \\| \\d+ \\|"
            + "[\\s\\S]*^\\| H2 embedded \\(MVStore\\) \\| \\d+ \\|", "1000", "2", "1", "50", "1"),
        // a few seconds cannot tell growth from warm-up: the verdict's tolerance is wide, the run must still pass
        new Driver("io.meldb.bench.SoakDriver", "^# totals: [\\d,]+ commits,[\\s\\S]*^# verdict: FLAT", "--minutes",
            "0.05", "--report-seconds", "1", "--keys", "1000", "--min-free-gb", "0", "--tolerance", "1000"),
        new Driver("io.meldb.bench.SqlTxnBenchmark", "consistency, MeldDB: OK", "--targets", "meld-pg,meld-avatica",
            "--rows", "1000", "--seconds", "1", "--warmup", "1", "--rounds", "1", "--variant", "update"),
        new Driver("io.meldb.bench.tpcc.TpccBenchmark", "^\\| MeldDB, increments \\| [\\d.]+ \\| \\d+ \\|"
            + "[\\s\\S]*^consistency MeldDB: OK", "--targets", "meld", "--warehouses", "1",
            "--threads", "1", "--seconds", "1", "--warmup", "1", "--rounds", "1", "--items", "100", "--customers",
            "30"));

    @TempDir
    static Path tmp;

    @BeforeAll
    static void theJarIsBuilt() {
        assertTrue(Files.isRegularFile(JAR), JAR.toAbsolutePath() + " is missing: this tier runs after the package "
            + "phase (./mvnw -B -pl benchmarks -am verify)");
    }

    @Test
    void everyMainClassHasASmokeRun() throws Exception {
        final Set<String> mains = new TreeSet<>();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            for (String name : jar.stream().map(e -> e.getName())
                .filter(n -> n.startsWith("io/meldb/bench/") && n.endsWith(".class") && !n.contains("$")
                    && !n.contains("/jmh_generated/"))
                .toList()) {
                final Class<?> c = Class.forName(name.replace('/', '.').replaceFirst("\\.class$", ""));
                for (Method m : c.getDeclaredMethods()) {
                    if (m.getName().equals("main") && Modifier.isStatic(m.getModifiers())
                        && Modifier.isPublic(m.getModifiers())) {
                        mains.add(c.getName());
                    }
                }
            }
        }
        assertEquals(mains, DRIVERS.stream().map(Driver::mainClass).collect(Collectors.toCollection(TreeSet::new)),
            "every driver of benchmarks/ needs a smoke run in DRIVERS (and every smoke run a driver)");
    }

    @Test
    void everyJmhBenchmarkMeasuresOnce() throws IOException {
        final List<BenchmarkListEntry> benchmarks;
        try (JarFile jar = new JarFile(JAR.toFile());
             InputStream in = jar.getInputStream(jar.getEntry(BenchmarkList.BENCHMARK_LIST.substring(1)))) {
            benchmarks = BenchmarkList.readBenchmarkList(in);
        }
        assertTrue(benchmarks.size() >= 5, "the jar lists " + benchmarks.size() + " benchmarks");
        // each parameter at its smallest declared value (numbers by value, others by their first declared)
        final Map<String, String> smallest = new TreeMap<>();
        for (BenchmarkListEntry b : benchmarks) {
            b.getParams().orElse(Map.of()).forEach((name, values) -> {
                for (String v : values) {
                    smallest.merge(name, v, (a, c) -> isNumber(a) && isNumber(c)
                        ? (Double.parseDouble(c) < Double.parseDouble(a) ? c : a) : a);
                }
            });
        }
        final Path results = tmp.resolve("jmh.csv");
        final List<String> args = new ArrayList<>(List.of("-f", "1", "-wi", "0", "-i", "1", "-r", "100ms", "-foe",
            "true", "-rf", "csv", "-rff", results.toString()));
        smallest.forEach((name, value) -> args.addAll(List.of("-p", name + "=" + value)));
        for (BenchmarkListEntry b : benchmarks) {
            args.add(Pattern.quote(b.getUsername()) + "$");
        }
        final ChildProcess.Finished run = ChildProcess.run("jmh", JavaCommand.main("org.openjdk.jmh.Main")
            .classpath(JAR.toString()).heap("256m").jvmArgs("-Djava.io.tmpdir=" + tmp).args(args).build(),
            Duration.ofMinutes(3));
        assertEquals(0, run.exitCode(), "JMH failed:\n" + run.output());
        final String csv = Files.readString(results);
        for (BenchmarkListEntry b : benchmarks) {
            final Pattern row = Pattern.compile("^\"" + Pattern.quote(b.getUsername())
                + "\",\"[^\"]+\",1,1,(\\d+(\\.\\d+)?([eE][-+]?\\d+)?),", Pattern.MULTILINE);
            final var m = row.matcher(csv);
            assertTrue(m.find(), b.getUsername() + " has no result:\n" + csv + "\n" + run.output());
            assertTrue(Double.parseDouble(m.group(1)) > 0, b.getUsername() + " scored 0:\n" + csv);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyLoadDriverStartsMeasuresAndStops() {
        return DRIVERS.stream().map(d -> DynamicTest.dynamicTest(d.mainClass(), () -> run(d)));
    }

    private static void run(final Driver d) throws IOException {
        final Path dir = Files.createDirectories(tmp.resolve(d.mainClass()));
        final long started = System.nanoTime();
        final ChildProcess.Finished run = ChildProcess.run(d.mainClass(), JavaCommand.main(d.mainClass())
            .classpath(JAR.toString()).heap("1g").jvmArgs("-Djava.io.tmpdir=" + dir).args(d.args()).build(),
            Duration.ofSeconds(90));
        final String where = d.mainClass() + " " + String.join(" ", d.args()) + " (" + (System.nanoTime() - started)
            / 1_000_000 + " ms):\n" + run.output();
        assertEquals(0, run.exitCode(), "exit status of " + where);
        assertNotNull(Pattern.compile(d.figure(), Pattern.MULTILINE).matcher(run.output()).results().findAny()
            .orElse(null), "no figure /" + d.figure() + "/ from " + where);
    }

    private static boolean isNumber(final String s) {
        return s.matches("-?\\d+(\\.\\d+)?");
    }
}
