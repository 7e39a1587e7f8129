package io.meldb.sql.pg;

import io.meldb.process.ChildProcess;
import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The server-side cursors of Python's drivers, unchanged, against MeldDB ({@code pg/cursor_client.py}): psycopg2's
 * named cursors (DECLARE, FETCH FORWARD 2000 as it iterates, MOVE for scroll, WITH HOLD, the end of a cursor with its
 * transaction) over the simple protocol, and psycopg 3's server cursors, which declare with parameters over the
 * extended protocol and Describe the cursor's portal by its name. Each step must answer what PostgreSQL 15 answers
 * ({@link #POSTGRES}, recorded from the same script), but {@link #MELDB_DIFFERS}.
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PgPythonCursorsTest {
    private static final String PYTHON = System.getenv().getOrDefault("MELDB_PYTHON", "python3");

    /** What each step answers against PostgreSQL 15. */
    private static final Map<String, String> POSTGRES = new LinkedHashMap<>();

    static {
        POSTGRES.put("setup", "");
        POSTGRES.put("psycopg2 named iteration", "(4990, (11, 'v11'), (5000, 'v5000'), ['id', 'v'])");
        POSTGRES.put("psycopg2 fetch and scroll", "[(1,), [(2,), (3,), (4,)], (15,), (101,)]");
        POSTGRES.put("psycopg2 scroll back on a default cursor", "(4,)");
        POSTGRES.put("psycopg2 scrollable", "[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], (3,), (2,)]");
        POSTGRES.put("psycopg2 withhold", "((1,), [(2,), (3,), (4,), (5,)])");
        POSTGRES.put("psycopg2 ended by rollback", "error 34000");
        POSTGRES.put("psycopg3 server cursor", "(['id', 'v'], [(1, 'v1'), (2, 'v2')], [(3, 'v3'), (4, 'v4')])");
        POSTGRES.put("psycopg3 scrollable", "[[(3,), (4,)], (4,), [(3,), (4,), (5,), (6,), (7,), (8,)]]");
        POSTGRES.put("psycopg3 withhold", "[(1,), (2,), (3,)]");
        POSTGRES.put("psycopg3 binary", "[(1, 'v1'), (2, 'v2')]");
        POSTGRES.put("psycopg3 autocommit", "error 25P01");
        POSTGRES.put("psycopg3 autocommit withhold", "[(1,), (2,)]");
        POSTGRES.put("cleanup", "");
    }

    /**
     * Where MeldDB answers otherwise, on purpose (docs/sql.md): a cursor declared without SCROLL is forward-only, so
     * moving it back is 0A000 (PostgreSQL scrolls one whose plan can run backwards).
     */
    private static final Map<String, String> MELDB_DIFFERS = Map.of(
            "psycopg2 scroll back on a default cursor", "error 0A000");

    @Test
    void shouldServeTheServerSideCursorsOfPsycopg2AndPsycopg3AsPostgres() throws Exception {
        final boolean installed = run(PYTHON, "-c", "import psycopg, psycopg2").exitCode == 0;
        // CI installs them (.ci/run): there a missing client fails the test instead of skipping it
        assertTrue(installed || System.getenv("CI") == null, PYTHON + " with psycopg and psycopg2 is missing");
        assumeTrue(installed, PYTHON + " with psycopg and psycopg2 is missing");
        final Path script = Files.createTempFile("cursor_client", ".py");
        try (InputStream in = PgPythonCursorsTest.class.getResourceAsStream("/pg/cursor_client.py");
             EmbeddedGateway db = new EmbeddedGateway()) {
            Files.write(script, in.readAllBytes());
            final Outcome outcome = run(PYTHON, script.toString(), db.gateway.pgUrl() + "?user=py");
            assertEquals(0, outcome.exitCode, outcome.output);
            final Map<String, String> seen = new LinkedHashMap<>();
            for (String line : outcome.output.split("\n")) {
                String found = null; // the longest step the line names ("autocommit withhold", not "autocommit")
                for (String step : POSTGRES.keySet()) {
                    if ((line.startsWith("OK " + step + " ") || line.equals("OK " + step))
                            && (found == null || step.length() > found.length())) {
                        found = step;
                    }
                }
                if (found != null) {
                    seen.put(found, line.substring(("OK " + found).length()).trim());
                }
            }
            for (Map.Entry<String, String> e : POSTGRES.entrySet()) {
                final String expected = MELDB_DIFFERS.getOrDefault(e.getKey(), e.getValue());
                assertEquals(expected, seen.get(e.getKey()), () -> "step '" + e.getKey() + "':\n" + outcome.output);
            }
        } finally {
            Files.deleteIfExists(script);
        }
    }

    private record Outcome(int exitCode, String output) {
    }

    /** Runs a command to its end; a command that cannot start is exit code -1 with the reason as its output. */
    private static Outcome run(final String... command) {
        try {
            final ChildProcess.Finished f = ChildProcess.run("python", List.of(command), Duration.ofSeconds(150));
            return new Outcome(f.exitCode(), f.output());
        } catch (java.io.UncheckedIOException e) {
            return new Outcome(-1, e.toString());
        }
    }
}
