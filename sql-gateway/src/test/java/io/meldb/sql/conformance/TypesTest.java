package io.meldb.sql.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

import java.io.StringReader;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The column types beyond SQL-92's core (REAL, FLOAT(p), TIME, TIMESTAMPTZ, TEXT, BYTEA/VARBINARY, UUID,
 * JSON/JSONB) and NUMERIC(p, s) enforcement, over pgjdbc and MeldDB's driver: drivers read them as their native
 * types, every one but JSON can be a key and keeps its order, and bad values fail with PostgreSQL's SQLStates.
 */
class TypesTest extends ConformanceTest {
    private static final UUID U1 = UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    private static final Instant WHEN = OffsetDateTime.parse("2020-05-05T10:00:00.250+03:00").toInstant();

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void everyNewTypeStoresAndReadsBackAsTheDriversNativeType(final String protocol) throws Exception {
        final String t = "types_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, r REAL, f4 FLOAT(10), f8 FLOAT(40), tm TIME, "
                    + "tz TIMESTAMP WITH TIME ZONE, tx TEXT, b BYTEA, vb VARBINARY(20), u UUID, j JSONB)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                    + "?, ?)")) {
                p.setInt(1, 1);
                p.setFloat(2, 1.25f);
                p.setFloat(3, 0.1f);
                p.setDouble(4, 0.1);
                p.setString(5, "10:11:12.345");
                p.setTimestamp(6, Timestamp.from(WHEN));
                p.setString(7, "x".repeat(100_000));
                p.setBytes(8, new byte[] {0, 1, (byte) 0xFF});
                p.setBytes(9, new byte[] {7});
                p.setString(10, U1.toString());
                p.setString(11, "{\"a\": [1, 2.5, null]}");
                assertEquals(1, p.executeUpdate());
            }
            try (ResultSet r = s.executeQuery("SELECT r, f4, f8, tm, tz, tx, b, vb, u, j FROM " + t)) {
                assertTrue(r.next());
                assertEquals(1.25f, assertInstanceOf(Float.class, r.getObject(1)));
                assertInstanceOf(Float.class, r.getObject(2));
                assertEquals(0.1, assertInstanceOf(Double.class, r.getObject(3)));
                assertEquals(WHEN.toEpochMilli(), r.getTimestamp(5).getTime());
                assertEquals(100_000, r.getString(6).length());
                assertArrayEquals(new byte[] {0, 1, (byte) 0xFF}, r.getBytes(7));
                assertArrayEquals(new byte[] {7}, r.getBytes(8));
                assertEquals("{\"a\": [1, 2.5, null]}", r.getString(10));
                if (protocol.equals(Conformance.PG)) {
                    assertEquals(LocalTime.parse("10:11:12.345"), r.getObject(4, LocalTime.class));
                    assertEquals(WHEN, r.getObject(5, OffsetDateTime.class).toInstant());
                    assertEquals(U1, assertInstanceOf(UUID.class, r.getObject(9)));
                } else {
                    assertEquals(LocalTime.parse("10:11:12.345").toNanoOfDay() / 1_000_000,
                            Math.floorMod(r.getTime(4).getTime(), 86_400_000L));
                    assertEquals(U1.toString(), r.getString(9));
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void everyNewTypeButJsonIsAKeyThatKeepsItsOrder(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final String[][] cases = {
                {"REAL", "'-1.5'", "'-0.25'", "'3'", "'1e30'"},
                {"TIME", "'00:00:00'", "'09:30:00.5'", "'12:00:00'", "'23:59:59.999'"},
                {"TEXT", "''", "'a'", "'ab'", "'b'"},
                {"UUID", "'00000000-0000-0000-0000-000000000001'", "'7fffffff-0000-0000-0000-000000000000'",
                    "'80000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'"},
                {"BYTEA", "X''", "X'00'", "X'0001'", "X'FF'"},
            };
            for (String[] k : cases) {
                final String t = "key_" + k[0].toLowerCase(java.util.Locale.ROOT) + "_" + protocol;
                s.execute("CREATE TABLE " + t + " (k " + k[0] + " PRIMARY KEY, n INT)");
                for (int i : new int[] {3, 1, 4, 2}) {
                    s.execute("INSERT INTO " + t + " VALUES (" + k[i] + ", " + i + ")");
                }
                assertEquals(List.of("1", "2", "3", "4"), rows(s, "SELECT n FROM " + t + " ORDER BY k"), k[0]);
                assertEquals(List.of("3"), rows(s, "SELECT n FROM " + t + " WHERE k = " + k[3]), k[0]);
                assertEquals("23505", failure(s, "INSERT INTO " + t + " VALUES (" + k[2] + ", 9)").getSQLState(),
                        k[0]);
            }
            s.execute("CREATE TABLE key_tz_" + protocol + " (k TIMESTAMPTZ PRIMARY KEY, n INT)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO key_tz_" + protocol + " VALUES (?, ?)")) {
                for (int i : new int[] {3, 1, 2}) {
                    p.setTimestamp(1, Timestamp.from(WHEN.plusSeconds(i * 3600L)));
                    p.setInt(2, i);
                    p.executeUpdate();
                }
            }
            assertEquals(List.of("1", "2", "3"), rows(s, "SELECT n FROM key_tz_" + protocol + " ORDER BY k"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void jsonIsCheckedOnWriteAndCannotBeAKey(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE json_" + protocol + " (id INT PRIMARY KEY, j JSON)");
            s.execute("INSERT INTO json_" + protocol + " VALUES (1, '{\"k\": \"v\"}')");
            assertEquals("22P02", failure(s, "INSERT INTO json_" + protocol + " VALUES (2, '[1')").getSQLState());
            assertEquals("22P02", failure(s, "UPDATE json_" + protocol + " SET j = '{bad' WHERE id = 1")
                    .getSQLState());
            assertEquals(List.of("{\"k\": \"v\"}"), rows(s, "SELECT j FROM json_" + protocol));
            assertEquals(List.of("v"), rows(s, "SELECT JSON_VALUE(j, '$.k') FROM json_" + protocol),
                    "Calcite's SQL/JSON functions read the stored text");
            assertEquals("42704", failure(s, "CREATE TABLE json_key_" + protocol + " (j JSONB PRIMARY KEY)")
                    .getSQLState());
            assertEquals("42704", failure(s, "CREATE INDEX json_ix_" + protocol + " ON json_" + protocol + " (j)")
                    .getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void numericRoundsToItsScaleAndRefusesTooManyIntegerDigits(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final String t = "num_" + protocol;
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, n NUMERIC(5, 2))");
            s.execute("INSERT INTO " + t + " VALUES (1, 123.455)");
            s.execute("INSERT INTO " + t + " SELECT 2, -123.455 FROM " + t + " WHERE id = 1");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?, ?)")) {
                p.setInt(1, 3);
                p.setBigDecimal(2, new BigDecimal("0.005"));
                p.executeUpdate();
                p.setInt(1, 4);
                p.setBigDecimal(2, new BigDecimal("999.995"));
                assertEquals("22003", assertThrowsSql(p).getSQLState());
            }
            assertEquals(List.of("1:123.46", "2:-123.46", "3:0.01"), rows(s, "SELECT id, n FROM " + t + " ORDER BY id"));
            assertEquals("22003", failure(s, "INSERT INTO " + t + " VALUES (5, 1234.5)").getSQLState());
            assertEquals(List.of("123.46"), rows(s, "SELECT CAST(123.455 AS NUMERIC(5, 2))"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void badTextForANewTypeIsInvalidInputSyntax(final String protocol) throws Exception {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final String t = "bad_" + protocol;
            s.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY, u UUID, tm TIME, r REAL)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " (id, u, tm, r) VALUES (?, ?, ?, ?)")) {
                p.setInt(1, 1);
                p.setString(2, "not-a-uuid");
                p.setString(3, "12:00:00");
                p.setFloat(4, 1f);
                assertEquals("22P02", assertThrowsSql(p).getSQLState());
                p.setString(2, U1.toString());
                p.setString(3, "25:00:00");
                assertTrue(assertThrowsSql(p).getSQLState().startsWith("22"));
                p.setString(3, "12:00:00");
                p.setDouble(4, 1e300);
                assertEquals("22003", assertThrowsSql(p).getSQLState());
            }
            assertEquals("22003", failure(s, "INSERT INTO " + t + " (id, r) VALUES (2, 1e300)").getSQLState());
        }
    }

    @Test
    void catalogsNameTheTypesAsPostgresqlDoes() throws Exception {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cat_types (id INT PRIMARY KEY, a REAL, b FLOAT(30), c TIME, d TIMESTAMPTZ, "
                    + "e TEXT, f BYTEA, g UUID, h JSONB)");
            assertEquals(List.of("id:integer:int4", "a:real:float4", "b:double precision:float8",
                    "c:time without time zone:time", "d:timestamp with time zone:timestamptz", "e:text:text",
                    "f:bytea:bytea", "g:uuid:uuid", "h:jsonb:jsonb"),
                    rows(s, "SELECT column_name, data_type, udt_name FROM information_schema.columns "
                            + "WHERE table_name = 'cat_types' ORDER BY ordinal_position"));
            assertEquals(List.of("bytea:-1", "json:-1", "timestamptz:8", "uuid:16"), rows(s,
                    "SELECT typname, typlen FROM pg_catalog.pg_type WHERE oid IN (2950, 114, 17, 1184) ORDER BY oid"));
        }
    }

    @Test
    void timestampWithTimeZoneIsShownInTheSessionTimeZone() throws Exception {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE tz_show (id INT PRIMARY KEY, z TIMESTAMPTZ)");
            s.execute("INSERT INTO tz_show VALUES (1, '2021-06-01 00:00:00+00')");
            s.execute("SET TimeZone = 'Asia/Kolkata'");
            assertEquals(List.of("2021-06-01 05:30:00+05:30"), rows(s, "SELECT z FROM tz_show"));
            s.execute("SET TimeZone = 'UTC'");
            assertEquals(List.of("2021-06-01 00:00:00+00"), rows(s, "SELECT z FROM tz_show"));
        }
    }

    @Test
    void copyReadsEveryNewType() throws Exception {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE copy_types (id INT PRIMARY KEY, r REAL, tm TIME, z TIMESTAMPTZ, b BYTEA, u UUID, "
                    + "j JSON)");
            final CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            copy.copyIn("COPY copy_types FROM STDIN", new StringReader("1\t2.5\t10:00:00.5\t2020-01-02 03:04:05+02\t"
                    + "\\\\x00ff\t" + U1 + "\t{\"a\": 1}\n"));
            try (ResultSet r = s.executeQuery("SELECT r, tm, z, b, u, j FROM copy_types")) {
                assertTrue(r.next());
                assertEquals(2.5f, r.getFloat(1));
                assertEquals(LocalTime.parse("10:00:00.5"), r.getObject(2, LocalTime.class));
                assertEquals(Instant.parse("2020-01-02T01:04:05Z"), r.getObject(3, OffsetDateTime.class).toInstant());
                assertArrayEquals(new byte[] {0, (byte) 0xFF}, r.getBytes(4));
                assertEquals(U1, r.getObject(5));
                assertEquals("{\"a\": 1}", r.getString(6));
            }
            final SQLException bad = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> copy.copyIn("COPY copy_types FROM STDIN", new StringReader("2\t1\t10:00\t2020-01-01\t\\\\x00\t"
                            + U1 + "\t{oops\n")));
            assertEquals("22P02", bad.getSQLState());
            assertEquals(List.of("1"), rows(s, "SELECT id FROM copy_types"));
        }
    }

    private static SQLException assertThrowsSql(final PreparedStatement p) {
        return org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, p::executeUpdate);
    }
}
