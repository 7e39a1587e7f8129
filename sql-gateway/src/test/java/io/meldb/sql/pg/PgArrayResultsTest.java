package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Array-valued result columns over pgjdbc, in text (simple protocol) and binary (extended, after the prepare
 * threshold) form: PostgreSQL's array types (int4[] is OID 1007, computed strings make text[]) and values; arrays
 * MeldDB cannot send yet (of dates, of arrays) are refused with 0A000 rather than answered as other text.
 */
@Timeout(120)
class PgArrayResultsTest {
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
    void shouldSendArraysAsPostgresArrayTypesInTextAndBinary() throws SQLException {
        for (String mode : new String[] {"preferQueryMode=simple", "prepareThreshold=-1"}) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT ARRAY[1, 2], ARRAY['a', 'b c', NULL, '', 'x\"y'], "
                         + "ARRAY[1.5, 2], ARRAY[CAST(7 AS BIGINT)]")) {
                assertTrue(r.next());
                assertEquals("_int4", r.getMetaData().getColumnTypeName(1), mode);
                assertEquals("_text", r.getMetaData().getColumnTypeName(2), mode);
                assertEquals("_numeric", r.getMetaData().getColumnTypeName(3), mode);
                assertEquals("_int8", r.getMetaData().getColumnTypeName(4), mode);
                assertArrayEquals(new Integer[] {1, 2}, (Object[]) r.getArray(1).getArray(), mode);
                assertEquals(Arrays.asList("a", "b c", null, "", "x\"y"),
                        Arrays.asList((Object[]) r.getArray(2).getArray()), mode);
                assertEquals(List.of(new java.math.BigDecimal("1.5"), new java.math.BigDecimal("2")),
                        Arrays.asList((Object[]) r.getArray(3).getArray()), mode);
                final Array longs = r.getArray(4);
                assertArrayEquals(new Long[] {7L}, (Object[]) longs.getArray(), mode);
                if (mode.contains("simple")) {
                    // the text form as the server sent it (pgjdbc renders a binary array's string itself)
                    assertEquals("{1,2}", r.getString(1), mode);
                }
            }
        }
    }

    @Test
    void shouldRefuseArraysItCannotSendYetWith0A000() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            for (String sql : new String[] {"SELECT ARRAY[ARRAY[1, 2], ARRAY[3, 4]]",
                    "SELECT ARRAY[DATE '2020-01-02']"}) {
                final SQLException e = assertThrows(SQLException.class, () -> s.executeQuery(sql).close());
                assertEquals("0A000", e.getSQLState(), sql);
            }
            try (ResultSet r = s.executeQuery("SELECT 1")) {
                assertTrue(r.next(), "the session goes on");
            }
        }
    }
}
