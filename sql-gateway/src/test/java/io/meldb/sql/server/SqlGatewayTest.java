package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SQL through the Avatica remote driver against a gateway over a real embedded node (log server + txn-server) in
 * this JVM: DDL, DML, queries, plans (pushdown), transactions and the SQLStates of errors.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public class SqlGatewayTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE emp (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, dept INT, salary DECIMAL(10,2))");
            s.execute("CREATE INDEX emp_dept ON emp (dept)");
            s.execute("CREATE TABLE dept (id INT PRIMARY KEY, title VARCHAR(20))");
            s.execute("INSERT INTO dept VALUES (1, 'eng'), (2, 'ops'), (3, 'empty')");
            s.execute("INSERT INTO emp VALUES (1, 'ann', 1, 100.50), (2, 'bob', 1, 90), (3, 'cid', 2, 70.25),"
                    + " (4, 'dan', 2, 80), (5, 'eve', NULL, 60)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void shouldAnswerJoinsAggregatesOrderByLimitAndSubqueries() throws SQLException {
        assertEquals(List.of("eng:2:190.50", "ops:2:150.25"), rows(
                "SELECT d.title, COUNT(*), SUM(e.salary) FROM emp e JOIN dept d ON e.dept = d.id "
                        + "GROUP BY d.title ORDER BY d.title"));
        assertEquals(List.of("ann", "bob"), rows("SELECT name FROM emp ORDER BY salary DESC LIMIT 2"));
        assertEquals(List.of("ann", "bob"), rows(
                "SELECT name FROM emp WHERE salary > (SELECT AVG(salary) FROM emp) ORDER BY name"));
        assertEquals(List.of("empty"), rows(
                "SELECT title FROM dept WHERE id NOT IN (SELECT dept FROM emp WHERE dept IS NOT NULL)"));
        assertEquals(List.of("eve"), rows("SELECT name FROM emp WHERE dept IS NULL"));
    }

    @Test
    void shouldAcceptTheSemicolonThatEndsAStatement() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM emp WHERE id > 0;  ")) {
                assertTrue(r.next());
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT name FROM emp WHERE id = ?;")) {
                ps.setInt(1, 1);
                try (ResultSet r = ps.executeQuery()) {
                    assertTrue(r.next());
                }
            }
        }
    }

    @Test
    void shouldPushPrimaryKeyEqualityIntoAKeyRangeScan() throws SQLException {
        final String plan = explain("SELECT name FROM emp WHERE id = 3");
        assertTrue(plan.contains("MeldTableScan(table=[[public, emp]], index=[PRIMARY KEY], range=[id = 3])"), plan);
        assertFalse(plan.contains("Filter"), plan);
        assertEquals(List.of("cid"), rows("SELECT name FROM emp WHERE id = 3"));
    }

    @Test
    void shouldPushPrimaryKeyRangeAndKeepTheRestAsAFilter() throws SQLException {
        final String plan = explain("SELECT name FROM emp WHERE id >= 2 AND id < 5 AND name <> 'cid'");
        assertTrue(plan.contains("range=[id >= 2 AND id < 5]"), plan);
        assertTrue(plan.contains("Filter") || plan.contains("Calc"), plan);
        assertEquals(List.of("bob", "dan"), rows("SELECT name FROM emp WHERE id >= 2 AND id < 5 AND name <> 'cid'"
                + " ORDER BY name"));
        assertEquals(List.of("dan", "eve"), rows("SELECT name FROM emp WHERE 3 < id ORDER BY id"));
    }

    @Test
    void shouldUseASecondaryIndexForAnEqualityOnTheIndexedColumn() throws SQLException {
        final String plan = explain("SELECT name FROM emp WHERE dept = 2");
        assertTrue(plan.contains("index=[emp_dept], range=[dept = 2]"), plan);
        assertEquals(List.of("cid", "dan"), rows("SELECT name FROM emp WHERE dept = 2 ORDER BY name"));
        assertEquals(List.of("ann", "bob", "cid", "dan"), rows("SELECT name FROM emp WHERE dept >= 1 ORDER BY name"));
    }

    @Test
    void shouldScanTheWholeTableWhenNoKeyPredicateApplies() throws SQLException {
        final String plan = explain("SELECT id FROM emp WHERE name = 'ann'");
        assertTrue(plan.contains("MeldTableScan(table=[[public, emp]])"), plan);
    }

    @Test
    void shouldPushAPreparedStatementParameterIntoTheKeyRange() throws SQLException {
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("SELECT name FROM emp WHERE id = ?")) {
            ps.setInt(1, 4);
            assertEquals(List.of("dan"), column(ps.executeQuery()));
            ps.setInt(1, 1);
            assertEquals(List.of("ann"), column(ps.executeQuery()));
        }
        assertTrue(explain("SELECT name FROM emp WHERE id = ?").contains("range=[id = ?0]"));
    }

    @Test
    void shouldUpdateAndDeleteThroughMeldTableModifyKeepingTheIndexInStep() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE item (id BIGINT PRIMARY KEY, cat VARCHAR(10), qty INT)");
            s.execute("CREATE INDEX item_cat ON item (cat)");
            assertEquals(3, s.executeUpdate("INSERT INTO item VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3)"));
            final String plan = explain("UPDATE item SET cat = 'c' WHERE id = 2");
            assertTrue(plan.contains("MeldTableModify(table=[[public, item]], operation=[UPDATE]"), plan);
            assertTrue(plan.contains("range=[id = 2]"), plan);
            assertEquals(1, s.executeUpdate("UPDATE item SET cat = 'c', qty = qty + 10 WHERE id = 2"));
            assertEquals(List.of("1"), rows("SELECT id FROM item WHERE cat = 'a'"));
            assertEquals(List.of("2:12"), rows("SELECT id, qty FROM item WHERE cat = 'c'"));
            assertEquals(2, s.executeUpdate("DELETE FROM item WHERE qty < 5"));
            assertEquals(List.of(), rows("SELECT id FROM item WHERE cat = 'a'"));
            assertEquals(List.of("2"), rows("SELECT id FROM item"));
            assertEquals(1, s.executeUpdate("UPDATE item SET id = 20 WHERE id = 2"));
            assertEquals(List.of("20:c"), rows("SELECT id, cat FROM item WHERE cat = 'c'"));
            assertEquals(2, s.executeUpdate("INSERT INTO item SELECT id + 100, cat, qty FROM item UNION ALL "
                    + "SELECT 7, 'z', 0 FROM dept WHERE id = 1"));
            assertEquals(List.of("7", "20", "120"), rows("SELECT id FROM item ORDER BY id"));
            s.execute("DROP TABLE item");
            assertEquals("42P01", stateOf(() -> rows("SELECT * FROM item")));
        }
    }

    @Test
    void shouldStoreAndCompareEveryColumnType() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE types (k1 SMALLINT, k2 BIGINT, k3 VARCHAR(5), d DECIMAL(8,3), f DOUBLE, "
                    + "b BOOLEAN, dt DATE, ts TIMESTAMP, ch CHAR(3), PRIMARY KEY (k1, k2, k3))");
            s.execute("INSERT INTO types VALUES (-1, -9000000000, 'x', -1.5, -0.25, TRUE, DATE '2024-02-29', "
                    + "TIMESTAMP '2024-02-29 12:34:56.789', 'ab')");
            s.execute("INSERT INTO types VALUES (2, 5, '', 12345.678, 1e300, FALSE, DATE '1969-12-31', "
                    + "TIMESTAMP '1960-01-01 00:00:00', NULL)");
            try (ResultSet rs = s.executeQuery("SELECT * FROM types ORDER BY k1")) {
                assertTrue(rs.next());
                assertEquals(-1, rs.getShort(1));
                assertEquals(-9000000000L, rs.getLong(2));
                assertEquals("x", rs.getString(3));
                assertEquals(new BigDecimal("-1.500"), rs.getBigDecimal(4));
                assertEquals(-0.25, rs.getDouble(5));
                assertTrue(rs.getBoolean(6));
                assertEquals("2024-02-29", rs.getString(7));
                assertEquals("2024-02-29 12:34:56.789", rs.getString(8));
                assertEquals("ab ", rs.getString(9)); // CHAR(n) is blank-padded to n
                assertTrue(rs.next());
                assertEquals("", rs.getString(3));
                assertEquals(1e300, rs.getDouble(5));
                assertEquals("1969-12-31", rs.getString(7));
                assertEquals(null, rs.getString(9));
            }
            final String plan = explain("SELECT * FROM types WHERE k1 = 2 AND k2 > 0");
            assertTrue(plan.contains("range=[k1 = 2 AND k2 > 0]"), plan);
            assertEquals(List.of("2"), rows("SELECT k1 FROM types WHERE k1 = 2 AND k2 > 0"));
            assertEquals(List.of("-1"), rows("SELECT k1 FROM types WHERE k1 = -1 AND k2 = -9000000000 AND k3 = 'x'"));
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO types (k1, k2, k3, dt, ts) VALUES (?, ?, ?, ?, ?)")) {
                ps.setShort(1, (short) 3);
                ps.setLong(2, 1);
                ps.setString(3, "p");
                ps.setDate(4, Date.valueOf("2000-01-02"));
                ps.setTimestamp(5, Timestamp.valueOf("2000-01-02 03:04:05"));
                assertEquals(1, ps.executeUpdate());
            }
            assertEquals(List.of("2000-01-02:2000-01-02 03:04:05"),
                    rows("SELECT CAST(dt AS VARCHAR(10)), CAST(ts AS VARCHAR(19)) FROM types WHERE k1 = 3"));
            s.execute("DROP TABLE types");
        }
    }

    @Test
    void shouldReportConstraintViolationsWithStandardSqlStates() throws SQLException {
        assertEquals("23505", stateOf(() -> update("INSERT INTO emp VALUES (1, 'dup', 1, 1)")));
        assertEquals("23505", stateOf(() -> update("UPDATE emp SET id = 2 WHERE id = 1")));
        assertEquals("23502", stateOf(() -> update("INSERT INTO emp (id, dept) VALUES (50, 1)")));
        assertEquals("23502", stateOf(() -> update("INSERT INTO emp VALUES (51, NULL, 1, 1)")));
        assertEquals(List.of("ann"), rows("SELECT name FROM emp WHERE id = 1"));
        assertEquals(List.of(), rows("SELECT name FROM emp WHERE id IN (50, 51)"));
    }

    @Test
    void shouldAnswerBadSqlUnknownTablesTypeErrorsAndOversizedValuesWithClearErrorsAndKeepServing() throws SQLException {
        assertEquals("42601", stateOf(() -> rows("SELEC name FROM emp")));
        assertEquals("42601", stateOf(() -> update("CREATE TABLE broken (id INT PRIMARY KEY")));
        assertEquals("42P01", stateOf(() -> rows("SELECT * FROM no_such_table")));
        assertEquals("42703", stateOf(() -> rows("SELECT no_such_column FROM emp")));
        assertEquals("42P07", stateOf(() -> update("CREATE TABLE emp (id INT PRIMARY KEY)")));
        assertEquals("0A000", stateOf(() -> update("ALTER TABLE emp ALTER COLUMN dept SET STATISTICS 5")));
        assertEquals("0A000", stateOf(() -> update("CREATE TABLE t (id BLOB PRIMARY KEY)")));
        final String typeError = stateOf(() -> update("INSERT INTO emp VALUES ('x', 'bad', 1, 1)"));
        assertTrue(typeError.startsWith("22") || typeError.startsWith("42"), typeError);
        assertEquals("22001", stateOf(() -> update("INSERT INTO emp VALUES (60, 'a name far too long for twenty', 1, 1)")));
        assertEquals("22003", stateOf(() -> update("INSERT INTO emp VALUES (61, 'big', 1, 123456789012.5)")));
        assertEquals("22012", stateOf(() -> rows("SELECT salary / 0 FROM emp WHERE id = 1")));
        assertEquals(List.of("5"), rows("SELECT COUNT(*) FROM emp"));
    }

    @Test
    void shouldCommitAndRollBackExplicitTransactions() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal INT)");
            c.setAutoCommit(false);
            s.executeUpdate("INSERT INTO acct VALUES (1, 100), (2, 100)");
            assertEquals(List.of("2"), column(s.executeQuery("SELECT COUNT(*) FROM acct")), "sees its own writes");
            assertEquals(List.of("0"), rows("SELECT COUNT(*) FROM acct"), "others do not");
            c.commit();
            assertEquals(List.of("2"), rows("SELECT COUNT(*) FROM acct"));
            s.executeUpdate("UPDATE acct SET bal = bal - 10 WHERE id = 1");
            c.rollback();
            assertEquals(List.of("100"), rows("SELECT bal FROM acct WHERE id = 1"));
            // a failed write dooms the transaction until rollback
            assertEquals("23505", stateOf(() -> s.executeUpdate("INSERT INTO acct VALUES (1, 5)")));
            assertEquals("25P02", stateOf(() -> s.executeQuery("SELECT * FROM acct")));
            c.rollback();
            assertEquals(List.of("2"), column(s.executeQuery("SELECT COUNT(*) FROM acct")));
            c.commit();
            c.setAutoCommit(true);
            s.execute("DROP TABLE acct");
        }
    }

    @Test
    void shouldRefuseWritesOnAReadOnlyConnection() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            c.setReadOnly(true);
            assertEquals(List.of("5"), column(s.executeQuery("SELECT COUNT(*) FROM emp")));
            assertEquals("25006", stateOf(() -> s.executeUpdate("DELETE FROM emp")));
            c.setReadOnly(false);
        }
        assertEquals(List.of("5"), rows("SELECT COUNT(*) FROM emp"));
    }

    @Test
    void shouldReportAMeldAbortAsSerializationFailure40001ThroughTheRemoteDriver() throws SQLException {
        try (Connection a = db.connect(); Connection b = db.connect();
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            sa.execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT)");
            sa.execute("INSERT INTO counter VALUES (1, 0)");
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            for (int round = 0; round < 2; round++) {
                column(sa.executeQuery("SELECT n FROM counter WHERE id = 1"));
                column(sb.executeQuery("SELECT n FROM counter WHERE id = 1"));
                sa.executeUpdate("UPDATE counter SET n = n + 1 WHERE id = 1");
                sb.executeUpdate("UPDATE counter SET n = n + 1 WHERE id = 1");
                a.commit();
                if (round == 0) {
                    // COMMIT as a statement: a java.sql.SQLException, as retry loops expect
                    final SQLException e = assertThrows(SQLException.class, () -> sb.execute("COMMIT"));
                    assertEquals("40001", e.getSQLState(), e.getMessage());
                    assertEquals(0, e.getErrorCode());
                } else {
                    // Connection.commit(): Avatica's client passes the server's error on as its
                    // AvaticaClientRuntimeException (not an SQLException), still with SQLState 40001 and code 0
                    final RuntimeException e = assertThrows(RuntimeException.class, b::commit);
                    final org.apache.calcite.avatica.AvaticaClientRuntimeException ace =
                            (org.apache.calcite.avatica.AvaticaClientRuntimeException) e;
                    assertEquals("40001", ace.getSqlState(), ace.getMessage());
                    assertEquals(0, ace.getErrorCode());
                }
                // the standard retry: run the transaction again
                sb.executeUpdate("UPDATE counter SET n = n + 1 WHERE id = 1");
                b.commit();
            }
            a.setAutoCommit(true);
            assertEquals(List.of("4"), column(sa.executeQuery("SELECT n FROM counter WHERE id = 1")));
            sa.execute("DROP TABLE counter");
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    interface SqlAction {
        Object run() throws SQLException;
    }

    static String stateOf(final SqlAction action) {
        final SQLException e = assertThrows(SQLException.class, action::run);
        return e.getSQLState();
    }

    static int update(final String sql) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    static List<String> rows(final String sql) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            return column(s.executeQuery(sql));
        }
    }

    static String explain(final String sql) throws SQLException {
        return String.join("\n", rows("EXPLAIN PLAN FOR " + sql));
    }

    /** Rows as strings, columns joined by ':'. */
    public static List<String> column(final ResultSet rs) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (rs) {
            final int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                final StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    if (i > 1) {
                        b.append(':');
                    }
                    b.append(rs.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }
}
