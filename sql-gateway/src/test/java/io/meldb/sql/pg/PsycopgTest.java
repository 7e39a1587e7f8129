package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Python's psycopg 3 (over libpq) against MeldDB: parameters of every type, executemany, binary results, an
 * error and the session going on, transactions, COPY. Skipped when python3 with psycopg is not installed
 * ({@code .ci/run} installs it).
 */
@Tag("process")
@Timeout(180)
class PsycopgTest {
    /** The interpreter with psycopg: MELDB_PYTHON (.ci/run sets it to Debian's when that is the one), else python3. */
    private static final String PYTHON = System.getenv().getOrDefault("MELDB_PYTHON", "python3");

    @Test
    void shouldServeAPsycopgSession() throws Exception {
        final boolean installed = run(PYTHON, "-c", "import psycopg").exitCode == 0;
        // CI installs it (.ci/run): there a missing psycopg fails the test instead of skipping it
        assertTrue(installed || System.getenv("CI") == null, PYTHON + " with psycopg is not installed");
        assumeTrue(installed, PYTHON + " with psycopg is not installed");
        final Path script = Files.createTempFile("psycopg_client", ".py");
        try (InputStream in = PsycopgTest.class.getResourceAsStream("/pg/psycopg_client.py");
             EmbeddedGateway db = new EmbeddedGateway()) {
            Files.write(script, in.readAllBytes());
            final Outcome outcome = run(PYTHON, script.toString(), db.gateway.pgUrl() + "?user=py");
            assertEquals(0, outcome.exitCode, outcome.output);
            for (String check : new String[] {"parameters and types", "executemany", "binary results", "new types",
                    "error then the session goes on", "transactions", "copy"}) {
                assertTrue(outcome.output.contains("OK " + check), () -> "missing '" + check + "':\n"
                        + outcome.output);
            }
        } finally {
            Files.deleteIfExists(script);
        }
    }

    private record Outcome(int exitCode, String output) {
    }

    private static Outcome run(final String... command) throws IOException, InterruptedException {
        final Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return new Outcome(-1, e.toString());
        }
        try {
            final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                return new Outcome(-1, "timed out:\n" + output);
            }
            return new Outcome(p.exitValue(), output);
        } finally {
            p.destroyForcibly();
        }
    }
}
