package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ad-hoc queries of {@code information_schema} and {@code pg_catalog} through the SQL engine, over Avatica's JDBC
 * and over the PostgreSQL protocol (simple and extended query), with unquoted PostgreSQL names; and the values
 * agree with what pgjdbc's DatabaseMetaData (answered by {@code PgCatalogView}) reports.
 */
@Timeout(120)
class SystemSchemasTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sys_t (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, note VARCHAR(10), "
                    + "amount DECIMAL(12, 2))");
            s.execute("CREATE INDEX sys_t_name ON sys_t (name)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    /** Avatica, pgjdbc's simple and pgjdbc's extended protocol. */
    private static List<Connection> connections() throws SQLException {
        return List.of(db.connect(), db.connectPg("preferQueryMode=simple"),
                db.connectPg("preferQueryMode=extended"));
    }

    private static List<List<Object>> rows(final Connection c, final String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            final List<List<Object>> out = new ArrayList<>();
            final int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                final List<Object> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    final Object v = r.getObject(i);
                    row.add(v instanceof Number num && !(v instanceof java.math.BigDecimal) ? num.longValue() : v);
                }
                out.add(row);
            }
            return out;
        }
    }

    private static List<Object> column(final Connection c, final String sql) throws SQLException {
        final List<Object> out = new ArrayList<>();
        for (List<Object> row : rows(c, sql)) {
            out.add(row.get(0));
        }
        return out;
    }

    @Test
    void shouldListTablesAndColumnsFromInformationSchema() throws SQLException {
        for (Connection c : connections()) {
            try (c) {
                assertEquals(List.of("sys_t"), column(c,
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"));
                assertEquals(List.of("BASE TABLE"), column(c,
                        "SELECT table_type FROM INFORMATION_SCHEMA.TABLES WHERE table_name = 'sys_t'"));
                assertEquals(List.of(
                        List.of("id", 1L, "NO", "integer", "int4"),
                        List.of("name", 2L, "NO", "character varying", "varchar"),
                        List.of("note", 3L, "YES", "character varying", "varchar"),
                        List.of("amount", 4L, "YES", "numeric", "numeric")),
                        rows(c, "SELECT column_name, ordinal_position, is_nullable, data_type, udt_name "
                                + "FROM information_schema.columns WHERE table_name = 'sys_t' ORDER BY 2"));
                try (Statement s = c.createStatement();
                     ResultSet r = s.executeQuery("SELECT * FROM information_schema.columns "
                             + "WHERE table_name = 'sys_t' AND column_name = 'name'")) {
                    assertTrue(r.next());
                    assertEquals("public", r.getString("table_schema"));
                    assertEquals(40, r.getInt("character_maximum_length"));
                    assertFalse(r.next());
                }
                assertEquals(List.of(List.of(12L, 2L)), rows(c, "SELECT numeric_precision, numeric_scale "
                        + "FROM information_schema.columns WHERE column_name = 'amount'"));
                // a join of tables and columns
                assertEquals(List.of(List.of("sys_t", 4L)), rows(c, "SELECT t.table_name, COUNT(*) "
                        + "FROM information_schema.tables t JOIN information_schema.columns col "
                        + "ON col.table_schema = t.table_schema AND col.table_name = t.table_name "
                        + "WHERE t.table_schema = 'public' GROUP BY t.table_name"));
                assertTrue(column(c, "SELECT schema_name FROM information_schema.schemata")
                        .containsAll(List.of("public", "information_schema", "pg_catalog")));
                assertEquals(List.of(List.of("sys_t_pkey", "PRIMARY KEY")), rows(c, "SELECT constraint_name, "
                        + "constraint_type FROM information_schema.table_constraints WHERE table_name = 'sys_t' "
                        + "AND constraint_type <> 'CHECK'")); // PostgreSQL 15 lists NOT NULL columns as CHECKs
                assertEquals(List.of(List.of("id", 1L)), rows(c, "SELECT column_name, ordinal_position "
                        + "FROM information_schema.key_column_usage WHERE table_name = 'sys_t'"));
                for (String empty : List.of("views", "referential_constraints", "sequences")) {
                    assertEquals(List.of(), rows(c, "SELECT * FROM information_schema." + empty));
                }
                // the schema and table names resolve quoted in PostgreSQL's lower case too
                assertEquals(List.of("sys_t"), column(c, "SELECT table_name FROM \"information_schema\".\"tables\" "
                        + "WHERE table_schema = 'public'"));
            }
        }
    }

    @Test
    void shouldAnswerPgCatalogQueries() throws SQLException {
        for (Connection c : connections()) {
            try (c) {
                assertTrue(column(c, "SELECT nspname FROM pg_catalog.pg_namespace")
                        .containsAll(List.of("public", "pg_catalog", "information_schema")));
                assertEquals(List.of(2200L), column(c,
                        "SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'public'"));
                assertEquals(List.of("sys_t"), column(c, "SELECT relname FROM pg_class WHERE relkind = 'r'"));
                assertEquals(List.of("sys_t_name", "sys_t_pkey"), column(c,
                        "SELECT relname FROM pg_catalog.pg_class WHERE relkind = 'i' ORDER BY relname"));
                assertEquals(List.of("int4"), column(c, "SELECT typname FROM pg_type WHERE oid = 23"));
                assertEquals(List.of(List.of("sys_t_pkey", true, "1"), List.of("sys_t_name", false, "2")),
                        rows(c, "SELECT ic.relname, i.indisprimary, i.indkey FROM pg_catalog.pg_index i "
                                + "JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid "
                                + "JOIN pg_catalog.pg_class t ON t.oid = i.indrelid "
                                + "WHERE t.relname = 'sys_t' ORDER BY i.indisprimary DESC"));
                assertEquals(List.of(List.of("id", 23L, true), List.of("name", 1043L, true),
                        List.of("note", 1043L, false), List.of("amount", 1700L, false)),
                        rows(c, "SELECT a.attname, a.atttypid, a.attnotnull FROM pg_catalog.pg_attribute a "
                                + "JOIN pg_catalog.pg_class t ON t.oid = a.attrelid "
                                + "WHERE t.relname = 'sys_t' AND t.relkind = 'r' ORDER BY a.attnum"));
                assertEquals(List.of("meldb"), column(c, "SELECT datname FROM pg_catalog.pg_database"));
                assertEquals(List.of("UTF8"), column(c,
                        "SELECT setting FROM pg_catalog.pg_settings WHERE name = 'server_encoding'"));
                assertEquals(List.of("btree", "heap"), column(c, "SELECT amname FROM pg_am ORDER BY amname"));
            }
        }
    }

    @Test
    void shouldAgreeWithDatabaseMetaData() throws SQLException {
        try (Connection c = db.connectPg()) {
            final List<List<Object>> meta = new ArrayList<>();
            try (ResultSet r = c.getMetaData().getColumns(null, "public", "sys_t", null)) {
                while (r.next()) {
                    meta.add(List.of(r.getString("COLUMN_NAME"), r.getString("IS_NULLABLE"),
                            (long) r.getInt("ORDINAL_POSITION")));
                }
            }
            assertEquals(meta, rows(c, "SELECT column_name, is_nullable, ordinal_position "
                    + "FROM information_schema.columns WHERE table_name = 'sys_t' ORDER BY ordinal_position"));
            // psql's \d lookup, answered by PgCatalogView: the same OID and schema as pg_class through Calcite
            final List<List<Object>> psql = rows(c, "SELECT c.oid,\n  n.nspname,\n  c.relname\n"
                    + "FROM pg_catalog.pg_class c\n     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace\n"
                    + "WHERE c.relname OPERATOR(pg_catalog.~) '^(sys_t)$' COLLATE pg_catalog.default\n"
                    + "  AND pg_catalog.pg_table_is_visible(c.oid)\nORDER BY 2, 3;");
            assertEquals(1, psql.size(), psql.toString());
            assertEquals(psql, rows(c, "SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c "
                    + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'sys_t'"));
            final List<Object> indexes = new ArrayList<>();
            try (ResultSet r = c.getMetaData().getIndexInfo(null, "public", "sys_t", false, false)) {
                while (r.next()) {
                    indexes.add(r.getString("INDEX_NAME"));
                }
            }
            assertEquals(indexes, column(c, "SELECT ic.relname FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class "
                    + "ic ON ic.oid = i.indexrelid ORDER BY i.indisprimary DESC, ic.relname"));
        }
    }

    @Test
    void shouldSeeTheCatalogAsTheTransactionSeesIt() throws SQLException {
        try (Connection c = db.connectPg(); Connection other = db.connectPg(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("CREATE TABLE sys_in_txn (k BIGINT PRIMARY KEY)");
            final String sql = "SELECT table_name FROM information_schema.tables WHERE table_name = 'sys_in_txn'";
            assertEquals(List.of("sys_in_txn"), column(c, sql));
            assertEquals(List.of(), column(other, sql));
            // a user's table of a pg_catalog name wins over the unqualified system table; qualified finds pg_catalog's
            s.execute("CREATE TABLE pg_database (x INTEGER PRIMARY KEY)");
            assertEquals(List.of(), column(c, "SELECT * FROM pg_database"));
            assertEquals(List.of("meldb"), column(c, "SELECT datname FROM pg_catalog.pg_database"));
            c.rollback();
            assertEquals(List.of(), column(c, sql));
            assertEquals(List.of("meldb"), column(c, "SELECT datname FROM pg_database"));
        }
    }

    @Test
    void shouldRefuseSystemSchemaNames() throws SQLException {
        for (Connection c : connections()) {
            try (c; Statement s = c.createStatement()) {
                for (String name : List.of("information_schema", "pg_catalog", "pg_mine", "\"pg_x\"")) {
                    final SQLException e = assertThrows(SQLException.class, () -> s.execute("CREATE SCHEMA " + name));
                    assertEquals("42939", e.getSQLState(), e.getMessage());
                }
                s.execute("CREATE SCHEMA IF NOT EXISTS information_schema");
            }
        }
    }
}
