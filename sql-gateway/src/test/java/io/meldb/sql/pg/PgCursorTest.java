package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SQL cursors (DECLARE, FETCH, MOVE, CLOSE) over pgjdbc and the bare protocol ({@link PgWireClient}), each answer
 * recorded from PostgreSQL 15 running the same statements: every direction of FETCH and MOVE on a SCROLL cursor,
 * the refusals of a forward-only one, PostgreSQL's errors, cursors ending with their transaction, WITH HOLD ones
 * surviving COMMIT (and dropped by the ROLLBACK of the transaction that declared them), savepoints, a cursor not
 * seeing its own transaction's later writes, parameters, row limits, BINARY cursors, command tags and pg_cursors.
 */
@Timeout(120)
class PgCursorTest {
    private static EmbeddedGateway db;

    /** A SCROLL cursor over ids 1..5 moved by each statement in turn, and PostgreSQL 15's answer (rows, or MOVE n). */
    private static final String[][] SCROLL_STEPS = {
        {"FETCH NEXT FROM c", "1"},
        {"FETCH c", "2"},
        {"FETCH FORWARD FROM c", "3"},
        {"FETCH PRIOR FROM c", "2"},
        {"FETCH FIRST FROM c", "1"},
        {"FETCH LAST IN c", "5"},
        {"FETCH NEXT FROM c", ""},
        {"FETCH NEXT FROM c", ""},
        {"FETCH PRIOR FROM c", "5"},
        {"FETCH ABSOLUTE -2 FROM c", "4"},
        {"FETCH RELATIVE -1 FROM c", "3"},
        {"FETCH RELATIVE 2 FROM c", "5"},
        {"FETCH RELATIVE 0 FROM c", "5"},
        {"FETCH 0 FROM c", "5"},
        {"FETCH BACKWARD 2 FROM c", "4,3"},
        {"FETCH FORWARD ALL FROM c", "4,5"},
        {"FETCH BACKWARD ALL FROM c", "5,4,3,2,1"},
        {"FETCH BACKWARD FROM c", ""},
        {"FETCH ABSOLUTE 3 FROM c", "3"},
        {"FETCH ABSOLUTE 1 FROM c", "1"},
        {"FETCH ABSOLUTE 9 FROM c", ""},
        {"FETCH PRIOR FROM c", "5"},
        {"FETCH ABSOLUTE -9 FROM c", ""},
        {"FETCH NEXT FROM c", "1"},
        {"FETCH 2 FROM c", "2,3"},
        {"FETCH -1 FROM c", "2"},
        {"FETCH FORWARD 3 c", "3,4,5"},
        {"FETCH BACKWARD -2 FROM c", ""},
        {"FETCH ALL FROM c", ""},
        {"FETCH RELATIVE -6 FROM c", ""},
        {"FETCH ABSOLUTE 0 FROM c", ""},
        {"FETCH RELATIVE 0 FROM c", ""},
        {"FETCH FORWARD +2 IN c", "1,2"},
        {"FETCH LAST FROM c", "5"},
        {"FETCH RELATIVE 1 FROM c", ""},
        {"FETCH RELATIVE -1 FROM c", "5"},
        {"FETCH FORWARD 0 FROM c", "5"},
        {"FETCH BACKWARD 0 FROM c", "5"},
        {"MOVE FORWARD ALL IN c", "MOVE 0"},
        {"MOVE BACKWARD ALL IN c", "MOVE 5"},
        {"MOVE ABSOLUTE 10 IN c", "MOVE 0"},
        {"MOVE ABSOLUTE 0 IN c", "MOVE 0"},
        {"MOVE 2 IN c", "MOVE 2"},
        {"MOVE 0 IN c", "MOVE 1"},
        {"MOVE RELATIVE 0 IN c", "MOVE 1"},
        {"MOVE LAST IN c", "MOVE 1"},
        {"MOVE NEXT IN c", "MOVE 0"},
        {"MOVE 0 IN c", "MOVE 0"},
        {"MOVE PRIOR IN c", "MOVE 1"},
        {"MOVE BACKWARD 10 IN c", "MOVE 4"},
        {"MOVE FIRST IN c", "MOVE 1"},
        {"MOVE ABSOLUTE -1 IN c", "MOVE 1"},
        {"MOVE FORWARD 10 IN c", "MOVE 0"},
        {"FETCH PRIOR FROM c", "5"},
    };

