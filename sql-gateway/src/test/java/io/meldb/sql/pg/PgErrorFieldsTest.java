package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The ErrorResponse fields that name what an integrity violation is about (s schema, t table, c column,
 * d data type, n constraint), read through pgjdbc's {@link ServerErrorMessage} as drivers and ORMs read them. The
 * expected values are what PostgreSQL 15 answers for the same statements (psql with VERBOSITY verbose).
 */
@Timeout(120)
class PgErrorFieldsTest {
    private static EmbeddedGateway db;
    private static final AtomicInteger TABLES = new AtomicInteger();

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    /** A fresh table name, so that each test has its own tables. */
    private static String fresh(final String base) {
        return base + TABLES.incrementAndGet();
    }

    /** The server's error for {@code sql}. */
    private static ServerErrorMessage error(final Statement s, final String sql) {
        return assertInstanceOf(PSQLException.class, assertThrows(SQLException.class, () -> s.execute(sql), sql))
                .getServerErrorMessage();
    }

    /** SQLState, message, DETAIL, then the schema, table, column, data type and constraint fields. */
    private static void assertFields(final ServerErrorMessage e, final String sqlState, final String message,
                                     final String detail, final String schema, final String table,
                                     final String column, final String datatype, final String constraint) {
        assertEquals(sqlState, e.getSQLState(), "SQLState");
        assertEquals(message, e.getMessage(), "message");
        assertEquals(detail, e.getDetail(), "detail");
        assertEquals(schema, e.getSchema(), "schema_name");
        assertEquals(table, e.getTable(), "table_name");
        assertEquals(column, e.getColumn(), "column_name");
        assertEquals(datatype, e.getDatatype(), "data_type_name");
        assertEquals(constraint, e.getConstraint(), "constraint_name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "extended"})
    void shouldNameTheSchemaTableAndConstraintOfAUniqueOrPrimaryKeyViolation(final String mode)
            throws SQLException {
        try (Connection c = db.connectPg("preferQueryMode=" + mode); Statement s = c.createStatement()) {
            final String t = fresh("author");
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, name TEXT UNIQUE)");
            s.execute("INSERT INTO " + t + " VALUES (1, 'ada')");
            assertFields(error(s, "INSERT INTO " + t + " VALUES (1, 'bob')"), "23505",
                    "duplicate key value violates unique constraint \"" + t + "_pkey\"", "Key (id)=(1) already exists.",
                    "public", t, null, null, t + "_pkey");
            assertFields(error(s, "INSERT INTO " + t + " VALUES (2, 'ada')"), "23505",
                    "duplicate key value violates unique constraint \"" + t + "_name_key\"",
                    "Key (name)=(ada) already exists.", "public", t, null, null, t + "_name_key");
            s.execute("INSERT INTO " + t + " VALUES (2, 'bob')");
            assertFields(error(s, "UPDATE " + t + " SET id = 1 WHERE id = 2"), "23505",
                    "duplicate key value violates unique constraint \"" + t + "_pkey\"", "Key (id)=(1) already exists.",
                    "public", t, null, null, t + "_pkey");
        }
    }

    @Test
    void shouldNameTheConstraintOfAViolationFoundByAPreparedInsert() throws SQLException {
        try (Connection c = db.connectPg("prepareThreshold=1"); Statement s = c.createStatement()) {
            final String t = fresh("prep");
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, name TEXT NOT NULL)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?, ?)")) {
                for (int i = 0; i < 3; i++) { // past prepareThreshold: a named statement, the fast path's
                    p.setInt(1, 10 + i);
                    p.setString(2, "x");
                    p.executeUpdate();
                }
                p.setInt(1, 10);
                p.setString(2, "y");
                assertFields(assertInstanceOf(PSQLException.class, assertThrows(SQLException.class,
                        p::executeUpdate)).getServerErrorMessage(), "23505", "duplicate key value violates unique "
                        + "constraint \"" + t + "_pkey\"", "Key (id)=(10) already exists.", "public", t, null, null,
                        t + "_pkey");
                p.setInt(1, 20);
                p.setString(2, null);
                final ServerErrorMessage e = assertInstanceOf(PSQLException.class, assertThrows(SQLException.class,
                        p::executeUpdate)).getServerErrorMessage();
                assertEquals("23502", e.getSQLState());
                assertEquals("public", e.getSchema());
                assertEquals(t, e.getTable());
                assertEquals("name", e.getColumn());
            }
        }
    }

    @Test
    void shouldNameTheSchemaTableAndColumnOfANotNullViolation() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = fresh("nn");
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, name TEXT NOT NULL)");
            final String message = "null value in column \"name\" of relation \"" + t + "\" violates not-null "
                    + "constraint";
            assertEquals("name", error(s, "INSERT INTO " + t + " VALUES (1, NULL)").getColumn());
            final ServerErrorMessage e = error(s, "INSERT INTO " + t + " VALUES (1, NULL)");
            assertEquals(message, e.getMessage());
            assertEquals("public", e.getSchema());
            assertEquals(t, e.getTable());
            assertEquals(null, e.getConstraint(), "PostgreSQL names no constraint for NOT NULL");
            final ServerErrorMessage omitted = error(s, "INSERT INTO " + t + " (id) VALUES (2)");
            assertEquals(message, omitted.getMessage());
            assertEquals("public", omitted.getSchema());
            assertEquals(t, omitted.getTable());
            assertEquals("name", omitted.getColumn());
            s.execute("INSERT INTO " + t + " VALUES (3, 'ada')");
            final ServerErrorMessage update = error(s, "UPDATE " + t + " SET name = NULL");
            assertEquals(message, update.getMessage());
            assertEquals(t, update.getTable());
            assertEquals("name", update.getColumn());
        }
    }

    @Test
    void shouldNameTheSchemaTableAndConstraintOfACheckViolation() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = fresh("ck");
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, age INT CHECK (age > 0), "
                    + "n INT CONSTRAINT npos CHECK (n > 0))");
            assertFields(error(s, "INSERT INTO " + t + " VALUES (1, -1, 1)"), "23514", "new row for relation \""
                    + t + "\" violates check constraint \"" + t + "_age_check\"", null, "public", t, null, null,
                    t + "_age_check");
            s.execute("INSERT INTO " + t + " VALUES (1, 1, 1)");
            assertFields(error(s, "UPDATE " + t + " SET n = -5"), "23514", "new row for relation \"" + t
                    + "\" violates check constraint \"npos\"", null, "public", t, null, null, "npos");
        }
    }

    @Test
    void shouldNameTheReferencingTableAndTheConstraintOfAForeignKeyViolationFromEitherSide() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String parent = fresh("parent");
            final String child = fresh("child");
            s.execute("CREATE TABLE " + parent + " (id INT PRIMARY KEY)");
            s.execute("CREATE TABLE " + child + " (id INT PRIMARY KEY, pid INT REFERENCES " + parent + " (id))");
            final String fk = child + "_pid_fkey";
            assertFields(error(s, "INSERT INTO " + child + " VALUES (1, 99)"), "23503", "insert or update on table \""
                    + child + "\" violates foreign key constraint \"" + fk + "\"", "Key (pid)=(99) is not present in "
                    + "table \"" + parent + "\".", "public", child, null, null, fk);
            s.execute("INSERT INTO " + parent + " VALUES (1)");
            s.execute("INSERT INTO " + child + " VALUES (1, 1)");
            // PostgreSQL's table_name is the referencing table here too, not the one the DELETE changed
            assertFields(error(s, "DELETE FROM " + parent), "23503", "update or delete on table \"" + parent
                    + "\" violates foreign key constraint \"" + fk + "\" on table \"" + child + "\"",
                    "Key (id)=(1) is still referenced from table \"" + child + "\".", "public", child, null, null, fk);
        }
    }

    @Test
    void shouldNameTheTablesSchemaWhenItIsNotPublic() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String schema = fresh("s");
            s.execute("CREATE SCHEMA " + schema);
            s.execute("CREATE TABLE " + schema + ".t (a INT PRIMARY KEY, b INT NOT NULL CONSTRAINT bpos CHECK (b > 0))");
            s.execute("INSERT INTO " + schema + ".t VALUES (1, 1)");
            assertFields(error(s, "INSERT INTO " + schema + ".t VALUES (1, 1)"), "23505",
                    "duplicate key value violates unique constraint \"t_pkey\"", "Key (a)=(1) already exists.",
                    schema, "t", null, null, "t_pkey");
            assertFields(error(s, "INSERT INTO " + schema + ".t VALUES (2, NULL)"), "23502",
                    "null value in column \"b\" of relation \"t\" violates not-null constraint", null, schema, "t", "b",
                    null, null);
            assertFields(error(s, "INSERT INTO " + schema + ".t VALUES (2, -1)"), "23514",
                    "new row for relation \"t\" violates check constraint \"bpos\"", null, schema, "t", null, null,
                    "bpos");
        }
    }

    @Test
    void shouldNameTheObjectWhenDdlFindsRowsThatBreakANewConstraint() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = fresh("u");
            s.execute("CREATE TABLE " + t + " (a INT, b INT)");
            s.execute("INSERT INTO " + t + " VALUES (1, NULL), (1, NULL)");
            assertFields(error(s, "CREATE UNIQUE INDEX ui ON " + t + " (a)"), "23505",
                    "could not create unique index \"ui\"", "Key (a)=(1) is duplicated.", "public", t, null, null,
                    "ui");
            assertFields(error(s, "ALTER TABLE " + t + " ADD CONSTRAINT uu UNIQUE (a)"), "23505",
                    "could not create unique index \"uu\"", "Key (a)=(1) is duplicated.", "public", t, null, null,
                    "uu");
            assertFields(error(s, "ALTER TABLE " + t + " ADD PRIMARY KEY (a)"), "23505",
                    "could not create unique index \"" + t + "_pkey\"", "Key (a)=(1) is duplicated.", "public", t,
                    null, null, t + "_pkey");
            assertFields(error(s, "ALTER TABLE " + t + " ADD PRIMARY KEY (b)"), "23502",
                    "column \"b\" of relation \"" + t + "\" contains null values", null, "public", t, "b", null, null);
            assertFields(error(s, "ALTER TABLE " + t + " ALTER COLUMN b SET NOT NULL"), "23502",
                    "column \"b\" of relation \"" + t + "\" contains null values", null, "public", t, "b", null, null);
            assertFields(error(s, "ALTER TABLE " + t + " ADD CONSTRAINT ck CHECK (a > 5)"), "23514",
                    "check constraint \"ck\" of relation \"" + t + "\" is violated by some row", null, "public", t,
                    null, null, "ck");
        }
    }

    @Test
    void shouldNameNoObjectForValuesOutOfRangeOrTooLong() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = fresh("v");
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, code VARCHAR(3), small SMALLINT, "
                    + "num NUMERIC(4, 2))");
            // PostgreSQL 15 sends neither schema, table nor column with these: the type's input function raises them
            for (String sql : new String[] {"INSERT INTO " + t + " (id, code) VALUES (1, 'abcd')",
                "INSERT INTO " + t + " (id, small) VALUES (1, 100000)",
                "INSERT INTO " + t + " (id, num) VALUES (1, 1000)"}) {
                final ServerErrorMessage e = error(s, sql);
                assertEquals(sql.contains("code") ? "22001" : "22003", e.getSQLState(), sql);
                assertEquals(null, e.getSchema(), sql);
                assertEquals(null, e.getTable(), sql);
                assertEquals(null, e.getColumn(), sql);
                assertEquals(null, e.getDatatype(), sql);
                assertEquals(null, e.getConstraint(), sql);
            }
        }
    }
}
