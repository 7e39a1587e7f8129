package io.meldb.sql.tools;

import io.meldb.process.ChildProcess;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs a Python client script of the compatibility tier ({@code src/test/resources/tools/}) with Debian's python3
 * ({@code MELDB_PYTHON}, else {@code python3}) and reads its steps: each line {@code OK <step> <value>} or
 * {@code FAIL <step> <error>} ({@link ClientSteps}). Where the modules the script needs are missing, the test fails
 * under CI (which installs them, .ci/run) and is skipped elsewhere; it never skips silently in CI.
 */
final class PythonClient {
    static final String PYTHON = System.getenv().getOrDefault("MELDB_PYTHON", "python3");

    private PythonClient() {
    }

    /** Skips (outside CI) or fails (in CI) unless {@code import modules} works. */
    static void requireModules(final String modules) {
        final boolean installed = run(List.of(PYTHON, "-c", "import " + modules)).exitCode == 0;
        assertTrue(installed || System.getenv("CI") == null, PYTHON + " with " + modules + " is missing");
        assumeTrue(installed, PYTHON + " with " + modules + " is missing");
    }

    /**
     * Runs {@code script} (a resource under /tools/) with {@code args} and answers each of {@code steps} as the
     * script reported it: "OK value" or the FAIL line; a step it did not report is absent. The script must exit 0.
     */
    static Map<String, String> steps(final String script, final List<String> args, final Collection<String> steps)
            throws Exception {
        final Path file = Files.createTempFile(script.replace(".py", ""), ".py");
        try (InputStream in = PythonClient.class.getResourceAsStream("/tools/" + script)) {
            Files.write(file, in.readAllBytes());
            final List<String> command = new ArrayList<>(List.of(PYTHON, file.toString()));
            command.addAll(args);
            final Outcome outcome = run(command);
            return ClientSteps.parse(outcome.exitCode, outcome.output, steps);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private record Outcome(int exitCode, String output) {
    }

    /** Runs a command to its end; a command that cannot start is exit code -1 with the reason as its output. */
    private static Outcome run(final List<String> command) {
        try {
            final ChildProcess.Finished f = ChildProcess.run("python", command, Duration.ofSeconds(240));
            return new Outcome(f.exitCode(), f.output());
        } catch (java.io.UncheckedIOException e) {
            return new Outcome(-1, e.toString());
        }
    }
}
