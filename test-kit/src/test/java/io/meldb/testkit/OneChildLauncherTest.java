package io.meldb.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 19's "one child-process launcher", held against the sources (main and test) of every module: only the
 * process module builds a JVM's command line (the java binary, this JVM's options) or calls ProcessBuilder, except
 * for the files below, which run external tools (psql, pgbench, python, kill, du, sync, mount,
 * PostgreSQL's initdb and pg_ctl), not JVM children.
 * Test sources count too: a test's server JVM goes through the same classes, which test-kit brings along.
 */
class OneChildLauncherTest {
    /** Files that start external tools, not JVMs; each is checked to still do so. */
    private static final Set<String> EXTERNAL_TOOLS = Set.of(
            "sql-gateway/src/test/java/io/meldb/sql/pg/PsycopgTest.java",
            "sql-gateway/src/test/java/io/meldb/sql/pg/PgbenchTest.java",
            "sql-gateway/src/test/java/io/meldb/sql/pg/PsqlTest.java",
            "sql-gateway/src/test/java/io/meldb/sql/pgdiff/ReferencePostgres.java",
            "log-server/src/test/java/io/meldb/log/server/LogServerDiskFullTest.java",
            "log-server/src/test/java/io/meldb/log/replication/ReplicatedLogPauseTest.java",
            "launcher/src/test/java/io/meldb/launcher/CommitInFlightTest.java",
            "benchmarks/src/main/java/io/meldb/bench/SoakDriver.java",
            "benchmarks/src/main/java/io/meldb/bench/LogCatchUpBenchmark.java",
            "benchmarks/src/main/java/io/meldb/bench/LogAppendBenchmark.java");

    @Test
    void shouldStartJvmChildrenOnlyThroughTheProcessModule() throws IOException {
        final Path root = root();
        final List<String> violations = new ArrayList<>();
        final List<String> scanned = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.isRegularFile(m.resolve("pom.xml"))).sorted().toList()) {
                if (module.getFileName().toString().equals("process") || !Files.isDirectory(module.resolve("src"))) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(module.resolve("src"))) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                        final String rel = root.relativize(f).toString().replace('\\', '/');
                        if (rel.endsWith("/" + OneChildLauncherTest.class.getSimpleName() + ".java")) {
                            continue; // names what it looks for
                        }
                        final String text = Files.readString(f);
                        scanned.add(rel);
                        if (text.contains("\"java.home\"") || text.contains("getInputArguments()")) {
                            violations.add(rel + " builds a java command line (use io.meldb.process.JavaCommand)");
                        }
                        final boolean callsProcessBuilder = text.contains("new ProcessBuilder");
                        if (callsProcessBuilder && !EXTERNAL_TOOLS.contains(rel)) {
                            violations.add(rel + " calls ProcessBuilder (use io.meldb.process.ChildProcess)");
                        } else if (!callsProcessBuilder && EXTERNAL_TOOLS.contains(rel)) {
                            violations.add(rel + " no longer calls ProcessBuilder: drop it from EXTERNAL_TOOLS");
                        }
                    }
                }
            }
        }
        assertTrue(scanned.size() > 300, "scanned only " + scanned.size() + " files: is the tree where it should be?");
        assertTrue(scanned.containsAll(EXTERNAL_TOOLS), "an allowed file moved or was deleted: update the list");
        assertEquals(List.of(), violations);
    }

    private static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("process/pom.xml")) && Files.exists(p.resolve("test-kit/pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("not inside the MeldDB source tree: " + Path.of("").toAbsolutePath());
    }
}
