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
 * {@code ALTER TABLE ... DROP CONSTRAINT t_pkey}: the rows are kept (re-keyed by hidden row ids), their indexes and
 * UNIQUE constraints go on working, duplicates of the old key are then allowed, the key columns stay NOT NULL, and
 * ADD PRIMARY KEY brings a key back; a key another table's foreign key references is 2BP01.
 */
class DropPrimaryKeyTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void droppingThePrimaryKeyKeepsEveryRowAndItsIndexes(final String protocol) throws SQLException {
        final String t = "dpk_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, code VARCHAR(5) UNIQUE, n INTEGER)");
            s.execute("CREATE INDEX " + t + "_n ON " + t + " (n)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 20)");
            s.execute("ALTER TABLE " + t + " DROP CONSTRAINT " + t + "_pkey");
            assertEquals(List.of("1:a:10", "2:b:20", "3:c:20"), rows(s, "SELECT id, code, n FROM " + t
                    + " ORDER BY id"));
            assertEquals(List.of("2", "3"), rows(s, "SELECT id FROM " + t + " WHERE n = 20 ORDER BY id"));
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'z', 30)"); // the old key may repeat now
            assertEquals("23505", failure(s, "INSERT INTO " + t + " VALUES (9, 'a', 0)").getSQLState(),
                    "the UNIQUE constraint still holds");
            assertEquals("23502", failure(s, "INSERT INTO " + t + " VALUES (NULL, 'y', 0)").getSQLState(),
                    "the key column stays NOT NULL");
            assertEquals(2, s.executeUpdate("UPDATE " + t + " SET n = n + 1 WHERE id = 1"));
            assertEquals(1, s.executeUpdate("DELETE FROM " + t + " WHERE code = 'z'"));
            assertEquals("42704", failure(s, "ALTER TABLE " + t + " DROP CONSTRAINT " + t + "_pkey").getSQLState());
            s.execute("ALTER TABLE " + t + " ADD PRIMARY KEY (id)");
            assertEquals("23505", failure(s, "INSERT INTO " + t + " VALUES (1, 'q', 0)").getSQLState());
            assertEquals(List.of("1:a:11", "2:b:20", "3:c:20"), rows(s, "SELECT id, code, n FROM " + t
                    + " ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aReferencedPrimaryKeyIsNotDroppedAndAChildKeepsItsForeignKey(final String protocol) throws SQLException {
        final String p = "dpkp_" + protocol;
        final String ch = "dpkc_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + p + " (id INTEGER PRIMARY KEY)");
            s.execute("CREATE TABLE " + ch + " (pid INTEGER REFERENCES " + p + ", k INTEGER, PRIMARY KEY (pid, k))");
            s.executeUpdate("INSERT INTO " + p + " VALUES (1), (2)");
            s.executeUpdate("INSERT INTO " + ch + " VALUES (1, 1), (1, 2)");
            assertEquals("2BP01", failure(s, "ALTER TABLE " + p + " DROP CONSTRAINT " + p + "_pkey").getSQLState());
            // the child's foreign key used the child's primary key as its index: it gets one of its own
            s.execute("ALTER TABLE " + ch + " DROP CONSTRAINT " + ch + "_pkey");
            assertEquals("23503", failure(s, "INSERT INTO " + ch + " VALUES (7, 1)").getSQLState());
            assertEquals("23503", failure(s, "DELETE FROM " + p + " WHERE id = 1").getSQLState(),
                    "the parent still finds its children");
            assertEquals(1, s.executeUpdate("DELETE FROM " + p + " WHERE id = 2"));
            assertEquals(List.of("2"), rows(s, "SELECT COUNT(*) FROM " + ch + " WHERE pid = 1"));
        }
    }
}
