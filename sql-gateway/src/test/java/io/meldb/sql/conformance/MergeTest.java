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

/** MERGE with PostgreSQL's semantics over both front ends. */
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
            assertEquals(List.of("1:a:1", "2:B:22", "3:C:30"), rows(s, "SELECT id, name, n FROM " + t + " ORDER BY id"));
        }
    }
}
