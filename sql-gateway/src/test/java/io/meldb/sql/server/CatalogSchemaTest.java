package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Databases and schemas as catalog entries, through the Avatica remote driver: CREATE/DROP SCHEMA with their
 * SQLStates, tables of the same name kept apart in two schemas, qualified DML, queries and joins across schemas,
 * database metadata, schema DDL seen by a second gateway over the same node, and CHAR(n) blank padding.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CatalogSchemaTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void shouldKeepSameNamedTablesOfTwoSchemasApartAndJoinAcrossSchemas() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA sales");
            s.execute("CREATE SCHEMA hr");
            s.execute("CREATE TABLE sales.person (id INT PRIMARY KEY, name VARCHAR(10))");
            s.execute("CREATE TABLE hr.person (id INT PRIMARY KEY, name VARCHAR(10), salary INT)");
            s.execute("CREATE INDEX person_name ON hr.person (name)");
            s.execute("CREATE TABLE person (id INT PRIMARY KEY, name VARCHAR(10))"); // PUBLIC
            assertEquals(2, s.executeUpdate("INSERT INTO sales.person VALUES (1, 'ann'), (2, 'bob')"));
            assertEquals(2, s.executeUpdate("INSERT INTO hr.person VALUES (1, 'ann', 100), (3, 'cid', 70)"));
            assertEquals(1, s.executeUpdate("INSERT INTO public.person VALUES (9, 'pub')"));

            assertEquals(List.of("1:ann", "2:bob"), column(s.executeQuery("SELECT * FROM sales.person ORDER BY id")));
            assertEquals(List.of("1:ann:100", "3:cid:70"),
                    column(s.executeQuery("SELECT * FROM hr.person ORDER BY id")));
            assertEquals(List.of("9:pub"), column(s.executeQuery("SELECT * FROM person")), "unqualified is PUBLIC");
            assertEquals(List.of("ann:100"), column(s.executeQuery(
                    "SELECT s.name, h.salary FROM sales.person s JOIN hr.person h ON s.name = h.name")));
            assertEquals(List.of("cid"), column(s.executeQuery("SELECT name FROM hr.person WHERE name = 'cid'")));

            assertEquals(1, s.executeUpdate("UPDATE hr.person SET salary = salary + 1 WHERE id = 3"));
            assertEquals(1, s.executeUpdate("DELETE FROM sales.person WHERE id = 2"));
            assertEquals(List.of("1:ann:100", "3:cid:71"),
                    column(s.executeQuery("SELECT * FROM hr.person ORDER BY id")));
            assertEquals(List.of("1:ann"), column(s.executeQuery("SELECT * FROM sales.person")));

            s.execute("DROP TABLE sales.person");
            assertEquals(List.of("1:ann:100", "3:cid:71"),
                    column(s.executeQuery("SELECT * FROM hr.person ORDER BY id")), "the other schema's table stays");
            assertEquals("42P01", stateOf(() -> s.executeQuery("SELECT * FROM sales.person")));
            s.execute("DROP TABLE hr.person");
            s.execute("DROP TABLE person");
            s.execute("DROP SCHEMA sales");
            s.execute("DROP SCHEMA hr");
        }
    }

    @Test
    void shouldRefuseToDropANonEmptySchemaAndReportSchemaErrorsWithStandardSqlStates() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA inv");
            s.execute("CREATE TABLE inv.item (id INT PRIMARY KEY)");
            assertEquals("2BP01", stateOf(() -> s.execute("DROP SCHEMA inv")));
            assertEquals("2BP01", stateOf(() -> s.execute("DROP SCHEMA inv RESTRICT")));
            assertEquals(List.of("0"), column(s.executeQuery("SELECT COUNT(*) FROM inv.item")), "still there");
            assertEquals("42P06", stateOf(() -> s.execute("CREATE SCHEMA inv")));
            s.execute("CREATE SCHEMA IF NOT EXISTS inv");
            assertEquals("3F000", stateOf(() -> s.execute("DROP SCHEMA nowhere")));
            s.execute("DROP SCHEMA IF EXISTS nowhere");
            assertEquals("3F000", stateOf(() -> s.execute("CREATE TABLE nowhere.t (id INT PRIMARY KEY)")));
            assertEquals("3F000", stateOf(() -> s.execute("DROP TABLE nowhere.t")));
            s.execute("DROP TABLE IF EXISTS nowhere.t");
            assertEquals("3D000", stateOf(() -> s.execute("CREATE TABLE otherdb.inv.t (id INT PRIMARY KEY)")));
            assertEquals("2BP01", stateOf(() -> s.execute("DROP SCHEMA public")));
            assertEquals("42P06", stateOf(() -> s.execute("CREATE SCHEMA public")));
            final String unknown = stateOf(() -> s.executeQuery("SELECT * FROM nowhere.t"));
            assertEquals("42P01", unknown);

            s.execute("DROP TABLE inv.item");
            s.execute("DROP SCHEMA inv");
            assertEquals("3F000", stateOf(() -> s.execute("DROP SCHEMA inv")));
            s.execute("CREATE SCHEMA cas");
            s.execute("CREATE TABLE cas.a (id INT PRIMARY KEY)");
            s.execute("INSERT INTO cas.a VALUES (1)");
            s.execute("DROP SCHEMA cas CASCADE");
            assertEquals("42P01", stateOf(() -> s.executeQuery("SELECT * FROM cas.a")));
        }
    }

    @Test
    void shouldShowEverySchemaAndItsTablesInDatabaseMetaData() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA meta1");
            s.execute("CREATE TABLE meta1.listed (id INT PRIMARY KEY, label CHAR(3))");
            s.execute("CREATE TABLE pubtable (id INT PRIMARY KEY)");
            final DatabaseMetaData md = c.getMetaData();
            final List<String> schemas = new ArrayList<>();
            try (ResultSet rs = md.getSchemas()) {
                while (rs.next()) {
                    schemas.add(rs.getString("TABLE_SCHEM"));
                }
            }
            assertTrue(schemas.containsAll(List.of("public", "meta1")), schemas.toString());
            final List<String> tables = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, null, "%", null)) {
                while (rs.next()) {
                    tables.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME"));
                }
            }
            assertTrue(tables.containsAll(List.of("meta1.listed", "public.pubtable")), tables.toString());
            final List<String> columns = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, "meta1", "listed", "%")) {
                while (rs.next()) {
                    columns.add(rs.getString("COLUMN_NAME"));
                }
            }
            assertEquals(List.of("id", "label"), columns);
            s.execute("DROP TABLE meta1.listed");
            s.execute("DROP TABLE pubtable");
            s.execute("DROP SCHEMA meta1");
            final List<String> after = new ArrayList<>();
            try (ResultSet rs = md.getSchemas()) {
                while (rs.next()) {
                    after.add(rs.getString("TABLE_SCHEM"));
                }
            }
            assertTrue(!after.contains("meta1") && after.contains("public"), after.toString());
        }
    }

    @Test
    void shouldSeeASchemaCreatedThroughAnotherGatewayOverTheSameNode() throws SQLException {
        try (Gateway second = Gateway.start(new TxnRouter(List.of(db.node.txnService())), 0);
             Connection first = db.connect(); Statement s1 = first.createStatement();
             Connection other = DriverManager.getConnection(second.jdbcUrl()); Statement s2 = other.createStatement()) {
            s1.execute("CREATE SCHEMA shared");
            s1.execute("CREATE TABLE shared.t (id INT PRIMARY KEY, v VARCHAR(5))");
            s1.execute("INSERT INTO shared.t VALUES (1, 'one')");
            assertEquals(List.of("1:one"), column(s2.executeQuery("SELECT * FROM shared.t")));
            assertEquals("42P06", stateOf(() -> s2.execute("CREATE SCHEMA shared")));
            s2.execute("DROP TABLE shared.t");
            s2.execute("DROP SCHEMA shared");
            assertEquals("3F000", stateOf(() -> s1.execute("DROP SCHEMA shared")));
            assertEquals("42P01", stateOf(() -> s1.executeQuery("SELECT * FROM shared.t")));
        }
    }

    @Test
    void shouldBlankPadCharValuesToTheirLengthAndCompareThemIgnoringThePadding() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE codes (code CHAR(5) PRIMARY KEY, label CHAR(5), note VARCHAR(5))");
            s.execute("INSERT INTO codes VALUES ('ab', 'x', 'ab'), ('abcde', 'yy   ', 'v')");
            try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO codes VALUES (?, ?, ?)")) {
                ps.setString(1, "p");
                ps.setString(2, "q ");
                ps.setString(3, "r");
                assertEquals(1, ps.executeUpdate());
            }
            assertEquals(List.of("[ab   ]:[x    ]:[ab]", "[abcde]:[yy   ]:[v]", "[p    ]:[q    ]:[r]"), column(
                    s.executeQuery("SELECT '[' || code || ']', '[' || label || ']', '[' || note || ']' FROM codes "
                            + "ORDER BY code")));
            assertEquals(List.of("ab   "), column(s.executeQuery("SELECT code FROM codes WHERE code = 'ab   '")));
            assertEquals(List.of("ab   "), column(s.executeQuery("SELECT code FROM codes WHERE code = 'ab'")));
            assertEquals(List.of("ab   "), column(s.executeQuery("SELECT code FROM codes WHERE label = 'x'")));
            assertEquals(List.of("abcde"), column(s.executeQuery("SELECT code FROM codes WHERE label = 'yy '")));
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT label FROM codes WHERE code = ?")) {
                ps.setString(1, "p");
                assertEquals(List.of("q    "), column(ps.executeQuery()));
            }
            assertEquals(1, s.executeUpdate("UPDATE codes SET label = 'z' WHERE code = 'ab'"));
            assertEquals(List.of("z    "), column(s.executeQuery("SELECT label FROM codes WHERE code = 'ab'")));
            assertEquals("22001", stateOf(() -> s.executeUpdate("INSERT INTO codes VALUES ('toolong', 'a', 'b')")));
            assertEquals("22001", stateOf(() -> s.executeUpdate("UPDATE codes SET label = 'abcdef' WHERE code = 'ab'")));
            assertEquals("23505", stateOf(() -> s.executeUpdate("INSERT INTO codes VALUES ('ab ', 'dup', 'd')")),
                    "'ab ' and 'ab' are the same CHAR(5) key");
            s.execute("DROP TABLE codes");
        }
    }

    private static String stateOf(final SqlGatewayTest.SqlAction action) {
        final SQLException e = assertThrows(SQLException.class, action::run);
        return e.getSQLState();
    }
}
