package io.meldb.sql.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Result columns are typed as PostgreSQL 15 types them: a text column is text, varchar(n) varchar, char(n) bpchar, a
 * computed string text (JDBC VARCHAR over MeldDB's driver too, as pgjdbc reports PostgreSQL's text); a boolean cast to
 * text is 'true'/'false'; exp/ln/log of numerics are refused rather than answered as doubles.
 */
class StringResultTypesTest extends ConformanceTest {

    @Test
    void tableColumnsKeepTheirTypesAndComputedStringsAreText() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE srt (id INT PRIMARY KEY, t TEXT, v VARCHAR(5), ch CHAR(3), j JSON)");
            s.execute("INSERT INTO srt VALUES (1, 'a', 'b', 'c', '{}')");
            for (String sql : List.of("SELECT t, v, ch, j, t || 'x', 'lit', upper(v) FROM srt",
                    "SELECT t, v, ch, j, t || 'x', 'lit', upper(v) FROM srt WHERE id = 1")) {
                try (ResultSet r = s.executeQuery(sql)) {
                    final ResultSetMetaData md = r.getMetaData();
                    assertEquals(List.of("text", "varchar", "bpchar", "json", "text", "text", "text"),
                            List.of(md.getColumnTypeName(1), md.getColumnTypeName(2), md.getColumnTypeName(3),
                                    md.getColumnTypeName(4), md.getColumnTypeName(5), md.getColumnTypeName(6),
                                    md.getColumnTypeName(7)), sql);
                    assertEquals(5, md.getPrecision(2), sql); // varchar(5)'s typmod
                }
            }
        }
    }

    @Test
    void computedStringsAreVarcharOverMeldDbsDriver() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.MELD); Statement s = c.createStatement()) {
            for (String sql : List.of("SELECT 'lit', CASE WHEN true THEN 'a' ELSE 'abc' END",
                    "SELECT 'lit' || 'x', CAST('ab' AS VARCHAR(4))")) {
                try (ResultSet r = s.executeQuery(sql)) {
                    assertEquals(Types.VARCHAR, r.getMetaData().getColumnType(1), sql);
                    assertEquals(Types.VARCHAR, r.getMetaData().getColumnType(2), sql);
                }
                try (ResultSet r = c.prepareStatement(sql).executeQuery()) {
                    assertEquals(Types.VARCHAR, r.getMetaData().getColumnType(1), sql);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void booleansCastToTextAreTrueAndFalse(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("true:false:fal:null"), rows(s, "SELECT CAST(true AS VARCHAR), CAST(false AS VARCHAR), "
                    + "CAST(false AS VARCHAR(3)), CAST(CAST(NULL AS BOOLEAN) AS VARCHAR)"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void transcendentalFunctionsOfNumericsAreRefused(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            for (String sql : List.of("SELECT ln(2.5)", "SELECT exp(0.5)", "SELECT log(2.5)")) {
                assertEquals("0A000", failure(s, sql).getSQLState(), sql);
            }
            assertEquals(List.of("0.9162907318741551"), rows(s, "SELECT ln(CAST(2.5 AS DOUBLE PRECISION))"));
        }
    }
}
