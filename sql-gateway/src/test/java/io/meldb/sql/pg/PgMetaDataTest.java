package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What pgjdbc asks at connect and through {@link DatabaseMetaData}, answered from MeldDB's catalog: the session
 * functions, getCatalogs, getSchemas, getTables, getColumns, getPrimaryKeys and getIndexInfo, with names given
 * in the lower case PostgreSQL users write, through both the simple and the extended query protocol.
 */
@Timeout(120)
class PgMetaDataTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE meta_orders (id INTEGER, line SMALLINT, customer VARCHAR(40) NOT NULL, "
                    + "amount DECIMAL(12, 2), placed DATE, PRIMARY KEY (id, line))");
            s.execute("CREATE INDEX meta_orders_customer ON meta_orders (customer, placed)");
            s.execute("CREATE SCHEMA meta_other");
            s.execute("CREATE TABLE meta_other.meta_orders (k BIGINT PRIMARY KEY)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void shouldAnswerTheSessionFunctionsClientsCallAtConnect() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT version(), current_database(), current_schema(), current_user, "
                     + "session_user, pg_backend_pid(), current_catalog")) {
            assertTrue(r.next());
            assertTrue(r.getString("version").startsWith("PostgreSQL 15.0 on MeldDB"), r.getString(1));
            assertEquals("meldb", r.getString("current_database"));
            assertEquals("public", r.getString("current_schema"));
            assertEquals("test", r.getString("current_user"));
            assertEquals("test", r.getString("session_user"));
            assertTrue(r.getInt("pg_backend_pid") > 0);
            assertEquals("meldb", r.getString(7));
            assertEquals("meldb", c.getCatalog());
            assertEquals("public", c.getSchema());
        }
    }

    @Test
    void shouldListCatalogsAndSchemas() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = db.connectPg("preferQueryMode=" + mode)) {
                final DatabaseMetaData md = c.getMetaData();
                assertEquals(List.of("meldb"), column(md.getCatalogs(), "TABLE_CAT"));
                final List<String> schemas = column(md.getSchemas(), "TABLE_SCHEM");
                assertEquals(List.of("information_schema", "meta_other", "pg_catalog", "public"), schemas);
                assertEquals(List.of("public"), column(md.getSchemas(null, "pub%"), "TABLE_SCHEM"));
            }
        }
    }

    @Test
    void shouldFindTablesByLowerCaseNamesAndTypes() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = db.connectPg("preferQueryMode=" + mode)) {
                final DatabaseMetaData md = c.getMetaData();
                try (ResultSet r = md.getTables(null, "public", "meta_orders", new String[] {"TABLE"})) {
                    assertTrue(r.next());
                    assertEquals("meldb", r.getString("TABLE_CAT"));
                    assertEquals("public", r.getString("TABLE_SCHEM"));
                    assertEquals("meta_orders", r.getString("TABLE_NAME"));
                    assertEquals("TABLE", r.getString("TABLE_TYPE"));
                    assertFalse(r.next());
                }
                assertEquals(List.of("meta_orders", "meta_orders"),
                        column(md.getTables(null, null, "meta_ord%", new String[] {"TABLE"}), "TABLE_NAME"));
                assertEquals(List.of("meta_orders_customer", "meta_orders_pkey"),
                        column(md.getTables(null, "public", "meta%", new String[] {"INDEX"}), "TABLE_NAME"));
                assertEquals(List.of(), column(md.getTables(null, null, "nothing%", null), "TABLE_NAME"));
            }
        }
    }

    @Test
    void shouldDescribeColumnsWithTheirTypesAndNullability() throws SQLException {
        try (Connection c = db.connectPg("preferQueryMode=extended");
             ResultSet r = c.getMetaData().getColumns(null, "public", "meta_orders", null)) {
            final List<String> rows = new ArrayList<>();
            while (r.next()) {
                rows.add(r.getString("COLUMN_NAME") + " " + r.getInt("DATA_TYPE") + " " + r.getString("TYPE_NAME")
                        + " " + r.getInt("COLUMN_SIZE") + " " + r.getInt("DECIMAL_DIGITS") + " "
                        + r.getString("IS_NULLABLE") + " " + r.getInt("ORDINAL_POSITION"));
            }
            assertEquals(List.of(
                    "id " + Types.INTEGER + " int4 10 0 NO 1",
                    "line " + Types.SMALLINT + " int2 5 0 NO 2",
                    "customer " + Types.VARCHAR + " varchar 40 0 NO 3",
                    "amount " + Types.NUMERIC + " numeric 12 2 YES 4",
                    "placed " + Types.DATE + " date 13 0 YES 5"), rows);
        }
        try (Connection c = db.connectPg(); ResultSet r = c.getMetaData().getColumns(null, "meta_other",
                "meta_orders", "k")) {
            assertTrue(r.next());
            assertEquals("k", r.getString("COLUMN_NAME"));
            assertEquals(Types.BIGINT, r.getInt("DATA_TYPE"));
            assertFalse(r.next());
        }
    }

    @Test
    void shouldAnswerPrimaryKeysAndIndexes() throws SQLException {
        try (Connection c = db.connectPg()) {
            final DatabaseMetaData md = c.getMetaData();
            try (ResultSet r = md.getPrimaryKeys(null, "public", "meta_orders")) {
                final List<String> keys = new ArrayList<>();
                while (r.next()) {
                    keys.add(r.getString("COLUMN_NAME") + " " + r.getInt("KEY_SEQ") + " " + r.getString("PK_NAME"));
                }
                assertEquals(List.of("id 1 meta_orders_pkey", "line 2 meta_orders_pkey"), keys);
            }
            try (ResultSet r = md.getIndexInfo(null, "public", "meta_orders", false, false)) {
                final List<String> indexes = new ArrayList<>();
                while (r.next()) {
                    indexes.add(r.getString("INDEX_NAME") + " " + r.getBoolean("NON_UNIQUE") + " "
                            + r.getInt("ORDINAL_POSITION") + " " + r.getString("COLUMN_NAME"));
                }
                assertEquals(List.of("meta_orders_pkey false 1 id", "meta_orders_pkey false 2 line",
                        "meta_orders_customer true 1 customer", "meta_orders_customer true 2 placed"), indexes);
            }
            assertEquals(List.of("meta_orders_pkey", "meta_orders_pkey"),
                    column(md.getIndexInfo(null, "public", "meta_orders", true, false), "INDEX_NAME"));
        }
    }

    private static List<String> column(final ResultSet r, final String name) throws SQLException {
        try (r) {
            final List<String> out = new ArrayList<>();
            while (r.next()) {
                out.add(r.getString(name));
            }
            return out;
        }
    }
}
