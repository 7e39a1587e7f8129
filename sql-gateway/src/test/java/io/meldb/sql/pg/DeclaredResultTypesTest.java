package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Result columns typed as PostgreSQL 15 types them where Calcite's types cannot tell (DeclaredTypes): a cast to
 * varchar(n) or char(n) is that type with its length, a cast to text or a computed string is text, a cast to json
 * and {@code ->} of json are json, {@code ->>} is text; in both of pgjdbc's protocols.
 */
@Timeout(120)
class DeclaredResultTypesTest {
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
    void shouldDescribeCastsAsTheirDeclaredTypes() throws SQLException {
        for (String mode : new String[] {"preferQueryMode=simple", "preferQueryMode=extended"}) {
            try (Connection c = db.connectPg(mode); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT CAST(42 AS varchar(3)), 'ab'::char(4), 'x'::text, 'a' || 'b', "
                         + "'{\"a\": 1}'::json, '{\"a\": 1}'::json -> 'a', '{\"a\": 1}'::json ->> 'a'")) {
                assertTrue(r.next());
                final ResultSetMetaData md = r.getMetaData();
                assertEquals("varchar", md.getColumnTypeName(1), mode);
                assertEquals(3, md.getPrecision(1), mode);
                assertEquals("bpchar", md.getColumnTypeName(2), mode);
                assertEquals(4, md.getPrecision(2), mode);
                assertEquals("text", md.getColumnTypeName(3), mode);
                assertEquals("text", md.getColumnTypeName(4), mode);
                assertEquals("json", md.getColumnTypeName(5), mode);
                assertEquals("json", md.getColumnTypeName(6), mode);
                assertEquals("text", md.getColumnTypeName(7), mode);
                assertEquals("42", r.getString(1));
                assertEquals("ab  ", r.getString(2));
                assertEquals("1", r.getString(6));
            }
        }
    }
}
