package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many-way joins plan with bounded effort (heuristic join ordering, no exhaustive search) and run: chains and
 * stars of 4, 10, 20 and 64 ten-row tables, over the PostgreSQL protocol.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class JoinPlanningTest {
    private static final int TABLES = 64;
    private static final int ROWS = 10;
    /** Far below the minutes an exhaustive search takes, generous for a loaded 2-core machine. */
    private static final long PLAN_BOUND_MS = 30_000;
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            for (int t = 1; t <= TABLES; t++) {
                s.execute("CREATE TABLE j" + t + " (id INT PRIMARY KEY, v INT, w INT)");
                final StringBuilder insert = new StringBuilder("INSERT INTO j" + t + " VALUES ");
                for (int i = 0; i < ROWS; i++) {
                    insert.append(i == 0 ? "" : ", ").append('(').append(i).append(", ").append(i).append(", ")
                            .append((i + 1) % ROWS).append(')');
                }
                s.execute(insert.toString());
            }
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    /** t1 - t2 - ... - tn, each joined to the next on a non-key column. */
    private static String chain(final int n) {
        final StringBuilder from = new StringBuilder();
        final StringBuilder where = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            from.append(i == 1 ? "" : ", ").append("j").append(i);
            if (i > 1) {
                where.append(i == 2 ? "" : " AND ").append("j").append(i - 1).append(".v = j").append(i).append(".v");
            }
        }
        return "SELECT COUNT(*) FROM " + from + " WHERE " + where;
    }

    /** t1 in the middle, every other table joined to it by primary key. */
    private static String star(final int n) {
        final StringBuilder from = new StringBuilder("j1");
        final StringBuilder where = new StringBuilder();
        for (int i = 2; i <= n; i++) {
            from.append(", j").append(i);
            where.append(i == 2 ? "" : " AND ").append("j1.w = j").append(i).append(".id");
        }
        return "SELECT COUNT(*) FROM " + from + " WHERE " + where;
    }

    private static long timeCount(final String sql, final long expected) throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = '120s'");
            final long start = System.nanoTime();
            try (ResultSet r = s.executeQuery(sql)) {
                assertTrue(r.next());
                assertEquals(expected, r.getLong(1));
            }
            return (System.nanoTime() - start) / 1_000_000;
        }
    }

    @Test
    void shouldPlanAndRunChainsOf4To64TablesFast() throws SQLException {
        for (int n : new int[] {4, 10, 20, TABLES}) {
            final long ms = timeCount(chain(n), ROWS);
            System.out.printf(Locale.ROOT, "chain of %d tables: %d ms%n", n, ms);
            assertTrue(ms < PLAN_BOUND_MS, "a chain of " + n + " tables took " + ms + " ms");
        }
    }

    @Test
    void shouldPlanAndRunStarsOf4To64TablesFast() throws SQLException {
        for (int n : new int[] {4, 10, 20, TABLES}) {
            final long ms = timeCount(star(n), ROWS);
            System.out.printf(Locale.ROOT, "star of %d tables: %d ms%n", n, ms);
            assertTrue(ms < PLAN_BOUND_MS, "a star of " + n + " tables took " + ms + " ms");
        }
    }
}
