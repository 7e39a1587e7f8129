package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Joins on a primary key or an indexed column run as key lookups (MeldLookupJoin) per row of the other side,
 * not as a hash join over the whole other table: checked in EXPLAIN and in the rows the gateway read.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LookupJoinTest {
    private static final int STOCK = 100_000;
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws Exception {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE stock (s_i_id INT PRIMARY KEY, s_quantity INT)");
            s.execute("CREATE TABLE order_line (ol_o_id INT, ol_number INT, ol_i_id INT, PRIMARY KEY (ol_o_id, "
                    + "ol_number))");
            final CopyManager copy = new CopyManager(c.unwrap(BaseConnection.class));
            for (int from = 0; from < STOCK; from += 20_000) {
                final StringBuilder data = new StringBuilder();
                for (int i = from; i < from + 20_000; i++) {
                    data.append(i).append('\t').append(i % 100).append('\n');
                }
                copy.copyIn("COPY stock FROM STDIN", new StringReader(data.toString()));
            }
            final StringBuilder lines = new StringBuilder("INSERT INTO order_line VALUES ");
            for (int o = 0; o < 40; o++) {
                for (int n = 0; n < 10; n++) {
                    lines.append(o + n == 0 ? "" : ", ").append('(').append(o).append(", ").append(n).append(", ")
                            .append((o * 7919 + n * 104_729) % STOCK).append(')');
                }
            }
            s.execute(lines.toString());
            s.execute("CREATE TABLE emp (id INT PRIMARY KEY, dept INT, name VARCHAR(10))");
            s.execute("CREATE INDEX emp_dept ON emp (dept)");
            s.execute("CREATE TABLE dept (id INT PRIMARY KEY, title VARCHAR(10))");
            s.execute("INSERT INTO dept VALUES (1, 'eng'), (2, 'ops'), (3, 'empty')");
            s.execute("INSERT INTO emp VALUES (1, 1, 'ann'), (2, 1, 'bob'), (3, 2, 'cid'), (4, NULL, 'dan'), "
                    + "(5, 9, 'eve')");
            s.execute("CREATE TABLE wstock (w INT, i INT, q INT, PRIMARY KEY (w, i))");
            s.execute("INSERT INTO wstock VALUES (1, 1, 10), (1, 2, 20), (1, 3, 30), (2, 1, 11), (2, 4, 41)");
            s.execute("CREATE TABLE big_ref (id INT PRIMARY KEY, emp_ref BIGINT)");
            s.execute("INSERT INTO big_ref VALUES (1, 1), (2, 1099511627776)");
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    private static final String STOCK_LEVEL = "SELECT COUNT(DISTINCT s.s_i_id) FROM order_line ol, stock s "
            + "WHERE ol.ol_o_id >= 10 AND ol.ol_o_id < 30 AND s.s_i_id = ol.ol_i_id AND s.s_quantity < 50";

    @Test
    void shouldLookTheStockUpByKeyInsteadOfReadingTheWholeTable() throws SQLException {
        final String plan = explain(STOCK_LEVEL);
        assertTrue(plan.contains("MeldLookupJoin(table=[[PUBLIC, STOCK]], index=[PRIMARY KEY]")
                || plan.toUpperCase(java.util.Locale.ROOT).contains("MELDLOOKUPJOIN(TABLE=[[PUBLIC, STOCK]]"), plan);
        long expected = 0;
        final java.util.Set<Integer> items = new java.util.TreeSet<>();
        for (int o = 10; o < 30; o++) {
            for (int n = 0; n < 10; n++) {
                final int item = (o * 7919 + n * 104_729) % STOCK;
                if (item % 100 < 50) {
                    items.add(item);
                }
            }
        }
        expected = items.size();
        final double before = db.metrics.rowsRead();
        final long start = System.nanoTime();
        assertEquals(List.of(String.valueOf(expected)), rows(STOCK_LEVEL));
        final long ms = (System.nanoTime() - start) / 1_000_000;
        final double read = db.metrics.rowsRead() - before;
        System.out.printf(java.util.Locale.ROOT, "stock-level query: %.0f rows read, %d ms%n", read, ms);
        assertTrue(read <= 1_000, "read " + read + " rows of a " + STOCK + "-row table");
    }

    @Test
    void shouldJoinThroughAnIndexAndKeepLeftJoinAndNullSemantics() throws SQLException {
        final String q = "SELECT d.title, e.name FROM dept d JOIN emp e ON e.dept = d.id ORDER BY 1, 2";
        assertTrue(explain(q).contains("MeldLookupJoin"), explain(q));
        assertEquals(List.of("eng ann", "eng bob", "ops cid"), rows(q));
        final String left = "SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON d.id = e.dept ORDER BY 1";
        assertTrue(explain(left).contains("MeldLookupJoin"), explain(left));
        assertEquals(List.of("ann eng", "bob eng", "cid ops", "dan null", "eve null"), rows(left));
        // the other join conditions stay as a filter above the lookups
        assertEquals(List.of("bob"), rows("SELECT e.name FROM emp e, dept d WHERE e.dept = d.id AND d.title = "
                + "'eng' AND e.id > 1"));
        assertEquals(List.of("eng", "ops"), rows("SELECT title FROM dept WHERE id IN (SELECT dept FROM emp) "
                + "ORDER BY 1"));
    }

    @Test
    void shouldTakeLeadingKeyColumnsFromTheTablesFilterAndMatchNothingOutOfRange() throws SQLException {
        final String q = "SELECT e.name, s.q FROM emp e, wstock s WHERE s.w = 1 AND s.i = e.id ORDER BY 1";
        final String plan = explain(q);
        // either side may be looked up: wstock by (w = 1, i = e.id), or emp by id after a range read of w = 1
        assertTrue(plan.contains("MeldLookupJoin(table=[[public, wstock]], index=[PRIMARY KEY], key=[w = 1 AND i =")
                || plan.contains("MeldLookupJoin(table=[[public, emp]], index=[PRIMARY KEY], key=[id = "), plan);
        assertEquals(List.of("ann 10", "bob 20", "cid 30"), rows(q));
        assertEquals(List.of("1"), rows("SELECT r.id FROM big_ref r JOIN emp e ON e.id = r.emp_ref"));
    }

    private static String explain(final String sql) throws SQLException {
        return String.join("\n", rowsOver(db.connect(), "EXPLAIN PLAN FOR " + sql));
    }

    private static List<String> rows(final String sql) throws SQLException {
        final List<String> pg = rowsOver(db.connectPg(), sql);
        assertEquals(pg, rowsOver(db.connect(), sql), "both front ends answer the same");
        return pg;
    }

    private static List<String> rowsOver(final Connection connection, final String sql) throws SQLException {
        try (Connection c = connection; Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            final List<String> out = new ArrayList<>();
            final int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                final StringBuilder row = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    row.append(i == 1 ? "" : " ").append(r.getString(i));
                }
                out.add(row.toString());
            }
            assertFalse(out.isEmpty() && sql.startsWith("EXPLAIN") && out.get(0).isEmpty());
            return out;
        }
    }
}
