package io.meldb.sql.client;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * JDBC's {@code Statement.cancel} and {@code setQueryTimeout} for MeldDB's driver. Avatica's client only flips
 * a flag of its own for both, so the gateway would run the statement to its end; here a cancel is sent to the
 * gateway as a request of its own ({@link #CANCEL_REQUEST}, on another HTTP exchange of the same connection), and
 * a query timeout is a timer that sends it. The gateway then stops the connection's running statement (57014);
 * a statement stopped by its timeout throws {@link SQLTimeoutException}.
 */
final class StatementCancels {
    /** What the gateway takes as "stop the running statement of this connection" (never valid SQL). */
    static final String CANCEL_REQUEST = "/* meldb */ CANCEL";

    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "meldb-query-timeouts");
        t.setDaemon(true);
        return t;
    });

    private StatementCancels() {
    }

    /** Asks the gateway to stop what {@code connection} (Avatica's) runs now. */
    static void send(final Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(CANCEL_REQUEST);
        }
    }

    /** A call that may run long: the statement's timeout, if any, sends a cancel when it passes. */
    interface Call {
        Object run() throws Throwable;
    }

    /** Runs {@code call} under {@code statement}'s query timeout. */
    static Object withTimeout(final Statement statement, final Call call) throws Throwable {
        final int seconds = statement.getQueryTimeout();
        if (seconds <= 0) {
            return call.run();
        }
        final AtomicBoolean fired = new AtomicBoolean();
        final Connection connection = statement.getConnection();
        final ScheduledFuture<?> timer = TIMERS.schedule(() -> {
            fired.set(true);
            try {
                send(connection);
            } catch (SQLException e) {
                // the statement ends anyway, or its connection is gone
            }
        }, seconds, TimeUnit.SECONDS);
        try {
            return call.run();
        } catch (SQLException e) {
            if (fired.get() && "57014".equals(e.getSQLState())) {
                throw new SQLTimeoutException("canceling statement due to statement timeout", "57014", e);
            }
            throw e;
        } finally {
            timer.cancel(false);
        }
    }
}
