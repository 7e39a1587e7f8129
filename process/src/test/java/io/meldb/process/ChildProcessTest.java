package io.meldb.process;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("process")
class ChildProcessTest {
    private static final Pattern READY = Pattern.compile("ready port=(\\d+)");

    @Test
    void startWaitsForTheReadyLineKeepsTheOutputAndKillEndsTheProcess(@TempDir final Path dir) throws Exception {
        final Path out = dir.resolve("child.out");
        try (ChildProcess child = ChildProcess.start("child", JavaCommand.main(ChildMain.class.getName())
                .heap("64m").args("ready", "4711").build(), dir, out, READY)) {
            assertEquals("4711", child.awaitReady(Duration.ofSeconds(60)).group(1));
            assertTrue(child.alive());
            assertEquals("starting", child.outputLines().get(0));
            assertTrue(Files.readString(out).contains("ready port=4711"));
            child.kill();
            assertFalse(child.alive());
            assertEquals(137, child.process().exitValue(), "SIGKILL");
        }
    }

    @Test
    void awaitReadyFailsWithTheOutputWhenTheProcessEndsFirst() {
        try (ChildProcess child = ChildProcess.start("quitter", JavaCommand.main(ChildMain.class.getName())
                .heap("64m").args("exit", "3").build(), null, null, READY)) {
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> child.awaitReady(Duration.ofSeconds(60)));
            assertTrue(e.getMessage().contains("ended before it was ready"), e.getMessage());
            assertTrue(e.getMessage().contains("ending with 3"), e.getMessage());
        }
    }

    @Test
    void runReturnsTheExitCodeAndEverythingPrinted() {
        final ChildProcess.Finished f = ChildProcess.run("runner", JavaCommand.main(ChildMain.class.getName())
                .heap("64m").args("exit", "5").build(), Duration.ofSeconds(60));
        assertEquals(5, f.exitCode());
        assertEquals("ending with 5\n", f.output());
    }

    @Test
    void closeStopsAProcessThatIsStillRunning() {
        final ChildProcess child = ChildProcess.start("sleeper", JavaCommand.main(ChildMain.class.getName())
                .heap("64m").args("ready", "1").build(), null, null, READY);
        child.awaitReady(Duration.ofSeconds(60));
        child.close();
        assertFalse(child.alive());
    }

    @Test
    void theBuilderSetsDirectoryAndEnvironmentAndAppendsToTheOutputFile(@TempDir final Path dir) throws Exception {
        final Path out = dir.resolve("child.out");
        Files.writeString(out, "an earlier run\n");
        final Path work = Files.createDirectories(dir.resolve("work"));
        try (ChildProcess child = ChildProcess.builder("printer", JavaCommand.main(ChildMain.class.getName())
                .heap("64m").classpath(System.getProperty("java.class.path")).args("print", "2").build())
                .directory(work).environment(env -> env.put("MELDB_CHILD_TEST", "carried")).appendOutput(out)
                .start()) {
            assertTrue(child.waitFor(Duration.ofSeconds(60)), child.output());
            until("the output file to hold the last line",
                    () -> Files.readString(out).contains("line 2"));
            assertEquals("dir=" + work.toRealPath() + " env=carried", child.outputLines().get(0));
            assertEquals(List.of("an earlier run", "dir=" + work.toRealPath() + " env=carried", "line 1", "line 2"),
                    Files.readAllLines(out));
        }
    }

    @Test
    void keepLinesBoundsTheOutputInMemoryWhileTheFileKeepsAll(@TempDir final Path dir) throws Exception {
        final Path out = dir.resolve("child.out");
        try (ChildProcess child = ChildProcess.builder("chatty", JavaCommand.main(ChildMain.class.getName())
                .heap("64m").args("print", "100").build()).output(out).keepLines(3).start()) {
            assertTrue(Files.exists(out), "the output file is there when start returns");
            assertTrue(child.waitFor(Duration.ofSeconds(60)), child.output());
            until("the last line to be read",
                    () -> child.outputLines().contains("line 100"));
            assertEquals(List.of("line 98", "line 99", "line 100"), child.outputLines());
            assertEquals(101, Files.readAllLines(out).size());
        }
    }

    /** Polls {@code condition} for up to 10 s (test-kit's Await sits above this module). */
    private static void until(final String what, final Check condition) throws Exception {
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }
}
