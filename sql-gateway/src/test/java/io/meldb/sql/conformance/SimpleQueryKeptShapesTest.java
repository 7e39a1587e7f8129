package io.meldb.sql.conformance;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A simple Query of one statement whose shape the connection has seen runs the statement kept for that shape
 * (io.meldb.sql.pg.PgShapeCache) instead of being prepared again. Whatever ran before, it must answer as the
 * extended protocol's Parse of the same text does: with its own values every time, after the catalog or the
 * search_path changed under it, and with the same SQLSTATE when the statement is wrong.
 */
class SimpleQueryKeptShapesTest extends ConformanceTest {
    @BeforeAll
    static void tables() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            for (String t : new String[] {"kept_simple", "kept_extended", "kept_err_simple", "kept_err_extended"}) {
                s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, bal BIGINT NOT NULL, n INTEGER)");
            }
        }
    }

    @Test
    void keptShapesAnswerEachStatementWithItsOwnValuesInAndOutOfTransactions() throws SQLException {
        try (Connection simple = db.connectPg("preferQueryMode=simple");
             Connection extended = db.connectPg("preferQueryMode=extended", "prepareThreshold=0")) {
            for (int i = 0; i < 40; i++) {
                final boolean block = i % 2 == 0;
                simple.setAutoCommit(!block);
                extended.setAutoCommit(!block);
                for (String step : new String[] {
                    "INSERT INTO %s (id, bal, n) VALUES (" + i + ", " + (1000 + i) + ", " + -i + ")",
                    "UPDATE %s SET bal = bal + " + (i - 20) + " WHERE id = " + i / 2,
                    "SELECT bal, n FROM %s WHERE id = " + i / 2,
                    "SELECT id, bal FROM %s WHERE id = " + (i + 1),  // no row yet
                    "DELETE FROM %s WHERE id = " + (i - 30),
                }) {
                    assertEquals(run(extended, String.format(step, "kept_extended")),
                        run(simple, String.format(step, "kept_simple")), step);
                }
                if (block) {
                    simple.commit();
                    extended.commit();
                }
            }
            simple.setAutoCommit(true);
            extended.setAutoCommit(true);
            assertEquals(run(extended, "SELECT * FROM kept_extended ORDER BY id"),
                run(simple, "SELECT * FROM kept_simple ORDER BY id"));
        }
    }

    @Test
    void aKeptShapeIsPreparedAgainAfterTheCatalogOrTheSearchPathChanged() throws SQLException {
        try (Connection c = db.connectPg("preferQueryMode=simple"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kept_ddl (id INTEGER PRIMARY KEY, a BIGINT)");
            s.execute("INSERT INTO kept_ddl VALUES (1, 10), (2, 20)");
            assertEquals(List.of("id:int4 a:int8 ", "1 10 "), run(c, "SELECT * FROM kept_ddl WHERE id = 1"));
            s.execute("ALTER TABLE kept_ddl ADD COLUMN b INTEGER DEFAULT 7");
            assertEquals(List.of("id:int4 a:int8 b:int4 ", "2 20 7 "), run(c, "SELECT * FROM kept_ddl WHERE id = 2"));
            s.execute("DROP TABLE kept_ddl");
            assertEquals(List.of("error 42P01"), run(c, "SELECT * FROM kept_ddl WHERE id = 1"));
            s.execute("CREATE TABLE kept_ddl (id INTEGER PRIMARY KEY, c VARCHAR(10))");
            s.execute("INSERT INTO kept_ddl VALUES (1, 'new')");
            assertEquals(List.of("id:int4 c:varchar ", "1 new "), run(c, "SELECT * FROM kept_ddl WHERE id = 1"));
            // the same text in another schema names another table
            s.execute("CREATE SCHEMA kept_other");
            s.execute("CREATE TABLE kept_other.kept_ddl (id INTEGER PRIMARY KEY, d BIGINT)");
            s.execute("INSERT INTO kept_other.kept_ddl VALUES (1, 99)");
            s.execute("SET search_path TO kept_other");
            assertEquals(List.of("id:int4 d:int8 ", "1 99 "), run(c, "SELECT * FROM kept_ddl WHERE id = 1"));
            s.execute("SET search_path TO public");
            assertEquals(List.of("id:int4 c:varchar ", "1 new "), run(c, "SELECT * FROM kept_ddl WHERE id = 1"));
        }
    }

    @Test
    void wrongStatementsOfAKeptShapeAnswerTheSameSqlStates() throws SQLException {
        final String[] script = {
            "INSERT INTO %s VALUES (500, 1, 1)",
            "INSERT INTO %s VALUES (500, 2, 2)",                  // 23505, the shape is kept
            "INSERT INTO %s VALUES (501, 3, 3000000000)",         // 22003: beyond INTEGER, the literal text runs
            "INSERT INTO %s VALUES (502, 4, 'four')",             // 22P02
            "SELECT bal FROM %s WHERE id = 3000000000",           // beyond INTEGER: no row, no error
            "SELECT bal FROM %s WHERE id = 500",
            "SELECT bal FROM %s WHERE id = 'x'",                  // 22P02
            "SELECT bal FROM %s WHERE nope = 500",                // 42703
            "SELECT bal FROM %s WHERE id = = 500",                // 42601
            "UPDATE %s SET n = n + 2147483647 WHERE id = 500",    // 22003: INTEGER overflow
            "UPDATE %s SET n = n + 5 WHERE id = 500",
            "SELECT bal, n FROM %s WHERE id = 500",
        };
        try (Connection simple = db.connectPg("preferQueryMode=simple");
             Connection extended = db.connectPg("preferQueryMode=extended", "prepareThreshold=0")) {
            for (String step : script) {
                assertEquals(run(extended, String.format(step, "kept_err_extended")),
                    run(simple, String.format(step, "kept_err_simple")), step);
            }
            // two statements of kept shapes in one Query: the general path, which runs both
            assertEquals(List.of("bal:int8 ", "1 "),
                run(simple, "SELECT bal FROM kept_err_simple WHERE id = 500; "
                    + "UPDATE kept_err_simple SET n = 0 WHERE id = 500"));
            assertEquals(List.of("n:int4 ", "0 "), run(simple, "SELECT n FROM kept_err_simple WHERE id = 500"));
        }
    }

    /** What a statement answered: its columns and rows, its update count, or its SQLSTATE. */
    private static List<String> run(final Connection c, final String sql) {
        final List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            if (s.execute(sql)) {
                try (ResultSet rs = s.getResultSet()) {
                    final ResultSetMetaData md = rs.getMetaData();
                    final StringBuilder header = new StringBuilder();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        header.append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i)).append(' ');
                    }
                    out.add(header.toString());
                    while (rs.next()) {
                        final StringBuilder row = new StringBuilder();
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            row.append(rs.getString(i)).append(' ');
                        }
                        out.add(row.toString());
                    }
                }
            } else {
                out.add("count " + s.getUpdateCount());
            }
        } catch (SQLException e) {
            out.add("error " + e.getSQLState());
        }
        return out;
    }
}
