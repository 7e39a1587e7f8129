package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MeldDB's PostgreSQL protocol through pgjdbc, the PostgreSQL JDBC driver: the simple and extended query
 * protocols (unnamed statements, and named server-side statements with binary values once prepareThreshold is
 * reached), transaction blocks, errors that leave the session usable, row limits, and the values of every type.
 */
@Timeout(120)
class PgJdbcTest {
    private static EmbeddedGateway db;
    private static final AtomicInteger TABLES = new AtomicInteger();

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    private static String newTable(final Connection c, final String columns) throws SQLException {
        final String name = "T" + TABLES.incrementAndGet();
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + name + " (" + columns + ")");
        }
        return name;
    }

    @Test
    void shouldRunQueriesAndUpdatesThroughTheSimpleAndExtendedProtocols() throws SQLException {
        try (Connection c = db.connectPg("preferQueryMode=simple");
             Connection e = db.connectPg("preferQueryMode=extended")) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, name VARCHAR(20)");
            try (Statement s = c.createStatement()) {
                assertEquals(2, s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'ada'), (2, 'bob')"));
            }
            try (PreparedStatement p = e.prepareStatement("SELECT name FROM " + t + " WHERE id = ?")) {
                p.setInt(1, 2);
                try (ResultSet r = p.executeQuery()) {
                    assertTrue(r.next());
                    assertEquals("bob", r.getString(1));
                    assertFalse(r.next());
                }
            }
            try (PreparedStatement p = e.prepareStatement("UPDATE " + t + " SET name = ? WHERE id = ?")) {
                p.setString(1, "cy");
                p.setInt(2, 1);
                assertEquals(1, p.executeUpdate());
            }
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT name FROM " + t
                    + " ORDER BY id")) {
                assertTrue(r.next());
                assertEquals("cy", r.getString(1));
            }
        }
    }

    /**
     * prepareThreshold=1 makes pgjdbc name its statements at once and fetch results in binary. In simple mode
     * pgjdbc inlines dates as untyped literals with a zone ('2024-02-29 +00'), which MeldDB's planner does not
     * read as a date: that mode leaves the date and time columns NULL.
     */
    @ParameterizedTest
    @ValueSource(strings = {"prepareThreshold=1", "prepareThreshold=0", "preferQueryMode=simple"})
    void shouldCarryEveryTypeBothWays(final String mode) throws SQLException {
        try (Connection c = db.connectPg(mode)) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, s SMALLINT, b BIGINT, d DECIMAL(12, 3), "
                    + "f DOUBLE, v VARCHAR(30), ch CHAR(4), ok BOOLEAN, dt DATE, ts TIMESTAMP");
            final Object[][] rows = {
                {1, (short) -7, 1L << 40, new BigDecimal("-123456789.125"), 1.5e300, "héllo €", "ab", true,
                    LocalDate.of(2024, 2, 29), LocalDateTime.of(1999, 12, 31, 23, 59, 59, 123_000_000)},
                {2, null, null, null, null, null, null, null, null, null},
                {3, Short.MAX_VALUE, Long.MIN_VALUE, new BigDecimal("0.001"), -0.1, "", "abcd", false,
                    LocalDate.of(1900, 1, 1), LocalDateTime.of(2000, 1, 1, 0, 0)},
            };
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (Object[] row : rows) {
                    if (mode.contains("simple")) {
                        row[8] = null;
                        row[9] = null;
                    }
                    for (int i = 0; i < row.length; i++) {
                        final Object v = row[i];
                        if (v instanceof LocalDate d) {
                            p.setDate(i + 1, Date.valueOf(d));
                        } else if (v instanceof LocalDateTime ts) {
                            p.setTimestamp(i + 1, Timestamp.valueOf(ts));
                        } else if (v == null) {
                            p.setNull(i + 1, java.sql.Types.NULL);
                        } else {
                            p.setObject(i + 1, v);
                        }
                    }
                    assertEquals(1, p.executeUpdate());
                }
            }
            for (int round = 0; round < 3; round++) { // again once pgjdbc switched to a named statement
                try (PreparedStatement p = c.prepareStatement("SELECT * FROM " + t + " WHERE id = ?")) {
                    for (Object[] row : rows) {
                        p.setInt(1, (Integer) row[0]);
                        try (ResultSet r = p.executeQuery()) {
                            assertTrue(r.next());
                            assertEquals(row[1] == null ? null : ((Short) row[1]).intValue(),
                                    (Integer) r.getObject(2));
                            assertEquals(row[2], r.getObject(3));
                            assertEquals(row[3], r.getBigDecimal(4));
                            assertEquals(row[4], r.getObject(5));
                            assertEquals(row[5], r.getString(6));
                            assertEquals(row[6] == null ? null : String.format("%-4s", row[6]), r.getString(7));
                            assertEquals(row[7], r.getObject(8));
                            assertEquals(row[8], r.getDate(9) == null ? null : r.getDate(9).toLocalDate());
                            assertEquals(row[9], r.getTimestamp(10) == null ? null
                                    : r.getTimestamp(10).toLocalDateTime());
                            assertFalse(r.next());
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldRefuseAValueThatDoesNotFitItsParameterInsteadOfStoringAnotherOne() throws SQLException {
        try (Connection c = db.connectPg("prepareThreshold=1")) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, n INTEGER");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (1, ?)")) {
                p.setLong(1, 1L << 40);
                final SQLException e = assertThrows(SQLException.class, p::executeUpdate);
                assertEquals("22003", e.getSQLState());
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (2, ?)")) {
                p.setString(1, "twelve");
                final SQLException e = assertThrows(SQLException.class, p::executeUpdate);
                assertEquals("22P02", e.getSQLState());
            }
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + t)) {
                assertTrue(r.next());
                assertEquals(0, r.getLong(1));
            }
        }
    }

    @Test
    void shouldRaiseOutOfRangeOnIntegerOverflowInsteadOfWrappingAround() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            assertEquals("22003", assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT 2147483647 + 1")).getSQLState());
            final String t = newTable(c, "id INTEGER PRIMARY KEY, n INTEGER, b BIGINT");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 2147483647, 9223372036854775807)");
            assertEquals("22003", assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT n * 2 FROM " + t + " WHERE id >= 1")).getSQLState());
            assertEquals("22003", assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT b + 1 FROM " + t + " WHERE id >= 1")).getSQLState());
            try (ResultSet r = s.executeQuery("SELECT n - 1, b - 1 FROM " + t + " WHERE id >= 1")) {
                assertTrue(r.next());
                assertEquals(2147483646, r.getInt(1));
                assertEquals(9223372036854775806L, r.getLong(2));
            }
        }
    }

    @Test
    void shouldNameUnnamedResultColumnsAsPostgreSqlDoes() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, n INTEGER");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 5)");
            try (ResultSet r = s.executeQuery("SELECT COUNT(*), SUM(n), 1 + 1, CAST(n AS BIGINT), n AS given, n, "
                    + "LENGTH('abc') FROM " + t + " GROUP BY n")) {
                final java.sql.ResultSetMetaData md = r.getMetaData();
                final List<String> labels = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    labels.add(md.getColumnLabel(i));
                }
                assertEquals(List.of("count", "sum", "?column?", "int8", "given", "n", "length"), labels);
                assertTrue(r.next());
                assertEquals(1, r.getLong("count"));
            }
            try (ResultSet r = s.executeQuery("WITH x AS (SELECT id FROM " + t + ") SELECT COUNT(*) FROM x")) {
                assertEquals("count", r.getMetaData().getColumnLabel(1), "a WITH query's columns");
            }
            try (ResultSet r = s.executeQuery("SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM " + t)) {
                assertEquals("row_number", r.getMetaData().getColumnLabel(2), "a window function's column");
            }
            try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + t + " UNION SELECT 1 + 1 FROM " + t)) {
                assertEquals("count", r.getMetaData().getColumnLabel(1), "a UNION's columns, named by its first query");
            }
            try (ResultSet r = s.executeQuery("SELECT id % 2 AS parity, COUNT(*) FROM " + t + " GROUP BY parity")) {
                assertTrue(r.next(), "% and GROUP BY an output name, as PostgreSQL reads them");
                assertEquals(1, r.getInt("parity"));
            }
        }
    }

    @Test
    void shouldAnswerGeneratedKeysWithTheInsertedRow() throws SQLException {
        try (Connection c = db.connectPg()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?)",
                    Statement.RETURN_GENERATED_KEYS)) {
                p.setInt(1, 1);
                assertEquals(1, p.executeUpdate());
                try (ResultSet keys = p.getGeneratedKeys()) {
                    assertTrue(keys.next());
                    assertEquals(1, keys.getInt(1));
                }
            }
        }
    }

    @Test
    void shouldKeepTheSessionUsableAfterErrors() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT * FROM NO_SUCH_TABLE"));
            assertEquals("42P01", e.getSQLState());
            e = assertThrows(SQLException.class, () -> s.executeQuery("SELEKT 1"));
            assertEquals("42601", e.getSQLState());
            e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT 1 / 0"));
            assertEquals("22012", e.getSQLState());
            try (ResultSet r = s.executeQuery("SELECT 41 + 1")) {
                assertTrue(r.next());
                assertEquals(42, r.getInt(1));
            }
        }
    }

    @Test
    void shouldNameMissingObjectsInPostgresqlsWordsWithThePositionAsDetail() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, name VARCHAR(10)");
            PSQLException e = assertThrows(PSQLException.class, () -> s.executeQuery("SELECT * FROM no_such_table"));
            assertEquals("42P01", e.getSQLState());
            assertEquals("relation \"no_such_table\" does not exist", e.getServerErrorMessage().getMessage());
            assertEquals("at line 1, column 15", e.getServerErrorMessage().getDetail());
            e = assertThrows(PSQLException.class, () -> s.executeQuery("SELECT nocol FROM " + t));
            assertEquals("42703", e.getSQLState());
            assertEquals("column \"nocol\" does not exist", e.getServerErrorMessage().getMessage());
            e = assertThrows(PSQLException.class, () -> s.executeQuery("SELECT a.id FROM " + t + " a JOIN " + t
                    + " b ON a.id = b.nocol"));
            assertEquals("column b.nocol does not exist", e.getServerErrorMessage().getMessage());
            e = assertThrows(PSQLException.class, () -> s.executeQuery("SELECT no_such_fn(1)"));
            assertEquals("42883", e.getSQLState());
            assertEquals("function no_such_fn(numeric) does not exist", e.getServerErrorMessage().getMessage());
        }
    }

    @Test
    void shouldReadPostgresqlsIntervalLiteralsOfOneField() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT CAST(TIMESTAMP '2024-01-15 10:00:00' - interval '1 day' AS DATE), "
                     + "CAST(TIMESTAMP '2024-01-15 10:00:00' + INTERVAL '2 weeks' AS DATE), "
                     + "TIMESTAMP '2024-01-15 10:00:00' - interval '30 minutes', now() - interval '1 hour' < now(), "
                     + "'interval ''1 day'' stays text'")) {
            assertTrue(r.next());
            assertEquals(Date.valueOf("2024-01-14"), r.getDate(1));
            assertEquals(Date.valueOf("2024-01-29"), r.getDate(2));
            assertEquals(Timestamp.valueOf("2024-01-15 09:30:00"), r.getTimestamp(3));
            assertTrue(r.getBoolean(4));
            assertEquals("interval '1 day' stays text", r.getString(5));
        }
    }

    @Test
    void shouldAnswerBadLiteralsWithTheirDataExceptionNotAnInternalError() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, name VARCHAR(10)");
            s.execute("INSERT INTO " + t + " VALUES (1, 'one')");
            final SQLException e = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT name FROM " + t + " WHERE id = 'x'"));
            assertEquals("22P02", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("invalid input syntax for a number: \"x\""), e.getMessage());
            final SQLException day = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT CAST('2024-02-30' AS DATE)"));
            assertEquals("22008", day.getSQLState(), day.getMessage());
            s.execute("CREATE TABLE " + t + "_b (id INTEGER PRIMARY KEY, b BOOLEAN)");
            final SQLException bool = assertThrows(SQLException.class,
                    () -> s.execute("INSERT INTO " + t + "_b VALUES (1, 'maybe')"));
            assertEquals("22P02", bool.getSQLState(), bool.getMessage());
            assertTrue(bool.getMessage().contains("boolean: \"maybe\""), bool.getMessage());
            assertEquals("2201E", assertThrows(SQLException.class, () -> s.executeQuery("SELECT LN(0)")).getSQLState());
            assertEquals("22023", assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT LPAD('x', 5, '')")).getSQLState());
            try (ResultSet r = s.executeQuery("SELECT name FROM " + t + " WHERE id = '1'")) {
                assertTrue(r.next(), "a quoted number still finds its row");
                assertEquals("one", r.getString(1));
            }
        }
    }

    @Test
    void shouldReadBooleanTextAsPostgresqlDoesInLiteralsComparisonsAndParameters() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, b BOOLEAN");
            s.execute("INSERT INTO " + t + " VALUES (1, 't'), (2, 'no'), (3, 'ON'), (4, ' 0 ')");
            s.execute("INSERT INTO " + t + " VALUES (5, 'yes')");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " VALUES (?, ?)")) {
                ps.setInt(1, 6);
                ps.setString(2, "off");
                ps.executeUpdate();
            }
            try (ResultSet r = s.executeQuery("SELECT id FROM " + t + " WHERE b = 'y' ORDER BY id")) {
                final List<Integer> ids = new ArrayList<>();
                while (r.next()) {
                    ids.add(r.getInt(1));
                }
                assertEquals(List.of(1, 3, 5), ids);
            }
            try (ResultSet r = s.executeQuery("SELECT 'f'::boolean, CAST('TRUE' AS BOOLEAN), '1'::boolean")) {
                assertTrue(r.next());
                assertFalse(r.getBoolean(1));
                assertTrue(r.getBoolean(2));
                assertTrue(r.getBoolean(3));
            }
            for (String bad : List.of("o", "maybe", "2", "")) {
                final SQLException e = assertThrows(SQLException.class,
                        () -> s.executeQuery("SELECT '" + bad + "'::boolean"), bad);
                assertEquals("22P02", e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains("boolean: \"" + bad + "\""), e.getMessage());
            }
        }
    }

    @Test
    void shouldAnswerJsonOperatorsAndCastsAsPostgresqlDoes() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, doc JSONB");
            s.execute("INSERT INTO " + t + " VALUES (1, '{\"name\": \"ada\", \"tags\": [\"x\", \"y\"], "
                    + "\"n\": 5, \"addr\": {\"city\": \"Oslo\"}}'), (2, '{\"name\": \"bob\", \"n\": null}')");
            try (ResultSet r = s.executeQuery("SELECT doc->'addr', doc->'addr'->>'city', doc->'tags'->>-1, "
                    + "(doc->>'n')::int + 1, doc->>'missing' FROM " + t + " WHERE doc->>'name' = 'ada'")) {
                assertTrue(r.next());
                assertEquals("{\"city\": \"Oslo\"}", r.getString(1));
                assertEquals("Oslo", r.getString(2));
                assertEquals("y", r.getString(3));
                assertEquals(6, r.getInt(4));
                assertNull(r.getString(5));
                assertEquals("?column?", r.getMetaData().getColumnName(1));
                assertFalse(r.next());
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + t + " WHERE doc ->> ? = ? ORDER BY id")) {
                ps.setString(1, "name");
                ps.setString(2, "bob");
                try (ResultSet r = ps.executeQuery()) {
                    assertTrue(r.next());
                    assertEquals(2, r.getInt(1));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT '{\"k\": [1, 2]}'::jsonb -> 'k' -> 0, CAST('[3]' AS json)")) {
                assertTrue(r.next());
                assertEquals("1", r.getString(1));
                assertEquals("[3]", r.getString(2));
            }
            assertEquals("22P02", assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT '{bad'::jsonb")).getSQLState());
            try (ResultSet r = s.executeQuery("SELECT '[\"a\", \"b\"]'::json ->> id, '{\"1\": 7}'::json -> id::text FROM "
                    + t + " WHERE id = 1")) {
                assertTrue(r.next());
                assertEquals("b", r.getString(1), "an integer expression is an index, as in PostgreSQL");
                assertEquals("7", r.getString(2), "a text expression is a key");
            }
        }
    }

    @Test
    void shouldReadTypedTimestampLiteralsInPostgresqlsForms() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT TIMESTAMP '2024-01-01 10:00', timestamp '2024-01-02', "
                    + "TIMESTAMP '2024-01-03T04:05:06.5', DATE '2024-02-29', 'timestamp ''x''' AS t")) {
                assertTrue(r.next());
                assertEquals(Timestamp.valueOf("2024-01-01 10:00:00"), r.getTimestamp(1));
                assertEquals(Timestamp.valueOf("2024-01-02 00:00:00"), r.getTimestamp(2));
                assertEquals(Timestamp.valueOf("2024-01-03 04:05:06.5"), r.getTimestamp(3));
                assertEquals(Date.valueOf("2024-02-29"), r.getDate(4));
                assertEquals("timestamp 'x'", r.getString(5), "a typed literal's words inside a string stay text");
            }
            final SQLException bad = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT TIMESTAMP '2024-13-01 10:00'"));
            assertTrue(bad.getSQLState().startsWith("22"), bad.getSQLState() + " " + bad.getMessage());
        }
    }

    @Test
    void shouldReadIntervalsOfSeveralFieldsAsPostgresqlDoes() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT TIMESTAMP '2024-01-15 10:00:00' + interval '1 day 2 hours 30 minutes', "
                    + "TIMESTAMP '2024-01-15 10:00:00' - INTERVAL '1 day 02:00:00', "
                    + "DATE '2024-01-31' + interval '1 year 1 month', "
                    + "TIMESTAMP '2024-01-15 10:00:00' + '90 minutes'::interval, "
                    + "TIMESTAMP '2024-01-15 10:00:00' + interval '1.5 hours', "
                    + "TIMESTAMP '2024-01-15 10:00:00' + interval '-1 day 12 hours', "
                    + "TIMESTAMP '2024-01-15 10:00:00' + interval '150 minutes'")) {
                assertTrue(r.next());
                assertEquals(Timestamp.valueOf("2024-01-16 12:30:00"), r.getTimestamp(1));
                assertEquals(Timestamp.valueOf("2024-01-14 08:00:00"), r.getTimestamp(2));
                assertEquals(Date.valueOf("2025-02-28"), r.getDate(3));
                assertEquals(Timestamp.valueOf("2024-01-15 11:30:00"), r.getTimestamp(4));
                assertEquals(Timestamp.valueOf("2024-01-15 11:30:00"), r.getTimestamp(5));
                assertEquals(Timestamp.valueOf("2024-01-14 22:00:00"), r.getTimestamp(6));
                assertEquals(Timestamp.valueOf("2024-01-15 12:30:00"), r.getTimestamp(7));
            }
            final SQLException mixed = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT TIMESTAMP '2024-01-15 10:00:00' + interval '1 month 2 days'"));
            assertEquals("0A000", mixed.getSQLState(), mixed.getMessage());
        }
    }

    @Test
    void shouldRollBackAFailedTransactionBlockAndRefuseStatementsUntilThen() throws SQLException {
        try (Connection c = db.connectPg()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, n INTEGER");
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + t + " VALUES (1, 1)");
                assertThrows(SQLException.class, () -> s.executeQuery("SELECT 1 / 0"));
                final SQLException e = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO " + t + " VALUES (2, 2)"));
                assertEquals("25P02", e.getSQLState());
                c.rollback();
                try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + t)) {
                    assertTrue(r.next());
                    assertEquals(0, r.getLong(1));
                }
                s.executeUpdate("INSERT INTO " + t + " VALUES (3, 3)");
                c.commit();
            }
            c.setAutoCommit(true);
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT n FROM " + t)) {
                assertTrue(r.next());
                assertEquals(3, r.getInt(1));
                assertFalse(r.next());
            }
        }
    }

    @Test
    void shouldAbortTheLoserOfAWriteConflictWithSerializationFailure() throws SQLException {
        try (Connection a = db.connectPg(); Connection b = db.connectPg()) {
            final String t = newTable(a, "id INTEGER PRIMARY KEY, n INTEGER");
            try (Statement s = a.createStatement()) {
                s.executeUpdate("INSERT INTO " + t + " VALUES (1, 0)");
            }
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                readN(sa, t);
                readN(sb, t);
                sa.executeUpdate("UPDATE " + t + " SET n = n + 1 WHERE id = 1");
                sb.executeUpdate("UPDATE " + t + " SET n = n + 10 WHERE id = 1");
                a.commit();
                final SQLException e = assertThrows(SQLException.class, b::commit);
                assertEquals("40001", e.getSQLState());
                b.rollback();
                assertEquals(1, readN(sb, t));
                b.commit();
            }
        }
    }

    /**
     * COMMIT of an in-process transaction waits for meld without holding a thread, and the connection's later
     * messages wait for its answer: many clients committing conflicting and non-conflicting transfers in
     * prepared, pipelined round trips must see every outcome in order, and the sum must hold.
     */
    @Test
    @Timeout(120)
    void shouldAnswerEveryCommitInOrderWhenManyClientsCommitAtOnce() throws Exception {
        final String t;
        try (Connection c = db.connectPg()) {
            t = newTable(c, "id INTEGER PRIMARY KEY, n BIGINT NOT NULL");
            try (Statement s = c.createStatement()) {
                for (int i = 0; i < 8; i++) {
                    s.executeUpdate("INSERT INTO " + t + " VALUES (" + i + ", 1000)");
                }
            }
        }
        final AtomicInteger committed = new AtomicInteger();
        final AtomicInteger aborted = new AtomicInteger();
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<Thread> clients = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            final int client = k;
            clients.add(new Thread(() -> {
                try (Connection c = db.connectPg()) {
                    c.setAutoCommit(false);
                    try (PreparedStatement move = c.prepareStatement("UPDATE " + t + " SET n = n + ? WHERE id = ?");
                         PreparedStatement read = c.prepareStatement("SELECT n FROM " + t + " WHERE id = ?")) {
                        for (int i = 0; i < 150; i++) {
                            final int from = (client + i) % 8;
                            final int to = (from + 1 + i % 7) % 8;
                            try {
                                move.setLong(1, -1);
                                move.setInt(2, from);
                                assertEquals(1, move.executeUpdate());
                                move.setLong(1, 1);
                                move.setInt(2, to);
                                assertEquals(1, move.executeUpdate());
                                read.setInt(1, from);
                                try (ResultSet r = read.executeQuery()) {
                                    assertTrue(r.next());
                                }
                                c.commit();
                                committed.incrementAndGet();
                            } catch (SQLException e) {
                                if (!"40001".equals(e.getSQLState())) {
                                    throw e;
                                }
                                c.rollback();
                                aborted.incrementAndGet();
                            }
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        clients.forEach(Thread::start);
        for (Thread c : clients) {
            c.join();
        }
        assertTrue(failures.isEmpty(), () -> "clients failed: " + failures);
        assertEquals(600, committed.get() + aborted.get());
        assertTrue(committed.get() > 0);
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT SUM(n), COUNT(*) FROM " + t)) {
            assertTrue(r.next());
            assertEquals(8000, r.getLong(1));
            assertEquals(8, r.getLong(2));
        }
    }

    private static int readN(final Statement s, final String t) throws SQLException {
        try (ResultSet r = s.executeQuery("SELECT n FROM " + t + " WHERE id = 1")) {
            assertTrue(r.next());
            return r.getInt(1);
        }
    }

    @Test
    void shouldStreamALargeResultInFetchSizedChunksThroughPortalSuspension() throws SQLException {
        try (Connection c = db.connectPg()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY, pad VARCHAR(100)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?, ?)")) {
                for (int i = 0; i < 2000; i++) {
                    p.setInt(1, i);
                    p.setString(2, "x".repeat(50));
                    p.addBatch();
                }
                final int[] counts = p.executeBatch();
                assertEquals(2000, counts.length);
            }
            c.setAutoCommit(false); // pgjdbc fetches with a row limit only inside a transaction
            try (Statement s = c.createStatement()) {
                s.setFetchSize(100);
                int n = 0;
                long sum = 0;
                try (ResultSet r = s.executeQuery("SELECT id FROM " + t + " ORDER BY id")) {
                    while (r.next()) {
                        sum += r.getInt(1);
                        n++;
                    }
                }
                assertEquals(2000, n);
                assertEquals(1999L * 2000 / 2, sum);
            }
            c.commit();
        }
    }

    @Test
    void shouldAnswerSessionStatementsAndMetadataThatDriversSend() throws SQLException {
        try (Connection c = db.connectPg()) {
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            assertEquals(Connection.TRANSACTION_REPEATABLE_READ, c.getTransactionIsolation());
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
            try (Statement s = c.createStatement()) {
                s.execute("SET application_name = 'meld-test'");
                try (ResultSet r = s.executeQuery("SHOW application_name")) {
                    assertTrue(r.next());
                    assertEquals("meld-test", r.getString(1));
                }
                final SQLException e = assertThrows(SQLException.class, () -> s.execute("SET no_such_thing = 1"));
                assertEquals("42704", e.getSQLState());
                s.execute("VACUUM");
                s.execute("ANALYZE");
            }
            assertTrue(c.getMetaData().getDatabaseProductVersion().startsWith("15"));
        }
    }

    @Test
    void shouldRefuseWritesInAReadOnlyTransaction() throws SQLException {
        try (Connection c = db.connectPg()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY");
            c.setAutoCommit(false);
            c.setReadOnly(true);
            try (Statement s = c.createStatement()) {
                try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + t)) {
                    assertTrue(r.next());
                }
                final SQLException e = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO " + t + " VALUES (1)"));
                assertEquals("25006", e.getSQLState());
            }
            c.rollback();
        }
    }

    @Test
    void shouldApplyABatchOfUpdatesAtomically() throws SQLException {
        try (Connection c = db.connectPg()) {
            final String t = newTable(c, "id INTEGER PRIMARY KEY");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?)")) {
                for (int id : new int[] {1, 2, 1}) { // the third is a duplicate key
                    p.setInt(1, id);
                    p.addBatch();
                }
                assertThrows(SQLException.class, p::executeBatch);
            }
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + t)) {
                assertTrue(r.next());
                assertEquals(0, r.getLong(1), "a batch is one implicit transaction, as in PostgreSQL");
            }
        }
    }

    @Test
    void shouldRunManyConnectionsAtOnce() throws Exception {
        final String t;
        try (Connection c = db.connectPg()) {
            t = newTable(c, "id INTEGER PRIMARY KEY, n INTEGER");
        }
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int w = 0; w < 8; w++) {
            final int base = w * 100;
            threads.add(new Thread(() -> {
                try (Connection c = db.connectPg();
                     PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?, ?)")) {
                    for (int i = 0; i < 50; i++) {
                        p.setInt(1, base + i);
                        p.setInt(2, i);
                        p.executeUpdate();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread th : threads) {
            th.join();
        }
        assertTrue(errors.isEmpty(), () -> "errors: " + errors);
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*), SUM(n) FROM " + t)) {
            assertTrue(r.next());
            assertEquals(400, r.getLong(1));
            assertEquals(8 * 49 * 50 / 2, r.getLong(2));
        }
    }

    /** Simple queries and unnamed statements reuse their plans by SQL text; a DDL in between plans them anew. */
    @ParameterizedTest
    @ValueSource(strings = {"preferQueryMode=simple", "prepareThreshold=0"})
    void shouldPlanAgainWhenTheTableChangesUnderACachedPlan(final String mode) throws SQLException {
        try (Connection c = db.connectPg(mode); Statement s = c.createStatement()) {
            final String t = "PC" + TABLES.incrementAndGet();
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, a VARCHAR(5))");
            s.execute("INSERT INTO " + t + " VALUES (1, 'x')");
            final String query = "SELECT * FROM " + t + " WHERE id >= 0";
            for (int i = 0; i < 3; i++) {
                try (ResultSet r = s.executeQuery(query)) {
                    assertEquals(2, r.getMetaData().getColumnCount());
                    assertTrue(r.next());
                    assertEquals("x", r.getString(2));
                }
            }
            s.execute("DROP TABLE " + t);
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, b INTEGER, c INTEGER)");
            s.execute("INSERT INTO " + t + " VALUES (1, 2, 3)");
            try (ResultSet r = s.executeQuery(query)) {
                assertEquals(3, r.getMetaData().getColumnCount());
                assertTrue(r.next());
                assertEquals(3, r.getInt(3));
            }
        }
    }

    @Test
    void shouldReturnNullForAnEmptyResultColumnValue() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT CAST(NULL AS INTEGER)")) {
            assertTrue(r.next());
            assertNull(r.getObject(1));
        }
    }
}
