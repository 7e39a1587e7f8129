package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * COPY ... FROM STDIN and TO STDOUT through pgjdbc's CopyManager: text and CSV, NULLs and escapes, large loads, bad
 * data.
 */
@Timeout(120)
class PgCopyTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    private static CopyManager copy(final Connection c) throws SQLException {
        return new CopyManager(c.unwrap(BaseConnection.class));
    }

    @Test
    void shouldCopyATableOrAQueryToStdoutInTextAndCsvAsPostgresqlWritesThem() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE copy_out (id INTEGER PRIMARY KEY, name VARCHAR(40), ok BOOLEAN, price DECIMAL(6, 2))");
            try (java.sql.PreparedStatement p = c.prepareStatement("INSERT INTO copy_out VALUES (?, ?, ?, ?)")) {
                final Object[][] rows = {
                    {1, "plain", true, new java.math.BigDecimal("1.50")},
                    {2, "tab\there, new\nline \\ back", false, null},
                    {3, "say \"hi\"", null, new java.math.BigDecimal("-2.00")},
                    {4, "", true, new java.math.BigDecimal("0.00")},
                    {5, null, false, new java.math.BigDecimal("3.25")}};
                for (Object[] r : rows) {
                    for (int i = 0; i < r.length; i++) {
                        p.setObject(i + 1, r[i]);
                    }
                    p.executeUpdate();
                }
            }
            final java.io.StringWriter text = new java.io.StringWriter();
            assertEquals(5, copy(c).copyOut("COPY copy_out TO STDOUT", text));
            assertEquals("1\tplain\tt\t1.50\n"
                    + "2\ttab\\there, new\\nline \\\\ back\tf\t\\N\n"
                    + "3\tsay \"hi\"\t\\N\t-2.00\n"
                    + "4\t\tt\t0.00\n"
                    + "5\t\\N\tf\t3.25\n", text.toString());
            final java.io.StringWriter csv = new java.io.StringWriter();
            assertEquals(3, copy(c).copyOut("COPY (SELECT id, name FROM copy_out WHERE id BETWEEN 2 AND 4 ORDER BY id) "
                    + "TO STDOUT WITH (FORMAT csv, HEADER)", csv));
            assertEquals("id,name\n"
                    + "2,\"tab\there, new\nline \\ back\"\n"
                    + "3,\"say \"\"hi\"\"\"\n"
                    + "4,\"\"\n", csv.toString());
            final java.io.StringWriter some = new java.io.StringWriter();
            assertEquals(5, copy(c).copyOut("COPY public.copy_out (price, id) TO STDOUT DELIMITER '|' NULL 'none'",
                    some));
            assertTrue(some.toString().startsWith("1.50|1\nnone|2\n-2.00|3\n"), some.toString());
            // what it wrote, COPY FROM reads back the same
            s.execute("CREATE TABLE copy_back (id INTEGER PRIMARY KEY, name VARCHAR(40), ok BOOLEAN, price DECIMAL(6, 2))");
            assertEquals(5, copy(c).copyIn("COPY copy_back FROM STDIN", new StringReader(text.toString())));
            try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM copy_out a JOIN copy_back b ON a.id = b.id "
                    + "AND (a.name = b.name OR a.name IS NULL AND b.name IS NULL)")) {
                assertTrue(r.next());
                assertEquals(5, r.getInt(1));
            }
            assertEquals("0A000", assertThrows(SQLException.class,
                    () -> copy(c).copyOut("COPY copy_out TO '/tmp/x.csv'", new java.io.StringWriter())).getSQLState());
            assertEquals("42P01", assertThrows(SQLException.class,
                    () -> copy(c).copyOut("COPY no_such_table TO STDOUT", new java.io.StringWriter())).getSQLState());
            try (ResultSet r = s.executeQuery("SELECT 1")) {
                assertTrue(r.next(), "the session goes on after COPY TO and its errors");
            }
        }
    }

    @Test
    void shouldLoadTextFormatWithNullsAndEscapes() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE CT (id INTEGER PRIMARY KEY, name VARCHAR(20), amount DECIMAL(8, 2), dt DATE)");
            final long n = copy(c).copyIn("COPY ct (id, name, amount, dt) FROM STDIN",
                    new StringReader("1\tada\t12.50\t2024-02-29\n2\t\\N\t\\N\t\\N\n3\ttab\\there\t-1\t1999-12-31\n"));
            assertEquals(3, n);
            try (ResultSet r = s.executeQuery("SELECT name, amount, dt FROM CT ORDER BY id")) {
                assertTrue(r.next());
                assertEquals("ada", r.getString(1));
                assertEquals("12.50", r.getBigDecimal(2).toPlainString());
                assertEquals("2024-02-29", r.getDate(3).toLocalDate().toString());
                assertTrue(r.next());
                assertNull(r.getString(1));
                assertNull(r.getObject(2));
                assertTrue(r.next());
                assertEquals("tab\there", r.getString(1));
            }
        }
    }

    @Test
    void shouldLoadCsvWithAHeaderAndQuotedFields() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE CC (id INTEGER PRIMARY KEY, note VARCHAR(40))");
            final long n = copy(c).copyIn("COPY cc FROM STDIN WITH (FORMAT csv, HEADER true)",
                    new StringReader("id,note\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n3,\n4,\"\"\n"));
            assertEquals(4, n);
            try (ResultSet r = s.executeQuery("SELECT note FROM CC ORDER BY id")) {
                assertTrue(r.next());
                assertEquals("a, b", r.getString(1));
                assertTrue(r.next());
                assertEquals("say \"hi\"", r.getString(1));
                assertTrue(r.next());
                assertNull(r.getString(1), "an unquoted empty CSV field is NULL");
                assertTrue(r.next());
                assertEquals("", r.getString(1), "a quoted empty CSV field is an empty string");
            }
        }
    }

    @Test
    void shouldLoadMoreRowsThanOneBatch() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE CB (id INTEGER PRIMARY KEY, v BIGINT)");
            final StringBuilder data = new StringBuilder();
            final int rows = PgCopyIn.BATCH_ROWS * 2 + 123;
            for (int i = 0; i < rows; i++) {
                data.append(i).append('\t').append(i * 2L).append('\n');
            }
            assertEquals(rows, copy(c).copyIn("COPY cb FROM STDIN", new StringReader(data.toString())));
            try (ResultSet r = s.executeQuery("SELECT COUNT(*), SUM(v) FROM CB")) {
                assertTrue(r.next());
                assertEquals(rows, r.getLong(1));
                assertEquals((long) rows * (rows - 1), r.getLong(2));
            }
        }
    }

    @Test
    void shouldRefuseBadDataWithItsSqlStateAndKeepTheSession() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE CE (id INTEGER PRIMARY KEY, v INTEGER)");
            SQLException e = assertThrows(SQLException.class, () -> copy(c).copyIn("COPY ce FROM STDIN",
                    new StringReader("1\t2\n2\tnot-a-number\n")));
            assertEquals("22P02", e.getSQLState());
            e = assertThrows(SQLException.class, () -> copy(c).copyIn("COPY ce FROM STDIN",
                    new StringReader("1\t2\t3\n")));
            assertEquals("22P04", e.getSQLState());
            e = assertThrows(SQLException.class, () -> copy(c).copyIn("COPY no_such FROM STDIN",
                    new StringReader("1\t2\n")));
            assertEquals("42P01", e.getSQLState());
            try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM CE")) {
                assertTrue(r.next());
                assertEquals(0, r.getLong(1));
            }
        }
    }

    @Test
    void shouldRollBackACopyInsideATransactionBlock() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE CX (id INTEGER PRIMARY KEY)");
            c.setAutoCommit(false);
            assertEquals(2, copy(c).copyIn("COPY cx FROM STDIN", new StringReader("1\n2\n")));
            c.rollback();
            c.setAutoCommit(true);
            try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM CX")) {
                assertTrue(r.next());
                assertEquals(0, r.getLong(1));
            }
        }
    }

    @Test
    void shouldFillTheColumnsCopyOmitsFromTheirDefaultsAndSequences() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cdef (id BIGSERIAL PRIMARY KEY, name VARCHAR(20), qty INTEGER DEFAULT 7, "
                    + "made TIMESTAMP DEFAULT CURRENT_TIMESTAMP)");
            assertEquals(2, copy(c).copyIn("COPY cdef (name) FROM STDIN", new StringReader("a\nb\n")));
            assertEquals(1, copy(c).copyIn("COPY cdef (name, qty) FROM STDIN", new StringReader("c\t\\N\n")));
            final java.util.List<String> rows = new java.util.ArrayList<>();
            try (ResultSet r = s.executeQuery("SELECT id, name, qty, made IS NOT NULL FROM cdef ORDER BY id")) {
                while (r.next()) {
                    rows.add(r.getLong(1) + ":" + r.getString(2) + ":" + r.getString(3) + ":" + r.getBoolean(4));
                }
            }
            assertEquals(java.util.List.of("1:a:7:true", "2:b:7:true", "3:c:null:true"), rows,
                    "an explicit \\N is NULL, not the default");
        }
    }
}
