package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PostgreSQL functions applications call, over both front ends, each compared with what PostgreSQL 15 answers
 * for the same call (hard-coded here: the test does not need PostgreSQL). Numbers compare by value (1024 and
 * 1024.0 are one answer: drivers print doubles differently); everything else as text.
 */
class FunctionLibraryTest extends ConformanceTest {
    /** Expression → PostgreSQL 15's answer, as text; null for SQL NULL. */
    private static final Map<String, String> PG15 = new LinkedHashMap<>();

    static {
        PG15.put("length('hello')", "5");
        PG15.put("char_length('héllo')", "5");
        PG15.put("concat('a', 1, NULL, 'b')", "a1b");
        PG15.put("concat_ws('-', 'a', NULL, 'b')", "a-b");
        PG15.put("substr('hello', 2, 3)", "ell");
        PG15.put("substr('hello', 2)", "ello");
        PG15.put("substring('hello' from 2 for 3)", "ell");
        PG15.put("substring('hello', 2, 3)", "ell");
        PG15.put("left('hello', 2)", "he");
        PG15.put("left('hello', -1)", "hell");
        PG15.put("right('hello', 2)", "lo");
        PG15.put("lower('AbC')", "abc");
        PG15.put("upper('abc')", "ABC");
        PG15.put("trim('  x  ')", "x");
        PG15.put("trim(both 'x' from 'xxaxx')", "a");
        PG15.put("ltrim('  x')", "x");
        PG15.put("rtrim('x  ')", "x");
        PG15.put("replace('abcabc', 'b', 'X')", "aXcaXc");
        PG15.put("position('c' in 'abcd')", "3");
        PG15.put("strpos('abcd', 'c')", "3");
        PG15.put("lpad('7', 3, '0')", "007");
        PG15.put("lpad('hello', 2)", "he");
        PG15.put("rpad('ab', 4, '*')", "ab**");
        PG15.put("split_part('a,b,c', ',', 2)", "b");
        PG15.put("split_part('a,b,c', ',', 5)", "");
        PG15.put("date_trunc('month', TIMESTAMP '2024-03-15 10:20:30')", "2024-03-01 00:00:00");
        PG15.put("date_trunc('hour', TIMESTAMP '2024-03-15 10:20:30')", "2024-03-15 10:00:00");
        PG15.put("extract(year from DATE '2024-03-15')", "2024");
        PG15.put("extract(dow from DATE '2024-03-15')", "5");
        PG15.put("date_part('month', TIMESTAMP '2024-03-15 10:20:30')", "3");
        PG15.put("to_char(TIMESTAMP '2024-03-15 10:20:30', 'YYYY-MM-DD HH24:MI:SS')", "2024-03-15 10:20:30");
        PG15.put("to_char(DATE '2024-03-05', 'DD/MM/YYYY')", "05/03/2024");
        PG15.put("DATE '2024-02-28' + 2", "2024-03-01");
        PG15.put("DATE '2024-03-01' - 1", "2024-02-29");
        PG15.put("7 + DATE '2024-01-01'", "2024-01-08");
        PG15.put("CAST('2024-12-31' AS DATE) + 1", "2025-01-01");
        PG15.put("CASE WHEN CURRENT_DATE - 7 < CURRENT_DATE AND CURRENT_DATE + 1 > CURRENT_DATE THEN 'y' END", "y");
        PG15.put("coalesce(NULL, 2)", "2");
        PG15.put("nullif(1, 1)", null);
        PG15.put("nullif(1, 2)", "1");
        PG15.put("greatest(1, 5, 3)", "5");
        PG15.put("least(1, 5, 3)", "1");
        PG15.put("greatest('b', 'a')", "b");
        PG15.put("abs(-5)", "5");
        PG15.put("round(2.5)", "3");
        PG15.put("round(2.345, 2)", "2.35");
        PG15.put("round(-2.5)", "-3");
        PG15.put("ceil(1.2)", "2");
        PG15.put("ceiling(1.2)", "2");
        PG15.put("floor(-1.2)", "-2");
        PG15.put("mod(7, 3)", "1");
        PG15.put("mod(-7, 3)", "-1");
        PG15.put("power(2, 10)", "1024");
        PG15.put("sqrt(16)", "4");
        PG15.put("md5('abc')", "900150983cd24fb0d6963f7d28e17f72");
        PG15.put("(SELECT string_agg(s, ',' ORDER BY s) FROM (VALUES ('b'), ('a'), ('c')) AS t(s))", "a,b,c");
        PG15.put("(SELECT string_agg(s, ',') FROM (VALUES ('x')) AS t(s))", "x");
    }

