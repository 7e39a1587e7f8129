package io.meldb.sql.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;
import org.postgresql.util.PSQLException;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UNIQUE constraints and unique indexes as PostgreSQL gives them, over both front ends: 23505 naming the
 * constraint on INSERT (one row, several rows with the duplicate among them, COPY) and UPDATE; NULLs never
 * conflict; composite keys; a unique index over rows that already hold a value twice is refused; lookups through
 * the index find the rows; and two open transactions inserting the same value cannot both commit (40001).
 */
class UniqueTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldRefuseADuplicateOnInsertAndUpdateNamingTheConstraint(final String protocol) throws SQLException {
        final String t = "uq_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, email VARCHAR(40) UNIQUE, n INTEGER)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a@x', 1), (2, 'b@x', 2)");
            final SQLException dup = failure(s, "INSERT INTO " + t + " VALUES (3, 'a@x', 3)");
            assertEquals("23505", dup.getSQLState());
            assertTrue(dup.getMessage().contains("duplicate key value violates unique constraint \"" + t
                    + "_email_key\""), dup.getMessage());
            if (protocol.equals(Conformance.PG)) {
                assertEquals("Key (email)=(a@x) already exists.",
                        assertInstanceOf(PSQLException.class, dup).getServerErrorMessage().getDetail());
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?, ?, ?)")) {
                p.setInt(1, 3);
                p.setString(2, "b@x");
                p.setInt(3, 3);
                assertEquals("23505", assertThrows(SQLException.class, p::executeUpdate).getSQLState(),
                        "the fast path checks too");
            }
            assertEquals("23505", failure(s, "UPDATE " + t + " SET email = 'a@x' WHERE id = 2").getSQLState());
            assertEquals("23505", failure(s, "UPDATE " + t + " SET email = 'a@x' WHERE n = 2").getSQLState(),
                    "through Calcite too");
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET n = 20 WHERE id = 2"), "the row keeps its value");
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET email = 'c@x' WHERE id = 2"));
            s.executeUpdate("INSERT INTO " + t + " VALUES (3, 'b@x', 3)"); // freed by the update
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET id = 30 WHERE id = 3"), "the row moves, the value stays");
            assertEquals(List.of("30:b@x"), rows(s, "SELECT id, email FROM " + t + " WHERE email = 'b@x'"));
            assertEquals("23505", failure(s, "INSERT INTO " + t + " VALUES (4, 'b@x', 4)").getSQLState());
            s.executeUpdate("DELETE FROM " + t + " WHERE id = 30");
            s.executeUpdate("INSERT INTO " + t + " VALUES (4, 'b@x', 4)"); // freed by the delete
            assertEquals("23505", failure(s, "INSERT INTO " + t + " VALUES (5, 'z@x', 5), (6, 'y@x', 6), "
                    + "(7, 'z@x', 7)").getSQLState(), "a duplicate inside one statement");
            assertEquals(List.of("1:a@x", "2:c@x", "4:b@x"), rows(s, "SELECT id, email FROM " + t + " ORDER BY id"),
                    "the failed statement left nothing");
            assertEquals(List.of("4:b@x", "1:a@x"), rows(s, "SELECT id, email FROM " + t
                    + " WHERE email IN ('b@x', 'a@x', 'q@x') ORDER BY email DESC"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldAllowManyNullsAndEnforceCompositeKeys(final String protocol) throws SQLException {
        final String t = "uqc_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            // no primary key: rows keyed by a hidden row id
            s.execute("CREATE TABLE " + t + " (a INTEGER, b VARCHAR(5), CONSTRAINT ab_" + protocol
                    + " UNIQUE (a, b))");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'x'), (1, 'y'), (2, 'x'), (1, NULL), (1, NULL), "
                    + "(NULL, NULL), (NULL, NULL)");
            final SQLException dup = failure(s, "INSERT INTO " + t + " VALUES (1, 'y')");
            assertEquals("23505", dup.getSQLState());
            assertTrue(dup.getMessage().contains("\"ab_" + protocol + "\""), dup.getMessage());
            assertEquals(List.of("1:x", "1:y", "1:null", "1:null"),
                    rows(s, "SELECT a, b FROM " + t + " WHERE a = 1 ORDER BY b NULLS LAST"));
            assertEquals(2, s.executeUpdate("UPDATE " + t + " SET b = NULL WHERE a = 1 AND b IS NOT NULL"),
                    "NULLs never conflict");
            assertEquals(List.of("4"), rows(s, "SELECT COUNT(*) FROM " + t + " WHERE a = 1 AND b IS NULL"));
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'x')");
            s.execute("ALTER TABLE " + t + " DROP CONSTRAINT ab_" + protocol);
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'x')");
            assertEquals(List.of("2"), rows(s, "SELECT COUNT(*) FROM " + t + " WHERE a = 1 AND b = 'x'"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldRefuseAUniqueIndexOverDuplicateRowsAndEnforceOneOverDistinctRows(final String protocol)
            throws SQLException {
        final String t = "uqi_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, code INTEGER, tag VARCHAR(5))");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 10, NULL), (4, NULL, NULL),"
                    + " (5, NULL, NULL)");
            final SQLException refused = failure(s, "CREATE UNIQUE INDEX " + t + "_code ON " + t + " (code)");
            assertEquals("23505", refused.getSQLState());
            assertTrue(refused.getMessage().contains("could not create unique index \"" + t + "_code\""),
                    refused.getMessage());
            s.executeUpdate("INSERT INTO " + t + " VALUES (10, 10, 'x')"); // no index was left behind
            s.execute("CREATE UNIQUE INDEX " + t + "_tag ON " + t + " (tag)"); // NULLs twice are fine
            s.execute("CREATE UNIQUE INDEX IF NOT EXISTS " + t + "_tag ON " + t + " (tag)");
            assertEquals("23505", failure(s, "INSERT INTO " + t + " VALUES (6, 60, 'a')").getSQLState());
            assertEquals(List.of("2:20"), rows(s, "SELECT id, code FROM " + t + " WHERE tag = 'b'"));
            assertEquals("23505", failure(s, "ALTER TABLE " + t + " ADD UNIQUE (code)").getSQLState());
            s.execute("DROP INDEX " + t + "_tag");
            s.executeUpdate("INSERT INTO " + t + " VALUES (6, 60, 'a')");
            s.execute("CREATE TABLE " + t + "_k (id INTEGER UNIQUE, v INTEGER)");
            assertEquals("2BP01", failure(s, "DROP INDEX " + t + "_k_id_key").getSQLState(),
                    "a constraint's index goes with ALTER TABLE ... DROP CONSTRAINT");
            s.executeUpdate("INSERT INTO " + t + "_k VALUES (1, 1), (2, 2)");
            s.execute("ALTER TABLE " + t + "_k ADD PRIMARY KEY (v)");
            assertEquals("23505", failure(s, "INSERT INTO " + t + "_k VALUES (1, 3)").getSQLState());
            assertEquals(List.of("2:2"), rows(s, "SELECT id, v FROM " + t + "_k WHERE id = 2"));
        }
    }

    @Test
    void copyRefusesADuplicateAndCatalogsShowTheConstraint() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE uq_copy (id INTEGER PRIMARY KEY, code VARCHAR(10) NOT NULL, UNIQUE (code))");
            final CopyManager copy = new CopyManager(c.unwrap(BaseConnection.class));
            assertEquals(2, copy.copyIn("COPY uq_copy FROM STDIN", new StringReader("1\tA\n2\tB\n")));
            final SQLException dup = assertThrows(SQLException.class,
                    () -> copy.copyIn("COPY uq_copy FROM STDIN", new StringReader("3\tC\n4\tA\n")));
            assertEquals("23505", dup.getSQLState());
            assertTrue(dup.getMessage().contains("uq_copy_code_key"), dup.getMessage());
            assertEquals(List.of("2"), rows(s, "SELECT COUNT(*) FROM uq_copy"));
            assertEquals(List.of("uq_copy_code_key:UNIQUE", "uq_copy_pkey:PRIMARY KEY"), rows(s,
                    "SELECT constraint_name, constraint_type FROM information_schema.table_constraints "
                            + "WHERE table_name = 'uq_copy' AND constraint_type <> 'CHECK' ORDER BY constraint_name"));
            assertEquals(List.of("code:1"), rows(s, "SELECT column_name, ordinal_position FROM "
                    + "information_schema.key_column_usage WHERE constraint_name = 'uq_copy_code_key'"));
            assertEquals(List.of("uq_copy_code_key:t:f", "uq_copy_pkey:t:t"), rows(s, "SELECT c.relname, "
                    + "i.indisunique, i.indisprimary FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                    + "WHERE c.relname LIKE 'uq_copy%' ORDER BY c.relname"));
            final List<String> unique = new ArrayList<>();
            try (java.sql.ResultSet r = c.getMetaData().getIndexInfo(null, "public", "uq_copy", true, false)) {
                while (r.next()) {
                    unique.add(r.getString("INDEX_NAME") + ":" + r.getBoolean("NON_UNIQUE"));
                }
            }
            assertEquals(List.of("uq_copy_code_key:false", "uq_copy_pkey:false"), unique);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void twoOpenTransactionsInsertingTheSameValueCannotBothCommit(final String protocol) throws SQLException {
        final String t = "uqr_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, code INTEGER UNIQUE)");
        }
        try (Connection a = Conformance.connect(db, protocol); Connection b = Conformance.connect(db, protocol);
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            sa.executeUpdate("INSERT INTO " + t + " VALUES (1, 7)");
            sb.executeUpdate("INSERT INTO " + t + " VALUES (2, 7)"); // neither sees the other's row
            a.commit();
            assertEquals("40001", assertThrows(SQLException.class, b::commit).getSQLState());
        }
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1:7"), rows(s, "SELECT id, code FROM " + t));
        }
    }
}
