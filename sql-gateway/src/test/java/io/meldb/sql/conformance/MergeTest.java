package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code MERGE} with PostgreSQL's semantics over both front ends: WHEN MATCHED THEN UPDATE and WHEN NOT MATCHED THEN
 * INSERT alone or together, from a table or a subquery, with the count of rows inserted plus updated; a target row
 * matched twice (21000); constraint violations with their SQLSTATEs; the PostgreSQL 15 forms MeldDB does not run
 * (0A000 naming the form); and two open transactions merging one new key, which cannot both commit.
 */
class MergeTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void mergeUpdatesMatchedRowsAndInsertsTheOthers(final String protocol) throws SQLException {
        final String t = "mg_both_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, name VARCHAR(10), n INTEGER NOT NULL)");
            s.execute("CREATE TABLE " + t + "_src (id INTEGER PRIMARY KEY, name VARCHAR(10), n INTEGER)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a', 1), (2, 'b', 2)");
            s.executeUpdate("INSERT INTO " + t + "_src VALUES (2, 'B', 20), (3, 'C', 30)");
            assertEquals(2, s.executeUpdate("MERGE INTO " + t + " AS a USING " + t + "_src s ON a.id = s.id "
                    + "WHEN MATCHED THEN UPDATE SET name = s.name, n = a.n + s.n "
                    + "WHEN NOT MATCHED THEN INSERT (id, name, n) VALUES (s.id, s.name, s.n)"));
            assertEquals(List.of("1:a:1", "2:B:22", "3:C:30"),
                    rows(s, "SELECT id, name, n FROM " + t + " ORDER BY id"));
            assertEquals(2, s.executeUpdate("MERGE INTO " + t + " USING (SELECT id + 1 AS id, n FROM " + t
                    + "_src) AS s ON " + t + ".id = s.id WHEN MATCHED THEN UPDATE SET n = s.n + 100 "
                    + "WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'new', s.n);"), "a subquery source, no column list");
            assertEquals(List.of("1:a:1", "2:B:22", "3:C:120", "4:new:30"),
                    rows(s, "SELECT id, name, n FROM " + t + " ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void eitherClauseAloneCountsOnlyWhatItWrote(final String protocol) throws SQLException {
        final String t = "mg_one_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, name VARCHAR(10) DEFAULT 'dflt', n INTEGER)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a', 1), (2, 'b', 2)");
            assertEquals(1, s.executeUpdate("MERGE INTO " + t + " t USING (VALUES (2, 5), (9, 9)) AS s (id, n) "
                    + "ON t.id = s.id WHEN MATCHED THEN UPDATE SET n = s.n"), "the unmatched source row does nothing");
            assertEquals(1, s.executeUpdate("MERGE INTO " + t + " t USING (VALUES (2, 7), (3, 3)) AS s (id, n) "
                    + "ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, n) VALUES (s.id, s.n)"),
                    "the matched source row does nothing; the name takes its default");
            assertEquals(0, s.executeUpdate("MERGE INTO " + t + " t USING (SELECT 1 AS id) AS s ON t.id = s.id "
                    + "AND 1 = 0 WHEN MATCHED THEN UPDATE SET n = 0"));
            try (PreparedStatement p = c.prepareStatement("MERGE INTO " + t + " t USING (SELECT CAST(? AS INTEGER) "
                    + "AS id, CAST(? AS INTEGER) AS n) AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET n = s.n "
                    + "WHEN NOT MATCHED THEN INSERT (id, n) VALUES (s.id, s.n)")) {
                p.setInt(1, 1);
                p.setInt(2, 10);
                assertEquals(1, p.executeUpdate());
                p.setInt(1, 4);
                p.setInt(2, 40);
                assertEquals(1, p.executeUpdate());
            }
            assertEquals(List.of("1:a:10", "2:b:5", "3:dflt:3", "4:dflt:40"),
                    rows(s, "SELECT id, name, n FROM " + t + " ORDER BY id"));
            s.execute("CREATE TABLE " + t + "_ids (id INTEGER PRIMARY KEY, m INTEGER)");
            assertEquals(4, s.executeUpdate("MERGE INTO " + t + "_ids t USING " + t + " s ON t.id = s.id "
                    + "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.n)"), "a table as the source of inserts only");
            assertEquals(4, s.executeUpdate("MERGE INTO " + t + "_ids t USING " + t + " s ON t.id = s.id "
                    + "WHEN MATCHED THEN UPDATE SET id = s.id + 10 WHEN NOT MATCHED THEN INSERT VALUES (s.id, 0)"),
                    "a matched row's key changes");
            assertEquals(List.of("11:10", "12:5", "13:3", "14:40"),
                    rows(s, "SELECT id, m FROM " + t + "_ids ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aTargetRowMatchedTwiceAndConstraintViolationsFailWithTheirSqlStates(final String protocol)
            throws SQLException {
        final String t = "mg_err_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + "_p (id INTEGER PRIMARY KEY)");
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, code VARCHAR(5) UNIQUE, n INTEGER NOT NULL "
                    + "CHECK (n >= 0), p INTEGER REFERENCES " + t + "_p (id))");
            s.executeUpdate("INSERT INTO " + t + "_p VALUES (1)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a', 1, 1), (2, 'b', 2, NULL)");
            final String using = "MERGE INTO " + t + " t USING (VALUES ";
            final SQLException twice = failure(s, using + "(1, 5), (1, 6)) AS s (id, n) ON t.id = s.id "
                    + "WHEN MATCHED THEN UPDATE SET n = s.n");
            assertEquals("21000", twice.getSQLState(), twice.getMessage());
            assertTrue(twice.getMessage().contains("cannot affect row a second time"), twice.getMessage());
            assertEquals("23505", failure(s, using + "(3, 'a')) AS s (id, code) ON t.id = s.id "
                    + "WHEN NOT MATCHED THEN INSERT (id, code, n) VALUES (s.id, s.code, 0)").getSQLState());
            assertEquals("23505", failure(s, using + "(2, 'a')) AS s (id, code) ON t.id = s.id "
                    + "WHEN MATCHED THEN UPDATE SET code = s.code").getSQLState());
            assertEquals("23505", failure(s, using + "(7), (7)) AS s (id) ON t.id = s.id "
                    + "WHEN NOT MATCHED THEN INSERT (id, n) VALUES (s.id, 0)").getSQLState(),
                    "two unmatched source rows insert one key");
            assertEquals("23502", failure(s, using + "(3)) AS s (id) ON t.id = s.id "
                    + "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)").getSQLState());
            assertEquals("23502", failure(s, using + "(1)) AS s (id) ON t.id = s.id "
                    + "WHEN MATCHED THEN UPDATE SET n = NULL").getSQLState());
            assertEquals("23514", failure(s, using + "(1, -1)) AS s (id, n) ON t.id = s.id "
                    + "WHEN MATCHED THEN UPDATE SET n = s.n WHEN NOT MATCHED THEN INSERT (id, n) VALUES (s.id, s.n)")
                    .getSQLState());
            assertEquals("23503", failure(s, using + "(3, 9)) AS s (id, p) ON t.id = s.id "
                    + "WHEN NOT MATCHED THEN INSERT (id, n, p) VALUES (s.id, 0, s.p)").getSQLState());
            assertEquals("23503", failure(s, using + "(2, 9)) AS s (id, p) ON t.id = s.id "
                    + "WHEN MATCHED THEN UPDATE SET p = s.p").getSQLState());
            assertEquals(List.of("1:a:1:1", "2:b:2:null"), rows(s, "SELECT id, code, n, p FROM " + t + " ORDER BY id"),
                    "no failed MERGE wrote anything");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void thePostgres15FormsAnswer0A000NamingTheForm(final String protocol) throws SQLException {
        final String t = "mg_pg15_" + protocol;
        final String head = "MERGE INTO " + t + " t USING (SELECT 1 AS id) AS s ON t.id = s.id ";
        final String[][] refused = {
            {head + "WHEN MATCHED AND t.n > 0 THEN UPDATE SET n = 0", "WHEN MATCHED AND"},
            {head + "WHEN NOT MATCHED AND s.id > 0 THEN INSERT (id) VALUES (s.id)", "WHEN NOT MATCHED AND"},
            {head + "WHEN MATCHED THEN DELETE", "THEN DELETE"},
            {head + "WHEN MATCHED THEN DO NOTHING", "DO NOTHING"},
            {head + "WHEN NOT MATCHED THEN DO NOTHING", "DO NOTHING"},
            {head + "WHEN MATCHED THEN UPDATE SET n = 1 WHEN MATCHED THEN UPDATE SET n = 2", "several"},
            {head + "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id) WHEN MATCHED THEN UPDATE SET n = 1",
                "WHEN MATCHED after"},
            {head + "WHEN NOT MATCHED BY SOURCE THEN DELETE", "BY SOURCE"},
            {"MERGE INTO " + t + "_nokey t USING (SELECT 1 AS id) AS s ON t.id = s.id "
                + "WHEN MATCHED THEN UPDATE SET id = 2", "primary key"},
            {"MERGE INTO " + t + "_v t USING (SELECT 1 AS id) AS s ON t.id = s.id "
                + "WHEN MATCHED THEN UPDATE SET n = 2", "merge into"},
        };
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, n INTEGER)");
            s.execute("CREATE TABLE " + t + "_nokey (id INTEGER)");
            s.execute("CREATE VIEW " + t + "_v AS SELECT id, n FROM " + t);
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 5)");
            s.executeUpdate("INSERT INTO " + t + "_nokey VALUES (1)");
            for (String[] r : refused) {
                final SQLException e = failure(s, r[0]);
                assertEquals("0A000", e.getSQLState(), r[0] + ": " + e.getMessage());
                assertTrue(e.getMessage().toLowerCase(Locale.ROOT).contains(r[1].toLowerCase(Locale.ROOT)),
                        r[0] + ": " + e.getMessage());
            }
            assertEquals(1, s.executeUpdate(head + "WHEN MATCHED THEN UPDATE SET n = CASE WHEN s.id = 1 THEN 7 "
                    + "ELSE 8 END"), "a CASE ... WHEN in an expression is not a WHEN clause");
            assertEquals(List.of("1:7"), rows(s, "SELECT id, n FROM " + t));
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + t + "_nokey"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void twoOpenTransactionsMergingOneNewKeyCannotBothCommit(final String protocol) throws SQLException {
        final String t = "mg_race_" + protocol;
        final String merge = "MERGE INTO " + t + " t USING (SELECT 1 AS id, 1 AS n) AS s ON t.id = s.id "
                + "WHEN MATCHED THEN UPDATE SET n = t.n + s.n WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.n)";
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, n INTEGER)");
        }
        try (Connection a = Conformance.connect(db, protocol); Connection b = Conformance.connect(db, protocol);
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            b.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ); // snapshot isolation conflicts too
            assertEquals(1, sa.executeUpdate(merge)); // both insert: neither sees the other's row
            assertEquals(1, sb.executeUpdate(merge));
            a.commit();
            assertEquals("40001", assertThrows(SQLException.class, b::commit).getSQLState());
            b.rollback();
            assertEquals(1, sb.executeUpdate(merge), "retried, it updates the committed row");
            b.commit();
        }
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1:2"), rows(s, "SELECT id, n FROM " + t));
        }
    }
}
