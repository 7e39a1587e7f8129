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
 * The simple query protocol prepares a statement with integer literals by its shape (the literals lifted into
 * parameters, one plan per shape: io.meldb.sql.pg.PgLiteralShapes); the extended protocol's Parse of the same text
 * plans the text as it is. Both must answer alike: rows, column names and types, update counts, SQLSTATEs.
 */
class SimpleQueryShapesTest extends ConformanceTest {
    private static final String[] SCRIPT = {
        "INSERT INTO %s VALUES (1, 10, 1, 1.50, 'a'), (2, 20, 2, 2.50, 'b'), (3, -30, 3, 3.50, 'c')",
        "INSERT INTO %s (id, big, small, price, name) VALUES (4, 9000000000, 4, 4.00, 'd')",
        "SELECT id, big, big + 5, big * 2, big - -7 FROM %s WHERE id = 2",
        "SELECT id, name FROM %s WHERE big > 15 AND id <> 4 ORDER BY 1",
        "SELECT count(*), sum(big) FROM %s WHERE id >= 2",
        "UPDATE %s SET big = big + -4539 WHERE id = 3",
        "UPDATE %s SET small = small + 1 WHERE id = 1",            // SMALLINT: the literal form runs
        "UPDATE %s SET small = small + 40000 WHERE id = 1",        // out of SMALLINT's range either way
        "UPDATE %s SET price = price * 2 WHERE id = 2",            // DECIMAL: the literal form runs
        "SELECT * FROM %s WHERE id = 3000000000",                  // beyond INTEGER: the literal form runs
        "SELECT * FROM %s WHERE big = 9000000000",
        "INSERT INTO %s VALUES (1, 1, 1, 1, 'dup')",               // 23505
        "INSERT INTO %s VALUES (5, 5, 5, 5, 'e'), (6, 6, 6, 6, 'f')",
        "DELETE FROM %s WHERE id = 6",
        "SELECT id, big FROM %s WHERE id = 5 OR id = 1 ORDER BY id",
        "SELECT * FROM %s ORDER BY id LIMIT 2 OFFSET 1",
        "SELECT name FROM %s WHERE name = 'a' AND id = 1",
        "SELECT id / 2, id = 2 FROM %s WHERE id < 3 ORDER BY id",
    };

    @BeforeAll
    static void tables() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            for (String t : new String[] {"shape_simple", "shape_extended"}) {
                s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, big BIGINT, small SMALLINT, "
                    + "price DECIMAL(10, 2), name VARCHAR(20))");
            }
        }
    }

    @Test
    void literalStatementsAnswerAlikeInTheSimpleAndTheExtendedProtocol() throws SQLException {
        try (Connection simple = db.connectPg("preferQueryMode=simple");
             Connection extended = db.connectPg("preferQueryMode=extended", "prepareThreshold=0")) {
            for (String step : SCRIPT) {
                assertEquals(run(extended, String.format(step, "shape_extended")),
                    run(simple, String.format(step, "shape_simple")), step);
            }
            // the same shape many times with other values: every one answered with its own values
            for (int i = 0; i < 30; i++) {
                final String step = "UPDATE %s SET big = big + " + (i - 15) + " WHERE id = " + (1 + i % 5);
                assertEquals(run(extended, String.format(step, "shape_extended")),
                    run(simple, String.format(step, "shape_simple")), step);
            }
            assertEquals(run(extended, "SELECT * FROM shape_extended ORDER BY id"),
                run(simple, "SELECT * FROM shape_simple ORDER BY id"));
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
