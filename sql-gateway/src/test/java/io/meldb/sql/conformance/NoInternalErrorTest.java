package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 33: a valid statement never answers XX000, and what PostgreSQL refuses MeldDB refuses with PostgreSQL's
 * SQLState. Casts of bad literals, functions past their inputs' ends, what Calcite cannot plan (0A000), and the
 * casts, operators and aggregates PostgreSQL does not define. Over both front ends.
 */
class NoInternalErrorTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void badLiteralCastsFailWithTheirStateEveryTimeTheyRun(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            // the second run of the same text reuses the session's plan, whose class failed to initialise
            for (int run = 0; run < 3; run++) {
                assertEquals("22007", failure(s, "SELECT CAST('10:11:12' AS TIMESTAMP WITH LOCAL TIME ZONE)")
                        .getSQLState());
                assertEquals("22P02", failure(s, "SELECT CAST('not-a-uuid' AS UUID)").getSQLState());
            }
            assertEquals(List.of("yes"), rows(s, "SELECT CASE WHEN CAST('2024-02-29 12:00' AS TIMESTAMP WITH LOCAL "
                    + "TIME ZONE) IS NOT NULL THEN 'yes' END"), "the session still plans and runs");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void uuidTextIsReadInPostgresFormsAndOtherTextIs22P02(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            for (String text : List.of("{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "a0eebc999c0b4ef8bb6d6bb9bd380a11",
                    "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11")) {
                assertEquals(List.of("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
                        rows(s, "SELECT CAST(CAST('" + text + "' AS UUID) AS VARCHAR(40))"), text);
            }
            assertEquals(List.of("yes"), rows(s, "SELECT CASE WHEN CAST('{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}' AS "
                    + "UUID) = CAST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS UUID) THEN 'yes' END"));
            for (String text : List.of("{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
                    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-", "a0eebc9-99c0b-4ef8-bb6d-6bb9bd380a11", "2024-02-29")) {
                assertEquals("22P02", failure(s, "SELECT CAST('" + text + "' AS UUID)").getSQLState(), text);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void stringFunctionsAnswerPostgresValuesOrItsStates(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final Map<String, String> values = Map.of(
                    "SELECT overlay('x' placing 'ZZ' from 2 for 1)", "xZZ",
                    "SELECT overlay('' placing 'ZZ' from 2 for 1)", "ZZ",
                    "SELECT overlay('Txxxxas' placing 'hom' from 2 for 4)", "Thomas",
                    "SELECT substring('hello' from 'l+')", "ll",
                    "SELECT substring('hello' from 'e(l+)o')", "ll",
                    "SELECT substring('hello' from 2 for 2)", "el",
                    "SELECT chr(65)", "A");
            for (Map.Entry<String, String> e : values.entrySet()) {
                assertEquals(List.of(e.getValue()), rows(s, e.getKey()), e.getKey());
            }
            assertEquals(List.of("null"), rows(s, "SELECT substring('hello' from 'z+')"));
            assertEquals("54000", failure(s, "SELECT chr(0)").getSQLState());
            assertEquals("54000", failure(s, "SELECT chr(1114112)").getSQLState());
            assertEquals("22011", failure(s, "SELECT overlay('abc' placing 'x' from 0 for 1)").getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void castsOperatorsAndAggregatesPostgresLacksAreRefusedWithItsStates(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals("42846", failure(s, "SELECT CAST(CAST(1.5 AS DOUBLE) AS BOOLEAN)").getSQLState());
            assertEquals("42846", failure(s, "SELECT CAST(CAST(1.25 AS NUMERIC) AS BOOLEAN)").getSQLState());
            assertEquals("42883", failure(s, "SELECT CAST(7 AS DOUBLE) % 2").getSQLState());
            assertEquals("42883", failure(s, "SELECT mod(CAST(7 AS DOUBLE), 2)").getSQLState());
            assertEquals(List.of("1"), rows(s, "SELECT 7 % 2"));
            assertEquals("42883", failure(s, "SELECT max(b) FROM (VALUES (true), (false)) t(b)").getSQLState());
            assertEquals("42883", failure(s, "SELECT min(b) FROM (VALUES (true), (false)) t(b)").getSQLState());
            assertEquals(List.of("2"), rows(s, "SELECT max(x) FROM (VALUES (1), (2)) t(x)"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void whatTheQueryPlannerCannotDoIs0A000NotAnInternalError(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final String t = "nie_" + protocol;
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO " + t + " VALUES (1, 1), (2, 2), (3, NULL), (4, 10)");
            for (String sql : List.of(
                    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM " + t,
                    "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM " + t,
                    "SELECT id, percent_rank() OVER (ORDER BY id) FROM " + t,
                    "SELECT id, cume_dist() OVER (ORDER BY id) FROM " + t,
                    "SELECT id, sum(v) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) FROM " + t)) {
                assertEquals("0A000", failure(s, sql).getSQLState(), sql);
            }
            assertEquals(List.of("1:1", "2:3", "3:2", "4:10"), rows(s, "SELECT id, sum(v) OVER (ORDER BY id ROWS "
                    + "BETWEEN 1 PRECEDING AND CURRENT ROW) FROM " + t + " ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG})
    void aValueTooLongToSendIs54000(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals("54000", failure(s, "SELECT repeat('x', 1000000000)").getSQLState());
            assertEquals("54000", failure(s, "SELECT repeat('xy', 1000000000)").getSQLState());
            assertEquals(List.of("ababab"), rows(s, "SELECT repeat('ab', 3)"));
            assertEquals(List.of("NaN:NaN"), rows(s, "SELECT ceil(CAST('NaN' AS REAL)), floor(CAST('NaN' AS REAL))"));
        }
    }
}
