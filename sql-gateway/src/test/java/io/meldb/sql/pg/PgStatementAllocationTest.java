package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The point statements of the fast path allocate (next to) nothing on the server (issue 16): pgjdbc runs point
 * SELECTs and {@code UPDATE ... SET bal = bal + ? WHERE id = ?} in an open transaction against an embedded database,
 * and the JVM's per-thread allocation counters of the PostgreSQL front end's threads (its event loops and
 * statement workers, where these statements run) must stay under a few bytes per statement. A regression that
 * boxes a value, decodes a row or makes a byte[] per statement costs 16 bytes or more and fails it.
 */
@Timeout(120)
class PgStatementAllocationTest {
    /**
     * Bytes per statement allowed. MeldDB's own code allocates under 1 B per statement now (amortized growth of
     * reused arrays). The JDK's NIO selector boxes the file descriptor of every ready channel above 127 ({@code
     * Integer.valueOf} in {@code EPollSelectorImpl.processEvents}), 16 B per wake-up unless C2's escape analysis
     * removes it, which it does not once other test classes in this JVM have made its callees polymorphic: a test
     * JVM has hundreds of open files and pays it for 1 to 3 wake-ups per statement. Any per-statement object of
     * ours that the bound would miss is smaller than the cursor, row, boxes and Result this path used to allocate
     * (335 B per SELECT, 295 B per UPDATE before issue 16).
     */
    private static final double BOUND = 64;
    private static final int ROWS = 200;
    private static final int MEASURED = 3_000;
    /**
     * Statements per transaction. Work that finishes a COMMIT (the outcome's callbacks, releasing its buffers) can
     * still run on the I/O thread while the next transaction's statements are counted; long transactions make it
     * a small share of the bytes counted.
     */
    private static final int PER_TRANSACTION = 500;
    /**
     * Warm-up runs in rounds of this many statements until one stays under the bound, at most {@link
     * #MAX_WARM_UP_ROUNDS}: before C2 compiles the statement path, escape analysis has not yet removed the
     * short-lived objects it removes in steady state, and under load compilation comes later.
     */
    private static final int WARM_UP_ROUND = 1_000;
    private static final int MAX_WARM_UP_ROUNDS = 40;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE alloc_accounts (id INTEGER PRIMARY KEY, bal BIGINT NOT NULL)");
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO alloc_accounts VALUES (?, ?)")) {
                for (int i = 0; i < ROWS; i++) {
                    p.setInt(1, i);
                    p.setLong(2, 1000);
                    p.executeUpdate();
                }
            }
            c.commit();
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void pointSelectAndUpdateAllocateNothingOnTheServer() throws SQLException {
        final ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        // the leak detector (on in tests) samples buffers with a stack trace: production runs without it
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        final boolean counting = THREADS.isThreadAllocatedMemoryEnabled();
        THREADS.setThreadAllocatedMemoryEnabled(true);
        try (Connection c = db.connectPg("prepareThreshold=1", "binaryTransfer=true");
             PreparedStatement select = c.prepareStatement("SELECT bal FROM alloc_accounts WHERE id = ?");
             PreparedStatement update = c.prepareStatement(
                     "UPDATE alloc_accounts SET bal = bal + ? WHERE id = ?")) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            final long[] sink = new long[2]; // sum of balances read, rows read
            warmUp(c, i -> select(select, i, sink));
            final double selectBytes = run(c, MEASURED, i -> select(select, i, sink));
            warmUp(c, i -> update(update, i));
            final double updateBytes = run(c, MEASURED, i -> update(update, i));
            assertTrue(selectBytes < BOUND, "point SELECT allocated " + selectBytes + " B per statement");
            assertTrue(updateBytes < BOUND, "point UPDATE allocated " + updateBytes + " B per statement");
            // the answers are right: every UPDATE pair added +1 and -1, so the sum stays
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT SUM(bal) FROM alloc_accounts")) {
                r.next();
                assertEquals(1000L * ROWS, r.getLong(1));
            }
            assertEquals(1000L * sink[1], sink[0]);
            c.commit();
        } finally {
            THREADS.setThreadAllocatedMemoryEnabled(counting);
            ResourceLeakDetector.setLevel(level);
        }
    }

    /**
     * The same statements in the simple query protocol, their values in the text (pgbench -M simple, drivers that
     * interpolate): each Query is scanned from its bytes into its shape and the kept statement runs
     * ({@link PgShapeCache}), so it allocates no more than the extended protocol's Bind and Execute.
     */
    @Test
    void simpleQueriesOfAKeptShapeAllocateNothingOnTheServer() throws SQLException {
        final ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        final boolean counting = THREADS.isThreadAllocatedMemoryEnabled();
        THREADS.setThreadAllocatedMemoryEnabled(true);
        try (Connection c = db.connectPg("preferQueryMode=simple"); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            final long[] sink = new long[2];
            final Step select = i -> {
                final String sql = "SELECT bal FROM alloc_accounts WHERE id = " + Math.max(i, 0) % ROWS;
                try (ResultSet r = s.executeQuery(sql)) {
                    assertTrue(r.next());
                    sink[0] += r.getLong(1);
                    sink[1]++;
                }
            };
            final Step update = i -> assertEquals(1, s.executeUpdate("UPDATE alloc_accounts SET bal = bal + "
                    + (i < 0 ? 0 : (i & 1) == 0 ? 1 : -1) + " WHERE id = "
                    + (i < 0 ? 0 : (i & 1) == 0 ? i % ROWS : (i - 1) % ROWS)));
            warmUp(c, select);
            final double selectBytes = run(c, MEASURED, select);
            warmUp(c, update);
            final double updateBytes = run(c, MEASURED, update);
            assertTrue(selectBytes < BOUND, "simple point SELECT allocated " + selectBytes + " B per statement");
            assertTrue(updateBytes < BOUND, "simple point UPDATE allocated " + updateBytes + " B per statement");
            try (ResultSet r = s.executeQuery("SELECT SUM(bal) FROM alloc_accounts")) {
                r.next();
                assertEquals(1000L * ROWS, r.getLong(1));
            }
            assertEquals(1000L * sink[1], sink[0]);
            c.commit();
        } finally {
            THREADS.setThreadAllocatedMemoryEnabled(counting);
            ResourceLeakDetector.setLevel(level);
        }
    }

    private interface Step {
        void run(int i) throws SQLException;
    }

    private static void select(final PreparedStatement select, final int i, final long[] sink) throws SQLException {
        select.setInt(1, Math.max(i, 0) % ROWS);
        try (ResultSet r = select.executeQuery()) {
            assertTrue(r.next());
            sink[0] += r.getLong(1);
            sink[1]++;
        }
    }

    /** Even statements add 1 to a row, odd ones take it back off that row; -1 (a transaction's first) adds 0. */
    private static void update(final PreparedStatement update, final int i) throws SQLException {
        update.setLong(1, i < 0 ? 0 : (i & 1) == 0 ? 1 : -1);
        update.setInt(2, i < 0 ? 0 : (i & 1) == 0 ? i % ROWS : (i - 1) % ROWS);
        assertEquals(1, update.executeUpdate());
    }

    private static void warmUp(final Connection c, final Step step) throws SQLException {
        for (int round = 0; round < MAX_WARM_UP_ROUNDS; round++) {
            if (run(c, WARM_UP_ROUND, step) < BOUND) {
                return;
            }
        }
    }

    /**
     * Runs {@code n} statements in transactions of {@link #PER_TRANSACTION} (the one that begins each transaction and the COMMIT are
     * not counted) and answers the front end's bytes allocated per counted statement.
     */
    private static double run(final Connection c, final int n, final Step step) throws SQLException {
        long bytes = 0;
        for (int done = 0; done < n; done += PER_TRANSACTION) {
            step.run(-1); // begins the transaction: not counted
            final long before = frontEndBytes();
            for (int i = 0; i < PER_TRANSACTION; i++) {
                step.run(done + i);
            }
            bytes += frontEndBytes() - before;
            c.commit();
        }
        return (double) bytes / n;
    }

    /** Bytes allocated so far by the PostgreSQL front end's threads (event loops and statement workers). */
    private static long frontEndBytes() {
        final Thread[] all = new Thread[Thread.activeCount() * 2 + 16];
        final int n = Thread.enumerate(all);
        long sum = 0;
        for (int i = 0; i < n; i++) {
            final String name = all[i].getName();
            if (name.startsWith("meldb-pg-io") || name.startsWith("meldb-pg-worker")) {
                final long b = THREADS.getThreadAllocatedBytes(all[i].getId());
                sum += Math.max(b, 0);
            }
        }
        return sum;
    }
}
