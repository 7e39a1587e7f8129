package io.meldb.bench.tpcc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * One measured window of the order-entry workload on one database: {@code threads} terminals, terminal i bound to
 * warehouse {@code i % warehouses + 1}, each running the standard mix back to back (no keying or think time) on a
 * read-write and a read-only connection, SERIALIZABLE. A serialization failure (SQLState class 40, or H2's lock
 * timeout and concurrent-update codes) rolls back and runs the same inputs again, counted for its type; any other
 * error ends the window and is reported.
 */
final class TpccWindow {
    /** The result: per-type statistics over the measured seconds, or the error that ended the window. */
    record Result(Map<TxnType, TypeStats> byType, double seconds, String error) {
        long commits() {
            return byType.values().stream().mapToLong(s -> s.commits + s.rollbacks).sum();
        }

        double tps() {
            return commits() / seconds;
        }

        /** New-order transactions per minute (committed and spec-rolled-back ones, as TPC-C's tpmC counts). */
        double newOrderTpm() {
            final TypeStats s = byType.get(TxnType.NEW_ORDER);
            return (s.commits + s.rollbacks) * 60.0 / seconds;
        }
    }

    /** Opens connections to the database under test. */
    interface Connector {
        Connection open() throws SQLException;
    }

    private TpccWindow() {
    }

    /**
     * Runs {@code warmup} unmeasured seconds and then a {@code seconds} window. {@code only}, when not null, limits the
     * mix to one type (the smoke test runs each type on its own).
     */
    static Result run(final Connector db, final TpccScale scale, final int warehouses, final int threads,
                      final boolean staticReadsApart, final double warmup, final double seconds, final long seed,
                      final TxnType only) throws InterruptedException {
        return run(db, scale, warehouses, threads, staticReadsApart, false, warmup, seconds, seed, only);
    }

    /** As above; {@code lockDistrict}: new-order reads the district FOR UPDATE (see {@link Terminal}). */
    static Result run(final Connector db, final TpccScale scale, final int warehouses, final int threads,
                      final boolean staticReadsApart, final boolean lockDistrict, final double warmup,
                      final double seconds, final long seed, final TxnType only) throws InterruptedException {
        final CountDownLatch ready = new CountDownLatch(threads);
        final AtomicReference<String> error = new AtomicReference<>();
        final List<Map<TxnType, TypeStats>> perThread = new ArrayList<>();
        final Control control = new Control();
        final List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            final Map<TxnType, TypeStats> stats = new EnumMap<>(TxnType.class);
            for (TxnType t : TxnType.values()) {
                stats.put(t, new TypeStats());
            }
            perThread.add(stats);
            final int home = i % warehouses + 1;
            final long terminalSeed = seed * 1000 + i;
            final Thread w = new Thread(() -> {
                boolean counted = false;
                try (Terminal terminal = open(db, scale, home, warehouses, staticReadsApart, lockDistrict,
                        terminalSeed)) {
                    ready.countDown();
                    counted = true;
                    loop(terminal, stats, control, only);
                } catch (Throwable e) {
                    error.compareAndSet(null, describe(e));
                    control.stop = true;
                } finally {
                    if (!counted) {
                        ready.countDown();
                    }
                }
            }, "tpcc-terminal-" + i);
            w.setDaemon(true);
            workers.add(w);
        }
        workers.forEach(Thread::start);
        ready.await(60, TimeUnit.SECONDS);
        sleepUnless(control, (long) (warmup * 1000));
        control.measuring = true;
        final long start = System.nanoTime();
        sleepUnless(control, (long) (seconds * 1000));
        control.measuring = false;
        final double elapsed = (System.nanoTime() - start) / 1e9;
        control.stop = true;
        for (Thread w : workers) {
            w.join(60_000);
            if (w.isAlive()) {
                error.compareAndSet(null, w.getName() + " did not stop within 60 s after the window");
            }
        }
        final Map<TxnType, TypeStats> all = new EnumMap<>(TxnType.class);
        for (TxnType t : TxnType.values()) {
            final TypeStats s = new TypeStats();
            perThread.forEach(m -> s.add(m.get(t)));
            all.put(t, s);
        }
        return new Result(all, elapsed, error.get());
    }

    private static Terminal open(final Connector db, final TpccScale scale, final int home, final int warehouses,
                                 final boolean staticReadsApart, final boolean lockDistrict, final long seed)
            throws SQLException {
        final Connection rw = db.open();
        Connection ro = null;
        try {
            ro = db.open();
            configure(rw, false);
            configure(ro, true);
            return new Terminal(rw, ro, scale, home, warehouses, staticReadsApart, lockDistrict, seed);
        } catch (SQLException | RuntimeException e) {
            rw.close();
            if (ro != null) {
                ro.close();
            }
            throw e;
        }
    }

    private static void loop(final Terminal terminal, final Map<TxnType, TypeStats> stats, final Control control,
                             final TxnType only) throws SQLException {
        while (!control.stop) {
            final TxnType type = only != null ? only : terminal.nextType();
            terminal.draw(type);
            final TypeStats s = stats.get(type);
            final long start = System.nanoTime();
            Terminal.Outcome outcome = null;
            while (outcome == null) {
                try {
                    outcome = terminal.run(type);
                } catch (SQLException e) {
                    terminal.rollbackAfterFailure();
                    final String state = retryState(e);
                    if (state == null) {
                        throw e;
                    }
                    if (control.measuring) {
                        s.retry(state);
                    }
                    if (control.stop) {
                        break;
                    }
                }
            }
            if (outcome != null && control.measuring) {
                if (outcome == Terminal.Outcome.COMMITTED) {
                    s.commits++;
                } else {
                    s.rollbacks++;
                }
                s.latencyMicros.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
            }
        }
    }

    /** Flags the workers read; volatile so the measurement window is sharp. */
    private static final class Control {
        volatile boolean measuring;
        volatile boolean stop;
    }

    /** SERIALIZABLE, autocommit off, read-only as asked. */
    static void configure(final Connection c, final boolean readOnly) throws SQLException {
        c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        c.setAutoCommit(false);
        c.setReadOnly(readOnly);
        c.commit();
    }

    /**
     * The SQLState to count when {@code e} is worth retrying: class 40 (serialization failure, deadlock), and H2's
     * lock timeout (50200) and concurrent update (90131); null otherwise.
     */
    static String retryState(final SQLException e) {
        final Predicate<SQLException> h2Retry = s -> s.getErrorCode() == 50200 || s.getErrorCode() == 90131;
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof SQLException s) {
                final String state = s.getSQLState();
                if (state != null && state.startsWith("40")) {
                    return state;
                }
                if (h2Retry.test(s)) {
                    return state + "/" + s.getErrorCode();
                }
            }
        }
        return null;
    }

    private static void sleepUnless(final Control control, final long millis) throws InterruptedException {
        final long end = System.nanoTime() + millis * 1_000_000;
        while (!control.stop && System.nanoTime() < end) {
            Thread.sleep(Math.max(1, Math.min(100, (end - System.nanoTime()) / 1_000_000)));
        }
    }

    static String describe(final Throwable e) {
        final StringBuilder b = new StringBuilder(e.getClass().getSimpleName()).append(": ").append(e.getMessage());
        if (e instanceof SQLException s && s.getSQLState() != null) {
            b.append(" [SQLState ").append(s.getSQLState()).append(']');
        }
        if (e.getCause() != null && e.getCause() != e) {
            b.append(" caused by ").append(e.getCause().getClass().getSimpleName()).append(": ")
                    .append(e.getCause().getMessage());
        }
        return b.toString().replace('\n', ' ');
    }
}
