package io.meldb.sql.conformance;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many-way equality joins plan quickly and answer correctly: chains and stars of 8, 16, 32 and 64 small tables,
 * planned (EXPLAIN) and run over the PostgreSQL protocol. The planning bound is generous for a loaded 2-core
 * machine; the figures printed are the ones docs/sql.md quotes.
 */
class JoinOrderTest extends ConformanceTest {
    private static final int TABLES = 64;
    private static final int ROWS = 10;
    /** Planning a 64-table join must take well under this, even cold on a loaded machine. */
    private static final long PLAN_BOUND_MS = 5_000;

    @BeforeAll
    static void createTables() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            for (int t = 1; t <= TABLES; t++) {
                s.execute("CREATE TABLE jo" + t + " (id INT PRIMARY KEY, v INT, w INT)");
                final StringBuilder insert = new StringBuilder("INSERT INTO jo" + t + " VALUES ");
                for (int i = 0; i < ROWS; i++) {
                    insert.append(i == 0 ? "" : ", ").append('(').append(i).append(", ").append(i).append(", ")
                            .append((i + 1) % ROWS).append(')');
                }
                s.execute(insert.toString());
            }
        }
    }

    /** jo1 - jo2 - ... - jon, each joined to the next on a non-key column. */
    static String chain(final int n) {
        final StringBuilder from = new StringBuilder();
        final StringBuilder where = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            from.append(i == 1 ? "" : ", ").append("jo").append(i);
            if (i > 1) {
                where.append(i == 2 ? "" : " AND ").append("jo").append(i - 1).append(".v = jo").append(i)
                        .append(".v");
            }
        }
        return "SELECT COUNT(*), SUM(jo1.w) FROM " + from + " WHERE " + where;
    }

    /** jo1 in the middle, every other table joined to it by primary key. */
    static String star(final int n) {
        final StringBuilder from = new StringBuilder("jo1");
        final StringBuilder where = new StringBuilder();
        for (int i = 2; i <= n; i++) {
            from.append(", jo").append(i);
            where.append(i == 2 ? "" : " AND ").append("jo1.w = jo").append(i).append(".id");
        }
        return "SELECT COUNT(*), SUM(jo" + n + ".v) FROM " + from + " WHERE " + where;
    }

    /** The best of three times to plan {@code sql} (EXPLAIN), in ms, after checking it answers {@code expected}. */
    private static long planMillis(final Statement s, final String sql, final String expected) throws SQLException {
        long ms = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            // a different text each time: the session keeps plans by text
            final long start = System.nanoTime();
            try (ResultSet r = s.executeQuery("EXPLAIN " + sql + " AND jo1.id > -" + (i + 2))) {
                assertTrue(r.next());
            }
            ms = Math.min(ms, (System.nanoTime() - start) / 1_000_000);
        }
        assertEquals(java.util.List.of(expected), Conformance.rows(s, sql), sql);
        return ms;
    }

    @Test
    void chainsAndStarsOf8To64TablesPlanInMillisecondsAndAnswerCorrectly() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = '100s'");
            for (int n : new int[] {8, 16, 32, TABLES}) {
                // every row matches exactly one row of the next table: 10 rows, w summing to 45
                final long chainMs = planMillis(s, chain(n), ROWS + ":45");
                // jo1.w = (id + 1) % 10 hits every id once, and jo_n.v = id: 10 rows, v summing to 45
                final long starMs = planMillis(s, star(n), ROWS + ":45");
                System.out.printf(Locale.ROOT, "plan: chain of %d tables %d ms, star of %d tables %d ms%n", n,
                        chainMs, n, starMs);
                assertTrue(chainMs < PLAN_BOUND_MS, "planning a chain of " + n + " tables took " + chainMs + " ms");
                assertTrue(starMs < PLAN_BOUND_MS, "planning a star of " + n + " tables took " + starMs + " ms");
            }
        }
    }
}
