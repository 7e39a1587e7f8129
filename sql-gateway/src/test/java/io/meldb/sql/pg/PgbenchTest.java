package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real pgbench (15) against MeldDB's PostgreSQL port: {@code pgbench -i} with its default steps (drop, create
 * tables with {@code fillfactor} and one without a primary key, 100,000 accounts by COPY in one transaction,
 * vacuum, primary keys), then a short TPC-B-like run with 4 clients retrying serialization failures, which must end
 * with no failed transaction. Skipped when pgbench is not on the PATH (.ci/run installs it).
 */
@Tag("process")
@Timeout(300)
class PgbenchTest {
    private static EmbeddedGateway db;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        assumeTrue(pgbench() != null, "pgbench is not on the PATH");
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    private static Path pgbench() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            final Path p = Path.of(d, "pgbench");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Runs pgbench with these arguments against the database; answers what it printed. */
    private String runPgbench(final int timeoutSeconds, final String... args) throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>(List.of(pgbench().toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("-h", "127.0.0.1", "-p", String.valueOf(db.gateway.pgPort()), "-U", "test", "meldb"));
        final Path out = Files.createTempFile(dir, "pgbench", ".log");
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(out.toFile());
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        pb.environment().remove("PGPASSWORD");
        pb.environment().remove("PGOPTIONS");
        final Process p = pb.start();
        try {
            final boolean finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            final String text = Files.readString(out, StandardCharsets.UTF_8);
            assertTrue(finished, "pgbench did not finish in " + timeoutSeconds + " s:\n" + text);
            assertEquals(0, p.exitValue(), String.join(" ", command) + "\n" + text);
            return text;
        } finally {
            p.destroyForcibly();
        }
    }

    private static long number(final String text, final String regex) {
        final Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), "no match for " + regex + " in\n" + text);
        return Long.parseLong(m.group(1));
    }

    @Test
    void shouldInitializeWithTheDefaultStepsAndRunTpcbWithOnlyRetriedSerializationFailures() throws Exception {
        final String init = runPgbench(180, "-i");
        assertTrue(init.contains("creating primary keys...") && init.contains("done in"), init);

        final String run = runPgbench(120, "-c", "4", "-j", "2", "-T", "5", "-M", "prepared", "--max-tries", "100",
                "--failures-detailed");
        // every failure is a serialization failure that ran out of its tries: on one branch row every
        // transaction conflicts, so a few may (meld aborts what a lock would queue); no other error is allowed
        final long failed = number(run, "number of failed transactions: (\\d+)");
        assertEquals(failed, number(run, "number of serialization failures: (\\d+)"), run);
        assertEquals(0, number(run, "number of deadlock failures: (\\d+)"), run);
        assertTrue(failed * 20 < number(run, "number of transactions actually processed: (\\d+)"), run);
        assertTrue(number(run, "number of transactions actually processed: (\\d+)") > 0, run);

        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select count(*), sum(abalance) from pgbench_accounts")) {
                assertTrue(rs.next());
                assertEquals(100_000, rs.getLong(1));
                final long accounts = rs.getLong(2);
                try (ResultSet h = s.executeQuery("select count(*), sum(delta) from pgbench_history")) {
                    assertTrue(h.next());
                    assertTrue(h.getLong(1) > 0, "history rows were written");
                    assertEquals(h.getLong(2), accounts, "every committed transfer is in the history once");
                }
            }
            try (ResultSet rs = s.executeQuery("select sum(bbalance) from pgbench_branches")) {
                assertTrue(rs.next());
                try (ResultSet t = c.createStatement().executeQuery("select sum(tbalance) from pgbench_tellers")) {
                    assertTrue(t.next());
                    assertEquals(rs.getLong(1), t.getLong(1), "branches and tellers saw the same deltas");
                }
            }
        }
    }
}