    private static boolean sameAnswer(final String expected, final String actual) {
        if (expected == null || actual == null) {
            return expected == actual;
        }
        try {
            return new BigDecimal(expected).compareTo(new BigDecimal(actual)) == 0;
        } catch (NumberFormatException e) {
            return expected.equals(actual);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void everyFunctionAnswersWhatPostgreSql15Answers(final String protocol) throws SQLException {
        final List<String> wrong = new ArrayList<>();
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            for (Map.Entry<String, String> e : PG15.entrySet()) {
                final String sql = "SELECT " + e.getKey();
                try (ResultSet r = s.executeQuery(sql)) {
                    assertTrue(r.next(), sql);
                    final String actual = r.getString(1);
                    if (!sameAnswer(e.getValue(), actual)) {
                        wrong.add(e.getKey() + " = " + actual + ", PostgreSQL 15: " + e.getValue());
                    }
                } catch (SQLException x) {
                    wrong.add(e.getKey() + " failed: " + x.getSQLState() + " " + x.getMessage());
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void roundToNPlacesAnswersANumericOfThatScale(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            // compared as text: PostgreSQL shows 10.99 and 5.00, where the argument's scale would show 10.990 and 5
            assertEquals(List.of("10.99:5.00:-2.6:3"), Conformance.rows(s,
                    "SELECT round(10.989, 2), round(5, 2), ROUND(-2.55, 1), round(2.5, 0)"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void clockRandomAndUuidFunctionsAnswerFreshValues(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("yes"), Conformance.rows(s, "SELECT CASE WHEN now() IS NOT NULL AND current_timestamp "
                    + "IS NOT NULL AND current_date IS NOT NULL AND localtimestamp IS NOT NULL THEN 'yes' END"));
            assertEquals(List.of("yes"), Conformance.rows(s, "SELECT CASE WHEN now() = current_timestamp THEN 'yes' "
                    + "END")); // one statement, one clock reading
            try (ResultSet r = s.executeQuery("SELECT now(), current_date")) {
                assertTrue(r.next());
                final long skew = Math.abs(r.getTimestamp(1).getTime() - System.currentTimeMillis());
                assertTrue(skew < 86_400_000L, "now() is " + r.getTimestamp(1)); // whatever the zones, today
                assertTrue(r.getDate(2) != null);
            }
            // a new value for every row, each in [0, 1)
            assertEquals(List.of("3:3"), Conformance.rows(s, "SELECT COUNT(DISTINCT r), SUM(CASE WHEN r >= 0 AND r < 1 "
                    + "THEN 1 END) FROM (SELECT random() AS r FROM (VALUES (1), (2), (3)) AS t(x)) AS u"));
            final List<String> uuids = Conformance.rows(s,
                    "SELECT gen_random_uuid() FROM (VALUES (1), (2), (3)) AS t(x)");
            for (String u : uuids) {
                assertTrue(u.matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"), u);
            }
            assertEquals(3, new java.util.HashSet<>(uuids).size(), uuids.toString()); // a new one for every row
        }
    }

    private static void assertState(final String state, final Statement s, final String sql) {
        final SQLException e = Conformance.failure(s, sql);
        assertEquals(state, e.getSQLState(), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void unknownFunctionsAre42883AndUnsupportedOnes0A000(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertState("42883", s, "SELECT no_such_function(1)");
            assertState("42883", s, "SELECT length(1, 2, 3)");
            assertState("0A000", s, "SELECT age(TIMESTAMP '2024-03-15 00:00:00', TIMESTAMP '2023-01-10 00:00:00')");
            assertEquals(List.of("1"), Conformance.rows(s, "SELECT 1"));
        }
    }

    /** Over the PostgreSQL protocol: array results over MeldDB's JDBC driver are not built yet (docs/status.md). */
    @org.junit.jupiter.api.Test
    void arrayAggCollectsInItsOrder() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery("SELECT array_agg(x ORDER BY x DESC) FROM (VALUES (1), (3), (2)) "
                     + "AS t(x)")) {
            org.junit.jupiter.api.Assertions.assertTrue(r.next());
            assertEquals(List.of(3, 2, 1), List.of((Object[]) r.getArray(1).getArray()));
        }
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            // as PostgreSQL 15 answers them
            assertEquals(List.of("1,2,3|a-*-c|t:f|1.50;2"), Conformance.rows(s, "SELECT array_to_string(ARRAY[1, "
                    + "2, 3], ',') || '|' || array_to_string(ARRAY['a', NULL, 'c'], '-', '*') || '|' || "
                    + "array_to_string(ARRAY[true, false], ':') || '|' || array_to_string(ARRAY[1.50, 2], ';')"));
            try (java.sql.ResultSet r = s.executeQuery("SELECT string_to_array('a,b,', ','), string_to_array('a,*', "
                    + "',', '*'), string_to_array('xy', NULL), string_to_array('abc', ''), string_to_array('', ',')")) {
                org.junit.jupiter.api.Assertions.assertTrue(r.next());
                assertEquals(java.util.Arrays.asList("a", "b", ""), List.of((Object[]) r.getArray(1).getArray()));
                assertEquals(java.util.Arrays.asList("a", null), java.util.Arrays.asList((Object[]) r.getArray(2)
                        .getArray()));
                assertEquals(List.of("x", "y"), List.of((Object[]) r.getArray(3).getArray()));
                assertEquals(List.of("abc"), List.of((Object[]) r.getArray(4).getArray()));
                assertEquals(0, ((Object[]) r.getArray(5).getArray()).length);
            }
        }
    }
}
