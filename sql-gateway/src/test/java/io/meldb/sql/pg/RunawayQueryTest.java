package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 34 item 1: a statement that never ends, or ends only after hours, stops within about a second by every
 * route (CancelRequest, statement_timeout, pg_cancel_backend, pg_terminate_backend, a closed client, MeldDB's JDBC
 * driver's cancel and query timeout), whatever it is doing: recursion, a cross join, a sort, an aggregation. The
 * session (or a new one) works afterwards, and the gateway's workers stop burning CPU.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RunawayQueryTest {
    /** Time-to-stop allowed: generous for CI on two shared cores (they stop in well under 100 ms when idle). */
    private static final long STOP_MILLIS = 1000;

    static List<String> runaways() {
        return List.of(
                // a recursion that never ends and scans nothing
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r",
                // ten billion pairs, counted
                "SELECT COUNT(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b",
                // a sort of 10^8 generated rows
                "SELECT g FROM generate_series(1, 100000000) g ORDER BY g DESC",
                // an aggregation over a huge series
                "SELECT g % 7, COUNT(*), SUM(g) FROM generate_series(1, 10000000000) g GROUP BY g % 7",
                // a recursive CTE inside a subquery
                "SELECT x, (SELECT COUNT(*) FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                        + "SELECT n FROM r) q) FROM (VALUES (1)) v(x)");
    }

    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    @ParameterizedTest
    @MethodSource("runaways")
    void shouldStopAtStatementTimeout(final String sql) throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = 200");
            final long start = System.nanoTime();
            final SQLException e = failure(() -> drain(s, sql));
            final long took = millisSince(start);
            assertEquals("57014", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("canceling statement due to statement timeout"), e.getMessage());
            report("statement_timeout", sql, took - 200);
            assertTrue(took < 200 + STOP_MILLIS, "stopped " + took + " ms after it started (timeout 200 ms)");
            assertWorks(s);
        }
        assertWorkersIdle("meldb-pg-worker");
    }

    @ParameterizedTest
    @MethodSource("runaways")
    void shouldStopAtACancelRequest(final String sql) throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final CompletableFuture<SQLException> run = runAsync(() -> drain(s, sql));
            awaitWorkersBusy("meldb-pg-worker");
            final long start = System.nanoTime();
            s.cancel(); // pgjdbc: a CancelRequest on a connection of its own
            final SQLException e = stopped(run, start, "CancelRequest", sql, s::cancel);
            assertEquals("57014", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("canceling statement due to user request"), e.getMessage());
            assertWorks(s);
        }
        assertWorkersIdle("meldb-pg-worker");
    }

    @ParameterizedTest
    @MethodSource("runaways")
    void shouldStopAtPgCancelBackendFromAnotherSession(final String sql) throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             Connection other = db.connectPg(); Statement o = other.createStatement()) {
            final int pid = pid(s);
            final CompletableFuture<SQLException> run = runAsync(() -> drain(s, sql));
            awaitWorkersBusy("meldb-pg-worker");
            final long start = System.nanoTime();
            assertTrue(signal(o, "pg_cancel_backend", pid));
            final SQLException e = stopped(run, start, "pg_cancel_backend", sql,
                    () -> signal(o, "pg_cancel_backend", pid));
            assertEquals("57014", e.getSQLState(), e.getMessage());
            assertWorks(s);
            assertFalse(signal(o, "pg_cancel_backend", 99_999_999), "no such backend");
        }
        assertWorkersIdle("meldb-pg-worker");
    }

    @ParameterizedTest
    @MethodSource("runaways")
    void shouldEndTheSessionAtPgTerminateBackend(final String sql) throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             Connection other = db.connectPg(); Statement o = other.createStatement()) {
            final int pid = pid(s);
            final CompletableFuture<SQLException> run = runAsync(() -> drain(s, sql));
            awaitWorkersBusy("meldb-pg-worker");
            final long start = System.nanoTime();
            assertTrue(signal(o, "pg_terminate_backend", pid));
            final SQLException e = stopped(run, start, "pg_terminate_backend", sql, () -> { });
            assertEquals("57P01", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("terminating connection due to administrator command"),
                    e.getMessage());
            assertTrue(c.isClosed() || failure(() -> s.executeQuery("SELECT 1")) != null, "the session ended");
            assertWorks(o);
        }
        assertWorkersIdle("meldb-pg-worker");
    }

    @Test
    void shouldEndAnIdleSessionAtPgTerminateBackend() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             Connection other = db.connectPg(); Statement o = other.createStatement()) {
            final int pid = pid(s);
            assertTrue(signal(o, "pg_terminate_backend", pid));
            final SQLException e = failure(() -> drain(s, "SELECT 1"));
            assertTrue(e.getSQLState().equals("57P01") || e.getSQLState().startsWith("08"), e.getSQLState());
            assertWorks(o);
        }
    }

    @ParameterizedTest
    @MethodSource("runaways")
    void shouldStopTheStatementOfAClientThatClosedItsSocket(final String sql) throws Exception {
        final Connection c = db.connectPg();
        final Statement s = c.createStatement();
        final CompletableFuture<SQLException> run = runAsync(() -> drain(s, sql));
        awaitWorkersBusy("meldb-pg-worker");
        final long start = System.nanoTime();
        c.abort(Runnable::run); // pgjdbc closes the socket at once, without a Terminate message
        run.handle((x, y) -> null).get(10, TimeUnit.SECONDS);
        final long took = awaitWorkersIdle("meldb-pg-worker", start);
        report("closed socket", sql, took);
        assertTrue(took < STOP_MILLIS, "the gone client's statement still ran " + took + " ms after it left");
        try (Connection again = db.connectPg(); Statement n = again.createStatement()) {
            assertWorks(n);
        }
    }

    @ParameterizedTest
    @MethodSource("runaways")
    void shouldStopThroughMeldDbsDriverCancelAndQueryTimeout(final String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl()); Statement s = c.createStatement()) {
            final CompletableFuture<SQLException> run = runAsync(() -> drain(s, sql));
            awaitWorkersBusy("meldb-jdbc-worker");
            final long start = System.nanoTime();
            s.cancel();
            final SQLException e = stopped(run, start, "MeldDB driver cancel", sql, s::cancel);
            assertEquals("57014", e.getSQLState(), e.getMessage());
            assertWorks(s);
            s.setQueryTimeout(1);
            final long timed = System.nanoTime();
            final SQLException t = failure(() -> drain(s, sql));
            final long took = millisSince(timed);
            assertEquals("57014", t.getSQLState(), t.getMessage());
            assertTrue(t instanceof java.sql.SQLTimeoutException, t.toString());
            report("MeldDB driver query timeout", sql, took - 1000);
            assertTrue(took < 1000 + STOP_MILLIS, "stopped " + took + " ms after it started (timeout 1 s)");
            s.setQueryTimeout(0);
            assertWorks(s);
        }
        assertWorkersIdle("meldb-jdbc-worker");
    }

    // ---------------------------------------------------------------------------------------------- helpers

    interface Body {
        void run() throws Exception;
    }

    private static void drain(final Statement s, final String sql) throws SQLException {
        try (ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                r.getObject(1);
            }
        }
    }

    private static SQLException failure(final Body body) {
        try {
            body.run();
        } catch (SQLException e) {
            return e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return fail("the statement ended without an error");
    }

    private static CompletableFuture<SQLException> runAsync(final Body body) {
        final CompletableFuture<SQLException> f = new CompletableFuture<>();
        final Thread t = new Thread(() -> {
            try {
                body.run();
                f.completeExceptionally(new AssertionError("the statement ended without an error"));
            } catch (SQLException e) {
                f.complete(e);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "runaway-client");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * The error of the statement that was signalled at {@code start}; fails when it came later than
     * {@link #STOP_MILLIS} (signalling again, so that the test does not hang).
     */
    private static SQLException stopped(final CompletableFuture<SQLException> run, final long start,
                                        final String route, final String sql, final Body again) throws Exception {
        try {
            final SQLException e = run.get(STOP_MILLIS, TimeUnit.MILLISECONDS);
            report(route, sql, millisSince(start));
            return e;
        } catch (TimeoutException late) {
            for (int i = 0; i < 100 && !run.isDone(); i++) {
                again.run();
                Thread.sleep(100);
            }
            return fail(route + " did not stop the statement within " + STOP_MILLIS + " ms: " + sql
                    + (run.isDone() ? " (it stopped later)" : " (it still runs)"));
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    private static void assertWorks(final Statement s) throws SQLException {
        try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM generate_series(1, 10)")) {
            assertTrue(r.next());
            assertEquals(10, r.getLong(1));
        }
    }

    private static int pid(final Statement s) throws SQLException {
        try (ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
            assertTrue(r.next());
            return r.getInt(1);
        }
    }

    private static boolean signal(final Statement s, final String function, final int pid) throws SQLException {
        try (ResultSet r = s.executeQuery("SELECT " + function + "(" + pid + ")")) {
            assertTrue(r.next());
            return r.getBoolean(1);
        }
    }

    private static long millisSince(final long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static void report(final String route, final String sql, final long millis) {
        System.out.printf("time-to-stop %-28s %5d ms  %s%n", route, millis, sql);
    }

    /** CPU time of the threads whose names start with {@code prefix}. */
    private static long cpuNanos(final String prefix) {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith(prefix)) {
                final long cpu = threads.getThreadCpuTime(t.getThreadId());
                sum += Math.max(cpu, 0);
            }
        }
        return sum;
    }

    /** Waits until the workers burn CPU (the statement runs: more than half a core over 200 ms). */
    private static void awaitWorkersBusy(final String prefix) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            final long before = cpuNanos(prefix);
            Thread.sleep(200);
            if (cpuNanos(prefix) - before > TimeUnit.MILLISECONDS.toNanos(100)) {
                return;
            }
        }
        fail("the statement never started running");
    }

    /**
     * Waits until the workers are idle (under a tenth of a core over 200 ms) and answers the milliseconds from
     * {@code start} to the first idle window's beginning.
     */
    private static long awaitWorkersIdle(final String prefix, final long start) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            final long windowStart = System.nanoTime();
            final long before = cpuNanos(prefix);
            Thread.sleep(200);
            if (cpuNanos(prefix) - before < TimeUnit.MILLISECONDS.toNanos(20)) {
                return TimeUnit.NANOSECONDS.toMillis(windowStart - start);
            }
        }
        return fail("the gateway's workers (" + prefix + ") still burn CPU 30 s later");
    }

    private static void assertWorkersIdle(final String prefix) throws InterruptedException {
        final long took = awaitWorkersIdle(prefix, System.nanoTime());
        assertTrue(took < STOP_MILLIS, "the workers still burned CPU " + took + " ms after the statement failed");
    }
}
