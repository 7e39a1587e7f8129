package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * CREATE TABLE ... AS SELECT as PostgreSQL gives it, over both front ends: the query's columns and rows in a new
 * table without a primary key (a hidden row id, not in SELECT *), WITH NO DATA, column names, IF NOT EXISTS.
 */
class CreateTableAsTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void theNewTableHasTheQuerysColumnsAndRows(final String protocol) throws SQLException {
        final String t = "ctas_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, name VARCHAR(10), price DECIMAL(6, 2), "
                    + "made DATE)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a', 1.50, DATE '2024-01-02'), (2, 'b', 2.25, NULL), "
                    + "(3, 'c', 0, NULL)");
            s.execute("CREATE TABLE " + t + "_copy AS SELECT id, name, price * 2 AS twice, made FROM " + t
                    + " WHERE id < 3;");
            assertEquals(List.of("1:a:3.00:2024-01-02", "2:b:4.50:null"),
                    rows(s, "SELECT * FROM " + t + "_copy ORDER BY id"));
            s.executeUpdate("INSERT INTO " + t + "_copy VALUES (1, 'dup', 0, NULL)"); // no primary key
            assertEquals(List.of("3"), rows(s, "SELECT COUNT(*) FROM " + t + "_copy"));
            s.execute("CREATE TABLE " + t + "_named (k, label) AS SELECT id, name FROM " + t + " WITH DATA");
            assertEquals(List.of("3:c"), rows(s, "SELECT k, label FROM " + t + "_named WHERE k = 3"));
            s.execute("CREATE TABLE " + t + "_empty AS SELECT * FROM " + t + " WITH NO DATA");
            assertEquals(List.of(), rows(s, "SELECT * FROM " + t + "_empty"));
            assertEquals(List.of("id", "name", "price", "made"), rows(s, "SELECT column_name FROM "
                    + "information_schema.columns WHERE table_name = '" + t + "_empty' ORDER BY ordinal_position"));
            s.execute("CREATE TABLE IF NOT EXISTS " + t + "_empty AS SELECT 1 AS x1");
            assertEquals("42P07", failure(s, "CREATE TABLE " + t + "_empty AS SELECT 1 AS x1").getSQLState());
            assertEquals("42601", failure(s, "CREATE TABLE " + t + "_x (a, b, c) AS SELECT 1 AS x1")
                    .getSQLState());
            assertEquals("42P01", failure(s, "CREATE TABLE " + t + "_x AS SELECT * FROM nope_" + t).getSQLState());
            assertEquals("42P01", failure(s, "SELECT * FROM " + t + "_x").getSQLState(), "nothing was created");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void theCountOfInsertedRowsIsTheStatementsUpdateCount(final String protocol) throws SQLException {
        final String t = "ctasn_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1), (2), (3), (4)");
            assertEquals(4, s.executeUpdate("CREATE TABLE " + t + "_c AS SELECT id FROM " + t));
        }
    }
}
