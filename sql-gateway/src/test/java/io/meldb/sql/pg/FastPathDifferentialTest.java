package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast path answers as Calcite does: the same random key accesses run on two identical tables, one through
 * a connection with the fast path and one with {@code SET meldb.fast_path = off}; every result (rows, update
 * count, or the error's SQLState) and the final contents must match.
 */
@Timeout(180)
class FastPathDifferentialTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    private static final String COLUMNS = "k INTEGER, s VARCHAR(8), n BIGINT NOT NULL, d DECIMAL(8, 2), "
            + "f DOUBLE, b BOOLEAN, dt DATE, ts TIMESTAMP, PRIMARY KEY (k, s)";

    /** Both front ends: PostgreSQL's protocol (SET meldb.fast_path) and Avatica's (a connection property). */
    @ParameterizedTest
    @ValueSource(strings = {"PG", "AVATICA"})
    void shouldGiveTheSameAnswersWithAndWithoutTheFastPath(final String protocol) throws SQLException {
        final boolean pg = protocol.equals("PG");
        final java.util.Properties off = new java.util.Properties();
        off.setProperty("meldb.fast_path", "off");
        try (Connection fast = pg ? db.connectPg("prepareThreshold=1") : DriverManager.getConnection(
                db.gateway.meldJdbcUrl());
             Connection slow = pg ? db.connectPg("prepareThreshold=1") : DriverManager.getConnection(
                db.gateway.meldJdbcUrl(), off)) {
            if (pg) {
                try (Statement s = slow.createStatement()) {
                    s.execute("SET meldb.fast_path = off");
                }
            }
            final String fa = "FA_" + protocol;
            final String sa = "SA_" + protocol;
            try (Statement s = fast.createStatement()) {
                s.execute("CREATE TABLE " + fa + " (" + COLUMNS + ")");
                s.execute("CREATE TABLE " + sa + " (" + COLUMNS + ")");
                s.execute("CREATE INDEX " + fa + "_N ON " + fa + " (n)");
                s.execute("CREATE INDEX " + sa + "_N ON " + sa + " (n)");
            }
            final Random random = new Random(42);
            for (int i = 0; i < 600; i++) {
                final Op op = Op.random(random);
                final String a = run(fast, op, fa);
                final String b = run(slow, op, sa);
                assertEquals(b, a, () -> "operation " + op);
            }
            assertEquals(contents(slow, sa), contents(fast, fa));
            assertTrue(contents(fast, fa).size() > 10, "the run left rows to compare");
        }
    }

    @Test
    void shouldShowInExplainWhichPathAStatementTakes() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE EX (id INTEGER PRIMARY KEY, v VARCHAR(10))");
            assertEquals("FastPath(PointRead table=[public, ex] key=[id])",
                    plan(s, "EXPLAIN PLAN FOR SELECT v FROM EX WHERE id = 7"));
            assertEquals("FastPath(PointWrite table=[public, ex] key=[id])",
                    plan(s, "EXPLAIN PLAN FOR UPDATE EX SET v = 'a' WHERE id = 7"));
            assertEquals("FastPath(Insert table=[public, ex])", plan(s, "EXPLAIN PLAN FOR INSERT INTO EX VALUES (1, 'a')"));
            assertTrue(plan(s, "EXPLAIN PLAN FOR SELECT v FROM EX WHERE id > 7").contains("MeldTableScan"),
                    "a range is Calcite's");
            assertEquals("FastPath(PointRead table=[public, ex] key=[id])",
                    plan(s, "explain SELECT v FROM EX WHERE id = 7"), "PostgreSQL's spelling of EXPLAIN");
            assertTrue(plan(s, "EXPLAIN ANALYZE SELECT v FROM EX WHERE id = 7")
                    .startsWith("FastPath(PointRead table=[public, ex] key=[id])  (actual time="), "it ran");
            s.execute("SET meldb.fast_path = off");
            assertTrue(plan(s, "EXPLAIN PLAN FOR SELECT v FROM EX WHERE id = 7").contains("MeldTableScan"));
        }
    }

    @Test
    void shouldStoreTheSameClockReadingsAsCalciteDoes() throws SQLException {
        try (Connection fast = db.connectPg(); Connection slow = db.connectPg();
             Statement f = fast.createStatement(); Statement sl = slow.createStatement()) {
            sl.execute("SET meldb.fast_path = off");
            f.execute("CREATE TABLE CLK (id INTEGER PRIMARY KEY, ts TIMESTAMP, d DATE)");
            final String insert = "INSERT INTO CLK VALUES (%d, CURRENT_TIMESTAMP, CURRENT_DATE)";
            assertEquals("FastPath(Insert table=[public, clk])", plan(f, "EXPLAIN PLAN FOR " + String.format(insert, 0)));
            f.executeUpdate(String.format(insert, 1));
            sl.executeUpdate(String.format(insert, 2));
            try (ResultSet r = f.executeQuery("SELECT ts, d FROM CLK ORDER BY id")) {
                assertTrue(r.next());
                final java.sql.Timestamp a = r.getTimestamp(1);
                final java.sql.Date da = r.getDate(2);
                assertTrue(r.next());
                final java.sql.Timestamp b = r.getTimestamp(1);
                assertTrue(Math.abs(a.getTime() - b.getTime()) < 10_000, a + " against " + b);
                assertEquals(r.getDate(2).toLocalDate(), da.toLocalDate());
            }
        }
    }

    @Test
    void shouldTakeTheFastPathThroughAvaticaUnlessTheConnectionTurnsItOff() throws SQLException {
        final java.util.Properties off = new java.util.Properties();
        off.setProperty("meldb.fast_path", "off");
        try (Connection c = DriverManager.getConnection(db.gateway.meldJdbcUrl());
             Connection slow = DriverManager.getConnection(db.gateway.meldJdbcUrl(), off);
             Statement s = c.createStatement(); Statement t = slow.createStatement()) {
            s.execute("CREATE TABLE EXA (id INTEGER PRIMARY KEY, v VARCHAR(10))");
            // prepared statements take the fast path; a one-off Statement is planned by Calcite
            assertEquals("FastPath(PointRead table=[public, exa] key=[id])",
                    preparedPlan(c, "EXPLAIN PLAN FOR SELECT v FROM EXA WHERE id = 7"));
            assertTrue(preparedPlan(slow, "EXPLAIN PLAN FOR SELECT v FROM EXA WHERE id = 7")
                    .contains("MeldTableScan"));
            assertTrue(plan(s, "EXPLAIN PLAN FOR SELECT v FROM EXA WHERE id = 7").contains("MeldTableScan"));
        }
    }

    private static String preparedPlan(final Connection c, final String sql) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql); ResultSet r = p.executeQuery()) {
            assertTrue(r.next());
            return r.getString(1).trim();
        }
    }

    private static String plan(final Statement s, final String sql) throws SQLException {
        try (ResultSet r = s.executeQuery(sql)) {
            assertTrue(r.next());
            return r.getString(1).trim();
        }
    }

    /** One random statement with its parameter values. */
    private record Op(String sql, List<Object> parameters) {
        static Op random(final Random r) {
            final int k = r.nextInt(30);
            final String s = r.nextInt(4) == 0 ? null : "s" + r.nextInt(3);
            final List<Object> p = new ArrayList<>();
            switch (r.nextInt(9)) {
                case 0, 1 -> {
                    p.add(k);
                    p.add(s);
                    p.add(r.nextInt(5) == 0 ? Long.MAX_VALUE - r.nextInt(3) : (long) r.nextInt(1000));
                    p.add(r.nextInt(6) == 0 ? new BigDecimal("123456.789") : new BigDecimal(r.nextInt(10_000))
                            .movePointLeft(2));
                    p.add(r.nextDouble());
                    p.add(r.nextBoolean());
                    p.add(java.sql.Date.valueOf(java.time.LocalDate.of(2000 + r.nextInt(30), 1 + r.nextInt(12), 1)));
                    p.add(java.sql.Timestamp.valueOf(java.time.LocalDateTime.of(2020, 5, 6, 7, r.nextInt(60),
                            r.nextInt(60), r.nextInt(1000) * 1_000_000)));
                    return new Op("INSERT INTO %s VALUES (?, ?, ?, ?, ?, ?, ?, ?)", p);
                }
                case 2 -> {
                    return new Op("INSERT INTO %s (s, k, n) VALUES ('lit', " + k + ", -5)", p);
                }
                case 3, 4 -> {
                    p.add(k);
                    p.add(s);
                    return new Op("SELECT * FROM %s WHERE k = ? AND s = ?", p);
                }
                case 5 -> {
                    p.add(s);
                    return new Op("SELECT n, d AS amount, k FROM %s WHERE s = ? AND k = " + k, p);
                }
                case 6 -> {
                    p.add(r.nextInt(3) == 0 ? Long.MAX_VALUE : (long) r.nextInt(100) - 50);
                    p.add(new BigDecimal(r.nextInt(1000)).movePointLeft(1));
                    p.add(k);
                    p.add(s);
                    return new Op("UPDATE %s SET n = n + ?, d = d - ?, b = NOT b WHERE k = ? AND s = ?", p);
                }
                case 7 -> {
                    p.add(r.nextInt(100));
                    p.add(k);
                    p.add(s);
                    return new Op("UPDATE %s SET n = ?, f = f + 1.5 WHERE k = ? AND s = ?", p);
                }
                default -> {
                    p.add(k);
                    p.add(s);
                    return new Op("DELETE FROM %s WHERE k = ? AND s = ?", p);
                }
            }
        }
    }

    /** Runs one operation; answers its result as text (rows, count, or SQLState). */
    private static String run(final Connection c, final Op op, final String table) {
        try (PreparedStatement p = c.prepareStatement(String.format(op.sql(), table))) {
            for (int i = 0; i < op.parameters().size(); i++) {
                p.setObject(i + 1, op.parameters().get(i));
            }
            if (p.execute()) {
                try (ResultSet r = p.getResultSet()) {
                    return rows(r).toString();
                }
            }
            return "count " + p.getUpdateCount();
        } catch (SQLException e) {
            return "error " + e.getSQLState();
        }
    }

    private static List<String> contents(final Connection c, final String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT * FROM " + table
                + " ORDER BY k, s")) {
            return rows(r);
        }
    }

    private static List<String> rows(final ResultSet r) throws SQLException {
        final ResultSetMetaData md = r.getMetaData();
        final List<String> out = new ArrayList<>();
        final StringBuilder header = new StringBuilder();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            header.append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i)).append(' ');
        }
        out.add(header.toString());
        while (r.next()) {
            final StringBuilder row = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                row.append(Objects.toString(r.getObject(i))).append('|');
            }
            out.add(row.toString());
        }
        return out;
    }
}
