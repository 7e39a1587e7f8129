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
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FOREIGN KEY constraints as PostgreSQL gives them, over both front ends: 23503 with PostgreSQL's messages on a
 * child insert, update or COPY without a parent and on a parent delete or key update with children; every ON DELETE
 * / ON UPDATE action; MATCH SIMPLE NULLs; composite and self-referencing keys; cascade chains; ALTER TABLE ADD and
 * DROP CONSTRAINT; TRUNCATE and DROP TABLE of a referenced table; the DDL errors; and a child insert racing a
 * delete of its parent in two open transactions, at both isolation levels: exactly one commits, no orphan stays.
 */
class ForeignKeyTest extends ConformanceTest {
    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void shouldRefuseAChildWithoutParentAndAParentWithChildrenInPostgresWords(final String protocol)
            throws SQLException {
        final String p = "fkp_" + protocol;
        final String ch = "fkc_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + p + " (id INTEGER PRIMARY KEY, name VARCHAR(10))");
            s.execute("CREATE TABLE " + ch + " (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES " + p + "(id), n INT)");
            s.executeUpdate("INSERT INTO " + p + " VALUES (1, 'one'), (2, 'two')");
            s.executeUpdate("INSERT INTO " + ch + " VALUES (10, 1, 0), (11, 1, 0), (12, NULL, 0)");
            final SQLException missing = failure(s, "INSERT INTO " + ch + " VALUES (13, 7, 0)");
            assertEquals("23503", missing.getSQLState());
            assertTrue(missing.getMessage().contains("insert or update on table \"" + ch + "\" violates foreign key "
                    + "constraint \"" + ch + "_pid_fkey\""), missing.getMessage());
            if (protocol.equals(Conformance.PG)) {
                assertEquals("Key (pid)=(7) is not present in table \"" + p + "\".",
                        assertInstanceOf(PSQLException.class, missing).getServerErrorMessage().getDetail());
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + ch + " VALUES (?, ?, 0)")) {
                ps.setInt(1, 13);
                ps.setInt(2, 8);
                assertEquals("23503", assertThrows(SQLException.class, ps::executeUpdate).getSQLState(),
                        "the fast path checks too");
                ps.setInt(2, 2);
                assertEquals(1, ps.executeUpdate());
            }
            assertEquals("23503", failure(s, "UPDATE " + ch + " SET pid = 9 WHERE id = 10").getSQLState());
            assertEquals("23503", failure(s, "UPDATE " + ch + " SET pid = 9 WHERE n = 0").getSQLState(),
                    "through Calcite too");
            assertEquals(1, s.executeUpdate("UPDATE " + ch + " SET n = 5 WHERE id = 10"), "an unchanged key is fine");
            final SQLException referenced = failure(s, "DELETE FROM " + p + " WHERE id = 1");
            assertEquals("23503", referenced.getSQLState());
            assertTrue(referenced.getMessage().contains("update or delete on table \"" + p + "\" violates foreign "
                    + "key constraint \"" + ch + "_pid_fkey\" on table \"" + ch + "\""), referenced.getMessage());
            if (protocol.equals(Conformance.PG)) {
                assertEquals("Key (id)=(1) is still referenced from table \"" + ch + "\".",
                        assertInstanceOf(PSQLException.class, referenced).getServerErrorMessage().getDetail());
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + p + " WHERE id = ?")) {
                ps.setInt(1, 2);
                assertEquals("23503", assertThrows(SQLException.class, ps::executeUpdate).getSQLState(),
                        "a fast-path delete checks its children");
            }
            assertEquals("23503", failure(s, "UPDATE " + p + " SET id = 5 WHERE id = 1").getSQLState());
            assertEquals(1, s.executeUpdate("UPDATE " + p + " SET name = 'uno' WHERE id = 1"), "a non-key update");
            assertEquals(1, s.executeUpdate("DELETE FROM " + ch + " WHERE id = 13"));
            assertEquals(1, s.executeUpdate("DELETE FROM " + p + " WHERE id = 2"), "no child left");
            assertEquals(List.of("10:1", "11:1", "12:null"), rows(s, "SELECT id, pid FROM " + ch + " ORDER BY id"));
            assertEquals(List.of("1:uno"), rows(s, "SELECT id, name FROM " + p));
        }
    }

    @Test
    void everyActionDoesWhatPostgresDoes() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE fka_p (id INTEGER PRIMARY KEY, v INTEGER)");
            s.execute("CREATE TABLE fka_cascade (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES fka_p "
                    + "ON DELETE CASCADE ON UPDATE CASCADE)");
            s.execute("CREATE TABLE fka_null (id INTEGER PRIMARY KEY, pid INTEGER, FOREIGN KEY (pid) REFERENCES "
                    + "fka_p (id) ON DELETE SET NULL ON UPDATE SET NULL)");
            s.execute("CREATE TABLE fka_restrict (id INTEGER PRIMARY KEY, pid INTEGER, CONSTRAINT fka_r FOREIGN KEY "
                    + "(pid) REFERENCES fka_p ON DELETE RESTRICT ON UPDATE NO ACTION)");
            s.executeUpdate("INSERT INTO fka_p (id) VALUES (1), (2), (3), (4)");
            s.executeUpdate("INSERT INTO fka_cascade VALUES (10, 1), (11, 1), (12, 2)");
            s.executeUpdate("INSERT INTO fka_null VALUES (20, 1), (21, 2)");
            s.executeUpdate("INSERT INTO fka_restrict VALUES (30, 3)");
            assertEquals(1, s.executeUpdate("DELETE FROM fka_p WHERE id = 1"));
            assertEquals(List.of("12:2"), rows(s, "SELECT id, pid FROM fka_cascade ORDER BY id"));
            assertEquals(List.of("20:null", "21:2"), rows(s, "SELECT id, pid FROM fka_null ORDER BY id"));
            assertEquals(1, s.executeUpdate("UPDATE fka_p SET id = 5 WHERE id = 2"));
            assertEquals(List.of("12:5"), rows(s, "SELECT id, pid FROM fka_cascade"), "ON UPDATE CASCADE");
            assertEquals(List.of("20:null", "21:null"), rows(s, "SELECT id, pid FROM fka_null ORDER BY id"));
            final SQLException restrict = failure(s, "DELETE FROM fka_p WHERE id = 3");
            assertEquals("23503", restrict.getSQLState());
            assertTrue(restrict.getMessage().contains("\"fka_r\""), restrict.getMessage());
            assertEquals("23503", failure(s, "UPDATE fka_p SET id = 6 WHERE id = 3").getSQLState());
            assertEquals(List.of("3", "4", "5"), rows(s, "SELECT id FROM fka_p ORDER BY id"));
            final SQLException setDefault = failure(s, "CREATE TABLE fka_d (id INTEGER PRIMARY KEY, pid INTEGER "
                    + "REFERENCES fka_p ON DELETE SET DEFAULT)");
            assertEquals("0A000", setDefault.getSQLState());
            assertTrue(setDefault.getMessage().contains("SET DEFAULT"), setDefault.getMessage());
            assertEquals("0A000", failure(s, "CREATE TABLE fka_m (id INTEGER PRIMARY KEY, pid INTEGER "
                    + "REFERENCES fka_p MATCH FULL)").getSQLState());
        }
    }

    @Test
    void compositeSelfReferencingAndChainedKeysCascade() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            // a tree: deleting the root deletes every descendant
            s.execute("CREATE TABLE fkt (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES fkt ON DELETE CASCADE)");
            s.executeUpdate("INSERT INTO fkt VALUES (1, NULL), (2, 1), (3, 1), (4, 2), (5, 4), (6, 6), (7, NULL)");
            assertEquals("23503", failure(s, "INSERT INTO fkt VALUES (8, 99)").getSQLState());
            assertEquals(1, s.executeUpdate("DELETE FROM fkt WHERE id = 1"));
            assertEquals(List.of("6:6", "7:null"), rows(s, "SELECT id, parent FROM fkt ORDER BY id"));
            assertEquals(1, s.executeUpdate("DELETE FROM fkt WHERE id = 6"), "a row referencing itself");

            // composite keys referencing a UNIQUE constraint, and a chain a -> b -> c of cascades
            s.execute("CREATE TABLE fkg_a (id INTEGER PRIMARY KEY, x INTEGER, y VARCHAR(5), UNIQUE (y, x))");
            s.execute("CREATE TABLE fkg_b (id INTEGER PRIMARY KEY, x INTEGER, y VARCHAR(5), "
                    + "FOREIGN KEY (x, y) REFERENCES fkg_a (x, y) ON DELETE CASCADE, UNIQUE (id, x))");
            s.execute("CREATE TABLE fkg_c (id INTEGER PRIMARY KEY, bid INTEGER, bx INTEGER, "
                    + "FOREIGN KEY (bid, bx) REFERENCES fkg_b (id, x) ON DELETE CASCADE)");
            s.executeUpdate("INSERT INTO fkg_a VALUES (1, 1, 'a'), (2, 2, 'b')");
            s.executeUpdate("INSERT INTO fkg_b VALUES (10, 1, 'a'), (11, 2, 'b'), (12, 1, NULL), (13, NULL, 'zz')");
            final SQLException composite = failure(s, "INSERT INTO fkg_b VALUES (14, 1, 'b')");
            assertEquals("23503", composite.getSQLState());
            assertTrue(composite.getMessage().contains("fkg_b_x_y_fkey"), composite.getMessage());
            s.executeUpdate("INSERT INTO fkg_c VALUES (100, 10, 1), (101, 11, 2), (102, 10, NULL)");
            assertEquals(1, s.executeUpdate("DELETE FROM fkg_a WHERE id = 1"));
            assertEquals(List.of("11", "12", "13"), rows(s, "SELECT id FROM fkg_b ORDER BY id"),
                    "MATCH SIMPLE: rows with a NULL reference nothing and stay");
            assertEquals(List.of("101", "102"), rows(s, "SELECT id FROM fkg_c ORDER BY id"), "the cascade chained");
        }
    }

    @Test
    void ddlErrorsAlterAddDropTruncateAndDropTable() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE fkd_p (id INTEGER PRIMARY KEY, code VARCHAR(5), n INTEGER)");
            s.execute("CREATE TABLE fkd_np (a INTEGER)");
            assertEquals("42P01", failure(s, "CREATE TABLE fkd_x (pid INTEGER REFERENCES fkd_nope)").getSQLState());
            assertEquals("42830", failure(s, "CREATE TABLE fkd_x (c VARCHAR(5) REFERENCES fkd_p (code))")
                    .getSQLState(), "not a key of the parent");
            assertEquals("42830", failure(s, "CREATE TABLE fkd_x (a INTEGER REFERENCES fkd_np)").getSQLState(),
                    "the parent has no primary key");
            assertEquals("42703", failure(s, "CREATE TABLE fkd_x (a INTEGER, FOREIGN KEY (b) REFERENCES fkd_p)")
                    .getSQLState());
            assertEquals("42804", failure(s, "CREATE TABLE fkd_x (a VARCHAR(5) REFERENCES fkd_p)").getSQLState());
            assertEquals("42830", failure(s, "CREATE TABLE fkd_x (a INTEGER, b INTEGER, FOREIGN KEY (a, b) "
                    + "REFERENCES fkd_p)").getSQLState());

            s.execute("CREATE TABLE fkd_c (id INTEGER PRIMARY KEY, pid INTEGER, code VARCHAR(5))");
            s.executeUpdate("INSERT INTO fkd_p VALUES (1, 'a', 0)");
            s.executeUpdate("INSERT INTO fkd_c VALUES (1, 1, 'a'), (2, 3, 'a'), (3, NULL, 'b')");
            final SQLException existing = failure(s, "ALTER TABLE fkd_c ADD CONSTRAINT fkd_c_p FOREIGN KEY (pid) "
                    + "REFERENCES fkd_p");
            assertEquals("23503", existing.getSQLState(), "an existing row has no parent");
            assertEquals(1, s.executeUpdate("UPDATE fkd_c SET pid = 1 WHERE id = 2"));
            s.execute("ALTER TABLE fkd_c ADD CONSTRAINT fkd_c_p FOREIGN KEY (pid) REFERENCES fkd_p");
            assertEquals("42710", failure(s, "ALTER TABLE fkd_c ADD CONSTRAINT fkd_c_p FOREIGN KEY (pid) "
                    + "REFERENCES fkd_p").getSQLState());
            assertEquals("23503", failure(s, "INSERT INTO fkd_c VALUES (4, 2, 'a')").getSQLState());
            assertEquals("23503", failure(s, "DELETE FROM fkd_p").getSQLState());

            final SQLException truncate = failure(s, "TRUNCATE fkd_p");
            assertEquals("0A000", truncate.getSQLState());
            assertTrue(truncate.getMessage().contains("cannot truncate a table referenced in a foreign key "
                    + "constraint"), truncate.getMessage());
            s.execute("TRUNCATE fkd_p, fkd_c");
            s.executeUpdate("INSERT INTO fkd_p VALUES (1, 'a', 0)");
            s.executeUpdate("INSERT INTO fkd_c VALUES (1, 1, 'a')");
            s.execute("TRUNCATE fkd_p CASCADE");
            assertEquals(List.of("0"), rows(s, "SELECT COUNT(*) FROM fkd_c"), "CASCADE truncated the child");

            final SQLException drop = failure(s, "DROP TABLE fkd_p");
            assertEquals("2BP01", drop.getSQLState());
            s.execute("ALTER TABLE fkd_c DROP CONSTRAINT fkd_c_p");
            s.executeUpdate("INSERT INTO fkd_c VALUES (5, 42, 'a')"); // no constraint any more
            assertEquals("42830", failure(s, "ALTER TABLE fkd_c ADD FOREIGN KEY (pid) REFERENCES fkd_np")
                    .getSQLState());
        }
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE fkd_p ADD UNIQUE (code)");
            s.executeUpdate("INSERT INTO fkd_p VALUES (1, 'a', 0)");
            s.execute("ALTER TABLE fkd_c ADD FOREIGN KEY (code) REFERENCES fkd_p (code)");
            assertEquals("2BP01", failure(s, "ALTER TABLE fkd_p DROP CONSTRAINT fkd_p_code_key").getSQLState(),
                    "the foreign key needs the unique constraint");
            assertEquals("23503", failure(s, "INSERT INTO fkd_c VALUES (6, NULL, 'q')").getSQLState());
            s.execute("DROP TABLE fkd_p CASCADE");
            s.executeUpdate("INSERT INTO fkd_c VALUES (6, NULL, 'q')"); // CASCADE dropped the constraint
            assertEquals(List.of("2"), rows(s, "SELECT COUNT(*) FROM fkd_c"));
        }
    }

    @Test
    void alterTableColumnActionsKeepForeignKeysPointingAtTheRightColumns() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE fkl_p (x INTEGER, id INTEGER PRIMARY KEY, code VARCHAR(5) UNIQUE)");
            s.execute("CREATE TABLE fkl_c (junk INTEGER, id INTEGER PRIMARY KEY, pid INTEGER REFERENCES fkl_p, "
                    + "pcode VARCHAR(5) REFERENCES fkl_p (code), up INTEGER REFERENCES fkl_c)");
            s.executeUpdate("INSERT INTO fkl_p VALUES (0, 1, 'a'), (0, 2, 'b')");
            s.executeUpdate("INSERT INTO fkl_c VALUES (0, 10, 1, 'a', NULL), (0, 11, 2, 'b', 10)");
            // columns before the key columns go: every constraint must still name the same columns
            s.execute("ALTER TABLE fkl_p DROP COLUMN x");
            s.execute("ALTER TABLE fkl_c DROP COLUMN junk");
            assertEquals("23503", failure(s, "INSERT INTO fkl_c VALUES (12, 3, 'a', NULL)").getSQLState());
            assertEquals("23503", failure(s, "INSERT INTO fkl_c VALUES (12, 1, 'z', NULL)").getSQLState());
            assertEquals("23503", failure(s, "INSERT INTO fkl_c VALUES (12, 1, 'a', 99)").getSQLState());
            s.executeUpdate("INSERT INTO fkl_c VALUES (12, 1, 'a', 11)");
            assertEquals("23503", failure(s, "DELETE FROM fkl_p WHERE id = 2").getSQLState());

            assertEquals("0A000", failure(s, "ALTER TABLE fkl_c ALTER COLUMN pid TYPE BIGINT").getSQLState());
            assertEquals("0A000", failure(s, "ALTER TABLE fkl_p ALTER COLUMN code TYPE VARCHAR(9)").getSQLState());
            s.execute("ALTER TABLE fkl_c RENAME CONSTRAINT fkl_c_pid_fkey TO fkl_c_parent");
            assertEquals(List.of("fkl_c_parent"), rows(s, "SELECT constraint_name FROM "
                    + "information_schema.referential_constraints WHERE constraint_name LIKE 'fkl_c_p%' "
                    + "AND constraint_name <> 'fkl_c_pcode_fkey'"));

            final SQLException referenced = failure(s, "ALTER TABLE fkl_p DROP COLUMN code");
            assertEquals("2BP01", referenced.getSQLState(), referenced.getMessage());
            s.execute("ALTER TABLE fkl_p DROP COLUMN code CASCADE");
            s.executeUpdate("INSERT INTO fkl_c VALUES (13, 1, 'zz', NULL)"); // pcode references nothing now
            s.execute("ALTER TABLE fkl_c DROP COLUMN pid"); // its constraint goes with it
            s.executeUpdate("DELETE FROM fkl_p WHERE id = 2");
            assertEquals("23503", failure(s, "INSERT INTO fkl_c VALUES (14, 'q', 77)").getSQLState(),
                    "the self-reference still holds");
        }
    }

    @Test
    void catalogsAndPgjdbcMetadataShowTheConstraints() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE fkm_p (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, UNIQUE (b, a))");
            s.execute("CREATE TABLE fkm_c (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES fkm_p ON DELETE CASCADE, "
                    + "x INTEGER, y INTEGER, CONSTRAINT fkm_xy FOREIGN KEY (x, y) REFERENCES fkm_p (a, b) "
                    + "ON UPDATE SET NULL)");
            assertEquals(List.of("fkm_c_pid_fkey:FOREIGN KEY", "fkm_c_pkey:PRIMARY KEY", "fkm_xy:FOREIGN KEY"),
                    rows(s, "SELECT constraint_name, constraint_type FROM information_schema.table_constraints "
                            + "WHERE table_name = 'fkm_c' AND constraint_type <> 'CHECK' ORDER BY constraint_name"));
            assertEquals(List.of("x:1:2", "y:2:1"), rows(s, "SELECT column_name, ordinal_position, "
                    + "position_in_unique_constraint FROM information_schema.key_column_usage "
                    + "WHERE constraint_name = 'fkm_xy' ORDER BY ordinal_position"));
            assertEquals(List.of("fkm_c_pid_fkey:fkm_p_pkey:NONE:NO ACTION:CASCADE",
                    "fkm_xy:fkm_p_b_a_key:NONE:SET NULL:NO ACTION"), rows(s, "SELECT constraint_name, "
                    + "unique_constraint_name, match_option, update_rule, delete_rule FROM "
                    + "information_schema.referential_constraints WHERE constraint_name LIKE 'fkm%' "
                    + "ORDER BY constraint_name"));
            assertEquals(List.of(), rows(s, "SELECT relname FROM pg_class WHERE relname LIKE 'fkm_c%' "
                    + "AND relname NOT IN ('fkm_c', 'fkm_c_pkey')"), "the hidden index is not a relation");
            final List<String> imported = new java.util.ArrayList<>();
            try (java.sql.ResultSet r = c.getMetaData().getImportedKeys(null, "public", "fkm_c")) {
                while (r.next()) {
                    imported.add(r.getString("FK_NAME") + ":" + r.getString("FKCOLUMN_NAME") + "->"
                            + r.getString("PKTABLE_NAME") + "." + r.getString("PKCOLUMN_NAME") + ":"
                            + r.getInt("KEY_SEQ") + ":" + r.getInt("UPDATE_RULE") + ":" + r.getInt("DELETE_RULE")
                            + ":" + r.getString("PK_NAME"));
                }
            }
            assertEquals(List.of("fkm_c_pid_fkey:pid->fkm_p.id:1:3:0:fkm_p_pkey",
                    "fkm_xy:x->fkm_p.a:1:2:3:fkm_p_b_a_key", "fkm_xy:y->fkm_p.b:2:2:3:fkm_p_b_a_key"), imported);
            final List<String> exported = new java.util.ArrayList<>();
            try (java.sql.ResultSet r = c.getMetaData().getExportedKeys(null, "public", "fkm_p")) {
                while (r.next()) {
                    exported.add(r.getString("FKTABLE_NAME") + "." + r.getString("FKCOLUMN_NAME"));
                }
            }
            assertEquals(List.of("fkm_c.pid", "fkm_c.x", "fkm_c.y"), exported);
        }
    }

    @Test
    void copyChecksEveryRow() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE fkcp_p (id INTEGER PRIMARY KEY, v INTEGER)");
            s.execute("CREATE TABLE fkcp_c (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES fkcp_p)");
            s.executeUpdate("INSERT INTO fkcp_p (id) VALUES (1)");
            final CopyManager copy = new CopyManager(c.unwrap(BaseConnection.class));
            assertEquals(2, copy.copyIn("COPY fkcp_c FROM STDIN", new StringReader("1\t1\n2\t\\N\n")));
            final SQLException missing = assertThrows(SQLException.class,
                    () -> copy.copyIn("COPY fkcp_c FROM STDIN", new StringReader("3\t1\n4\t2\n")));
            assertEquals("23503", missing.getSQLState());
            assertEquals(List.of("2"), rows(s, "SELECT COUNT(*) FROM fkcp_c"), "the failed COPY left nothing");
        }
    }

    /**
     * Two open transactions, one inserting a child of parent 1, the other deleting parent 1: both statements
     * succeed (neither sees the other), and at commit meld lets exactly one through, whichever commits first, at
     * both isolation levels; no orphan remains. Two children inserted under one parent concurrently both commit.
     */
    @ParameterizedTest
    @ValueSource(ints = {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ})
    void aChildInsertAndItsParentsDeleteCannotBothCommit(final int isolation) throws SQLException {
        final String p = "fkr_p" + isolation;
        final String ch = "fkr_c" + isolation;
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + p + " (id INTEGER PRIMARY KEY, v INTEGER)");
            s.execute("CREATE TABLE " + ch + " (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES " + p + ")");
            s.executeUpdate("INSERT INTO " + p + " (id) VALUES (1), (2)");
        }
        for (boolean childFirst : new boolean[] {true, false}) {
            final int parent = childFirst ? 3 : 4;
            try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + p + " (id) VALUES (" + parent + ")");
            }
            try (Connection a = db.connectPg(); Connection b = db.connectPg();
                 Statement child = a.createStatement(); Statement del = b.createStatement()) {
                a.setTransactionIsolation(isolation);
                b.setTransactionIsolation(isolation);
                a.setAutoCommit(false);
                b.setAutoCommit(false);
                child.executeUpdate("INSERT INTO " + ch + " VALUES (" + (10 + parent) + ", " + parent + ")");
                assertEquals(1, del.executeUpdate("DELETE FROM " + p + " WHERE id = " + parent));
                final Connection first = childFirst ? a : b;
                final Connection second = childFirst ? b : a;
                first.commit();
                assertEquals("40001", assertThrows(SQLException.class, second::commit).getSQLState(),
                        (childFirst ? "the parent delete" : "the child insert") + " must abort");
            }
            try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
                assertEquals(List.of(), rows(s, "SELECT c.id FROM " + ch + " c WHERE c.pid IS NOT NULL AND NOT EXISTS "
                        + "(SELECT 1 FROM " + p + " x WHERE x.id = c.pid)"), "no orphan");
                assertEquals(childFirst ? List.of("1") : List.of("0"),
                        rows(s, "SELECT COUNT(*) FROM " + p + " WHERE id = " + parent));
            }
        }
        try (Connection a = db.connectPg(); Connection b = db.connectPg();
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            a.setTransactionIsolation(isolation);
            b.setTransactionIsolation(isolation);
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            sa.executeUpdate("INSERT INTO " + ch + " VALUES (100, 2)");
            sb.executeUpdate("INSERT INTO " + ch + " VALUES (101, 2)");
            a.commit();
            b.commit(); // two children of one parent do not conflict
        }
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            assertEquals(List.of("100", "101"), rows(s, "SELECT id FROM " + ch + " WHERE pid = 2 ORDER BY id"));
        }
    }
}
