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
 * PostgreSQL's functional dependency in GROUP BY: grouping by a table's primary key lets its other columns be
 * selected, ordered by and used in HAVING (Django's {@code annotate} groups so); a column of a table whose key is
 * not grouped, or of a table without a primary key, is still 42803 as in PostgreSQL.
 */
class GroupByPrimaryKeyTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void groupingByThePrimaryKeyAllowsTheTablesOtherColumns(final String protocol) throws SQLException {
        final String a = "gba_" + protocol;
        final String b = "gbb_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + a + " (id INTEGER PRIMARY KEY, name TEXT, born DATE)");
            s.execute("CREATE TABLE " + b + " (id INTEGER PRIMARY KEY, aid INTEGER, price NUMERIC(8,2))");
            s.executeUpdate("INSERT INTO " + a + " VALUES (1, 'ada', NULL), (2, 'bob', NULL), (3, 'cy', NULL)");
            s.executeUpdate("INSERT INTO " + b + " VALUES (1, 1, 1.25), (2, 1, 10.50), (3, 2, 3)");
            assertEquals(List.of("ada:2:11.75", "bob:1:3.00", "cy:0:null"), rows(s, "SELECT " + a + ".name, COUNT("
                    + b + ".id), SUM(" + b + ".price) FROM " + a + " LEFT OUTER JOIN " + b + " ON (" + a + ".id = "
                    + b + ".aid) GROUP BY " + a + ".id ORDER BY " + a + ".name"));
            assertEquals(List.of("1:ada:2"), rows(s, "SELECT x.id, x.name, COUNT(*) FROM " + a + " x JOIN " + b
                    + " y ON y.aid = x.id GROUP BY x.id HAVING x.name LIKE 'a%'"));
            assertEquals(List.of("ada:1", "bob:1", "cy:1"), rows(s, "SELECT name, COUNT(*) FROM " + a
                    + " GROUP BY id ORDER BY name"));
            assertEquals("42803", failure(s, "SELECT " + b + ".price, COUNT(*) FROM " + a + " JOIN " + b + " ON "
                    + a + ".id = " + b + ".aid GROUP BY " + a + ".id").getSQLState(), "the other table's key is not "
                    + "grouped");
            assertEquals("42803", failure(s, "SELECT name, COUNT(*) FROM " + a + " GROUP BY born").getSQLState());
        }
    }
}
