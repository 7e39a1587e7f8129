package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PostgreSQL 15's numeric, over both front ends: numeric without a precision keeps every value as written (it
 * rounded to an integer), arithmetic keeps PostgreSQL's display scales, division has its scale rule, avg, variance
 * and stddev of integers are numerics, sum of bigint cannot wrap, a common type of decimals pads nothing, string
 * literals of different lengths are not blank-padded, {@code ^} is exponentiation. Every expected value is what
 * PostgreSQL 15 printed for the same statement.
 */
class NumericTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void numericWithoutAPrecisionKeepsEveryValueAsWritten(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final String t = "num_" + protocol;
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, n NUMERIC, m NUMERIC(10, 2))");
            s.execute("INSERT INTO " + t + " VALUES (1, 1.25, 1.255), (2, 0.5, 2), (3, 19.99, 3.333)");
            assertEquals(List.of("1.25:1.26:1.5750:2.51", "0.5:2.00:1.000:2.50", "19.99:3.33:66.5667:23.32"),
                    rows(s, "SELECT n, m, n * m, n + m FROM " + t + " ORDER BY id"));
            assertEquals(List.of("7.2466666666666667:21.74:2.1966666666666667"),
                    rows(s, "SELECT avg(n), sum(n), avg(m) FROM " + t));
            try (ResultSet r = s.executeQuery("SELECT n, n * m FROM " + t + " WHERE id = 1")) {
                // pgjdbc names the PostgreSQL type; MeldDB's driver the JDBC one
                final String numeric = protocol.equals(Conformance.PG) ? "numeric" : "decimal";
                assertEquals(numeric, r.getMetaData().getColumnTypeName(1).toLowerCase(java.util.Locale.ROOT));
                assertEquals(numeric, r.getMetaData().getColumnTypeName(2).toLowerCase(java.util.Locale.ROOT));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void numericExpressionsAnswerPostgreSqlsValues(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("0.3:0.1:2.5:1.5:1"), rows(s, "SELECT CAST(0.1 AS NUMERIC) + CAST(0.2 AS NUMERIC), "
                    + "CAST(0.1 AS NUMERIC), CAST(1.5 AS NUMERIC) + 1, CASE WHEN true THEN 1.5 ELSE 2.25 END, "
                    + "CASE WHEN true THEN 1 ELSE 2.5 END"));
            assertEquals(List.of("0.33333333333333333333:2.5000000000000000:0.66666666666666666667:0.75000000000000000000"),
                    rows(s, "SELECT 1 / 3.0, 10.0 / 4, CAST(2 AS NUMERIC) / 3, 1.5 / 2"));
            assertEquals("22012", failure(s, "SELECT 1 / 0.0").getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void aggregatesOfExactNumbersAreNumerics(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("2.3333333333333333:7:1.5275252316519467:2.3333333333333333:1.5555555555555556"
                            + ":1.2472191289246471"),
                    rows(s, "SELECT avg(x), sum(x), stddev(x), variance(x), var_pop(x), stddev_pop(x) "
                            + "FROM (VALUES (1), (2), (4)) t(x)"));
            assertEquals(List.of("1.5000000000000000"), rows(s, "SELECT avg(x) FROM (VALUES (1), (2)) t(x)"));
            assertEquals(List.of("3.0541979307176541:9.3281250000000000"),
                    rows(s, "SELECT stddev(x), variance(x) FROM (VALUES (1.5), (2.25), (7.125)) t(x)"));
            assertEquals(List.of("1.00000000000000000000:null"),
                    rows(s, "SELECT avg(x), stddev(x) FROM (VALUES (1)) t(x)"));
            assertEquals(List.of("9223372036854775808"),
                    rows(s, "SELECT sum(x) FROM (VALUES (CAST(9223372036854775807 AS BIGINT)), (1)) t(x)"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void stringLiteralsOfDifferentLengthsAreNotPadded(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("ax:ne:in"), rows(s, "SELECT CASE WHEN true THEN 'a' ELSE 'abc' END || 'x', "
                    + "CASE WHEN 'ab ' = 'ab' THEN 'eq' ELSE 'ne' END, "
                    + "CASE WHEN 'saw' IN ('saw', 'hammer') THEN 'in' ELSE 'out' END"));
            assertEquals(List.of("a", "abc"), rows(s, "SELECT 'a' UNION SELECT 'abc' ORDER BY 1"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void caretIsExponentiationOrARefusal(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1024"), rows(s, "SELECT CAST(2 ^ 10 AS INTEGER)"));
            // PostgreSQL binds ^ tighter than *; MeldDB's parser does not yet, so it refuses rather than differs
            assertEquals("0A000", failure(s, "SELECT 2 * 3 ^ 2").getSQLState());
            assertEquals("0A000", failure(s, "SELECT 1.5 ^ 2").getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void numericWithoutAPrecisionIsRefusedInAKey(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals("0A000", failure(s, "CREATE TABLE numkey_" + protocol + " (n NUMERIC PRIMARY KEY)")
                    .getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void extractIsANumericWithPostgreSqlsFraction(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("2024:56.250000:1709210096.250000:56250.000:56250000:1709164800"),
                    rows(s, "SELECT extract(year FROM DATE '2024-02-28'), "
                            + "extract(second FROM TIMESTAMP '2024-02-29 12:34:56.25'), "
                            + "extract(epoch FROM TIMESTAMP '2024-02-29 12:34:56.25'), "
                            + "extract(millisecond FROM TIMESTAMP '2024-02-29 12:34:56.25'), "
                            + "extract(microsecond FROM TIMESTAMP '2024-02-29 12:34:56.25'), "
                            + "extract(epoch FROM DATE '2024-02-29')"));
            assertEquals(List.of("-0.500000:-2.000000"), rows(s, "SELECT "
                    + "extract(epoch FROM TIMESTAMP '1969-12-31 23:59:59.5'), "
                    + "extract(epoch FROM TIMESTAMP '1969-12-31 23:59:58')"));
            try (ResultSet r = s.executeQuery("SELECT extract(hour FROM TIMESTAMP '2024-02-29 12:34:56')")) {
                assertEquals(protocol.equals(Conformance.PG) ? "numeric" : "decimal",
                        r.getMetaData().getColumnTypeName(1).toLowerCase(java.util.Locale.ROOT));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void roundingFunctionsHavePostgreSqlsTypes(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            // ceil, floor, round, sign of integers and reals are double precision; round of a numeric has scale 0
            assertEquals(List.of("3:3:-3:1:-1"), rows(s, "SELECT round(2.5), round(CAST(2.567 AS NUMERIC(10, 3))), "
                    + "round(-2.5), sign(2.5), sign(CAST(-2.50 AS NUMERIC(5, 2)))"));
            // double precision rounds halves to even (PostgreSQL's rint)
            assertEquals(List.of("2:-2:4:2"), rows(s, "SELECT CAST(round(CAST(2.5 AS DOUBLE PRECISION)) AS INTEGER), "
                    + "CAST(round(CAST(-2.5 AS DOUBLE PRECISION)) AS INTEGER), "
                    + "CAST(round(CAST(3.5 AS DOUBLE PRECISION)) AS INTEGER), CAST(round(CAST(2.5 AS REAL)) AS INTEGER)"));
            try (ResultSet r = s.executeQuery("SELECT ceil(1), floor(CAST(2.5 AS REAL)), round(2), sign(-3)")) {
                for (int i = 1; i <= 4; i++) {
                    assertEquals(java.sql.Types.DOUBLE, r.getMetaData().getColumnType(i));
                }
                r.next();
                assertEquals(1.0, r.getDouble(1));
                assertEquals(2.0, r.getDouble(2));
                assertEquals(-1.0, r.getDouble(4));
            }
        }
    }
}
