package io.meldb.sql.conformance;

import io.meldb.sql.server.Gateway;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ALTER TABLE's column operations as PostgreSQL gives them, over both front ends: ADD COLUMN without rewriting the
 * rows (older rows read the default fixed at ADD time), DROP, RENAME (of columns, the table, constraints), SET/DROP
 * DEFAULT and NOT NULL, widening TYPE changes, ADD/DROP CHECK, several actions in one statement; their SQLSTATEs;
 * and the altered table as a gateway that has just started decodes it.
 */
class AlterTableTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void rowsWrittenBeforeAddColumnReadItsDefault(final String protocol) throws SQLException {
        final String t = "add_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, a VARCHAR(10))");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'x'), (2, NULL)");
            s.execute("ALTER TABLE " + t + " ADD COLUMN b INTEGER DEFAULT 7 NOT NULL, ADD c VARCHAR(5), "
                    + "ADD COLUMN IF NOT EXISTS a INTEGER;");
            assertEquals(List.of("1:x:7:null", "2:null:7:null"), rows(s, "SELECT * FROM " + t + " ORDER BY id"));
            s.executeUpdate("INSERT INTO " + t + " (id, a) VALUES (3, 'new')");
            s.executeUpdate("INSERT INTO " + t + " VALUES (4, 'four', 1, 'c')");
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET c = 'z' WHERE id = 1"));
            assertEquals(List.of("1:x:7:z", "2:null:7:null", "3:new:7:null", "4:four:1:c"),
                    rows(s, "SELECT id, a, b, c FROM " + t + " ORDER BY id"));
            assertEquals(List.of("2"), rows(s, "SELECT COUNT(*) FROM " + t + " WHERE b = 7 AND c IS NULL"));
            assertEquals("42701", failure(s, "ALTER TABLE " + t + " ADD COLUMN b INTEGER").getSQLState());
            assertEquals("23502", failure(s, "ALTER TABLE " + t + " ADD COLUMN d INTEGER NOT NULL").getSQLState());
            assertEquals("23514", failure(s, "ALTER TABLE " + t + " ADD COLUMN d INTEGER DEFAULT -1 CHECK (d > 0)")
                    .getSQLState());
            assertEquals("42P01", failure(s, "ALTER TABLE missing_" + t + " ADD COLUMN d INTEGER").getSQLState());
            s.execute("ALTER TABLE IF EXISTS missing_" + t + " ADD COLUMN d INTEGER");
            assertEquals(List.of("id", "a", "b", "c"), rows(s, "SELECT column_name FROM information_schema.columns "
                    + "WHERE table_name = '" + t + "' ORDER BY ordinal_position"), "the refused ADDs left nothing");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void dropColumnKeepsTheOtherColumnsAndDropsItsIndexes(final String protocol) throws SQLException {
        final String t = "drop_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, a VARCHAR(10), b INTEGER, c INTEGER, "
                    + "CHECK (b > 0))");
            s.execute("CREATE INDEX " + t + "_b ON " + t + " (b)");
            s.execute("CREATE INDEX " + t + "_c ON " + t + " (c)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'x', 10, 100), (2, 'y', 20, 200)");
            s.execute("ALTER TABLE " + t + " DROP COLUMN b");
            assertEquals(List.of("1:x:100", "2:y:200"), rows(s, "SELECT * FROM " + t + " ORDER BY id"));
            assertEquals(List.of("2:y:200"), rows(s, "SELECT * FROM " + t + " WHERE c = 200"));
            s.executeUpdate("INSERT INTO " + t + " VALUES (3, 'z', -5)"); // the CHECK on b went with it
            assertEquals("42704", failure(s, "DROP INDEX " + t + "_b").getSQLState(), "the index on b went with it");
            // a column added again under the same name is a new column: the dropped values do not come back
            s.execute("ALTER TABLE " + t + " ADD COLUMN b INTEGER");
            assertEquals(List.of("1:x:100:null", "2:y:200:null", "3:z:-5:null"),
                    rows(s, "SELECT * FROM " + t + " ORDER BY id"));
            assertEquals("0A000", failure(s, "ALTER TABLE " + t + " DROP COLUMN id").getSQLState());
            assertEquals("42703", failure(s, "ALTER TABLE " + t + " DROP COLUMN nope").getSQLState());
            s.execute("ALTER TABLE " + t + " DROP COLUMN IF EXISTS nope, DROP COLUMN b CASCADE");
            s.execute("DROP INDEX " + t + "_c");
            assertEquals(List.of("3:z:-5"), rows(s, "SELECT * FROM " + t + " WHERE c < 0"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void renamedTablesAndColumnsKeepTheirDataIndexesAndChecks(final String protocol) throws SQLException {
        final String t = "ren_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, qty INTEGER CHECK (qty >= 0), note VARCHAR(9))");
            s.execute("CREATE UNIQUE INDEX " + t + "_note ON " + t + " (note)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 5, 'a'), (2, 6, 'b')");
            s.execute("ALTER TABLE " + t + " RENAME COLUMN qty TO amount");
            s.execute("ALTER TABLE " + t + " RENAME TO " + t + "2");
            s.execute("ALTER TABLE " + t + "2 RENAME CONSTRAINT " + t + "_qty_check TO amount_ok");
            assertEquals(List.of("1:5:a", "2:6:b"), rows(s, "SELECT id, amount, note FROM " + t + "2 ORDER BY id"));
            assertEquals(List.of("2"), rows(s, "SELECT id FROM " + t + "2 WHERE note = 'b'"));
            final SQLException negative = failure(s, "INSERT INTO " + t + "2 VALUES (3, -1, 'c')");
            assertEquals("23514", negative.getSQLState());
            assertTrue(negative.getMessage().contains("amount_ok"), negative.getMessage());
            assertEquals("23505", failure(s, "INSERT INTO " + t + "2 VALUES (3, 1, 'a')").getSQLState(),
                    "the unique index still holds the rows written before the rename");
            assertEquals("42P01", failure(s, "SELECT * FROM " + t).getSQLState());
            assertEquals("42703", failure(s, "ALTER TABLE " + t + "2 RENAME COLUMN qty TO x").getSQLState());
            assertEquals("42701", failure(s, "ALTER TABLE " + t + "2 RENAME COLUMN amount TO note").getSQLState());
            assertEquals("42704", failure(s, "ALTER TABLE " + t + "2 RENAME CONSTRAINT nope TO x").getSQLState());
            s.execute("CREATE TABLE " + t + "_other (k INTEGER PRIMARY KEY)");
            assertEquals("42P07", failure(s, "ALTER TABLE " + t + "2 RENAME TO " + t + "_other").getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void alterColumnDefaultsNullabilityAndWideningTypes(final String protocol) throws SQLException {
        final String t = "alt_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, n INTEGER, v VARCHAR(3), d DECIMAL(5, 2))");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 2147483647, 'abc', 999.99), (2, NULL, NULL, NULL)");
            assertEquals("22001", failure(s, "ALTER TABLE " + t + " ALTER v SET DEFAULT 'dflt'").getSQLState());
            s.execute("ALTER TABLE " + t + " ALTER COLUMN n TYPE BIGINT, ALTER COLUMN v SET DATA TYPE VARCHAR(10), "
                    + "ALTER d TYPE DECIMAL(9, 2)");
            s.execute("ALTER TABLE " + t + " ALTER COLUMN n SET DEFAULT 5, ALTER v SET DEFAULT 'dflt'");
            s.executeUpdate("INSERT INTO " + t + " (id) VALUES (3)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (4, 9000000000, 'longer', 1234567.89)");
            assertEquals(List.of("1:2147483647:abc:999.99", "2:null:null:null", "3:5:dflt:null",
                    "4:9000000000:longer:1234567.89"), rows(s, "SELECT * FROM " + t + " ORDER BY id"));
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + t + " WHERE n = 2147483647"));
            assertEquals("23502", failure(s, "ALTER TABLE " + t + " ALTER COLUMN n SET NOT NULL").getSQLState());
            s.executeUpdate("DELETE FROM " + t + " WHERE id = 2");
            s.execute("ALTER TABLE " + t + " ALTER COLUMN n SET NOT NULL, ALTER COLUMN v DROP DEFAULT");
            assertEquals("23502", failure(s, "INSERT INTO " + t + " (id, n) VALUES (5, NULL)").getSQLState());
            s.executeUpdate("INSERT INTO " + t + " (id, n) VALUES (5, 1)");
            assertEquals(List.of("null"), rows(s, "SELECT v FROM " + t + " WHERE id = 5"));
            s.execute("ALTER TABLE " + t + " ALTER COLUMN n DROP NOT NULL");
            s.executeUpdate("INSERT INTO " + t + " (id, n) VALUES (6, NULL)");
            assertEquals("42P16", failure(s, "ALTER TABLE " + t + " ALTER COLUMN id DROP NOT NULL").getSQLState());
            assertEquals("0A000", failure(s, "ALTER TABLE " + t + " ALTER COLUMN n TYPE INTEGER").getSQLState(),
                    "narrowing");
            assertEquals("0A000", failure(s, "ALTER TABLE " + t + " ALTER COLUMN v TYPE INTEGER").getSQLState());
            assertEquals("0A000", failure(s, "ALTER TABLE " + t + " ALTER COLUMN id TYPE BIGINT").getSQLState(),
                    "a key column's keys hold the old width");
            assertEquals("0A000", failure(s, "ALTER TABLE " + t + " ALTER COLUMN v TYPE VARCHAR(20) USING v")
                    .getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void addCheckChecksTheRowsThereAndDropConstraintRemovesIt(final String protocol) throws SQLException {
        final String t = "ck_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (a INTEGER, b INTEGER)"); // no primary key: a hidden row id
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 1), (-1, 2)");
            final SQLException violated = failure(s, "ALTER TABLE " + t + " ADD CONSTRAINT a_pos CHECK (a > 0)");
            assertEquals("23514", violated.getSQLState());
            assertTrue(violated.getMessage().contains("a_pos"), violated.getMessage());
            s.execute("ALTER TABLE " + t + " ADD CHECK (b > 0)");
            assertEquals("23514", failure(s, "INSERT INTO " + t + " VALUES (5, 0)").getSQLState());
            assertEquals("42710", failure(s, "ALTER TABLE " + t + " ADD CONSTRAINT " + t + "_b_check CHECK (b < 9)")
                    .getSQLState());
            s.execute("ALTER TABLE " + t + " DROP CONSTRAINT " + t + "_b_check");
            s.executeUpdate("INSERT INTO " + t + " VALUES (5, 0)");
            assertEquals("42704", failure(s, "ALTER TABLE " + t + " DROP CONSTRAINT nope").getSQLState());
            s.execute("ALTER TABLE " + t + " DROP CONSTRAINT IF EXISTS nope");
            s.execute("ALTER TABLE " + t + " ADD COLUMN c INTEGER DEFAULT 3");
            assertEquals(1, s.executeUpdate("UPDATE " + t + " SET c = 4 WHERE a = -1"), "a row of a table without "
                    + "a primary key, written before ADD COLUMN, is found again");
            assertEquals(1, s.executeUpdate("DELETE FROM " + t + " WHERE a = 1"));
            assertEquals(List.of("-1:2:4", "5:0:3"), rows(s, "SELECT * FROM " + t + " ORDER BY a"));
            assertEquals("0A000", failure(s, "ALTER TABLE " + t + " ALTER COLUMN a SET STATISTICS 100").getSQLState());
            assertEquals("42601", failure(s, "ALTER TABLE " + t + " ADD").getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aGatewayThatJustStartedReadsTheAlteredTable(final String protocol) throws SQLException {
        final String t = "restart_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, a INTEGER, b VARCHAR(4))");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 10, 'x')");
            s.execute("ALTER TABLE " + t + " ADD COLUMN c VARCHAR(3) DEFAULT 'old', DROP COLUMN a, "
                    + "ALTER COLUMN id SET DEFAULT 0");
            s.execute("ALTER TABLE " + t + " RENAME COLUMN b TO bee");
            s.execute("ALTER TABLE " + t + " RENAME TO " + t + "_r");
            s.execute("ALTER TABLE " + t + "_r ALTER COLUMN bee TYPE VARCHAR(8)");
            s.executeUpdate("INSERT INTO " + t + "_r VALUES (2, 'yy', 'new')");
        }
        try (Gateway restarted = db.anotherGateway();
             Connection c = DriverManager.getConnection(restarted.jdbcUrl());
             Statement s = c.createStatement()) {
            assertEquals(List.of("1:x:old", "2:yy:new"), rows(s, "SELECT * FROM " + t + "_r ORDER BY id"));
            s.executeUpdate("INSERT INTO " + t + "_r (bee) VALUES ('long one')");
            assertEquals(List.of("0:long one:old"), rows(s, "SELECT * FROM " + t + "_r WHERE id = 0"));
        }
    }

    /**
     * A transaction that wrote rows under the old definition and commits after an ALTER: meld aborts it (40001, a
     * SERIALIZABLE transaction read the catalog version the ALTER replaced), or its rows read correctly in the new
     * layout (SNAPSHOT isolation logs no reads): the added column's default, the dropped column gone, the widened
     * column's value.
     */
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aWriterThatCommitsAfterAnAlterIsAbortedOrReadsCorrectly(final String protocol) throws SQLException {
        for (int isolation : new int[] {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ}) {
            final String t = "conc_" + protocol + "_" + isolation;
            try (Connection writer = Conformance.connect(db, protocol);
                 Connection ddl = Conformance.connect(db, protocol);
                 Statement w = writer.createStatement(); Statement d = ddl.createStatement()) {
                d.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, gone VARCHAR(5), n INTEGER)");
                d.executeUpdate("INSERT INTO " + t + " VALUES (1, 'g1', 10)");
                writer.setTransactionIsolation(isolation);
                writer.setAutoCommit(false);
                w.executeUpdate("INSERT INTO " + t + " VALUES (2, 'g2', 20)");
                w.executeUpdate("UPDATE " + t + " SET n = 11 WHERE id = 1");
                d.execute("ALTER TABLE " + t + " ADD COLUMN added VARCHAR(3) DEFAULT 'dft', DROP COLUMN gone, "
                        + "ALTER COLUMN n TYPE BIGINT");
                boolean committed = true;
                try {
                    writer.commit();
                } catch (SQLException e) {
                    assertEquals("40001", e.getSQLState(), e.getMessage());
                    committed = false;
                }
                writer.setAutoCommit(true);
                assertEquals(committed ? List.of("1:11:dft", "2:20:dft") : List.of("1:10:dft"),
                        rows(d, "SELECT * FROM " + t + " ORDER BY id"), "isolation " + isolation);
                if (isolation == Connection.TRANSACTION_SERIALIZABLE) {
                    assertTrue(!committed, "a serializable writer read the catalog version the ALTER replaced");
                }
                d.executeUpdate("UPDATE " + t + " SET n = 9000000000 WHERE id = 1");
                assertEquals(List.of("9000000000"), rows(w, "SELECT n FROM " + t + " WHERE id = 1"));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void everyCreateAndDropTakesIfNotExistsAndIfExistsAndATrailingSemicolon(final String protocol)
            throws SQLException {
        final String p = "ife_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            for (int twice = 0; twice < 2; twice++) {
                s.execute("CREATE SCHEMA IF NOT EXISTS " + p + "_s;");
                s.execute("CREATE TABLE IF NOT EXISTS " + p + "_t (id INTEGER PRIMARY KEY, v INTEGER);");
                s.execute("CREATE TABLE IF NOT EXISTS " + p + "_ctas AS SELECT id FROM " + p + "_t;");
                s.execute("CREATE SEQUENCE IF NOT EXISTS " + p + "_q;");
                s.execute("CREATE INDEX IF NOT EXISTS " + p + "_i ON " + p + "_t (v);");
                s.execute("CREATE OR REPLACE VIEW " + p + "_v AS SELECT id FROM " + p + "_t;");
                s.execute("ALTER TABLE IF EXISTS " + p + "_t ADD COLUMN IF NOT EXISTS w INTEGER;");
            }
            for (int twice = 0; twice < 2; twice++) {
                s.execute("DROP VIEW IF EXISTS " + p + "_v RESTRICT;");
                s.execute("DROP INDEX IF EXISTS " + p + "_i CASCADE;");
                s.execute("DROP SEQUENCE IF EXISTS " + p + "_q;");
                s.execute("DROP TABLE IF EXISTS " + p + "_ctas, " + p + "_t CASCADE;");
                s.execute("DROP SCHEMA IF EXISTS " + p + "_s RESTRICT;");
                s.execute("ALTER TABLE IF EXISTS " + p + "_t DROP COLUMN IF EXISTS w;");
            }
            assertEquals(List.of("0"), rows(s, "SELECT COUNT(*) FROM information_schema.tables WHERE table_name "
                    + "LIKE '" + p + "%'"));
        }
    }
}
