package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE over pgjdbc, as ORMs use them (Django's nested atomic blocks,
 * SQLAlchemy's begin_nested, pgjdbc's autosave): writes after a savepoint are undone (inserts, updates, deletes,
 * increments, index entries), a failed statement is recovered from, nested savepoints and RELEASE, and the errors
 * PostgreSQL gives (3B001, 25P01, 25P02).
 */
@Timeout(120)
class PgSavepointTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    private static List<String> rows(final Statement s, final String sql) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1) + ":" + r.getString(2));
            }
        }
        return out;
    }

    @Test
    void shouldUndoTheWritesAfterASavepointAndCommitTheRest() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sp_basic (id INTEGER PRIMARY KEY, v VARCHAR(10) UNIQUE, n INTEGER)");
            s.execute("INSERT INTO sp_basic VALUES (1, 'one', 10), (2, 'two', 20)");
            c.setAutoCommit(false);
            s.execute("INSERT INTO sp_basic VALUES (3, 'three', 30)");
            final Savepoint sp = c.setSavepoint();
            s.execute("INSERT INTO sp_basic VALUES (4, 'four', 40)");
            s.execute("UPDATE sp_basic SET v = 'uno', n = n + 1 WHERE id = 1");
            s.execute("DELETE FROM sp_basic WHERE id = 2");
            assertEquals(List.of("1:uno", "3:three", "4:four"), rows(s, "SELECT id, v FROM sp_basic ORDER BY id"));
            c.rollback(sp);
            assertEquals(List.of("1:one", "2:two", "3:three"), rows(s, "SELECT id, v FROM sp_basic ORDER BY id"));
            // the unique value 'four' was freed with its row
            s.execute("INSERT INTO sp_basic VALUES (5, 'four', 50)");
            c.commit();
            c.setAutoCommit(true);
            assertEquals(List.of("1:10", "2:20", "3:30", "5:50"), rows(s, "SELECT id, n FROM sp_basic ORDER BY id"));
            assertEquals(List.of("5:four"), rows(s, "SELECT id, v FROM sp_basic WHERE v = 'four'"));
        }
    }

    @Test
    void shouldGoOnAfterAFailedStatementOnceRolledBackToTheSavepoint() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sp_fail (id INTEGER PRIMARY KEY, v VARCHAR(10))");
            s.execute("INSERT INTO sp_fail VALUES (1, 'one')");
            c.setAutoCommit(false);
            s.execute("INSERT INTO sp_fail VALUES (2, 'two')");
            s.execute("SAVEPOINT before_dup");
            // get_or_create's way: try the insert, and on a duplicate roll back to the savepoint and read
            assertEquals("23505", assertThrows(SQLException.class,
                    () -> s.execute("INSERT INTO sp_fail VALUES (1, 'again')")).getSQLState());
            assertEquals("25P02", assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT 1")).getSQLState(), "failed until ROLLBACK TO");
            s.execute("ROLLBACK TO SAVEPOINT before_dup");
            assertEquals(List.of("1:one"), rows(s, "SELECT id, v FROM sp_fail WHERE id = 1"));
            s.execute("INSERT INTO sp_fail VALUES (3, 'three')");
            s.execute("RELEASE SAVEPOINT before_dup");
            c.commit();
            c.setAutoCommit(true);
            assertEquals(List.of("1:one", "2:two", "3:three"), rows(s, "SELECT id, v FROM sp_fail ORDER BY id"));
        }
    }

    @Test
    void shouldNestSavepointsAndReleaseThem() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sp_nest (id INTEGER PRIMARY KEY, v VARCHAR(10))");
            c.setAutoCommit(false);
            s.execute("SAVEPOINT a");
            s.execute("INSERT INTO sp_nest VALUES (1, 'a')");
            s.execute("SAVEPOINT b");
            s.execute("INSERT INTO sp_nest VALUES (2, 'b')");
            s.execute("SAVEPOINT c");
            s.execute("UPDATE sp_nest SET v = 'c' WHERE id = 1");
            s.execute("ROLLBACK TO b"); // undoes c's and b's writes; b stays, c is gone
            assertEquals(List.of("1:a"), rows(s, "SELECT id, v FROM sp_nest ORDER BY id"));
            assertEquals("3B001", assertThrows(SQLException.class, () -> s.execute("ROLLBACK TO c")).getSQLState());
            s.execute("ROLLBACK TO b"); // a failed ROLLBACK TO leaves the block failed; this one recovers it
            s.execute("INSERT INTO sp_nest VALUES (3, 'b2')");
            s.execute("RELEASE a"); // a and b are gone, their writes stay
            assertEquals("3B001", assertThrows(SQLException.class, () -> s.execute("RELEASE b")).getSQLState());
            c.rollback();
            s.execute("INSERT INTO sp_nest VALUES (9, 'x')");
            c.commit();
            c.setAutoCommit(true);
            assertEquals(List.of("9:x"), rows(s, "SELECT id, v FROM sp_nest ORDER BY id"),
                    "ROLLBACK ended the whole transaction");
        }
    }

    @Test
    void shouldRecoverEveryFailedStatementWithPgjdbcAutosave() throws SQLException {
        try (Connection c = db.connectPg("autosave=always"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sp_auto (id INTEGER PRIMARY KEY)");
            c.setAutoCommit(false);
            s.execute("INSERT INTO sp_auto VALUES (1)");
            assertThrows(SQLException.class, () -> s.execute("INSERT INTO sp_auto VALUES (1)"));
            assertThrows(SQLException.class, () -> s.execute("SELECT * FROM no_such_table"));
            s.execute("INSERT INTO sp_auto VALUES (2)");
            c.commit();
            c.setAutoCommit(true);
            assertEquals(List.of("1:1", "2:2"), rows(s, "SELECT id, id AS again FROM sp_auto ORDER BY id"));
        }
    }

    @Test
    void shouldAnswerSavepointMisuseAsPostgresqlDoes() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sp_misuse (id INTEGER PRIMARY KEY)");
            assertEquals("25P01", assertThrows(SQLException.class, () -> s.execute("SAVEPOINT x")).getSQLState());
            c.setAutoCommit(false);
            assertEquals("3B001", assertThrows(SQLException.class, () -> s.execute("ROLLBACK TO SAVEPOINT nope"))
                    .getSQLState());
            c.rollback();
            s.execute("SAVEPOINT before_ddl");
            s.execute("INSERT INTO sp_misuse VALUES (1)");
            s.execute("CREATE TABLE sp_misuse_2 (id INTEGER PRIMARY KEY)");
            assertEquals("0A000", assertThrows(SQLException.class, () -> s.execute("ROLLBACK TO before_ddl"))
                    .getSQLState(), "DDL since the savepoint");
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(List.of(), rows(s, "SELECT id, id FROM sp_misuse"));
        }
    }
}