    /**
     * A NO SCROLL cursor over ids 1..5, fresh in its own transaction: statements that move it first, the statement,
     * and what PostgreSQL 15 answers (rows, MOVE n, or the error's SQLSTATE).
     */
    private static final String[][] FORWARD_ONLY = {
        {"", "FETCH FIRST FROM c", "1"},
        {"FETCH NEXT FROM c", "FETCH FIRST FROM c", "55000"},
        {"", "FETCH ABSOLUTE 3 FROM c", "3"},
        {"FETCH 3 FROM c", "FETCH ABSOLUTE 2 FROM c", "55000"},
        {"FETCH 1 FROM c", "FETCH ABSOLUTE 3 FROM c", "3"},
        {"FETCH 1 FROM c", "FETCH ABSOLUTE 2 FROM c", "2"},
        {"", "FETCH 0 FROM c", ""},
        {"FETCH 1 FROM c", "FETCH 0 FROM c", "55000"},
        {"FETCH 1 FROM c", "MOVE 0 IN c", "MOVE 1"},
        {"", "FETCH PRIOR FROM c", "55000"},
        {"", "FETCH LAST FROM c", "55000"},
        {"", "MOVE BACKWARD ALL IN c", "MOVE 0"},
        {"FETCH ALL FROM c", "FETCH NEXT FROM c", ""},
        {"FETCH ALL FROM c", "MOVE BACKWARD ALL IN c", "55000"},
        {"", "FETCH RELATIVE -1 FROM c", "55000"},
        {"", "FETCH BACKWARD 0 FROM c", "55000"},
        {"", "FETCH RELATIVE 3 FROM c", "3"},
        {"MOVE 2 IN c", "FETCH RELATIVE 2 FROM c", "4"},
        {"", "FETCH ABSOLUTE 0 FROM c", ""},
        {"FETCH 1 FROM c", "FETCH ABSOLUTE 0 FROM c", "55000"},
        {"", "FETCH -1 FROM c", "55000"},
        {"", "FETCH FORWARD -1 FROM c", "55000"},
        {"", "FETCH BACKWARD -2 FROM c", "1,2"},
        {"FETCH ALL FROM c", "MOVE 0 IN c", "MOVE 0"},
        {"", "FETCH ABSOLUTE 6 FROM c", ""},
        {"FETCH ABSOLUTE 6 FROM c", "FETCH NEXT FROM c", ""},
    };

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cur_t (id INTEGER PRIMARY KEY, v VARCHAR(20))");
            s.execute("INSERT INTO cur_t VALUES (1, 'v1'), (2, 'v2'), (3, 'v3'), (4, 'v4'), (5, 'v5')");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    /** Runs a FETCH (its first column's values, comma-separated) or a MOVE ("MOVE n", pgjdbc's update count). */
    private static String run(final Statement s, final String sql) throws SQLException {
        if (s.execute(sql)) {
            final List<String> values = new ArrayList<>();
            try (ResultSet r = s.getResultSet()) {
                while (r.next()) {
                    values.add(r.getString(1));
                }
            }
            return String.join(",", values);
        }
        return "MOVE " + s.getUpdateCount();
    }

    private static String sqlState(final Statement s, final String sql) {
        return assertThrows(SQLException.class, () -> s.execute(sql), sql).getSQLState();
    }

