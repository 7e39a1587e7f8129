package io.meldb.sql.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code DatabaseMetaData} says through MeldDB's driver, checked against what the database does: names and
 * versions, isolation levels, the catalog calls answered from the catalog tree (getTables, getColumns,
 * getPrimaryKeys, getIndexInfo, getTypeInfo), the functions listed, parameter metadata, and the errors of a failed
 * prepare.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MeldDriverMetaDataTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = meld(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE md_item (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(10, 2), "
                    + "code CHAR(5) UNIQUE, qty SMALLINT DEFAULT 7, seen TIMESTAMP, day DATE, ok BOOLEAN, "
                    + "ratio DOUBLE PRECISION, big BIGINT)");
            s.execute("CREATE INDEX md_item_name ON md_item (name)");
            s.execute("CREATE TABLE md_line (order_id INT, line_no INT, item_id INT NOT NULL, "
                    + "PRIMARY KEY (order_id, line_no))");
            s.execute("CREATE TABLE md_serial (id SERIAL PRIMARY KEY, note VARCHAR(10))");
            s.execute("CREATE TABLE md_child (id INT PRIMARY KEY, item_id INT REFERENCES md_item (id) "
                    + "ON DELETE CASCADE, item_code CHAR(5), "
                    + "CONSTRAINT md_child_code_fk FOREIGN KEY (item_code) REFERENCES md_item (code))");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    private static Connection meld() throws SQLException {
        return DriverManager.getConnection(db.gateway.meldJdbcUrl());
    }

    private static List<String> rows(final ResultSet rs, final String... columns) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                final StringBuilder b = new StringBuilder();
                for (String c : columns) {
                    b.append(b.length() == 0 ? "" : " ").append(rs.getString(c));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    @Test
    void namesTheProductTheDriverTheirVersionsAndTheCatalog() throws SQLException {
        try (Connection c = meld()) {
            final DatabaseMetaData md = c.getMetaData();
            assertEquals("MeldDB", md.getDatabaseProductName());
            assertEquals(io.meldb.sql.MeldVersion.VERSION, md.getDatabaseProductVersion());
            assertEquals("MeldDB JDBC Driver", md.getDriverName());
            assertEquals(io.meldb.sql.MeldVersion.VERSION, md.getDriverVersion());
            assertEquals(io.meldb.sql.MeldVersion.MAJOR, md.getDatabaseMajorVersion());
            assertEquals(io.meldb.sql.MeldVersion.MINOR, md.getDriverMinorVersion());
            assertEquals("meldb", c.getCatalog());
            assertEquals(List.of("meldb"), rows(md.getCatalogs(), "TABLE_CAT"));
            assertEquals(List.of("information_schema meldb", "pg_catalog meldb", "public meldb"),
                    rows(md.getSchemas(), "TABLE_SCHEM", "TABLE_CATALOG"));
            assertTrue(md.storesLowerCaseIdentifiers());
            assertFalse(md.storesUpperCaseIdentifiers());
        }
    }

    @Test
    void supportsOnlyTheIsolationLevelsMeldDbRuns() throws SQLException {
        try (Connection c = meld()) {
            final DatabaseMetaData md = c.getMetaData();
            assertTrue(md.supportsTransactions());
            assertTrue(md.supportsTransactionIsolationLevel(Connection.TRANSACTION_SERIALIZABLE));
            assertTrue(md.supportsTransactionIsolationLevel(Connection.TRANSACTION_REPEATABLE_READ));
            assertFalse(md.supportsTransactionIsolationLevel(Connection.TRANSACTION_READ_COMMITTED));
            assertFalse(md.supportsTransactionIsolationLevel(Connection.TRANSACTION_READ_UNCOMMITTED));
            assertFalse(md.supportsTransactionIsolationLevel(Connection.TRANSACTION_NONE));
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, md.getDefaultTransactionIsolation());
        }
    }

    @Test
    void getTablesListsUsersTablesViewsAndSystemTablesByType() throws SQLException {
        try (Connection c = meld()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE VIEW md_item_view AS SELECT * FROM md_item");
            }
            final DatabaseMetaData md = c.getMetaData();
            assertEquals(List.of("SYSTEM TABLE", "TABLE", "VIEW"), rows(md.getTableTypes(), "TABLE_TYPE"));
            assertEquals(List.of("meldb public md_item_view VIEW"),
                    rows(md.getTables(null, "public", "md\\_item%", new String[] {"VIEW"}),
                            "TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"));
            assertEquals(rows(md.getColumns(null, "public", "md_item", null), "COLUMN_NAME"),
                    rows(md.getColumns(null, "public", "md_item_view", null), "COLUMN_NAME"),
                    "a view's columns are its query's");
            assertEquals(List.of("id 4"), rows(md.getColumns(null, "public", "md_item_view", "id"), "COLUMN_NAME",
                    "DATA_TYPE"));
            assertEquals(List.of("meldb public md_item TABLE"),
                    rows(md.getTables(null, "public", "md\\_it_m", new String[] {"TABLE"}),
                            "TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"));
            assertEquals(List.of("md_line"), rows(md.getTables("meldb", "pub%", "md\\_l%", null), "TABLE_NAME"));
            assertEquals(List.of(), rows(md.getTables(null, null, "md_item", new String[] {"VIEW"}), "TABLE_NAME"));
            assertEquals(List.of(), rows(md.getTables("other", null, "md_item", null), "TABLE_NAME"));
            assertEquals(List.of("information_schema tables SYSTEM TABLE"),
                    rows(md.getTables(null, null, "tables", null), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"));
        }
    }

    @Test
    void getColumnsGivesDeclaredTypesSizesDigitsNullabilityAndDefaults() throws SQLException {
        try (Connection c = meld()) {
            final List<String> columns = rows(c.getMetaData().getColumns("meldb", "public", "md_item", null),
                    "ORDINAL_POSITION", "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS",
                    "NULLABLE", "IS_NULLABLE", "COLUMN_DEF");
            assertEquals(List.of(
                    "1 id " + Types.INTEGER + " INTEGER 10 0 0 NO null",
                    "2 name " + Types.VARCHAR + " VARCHAR 20 null 0 NO null",
                    "3 price " + Types.DECIMAL + " DECIMAL 10 2 1 YES null",
                    "4 code " + Types.CHAR + " CHAR 5 null 1 YES null",
                    "5 qty " + Types.SMALLINT + " SMALLINT 5 0 1 YES 7",
                    "6 seen " + Types.TIMESTAMP + " TIMESTAMP 23 3 1 YES null",
                    "7 day " + Types.DATE + " DATE 10 null 1 YES null",
                    "8 ok " + Types.BOOLEAN + " BOOLEAN 1 null 1 YES null",
                    "9 ratio " + Types.DOUBLE + " DOUBLE 15 null 1 YES null",
                    "10 big " + Types.BIGINT + " BIGINT 19 0 1 YES null"), columns);
            assertEquals(List.of("id YES", "note NO"),
                    rows(c.getMetaData().getColumns(null, null, "md_serial", "%"), "COLUMN_NAME", "IS_AUTOINCREMENT"));
            assertEquals(List.of("table_name VARCHAR"), rows(c.getMetaData().getColumns(null, "information_schema",
                    "tables", "table_name"), "COLUMN_NAME", "TYPE_NAME"));
        }
    }

    @Test
    void getPrimaryKeysAndGetIndexInfoAnswerFromTheCatalog() throws SQLException {
        try (Connection c = meld()) {
            final DatabaseMetaData md = c.getMetaData();
            assertEquals(List.of("line_no 2 md_line_pkey", "order_id 1 md_line_pkey"),
                    rows(md.getPrimaryKeys(null, null, "md_line"), "COLUMN_NAME", "KEY_SEQ", "PK_NAME"));
            assertEquals(List.of(), rows(md.getPrimaryKeys(null, "public", "no_such_table"), "COLUMN_NAME"));
            assertEquals(List.of("false md_item_code_key 1 code", "false md_item_pkey 1 id",
                            "true md_item_name 1 name"),
                    rows(md.getIndexInfo(null, "public", "md_item", false, true), "NON_UNIQUE", "INDEX_NAME",
                            "ORDINAL_POSITION", "COLUMN_NAME"));
            assertEquals(List.of("md_item_code_key", "md_item_pkey"),
                    rows(md.getIndexInfo(null, null, "md_item", true, false), "INDEX_NAME"));
        }
    }

    @Test
    void getImportedKeysAndGetExportedKeysAnswerFromTheForeignKeys() throws SQLException {
        try (Connection c = meld()) {
            final DatabaseMetaData md = c.getMetaData();
            final String[] columns = {"PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ",
                    "UPDATE_RULE", "DELETE_RULE", "FK_NAME", "PK_NAME"};
            final List<String> imported = rows(md.getImportedKeys(null, "public", "md_child"), columns);
            assertEquals(2, imported.size(), imported.toString());
            assertTrue(imported.contains("md_item id md_child item_id 1 " + DatabaseMetaData.importedKeyNoAction + " "
                    + DatabaseMetaData.importedKeyCascade + " md_child_item_id_fkey md_item_pkey"), imported.toString());
            assertTrue(imported.contains("md_item code md_child item_code 1 " + DatabaseMetaData.importedKeyNoAction
                    + " " + DatabaseMetaData.importedKeyNoAction + " md_child_code_fk md_item_code_key"),
                    imported.toString());
            assertEquals(imported, rows(md.getExportedKeys(null, null, "md_item"), columns));
            assertEquals(List.of(), rows(md.getImportedKeys(null, null, "md_item"), columns));
            assertEquals(List.of("md_child_pkey"), rows(md.getIndexInfo(null, null, "md_child", false, true),
                    "INDEX_NAME"), "a foreign key's own index is not listed");
        }
    }

    @Test
    void everyTypeGetTypeInfoListsCanBeDeclaredAndNoOtherIsListed() throws SQLException {
        try (Connection c = meld(); Statement s = c.createStatement()) {
            final List<String> types = rows(c.getMetaData().getTypeInfo(), "TYPE_NAME", "CREATE_PARAMS");
            assertEquals(io.meldb.sql.codec.SqlType.values().length, types.size(), types.toString());
            int n = 0;
            for (String t : types) {
                final String[] nameAndParams = t.split(" ");
                final String params = nameAndParams[1].equals("length") ? "(3)"
                        : nameAndParams[1].equals("precision,scale") ? "(5, 1)" : "";
                s.execute("CREATE TABLE md_type_" + n + " (k INT PRIMARY KEY, v " + nameAndParams[0] + params + ")");
                assertEquals(List.of(nameAndParams[0]), rows(c.getMetaData().getColumns(null, null,
                        "md_type_" + n, "v"), "TYPE_NAME"), "the declared type reads back as listed");
                n++;
            }
        }
    }

    @Test
    void everyFunctionListedRunsAsAJdbcEscape() throws SQLException {
        try (Connection c = meld(); Statement s = c.createStatement()) {
            final DatabaseMetaData md = c.getMetaData();
            final List<String> listed = new ArrayList<>();
            for (String list : List.of(md.getNumericFunctions(), md.getStringFunctions(), md.getSystemFunctions(),
                    md.getTimeDateFunctions())) {
                for (String f : list.split(",")) {
                    if (!f.isBlank()) {
                        listed.add(f);
                    }
                }
            }
            assertFalse(listed.isEmpty());
            for (String f : listed) {
                final String call = switch (f) {
                    case "TIMESTAMPADD" -> "TIMESTAMPADD(SQL_TSI_DAY, 1, TIMESTAMP '2020-01-01 10:00:00')";
                    case "TIMESTAMPDIFF" -> "TIMESTAMPDIFF(SQL_TSI_DAY, TIMESTAMP '2020-01-01 10:00:00', "
                            + "TIMESTAMP '2020-01-03 10:00:00')";
                    default -> throw new AssertionError("a function listed without a call in this test: " + f);
                };
                try (ResultSet rs = s.executeQuery("SELECT {fn " + call + "}")) {
                    assertTrue(rs.next(), f);
                }
            }
        }
    }

    @Test
    void aPreparedStatementDescribesItsParameters() throws SQLException {
        try (Connection c = meld();
             PreparedStatement p = c.prepareStatement("SELECT id FROM md_item WHERE id = ? AND name = ?")) {
            final ParameterMetaData pm = p.getParameterMetaData();
            assertEquals(2, pm.getParameterCount());
            assertEquals(Types.INTEGER, pm.getParameterType(1));
            assertEquals("VARCHAR", pm.getParameterTypeName(2));
            p.setInt(1, 1);
            p.setString(2, "x");
            try (ResultSet rs = p.executeQuery()) {
                assertFalse(rs.next(), "the statement still runs after its parameters were described");
            }
        }
    }

    @Test
    void aFailedPrepareCarriesTheServersSqlStateAndReason() throws SQLException {
        try (Connection c = meld()) {
            SQLException e = assertThrows(SQLException.class, () -> c.prepareStatement("SELECT nosuch FROM md_item"));
            assertEquals("42703", e.getSQLState());
            assertInstanceOf(SQLSyntaxErrorException.class, e);
            assertTrue(e.getMessage().contains("column \"nosuch\" does not exist"), e.getMessage());
            e = assertThrows(SQLException.class, () -> c.prepareStatement("SELECT * FROM md_nowhere"));
            assertEquals("42P01", e.getSQLState());
            assertTrue(e.getMessage().contains("md_nowhere"), e.getMessage());
            e = assertThrows(SQLException.class, () -> c.prepareStatement("SELEC 1"));
            assertEquals("42601", e.getSQLState());
            assertTrue(e.getMessage().startsWith("syntax error"), e.getMessage());
        }
    }
}
