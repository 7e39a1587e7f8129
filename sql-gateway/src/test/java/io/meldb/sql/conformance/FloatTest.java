package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PostgreSQL 15's double precision where Java's differs, over both front ends: a cast to an integer type rounds
 * halves to even and refuses NaN and values out of range (22003), a cast to numeric reads 15 significant digits,
 * arithmetic that overflows or underflows is 22003, division by zero 22012, the square root of a negative number
 * 2201F. Every expected value or SQLSTATE is what PostgreSQL 15 answered for the same statement.
 */
class FloatTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void castsToIntegersRoundHalvesToEvenAndRefuseWhatDoesNotFit(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("6:4:4:2:-2:2"), rows(s, "SELECT CAST(CAST(5.5 AS DOUBLE PRECISION) AS INTEGER), "
                    + "CAST(CAST(4.5 AS DOUBLE PRECISION) AS INTEGER), CAST(CAST(3.7 AS REAL) AS SMALLINT), "
                    + "CAST(CAST(1.5 AS REAL) AS SMALLINT), CAST(CAST(-2.5 AS DOUBLE PRECISION) AS INTEGER), "
                    + "CAST(CAST(2.5 AS DOUBLE PRECISION) AS BIGINT)"));
            assertEquals("22003", failure(s, "SELECT CAST(CAST(1e10 AS DOUBLE PRECISION) AS INTEGER)").getSQLState());
            assertEquals("22003", failure(s, "SELECT CAST(CAST(40000 AS DOUBLE PRECISION) AS SMALLINT)")
                    .getSQLState());
            assertEquals("22003", failure(s, "SELECT CAST(CAST('NaN' AS DOUBLE PRECISION) AS INTEGER)")
                    .getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void castsToNumericReadFifteenSignificantDigits(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("0.1:0.1:123.5:0.333333333333333"), rows(s,
                    "SELECT CAST(CAST(0.1 AS DOUBLE PRECISION) AS NUMERIC), CAST(CAST(0.1 AS REAL) AS NUMERIC), "
                            + "CAST(CAST(123.456 AS DOUBLE PRECISION) AS NUMERIC(5, 1)), "
                            + "CAST(CAST(1 AS DOUBLE PRECISION) / 3 AS NUMERIC)"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void arithmeticOutOfRangeIsAnErrorNotInfinity(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals("22003", failure(s, "SELECT CAST(1e308 AS DOUBLE PRECISION) * 10").getSQLState());
            assertEquals("22003", failure(s, "SELECT CAST(1e308 AS DOUBLE PRECISION) + CAST(1e308 AS DOUBLE "
                    + "PRECISION)").getSQLState());
            assertEquals("22012", failure(s, "SELECT CAST(1 AS DOUBLE PRECISION) / 0").getSQLState());
            assertEquals("22012", failure(s, "SELECT CAST(0 AS DOUBLE PRECISION) / 0").getSQLState());
            assertEquals("2201F", failure(s, "SELECT sqrt(CAST(-1 AS DOUBLE PRECISION))").getSQLState());
            assertEquals(List.of("2:3.5:Infinity"), rows(s, "SELECT CAST(sqrt(CAST(4 AS DOUBLE PRECISION)) AS INTEGER), "
                    + "CAST(1.5 AS DOUBLE PRECISION) + 2, CAST('Infinity' AS DOUBLE PRECISION) * 2"));
        }
    }
}