    @Test
    void shouldMoveAScrollCursorInEveryDirectionAsPostgres() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE c SCROLL CURSOR FOR SELECT id FROM cur_t ORDER BY id");
            for (String[] step : SCROLL_STEPS) {
                assertEquals(step[1], run(s, step[0]), step[0]);
            }
            s.execute("CLOSE c");
            c.commit();
        }
    }

    @Test
    void shouldMoveAForwardOnlyCursorForwardAndRefuseBackwardAsPostgres() throws SQLException {
        for (String declare : new String[] {"DECLARE c NO SCROLL CURSOR FOR SELECT id FROM cur_t ORDER BY id",
            // neither SCROLL nor NO SCROLL: forward-only in MeldDB, where PostgreSQL scrolls one whose plan can run
            // back; there MeldDB answers 0A000 (not supported) instead of PostgreSQL's 55000 for NO SCROLL
            "DECLARE c CURSOR FOR SELECT id FROM cur_t ORDER BY id"}) {
            final boolean noScroll = declare.contains("NO SCROLL");
            try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                for (String[] step : FORWARD_ONLY) {
                    s.execute(declare);
                    if (!step[0].isEmpty()) {
                        run(s, step[0]);
                    }
                    String got;
                    try {
                        got = run(s, step[1]);
                    } catch (SQLException e) {
                        got = e.getSQLState();
                        // the transaction failed: nothing runs until ROLLBACK, which drops the cursor
                        assertEquals("25P02", sqlState(s, "FETCH NEXT FROM c"));
                    }
                    final String expected = step[2].equals("55000") && !noScroll ? "0A000" : step[2];
                    assertEquals(expected, got, declare + ": " + step[0] + "; " + step[1]);
                    c.rollback();
                }
                assertEquals("34000", sqlState(s, "FETCH NEXT FROM c"), "rolled back with its transaction");
            }
        }
    }

    @Test
    void shouldAnswerPostgresErrors() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            assertEquals("25P01", sqlState(s, "DECLARE c CURSOR FOR SELECT 1"), "outside a transaction block");
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM nosuch"));
            assertEquals("34000", sqlState(s, "MOVE NEXT IN nosuch"));
            assertEquals("34000", sqlState(s, "CLOSE nosuch"));
            assertEquals("42P11", sqlState(s, "DECLARE c SCROLL NO SCROLL CURSOR WITH HOLD FOR SELECT 1"));
            assertEquals("42601", sqlState(s, "DECLARE c CURSOR WITH HOLD FOR INSERT INTO cur_t VALUES (9, 'x')"));
            assertEquals("42601", sqlState(s, "FETCH ABSOLUTE FROM c"));
            assertEquals("0A000", sqlState(s, "DECLARE c CURSOR WITH HOLD FOR SELECT * FROM cur_t FOR UPDATE"));
            c.setAutoCommit(false);
            s.execute("DECLARE c CURSOR FOR SELECT 1");
            assertEquals("42P03", sqlState(s, "DECLARE c CURSOR FOR SELECT 2"), "a duplicate name");
            c.rollback();
            assertEquals("0A000", sqlState(s, "DECLARE c SCROLL CURSOR FOR SELECT * FROM cur_t FOR UPDATE"));
            c.rollback();
            assertEquals("42P11", sqlState(s, "DECLARE c INSENSITIVE CURSOR FOR SELECT * FROM cur_t FOR UPDATE"));
            c.rollback();
            // a cursor whose query locks its rows reads them when declared
            s.execute("DECLARE u CURSOR FOR SELECT id FROM cur_t WHERE id <= 2 ORDER BY id FOR UPDATE");
            assertEquals("1,2", run(s, "FETCH ALL FROM u"));
            c.rollback();
            // a held cursor whose FETCH failed cannot run again, as PostgreSQL's failed portal
            c.setAutoCommit(true);
            s.execute("DECLARE h NO SCROLL CURSOR WITH HOLD FOR SELECT id FROM cur_t ORDER BY id");
            assertEquals("1", run(s, "FETCH NEXT FROM h"));
            final SQLException back = assertThrows(SQLException.class, () -> s.execute("FETCH PRIOR FROM h"));
            assertEquals("55000", back.getSQLState());
            assertTrue(back.getMessage().contains("cursor can only scan forward"), back.getMessage());
            assertTrue(back.getMessage().contains("Declare it with SCROLL option"), "the hint: " + back.getMessage());
            assertEquals("55000", sqlState(s, "FETCH NEXT FROM h"));
            s.execute("CLOSE h");
            assertEquals("1", run(s, "SELECT 1"), "the session goes on");
        }
    }

    @Test
    void shouldEndACursorWithItsTransaction() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE c CURSOR FOR SELECT id FROM cur_t ORDER BY id");
            assertEquals("1,2", run(s, "FETCH 2 FROM c"));
            c.commit();
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM c"), "closed by COMMIT");
            c.rollback();
            s.execute("DECLARE c CURSOR FOR SELECT id FROM cur_t ORDER BY id");
            assertEquals("1", run(s, "FETCH 1 FROM c"));
            c.rollback();
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM c"), "closed by ROLLBACK");
            c.rollback();
        }
    }

    @Test
    void shouldKeepAWithHoldCursorPastCommitUntilClose() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE h CURSOR WITH HOLD FOR SELECT id, v FROM cur_t ORDER BY id");
            assertEquals("1,2", run(s, "FETCH 2 FROM h"));
            c.commit();
            assertEquals("3", run(s, "FETCH NEXT FROM h"), "held past COMMIT, where it stood");
            assertEquals("4,5", run(s, "FETCH ALL FROM h"));
            c.commit();
        }
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE h SCROLL CURSOR WITH HOLD FOR SELECT id FROM cur_t ORDER BY id");
            assertEquals("1,2", run(s, "FETCH 2 FROM h"));
            c.commit();
            // a later transaction that fails and rolls back leaves it as it was
            assertEquals("3", run(s, "FETCH NEXT FROM h"));
            assertEquals("22012", sqlState(s, "SELECT 1 / 0"));
            c.rollback();
            assertEquals("4", run(s, "FETCH NEXT FROM h"));
            assertEquals("3", run(s, "FETCH PRIOR FROM h"), "a held SCROLL cursor still scrolls");
            c.commit();
            // the ROLLBACK of the transaction that declared one drops it
            s.execute("DECLARE gone CURSOR WITH HOLD FOR SELECT id FROM cur_t ORDER BY id");
            assertEquals("1", run(s, "FETCH NEXT FROM gone"));
            c.rollback();
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM gone"));
            c.rollback();
            s.execute("CLOSE h");
            c.commit();
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM h"), "CLOSE ends it");
            c.rollback();
            // outside a transaction block a WITH HOLD cursor is declared in its own transaction and held at once
            c.setAutoCommit(true);
            s.execute("DECLARE a CURSOR WITH HOLD FOR SELECT id FROM cur_t WHERE id > 3 ORDER BY id");
            assertEquals("4", run(s, "FETCH NEXT FROM a"));
            assertEquals("5", run(s, "FETCH NEXT FROM a"));
            assertEquals("", run(s, "FETCH NEXT FROM a"));
            s.execute("CLOSE ALL");
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM a"));
        }
    }

    @Test
    void shouldDropTheCursorsDeclaredAfterASavepointRolledBackTo() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE before_sp CURSOR FOR SELECT id FROM cur_t ORDER BY id");
            s.execute("SAVEPOINT sp");
            s.execute("DECLARE after_sp CURSOR FOR SELECT id FROM cur_t ORDER BY id");
            assertEquals("1", run(s, "FETCH NEXT FROM after_sp"));
            s.execute("ROLLBACK TO SAVEPOINT sp");
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM after_sp"));
            s.execute("ROLLBACK TO SAVEPOINT sp");
            assertEquals("1", run(s, "FETCH NEXT FROM before_sp"), "declared before the savepoint: kept");
            s.execute("DECLARE released CURSOR FOR SELECT id FROM cur_t ORDER BY id");
            s.execute("RELEASE SAVEPOINT sp");
            assertEquals("1", run(s, "FETCH NEXT FROM released"), "RELEASE keeps them");
            c.commit();
        }
    }

    @Test
    void shouldNotSeeWritesOfItsTransactionAfterItWasDeclared() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cur_w (id INTEGER PRIMARY KEY, v VARCHAR(20))");
            s.execute("INSERT INTO cur_w VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
            c.setAutoCommit(false);
            s.execute("DECLARE w CURSOR FOR SELECT id, v FROM cur_w ORDER BY id");
            assertEquals("1", run(s, "FETCH NEXT FROM w"));
            s.execute("UPDATE cur_w SET v = 'changed' WHERE id = 3");
            s.execute("DELETE FROM cur_w WHERE id = 4");
            s.execute("INSERT INTO cur_w VALUES (5, 'e')");
            final List<String> rest = new ArrayList<>();
            try (ResultSet r = s.executeQuery("FETCH ALL FROM w")) {
                while (r.next()) {
                    rest.add(r.getInt(1) + ":" + r.getString(2));
                }
            }
            assertEquals(List.of("2:b", "3:c", "4:d"), rest, "the rows as they were when it was declared");
            c.commit();
            assertEquals("1,2,3,5", run(s, "SELECT id FROM cur_w ORDER BY id"));
            c.commit();
        }
    }

    @Test
    void shouldTakeParametersAndSendRowsUnderAnExecuteRowLimit() throws SQLException {
        try (Connection c = db.connectPg("prepareThreshold=1"); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement(
                    "DECLARE p CURSOR FOR SELECT id, v FROM cur_t WHERE id > ? AND v <> ? ORDER BY id")) {
                p.setInt(1, 1);
                p.setString(2, "v3");
                p.execute();
            }
            assertEquals("2", run(s, "FETCH NEXT FROM p"));
            // pgjdbc's fetch size: Execute with a row limit, the rest with the next Execute
            s.setFetchSize(1);
            final List<String> rows = new ArrayList<>();
            try (ResultSet r = s.executeQuery("FETCH ALL FROM p")) {
                assertEquals("v", r.getMetaData().getColumnName(2));
                while (r.next()) {
                    rows.add(r.getInt(1) + ":" + r.getString(2));
                }
            }
            assertEquals(List.of("4:v4", "5:v5"), rows);
            for (int i = 0; i < 3; i++) {
                s.execute("DECLARE again" + i + " CURSOR FOR SELECT id FROM cur_t WHERE id = 3");
                assertEquals("3", run(s, "FETCH ALL FROM again" + i), "the same query, one cursor each");
            }
            c.commit();
        }
    }

    @Test
    void shouldAnswerCommandTagsBinaryRowsAndCursorPortalsOnTheWire() throws Exception {
        try (PgWireClient w = new PgWireClient(db.gateway.pgPort())) {
            assertEquals(List.of("E 25P01"), w.query("DECLARE c CURSOR FOR SELECT 1"));
            // a Query of several statements is one transaction block: DECLARE runs there without BEGIN
            assertEquals(List.of("C DECLARE CURSOR", "T id", "D 1", "D 2", "C FETCH 2", "C MOVE 2", "T id", "D 5",
                    "C FETCH 1", "C CLOSE CURSOR"), w.query("DECLARE c CURSOR FOR SELECT id FROM cur_t ORDER BY id; "
                    + "FETCH 2 FROM c; MOVE 2 IN c; FETCH ALL FROM c; CLOSE c"));
            // a write after DECLARE in the same Query: the cursor has read its rows first, and does not see it
            assertEquals(List.of("C CREATE TABLE"), w.query("CREATE TABLE cur_m (id INTEGER PRIMARY KEY)"));
            assertEquals(List.of("C DECLARE CURSOR", "C DECLARE CURSOR", "C INSERT 0 1", "T id", "D 1", "C FETCH 1",
                    "T id", "C FETCH 0"), w.query("DECLARE m CURSOR FOR SELECT id FROM cur_m; DECLARE mh CURSOR WITH "
                    + "HOLD FOR SELECT id FROM cur_t WHERE id < 3 ORDER BY id; INSERT INTO cur_m VALUES (1); "
                    + "FETCH 1 FROM mh; FETCH ALL FROM m"));
            assertEquals(List.of("E 34000"), w.query("FETCH ALL FROM m"), "ended with its Query");
            assertEquals(List.of("T id", "D 2", "C FETCH 1"), w.query("FETCH ALL FROM mh"), "held");
            assertEquals(List.of("C CLOSE CURSOR"), w.query("CLOSE mh"));
            assertEquals(List.of("C BEGIN"), w.query("BEGIN"));
            assertEquals(List.of("C DECLARE CURSOR"), w.query("DECLARE b BINARY CURSOR FOR SELECT id, v FROM cur_t "
                    + "WHERE id = 2"));
            // BINARY: its rows in binary under the simple protocol (int4 2, varchar "v2")
            assertEquals(List.of("T id,v binary", "D 00000002|7632", "C FETCH 1"), w.query("FETCH NEXT FROM b"));
            assertEquals(List.of("T id,v binary", "C FETCH 0"), w.query("FETCH NEXT FROM b"));
            // a cursor is a portal: Describe and Execute reach it by its name
            assertEquals(List.of("C DECLARE CURSOR"), w.query("DECLARE e CURSOR FOR SELECT id FROM cur_t ORDER BY id"));
            assertEquals(List.of("T id"), w.describePortal("e"));
            assertEquals(List.of("D 1", "D 2", "s"), w.execute("e", 2));
            assertEquals(List.of("D 3", "D 4", "D 5", "C SELECT 3"), w.execute("e", 0));
            // a FETCH under an Execute row limit: suspended, then the rest, tagged FETCH with the whole count
            assertEquals(List.of("C DECLARE CURSOR"), w.query("DECLARE x CURSOR FOR SELECT id FROM cur_t ORDER BY id"));
            assertEquals(List.of("T id", "D 1", "D 2", "s"), w.extended("FETCH 3 FROM x", 2, (short) 0));
            assertEquals(List.of("3"), w.closePortal("e"), "Close of a cursor's name closes it");
            assertEquals(List.of("E 34000"), w.query("FETCH NEXT FROM e"));
            assertEquals(List.of("C ROLLBACK"), w.query("ROLLBACK"));
            assertEquals(List.of("C BEGIN"), w.query("BEGIN"));
            assertEquals(List.of("C DECLARE CURSOR"), w.query("DECLARE x CURSOR FOR SELECT id FROM cur_t ORDER BY id"));
            assertEquals(List.of("C CLOSE CURSOR ALL"), w.query("CLOSE ALL"));
            assertEquals(List.of("E 34000"), w.query("FETCH NEXT FROM x"));
            assertEquals(List.of("C ROLLBACK"), w.query("ROLLBACK"));
            // a DECLARE with a parameter, over the extended protocol
            assertEquals(List.of("C BEGIN"), w.query("BEGIN"));
            assertEquals(List.of("n", "C DECLARE CURSOR"), w.extended(
                    "DECLARE q CURSOR FOR SELECT v FROM cur_t WHERE id = $1", 0, (short) 0, "4"));
            assertEquals(List.of("T v", "D v4", "C FETCH 1"), w.extended("FETCH ALL FROM q", 0, (short) 0));
            assertEquals(List.of("C COMMIT"), w.query("COMMIT"));
        }
    }

    @Test
    void shouldCloseEveryCursorOnDiscardAll() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("DECLARE d CURSOR WITH HOLD FOR SELECT id FROM cur_t ORDER BY id");
            c.setAutoCommit(false);
            assertEquals("25001", sqlState(s, "DISCARD ALL"), "not in a transaction block");
            c.rollback();
            c.setAutoCommit(true);
            assertEquals("1", run(s, "FETCH NEXT FROM d"));
            s.execute("DISCARD ALL");
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM d"));
        }
    }

    @Test
    void shouldListOpenCursorsInPgCursors() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE l1 SCROLL CURSOR WITH HOLD FOR SELECT id FROM cur_t");
            s.execute("DECLARE l2 BINARY NO SCROLL CURSOR FOR SELECT v FROM cur_t");
            final List<String> rows = new ArrayList<>();
            try (ResultSet r = s.executeQuery("SELECT name, statement, is_holdable, is_binary, is_scrollable, "
                    + "creation_time <= now() FROM pg_cursors ORDER BY name")) {
                while (r.next()) {
                    rows.add(r.getString(1) + "|" + r.getString(2) + "|" + r.getBoolean(3) + "|" + r.getBoolean(4)
                            + "|" + r.getBoolean(5) + "|" + r.getBoolean(6));
                }
            }
            assertEquals(List.of(
                    "l1|DECLARE l1 SCROLL CURSOR WITH HOLD FOR SELECT id FROM cur_t|true|false|true|true",
                    "l2|DECLARE l2 BINARY NO SCROLL CURSOR FOR SELECT v FROM cur_t|false|true|false|true"), rows);
            c.commit();
            assertEquals("l1", run(s, "SELECT name FROM pg_cursors"), "only the held one is left");
            s.execute("CLOSE l1");
            assertEquals("", run(s, "SELECT name FROM pg_cursors"));
            c.commit();
        }
    }

    @Test
    void shouldRefuseACursorThatHoldsMoreThanTheMemoryBudget() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cur_big (id INTEGER PRIMARY KEY, v VARCHAR(200))");
            s.execute("INSERT INTO cur_big SELECT g, repeat('x', 200) FROM generate_series(1, 2000) g");
            s.execute("SET meldb.statement_memory = '64kB'");
            c.setAutoCommit(false);
            s.execute("DECLARE big SCROLL CURSOR FOR SELECT id, v FROM cur_big");
            final SQLException full = assertThrows(SQLException.class, () -> s.execute("FETCH LAST FROM big"));
            assertEquals("53200", full.getSQLState());
            assertTrue(full.getMessage().contains("cursor \"big\""), full.getMessage());
            c.rollback();
            // a forward-only cursor keeps nothing: it streams any number of rows
            s.execute("DECLARE stream CURSOR FOR SELECT id, v FROM cur_big");
            int n = 0;
            try (ResultSet r = s.executeQuery("FETCH ALL FROM stream")) {
                while (r.next()) {
                    n++;
                }
            }
            assertEquals(2000, n);
            c.rollback();
            // under an Execute row limit a FETCH's rows are held until sent: within the budget too
            s.execute("DECLARE limited CURSOR FOR SELECT id, v FROM cur_big");
            s.setFetchSize(10);
            assertEquals("53200", assertThrows(SQLException.class, () -> {
                try (ResultSet r = s.executeQuery("FETCH ALL FROM limited")) {
                    while (r.next()) {
                        r.getInt(1);
                    }
                }
            }).getSQLState());
            s.setFetchSize(0);
            c.rollback();
            // WITH HOLD reads its rest at COMMIT: past the budget, the COMMIT fails and the cursor is gone
            s.execute("DECLARE held CURSOR WITH HOLD FOR SELECT id, v FROM cur_big");
            assertEquals("53200", assertThrows(SQLException.class, c::commit).getSQLState());
            assertEquals("34000", sqlState(s, "FETCH NEXT FROM held"));
            c.rollback();
            s.execute("RESET meldb.statement_memory");
            assertFalse(run(s, "SELECT count(*) FROM cur_big").isEmpty(), "the session goes on");
            c.rollback();
        }
    }
}
