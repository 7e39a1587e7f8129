package io.meldb.sql.pgdiff;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One database the corpus runs against through one driver: a connection in autocommit with the fixed session setup
 * ({@link #SESSION}), each statement in its own {@link Statement} with a query timeout, and a harder deadline on a
 * worker thread so that a statement that never answers cannot stop the run. A statement that hangs, or an error
 * after which the connection is no longer valid, is answered as an error with a note, and the next statement runs
 * on a new connection.
 */
final class QueryTarget implements AutoCloseable {
    /** The session every target starts with; pgjdbc itself sends extra_float_digits=3 at startup. */
    static final List<String> SESSION = List.of("SET TimeZone = 'UTC'", "SET DateStyle = 'ISO, MDY'",
            "SET IntervalStyle = 'postgres'", "SET extra_float_digits = 3");

    /** A way to open the target's connection. */
    interface Connector {
        Connection open() throws SQLException;
    }

    final String name;
    private final Connector connector;
    private final int timeoutSeconds;
    /** What happened besides answers: session statements refused, connections lost, statements that hung. */
    final List<String> notes = new ArrayList<>();
    private ExecutorService worker = newWorker();
    private Connection connection;

    QueryTarget(final String name, final Connector connector, final int timeoutSeconds) {
        this.name = name;
        this.connector = connector;
        this.timeoutSeconds = timeoutSeconds;
    }

    QueryOutcome run(final String sql) {
        try {
            connect();
        } catch (SQLException | RuntimeException e) {
            return QueryOutcome.error(e).withNote("could not connect");
        }
        final Connection c = connection;
        final Future<QueryOutcome> answer = worker.submit(() -> execute(c, sql));
        QueryOutcome outcome;
        try {
            outcome = answer.get(timeoutSeconds + 10L, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            worker.shutdownNow();
            worker = newWorker();
            abandon();
            notes.add("hung (no answer in " + (timeoutSeconds + 10) + " s, connection dropped): " + sql);
            return QueryOutcome.error("HUNG", "no answer in " + (timeoutSeconds + 10) + " s", "hung");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.ExecutionException e) {
            outcome = QueryOutcome.error(e.getCause());
        }
        if (outcome.isError() && !valid(c)) {
            abandon();
            notes.add("connection broke after: " + sql + " -> " + outcome.sqlState() + " " + outcome.message());
            outcome = outcome.withNote("connection broke");
        }
        return outcome;
    }

    private QueryOutcome execute(final Connection c, final String sql) {
        try (Statement st = c.createStatement()) {
            st.setQueryTimeout(timeoutSeconds);
            if (st.execute(sql)) {
                return QueryOutcome.read(st.getResultSet());
            }
            return QueryOutcome.noResult();
        } catch (SQLException | RuntimeException e) {
            return QueryOutcome.error(e);
        }
    }

    private void connect() throws SQLException {
        if (connection != null) {
            return;
        }
        connection = connector.open();
        connection.setAutoCommit(true);
        for (String s : SESSION) {
            try (Statement st = connection.createStatement()) {
                st.execute(s);
            } catch (SQLException | RuntimeException e) {
                final QueryOutcome o = QueryOutcome.error(e);
                final String note = "session statement refused: " + s + " -> " + o.sqlState() + " " + o.message();
                if (!notes.contains(note)) {
                    notes.add(note);
                }
            }
        }
    }

    private boolean valid(final Connection c) {
        try {
            return c.isValid(5);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    private void abandon() {
        final Connection c = connection;
        connection = null;
        if (c != null) {
            final Thread closer = new Thread(() -> {
                try {
                    c.close();
                } catch (SQLException | RuntimeException e) {
                    // it is broken already
                }
            }, "pgdiff-close-" + name);
            closer.setDaemon(true);
            closer.start();
        }
    }

    private ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "pgdiff-" + name);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void close() {
        abandon();
        worker.shutdownNow();
    }
}
