package io.meldb.sql.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code INSERT ... ON CONFLICT} with PostgreSQL's semantics over both front ends: DO NOTHING (with a target, with
 * none, duplicates inside one statement), DO UPDATE with EXCLUDED, the target's name or alias and a WHERE, ON
 * CONSTRAINT, INSERT ... SELECT, prepared statements and RETURNING; the error cases (42P10, 42704, 21000, 42601,
 * 42703, 428C9, 0A000); and two connections racing an upsert of one key, which end as serial execution would.
 */
class UpsertTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void doNothingSkipsConflictingRowsAndCountsTheInsertedOnes(final String protocol) throws SQLException {
        final String t = "ups_dn_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, code VARCHAR(10) UNIQUE, n INTEGER)");
            s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a', 1)");
            assertEquals(0, s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'z', 9) ON CONFLICT (id) DO NOTHING"));
            assertEquals(1, s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'z', 9), (2, 'b', 2) "
                    + "ON CONFLICT (id) DO NOTHING"));
            assertEquals(1, s.executeUpdate("INSERT INTO " + t + " VALUES (3, 'c', 3), (3, 'd', 4) "
                    + "ON CONFLICT DO NOTHING;"), "the second row conflicts with the first");
            assertEquals(0, s.executeUpdate("INSERT INTO " + t + " (id, code, n) VALUES (4, 'a', 4) "
                    + "ON CONFLICT DO NOTHING"), "no target: the unique code conflicts");
            assertEquals(0, s.executeUpdate("INSERT INTO " + t + " VALUES (5, 'b', 5) ON CONFLICT (code) DO NOTHING"));
            assertEquals(1, s.executeUpdate("INSERT INTO " + t + " VALUES (6, NULL, 6) ON CONFLICT (code) DO NOTHING"),
                    "NULL conflicts with nothing");
            assertEquals("23505", failure(s, "INSERT INTO " + t + " VALUES (7, 'a', 7) ON CONFLICT (id) DO NOTHING")
                    .getSQLState(), "a conflict on another constraint than the target is still an error");
            assertEquals(3, s.executeUpdate("INSERT INTO " + t + " SELECT id + 10, code || 'x', n FROM " + t
                    + " WHERE id <= 3 ON CONFLICT ON CONSTRAINT " + t + "_code_key DO NOTHING"));
            assertEquals(0, s.executeUpdate("INSERT INTO " + t + " SELECT id, code, n FROM " + t
                    + " ON CONFLICT ON CONSTRAINT " + t + "_pkey DO NOTHING"));
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?, ?, ?) "
                    + "ON CONFLICT (id) DO NOTHING")) {
                p.setInt(1, 2);
                p.setString(2, "q");
                p.setInt(3, 0);
                assertEquals(0, p.executeUpdate());
                p.setInt(1, 8);
                assertEquals(1, p.executeUpdate());
            }
            assertEquals(List.of("1:a:1", "2:b:2", "3:c:3", "6:null:6", "8:q:0", "11:ax:1", "12:bx:2", "13:cx:3"),
                    rows(s, "SELECT id, code, n FROM " + t + " ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void doUpdateSetsTheExistingRowFromExcludedAndItsOwnValues(final String protocol) throws SQLException {
        final String t = "ups_du_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, name VARCHAR(10), n INTEGER NOT NULL, "
                    + "d DATE, ts TIMESTAMP)");
            assertEquals(2, s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'a', 1, DATE '2024-02-29', "
                    + "TIMESTAMP '2024-01-01 10:00:00'), (2, 'b', 2, NULL, NULL) "
                    + "ON CONFLICT (id) DO UPDATE SET n = " + t + ".n + EXCLUDED.n"));
            assertEquals(2, s.executeUpdate("INSERT INTO " + t + " VALUES (1, 'x', 10, DATE '2025-03-01', "
                    + "TIMESTAMP '2025-01-01 11:30:00'), (3, 'c', 3, NULL, NULL) "
                    + "ON CONFLICT (id) DO UPDATE SET n = " + t + ".n + EXCLUDED.n, name = upper(excluded.name), "
                    + "d = EXCLUDED.d, ts = excluded.ts"));
            assertEquals(1, s.executeUpdate("INSERT INTO " + t + " AS old VALUES (2, 'y', 5, NULL, NULL) "
                    + "ON CONFLICT (id) DO UPDATE SET n = old.n * 100 WHERE old.n < excluded.n"));
            assertEquals(0, s.executeUpdate("INSERT INTO " + t + " AS old VALUES (2, 'y', 5, NULL, NULL) "
                    + "ON CONFLICT (id) DO UPDATE SET n = 0 WHERE old.n < excluded.n"), "WHERE false: no change");
            assertEquals(1, s.executeUpdate("INSERT INTO " + t + " (id, n) VALUES (3, 7) "
                    + "ON CONFLICT ON CONSTRAINT " + t + "_pkey DO UPDATE SET name = EXCLUDED.name, n = n + 1"),
                    "an omitted column is NULL in EXCLUDED; an unqualified column is the existing row's");
            assertEquals(2, s.executeUpdate("INSERT INTO " + t + " (id, n) SELECT id, n FROM " + t
                    + " WHERE id >= 2 ON CONFLICT (id) DO UPDATE SET n = -excluded.n"), "INSERT ... SELECT");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " (id, name, n) VALUES (?, ?, ?) "
                    + "ON CONFLICT (id) DO UPDATE SET name = excluded.name")) {
                p.setInt(1, 1);
                p.setString(2, "p");
                p.setInt(3, 0);
                assertEquals(1, p.executeUpdate());
                p.setInt(1, 4);
                assertEquals(1, p.executeUpdate());
            }
            assertEquals(List.of("1:p:11:2025-03-01", "2:b:-200:null", "3:null:-4:null", "4:p:0:null"),
                    rows(s, "SELECT id, name, n, d FROM " + t + " ORDER BY id"));
            assertEquals(List.of("1"), rows(s, "SELECT id FROM " + t + " WHERE ts = TIMESTAMP '2025-01-01 11:30:00'"));
        }
    }

    @Test
    void uniqueTargetsTablesWithoutPrimaryKeyAndReturning() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ups_ret (id BIGSERIAL PRIMARY KEY, email VARCHAR(20) NOT NULL UNIQUE, "
                    + "visits INTEGER DEFAULT 1)");
            final List<String> first = rows(s, "INSERT INTO ups_ret (email) VALUES ('a@x'), ('b@x') "
                    + "ON CONFLICT (email) DO UPDATE SET visits = ups_ret.visits + 1 RETURNING id, email, visits");
            assertEquals(List.of("1:a@x:1", "2:b@x:1"), first);
            assertEquals(List.of("1:a@x:2"), rows(s, "INSERT INTO ups_ret (email) VALUES ('a@x') "
                    + "ON CONFLICT (email) DO UPDATE SET visits = ups_ret.visits + 1 RETURNING *"));
            assertEquals(List.of(), rows(s, "INSERT INTO ups_ret (email) VALUES ('b@x') "
                    + "ON CONFLICT (email) DO NOTHING RETURNING id"), "a skipped row is not returned");
            // a table keyed by a hidden row id, its conflict target a composite UNIQUE constraint
            s.execute("CREATE TABLE ups_norow (a INTEGER, b VARCHAR(5), n INTEGER, UNIQUE (b, a))");
            assertEquals(2, s.executeUpdate("INSERT INTO ups_norow VALUES (1, 'x', 1), (1, 'y', 1) "
                    + "ON CONFLICT (a, b) DO UPDATE SET n = ups_norow.n + 1"));
            assertEquals(1, s.executeUpdate("INSERT INTO ups_norow VALUES (1, 'x', 1) "
                    + "ON CONFLICT (a, b) DO UPDATE SET n = ups_norow.n + 1"));
            assertEquals(List.of("1:x:2", "1:y:1"), rows(s, "SELECT a, b, n FROM ups_norow ORDER BY b"));
            assertEquals("42P10", failure(s, "INSERT INTO ups_norow VALUES (1, 'x', 1) ON CONFLICT (a) DO NOTHING")
                    .getSQLState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void refusesWhatPostgresRefusesWithItsSqlStates(final String protocol) throws SQLException {
        final String t = "ups_err_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, code INTEGER, n INTEGER, "
                    + "g INTEGER GENERATED ALWAYS AS IDENTITY)");
            s.execute("CREATE INDEX " + t + "_code ON " + t + " (code)");
            s.executeUpdate("INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1)");
            assertEquals("42P10", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT (code) DO NOTHING").getSQLState(), "a plain index is no arbiter");
            assertEquals("42P10", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT (id, code) DO NOTHING").getSQLState());
            assertEquals("42704", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT ON CONSTRAINT nope DO NOTHING").getSQLState());
            assertEquals("42601", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT DO UPDATE SET n = 2").getSQLState(), "DO UPDATE needs a target");
            assertEquals("42601", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT (id) DO SOMETHING").getSQLState());
            assertEquals("42703", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT (id) DO UPDATE SET nope = 2").getSQLState());
            assertEquals("42703", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT (id) DO UPDATE SET n = excluded.nope").getSQLState());
            assertEquals("428C9", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT (id) DO UPDATE SET g = 5").getSQLState());
            assertEquals("0A000", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1) "
                    + "ON CONFLICT (id) DO UPDATE SET (code, n) = (2, 2)").getSQLState());
            final SQLException twice = failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (5, 1, 1), (5, 2, 2) "
                    + "ON CONFLICT (id) DO UPDATE SET n = excluded.n");
            assertEquals("21000", twice.getSQLState());
            assertTrue(twice.getMessage().contains("cannot affect row a second time"), twice.getMessage());
            assertEquals("21000", failure(s, "INSERT INTO " + t + " (id, code, n) VALUES (1, 1, 1), (1, 2, 2) "
                    + "ON CONFLICT (id) DO UPDATE SET n = excluded.n").getSQLState(), "an existing row twice too");
            assertEquals(List.of("1:1:1"), rows(s, "SELECT id, code, n FROM " + t + " ORDER BY id"),
                    "failed statements changed nothing");
        }
    }

    @Test
    void parametersInTheConflictClauseAreRefusedClearly() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ups_par (id INTEGER PRIMARY KEY, n INTEGER)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO ups_par VALUES (?, 1) "
                    + "ON CONFLICT (id) DO UPDATE SET n = ?")) {
                p.setInt(1, 1);
                p.setInt(2, 2);
                assertEquals("0A000", assertThrows(SQLException.class, p::executeUpdate).getSQLState());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void twoOpenTransactionsUpsertingOneKeyEndAsSerialExecutionWould(final String protocol) throws SQLException {
        final String t = "ups_race_" + protocol;
        final String upsert = "INSERT INTO " + t + " VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = " + t
                + ".n + EXCLUDED.n";
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INTEGER PRIMARY KEY, n INTEGER)");
        }
        try (Connection a = Conformance.connect(db, protocol); Connection b = Conformance.connect(db, protocol);
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            b.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ); // snapshot isolation conflicts too
            assertEquals(1, sa.executeUpdate(upsert)); // both insert: neither sees the other's row
            assertEquals(1, sb.executeUpdate(upsert));
            a.commit();
            assertEquals("40001", assertThrows(SQLException.class, b::commit).getSQLState());
            b.rollback();
            assertEquals(1, sb.executeUpdate(upsert), "retried, it updates the committed row");
            b.commit();
        }
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("1:2"), rows(s, "SELECT id, n FROM " + t));
        }
    }

    @Test
    void concurrentUpsertCountersWithRetriesLoseNoIncrement() throws Exception {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ups_counter (k INTEGER PRIMARY KEY, n BIGINT)");
        }
        final int threads = 4;
        final int each = 25;
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            final List<Future<Integer>> retries = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                final String protocol = i % 2 == 0 ? Conformance.PG : Conformance.MELD;
                retries.add(pool.submit(() -> {
                    int aborted = 0;
                    try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
                        for (int j = 0; j < each; j++) {
                            while (true) {
                                try {
                                    s.executeUpdate("INSERT INTO ups_counter VALUES (" + (j % 3) + ", 1) "
                                            + "ON CONFLICT (k) DO UPDATE SET n = ups_counter.n + 1");
                                    break;
                                } catch (SQLException e) {
                                    assertEquals("40001", e.getSQLState(), e.getMessage());
                                    aborted++;
                                }
                            }
                        }
                    }
                    return aborted;
                }));
            }
            for (Future<Integer> f : retries) {
                f.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = db.connectPg(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT SUM(n), COUNT(*) FROM ups_counter")) {
            assertTrue(r.next());
            assertEquals(threads * each, r.getLong(1), "every committed upsert counted once");
            assertEquals(3, r.getInt(2));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void doUpdateWorksOverTheNewTypesAndRefusesTheZonedOnes(final String protocol) throws SQLException {
        final String t = "ups_ty_" + protocol;
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id UUID PRIMARY KEY, note TEXT, r REAL, b BYTEA, ts TIMESTAMPTZ)");
            s.executeUpdate("INSERT INTO " + t + " (id, note, r) VALUES "
                    + "('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'one', 1.5)");
            assertEquals(1, s.executeUpdate("INSERT INTO " + t + " (id, note, r) VALUES "
                    + "('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'two', 2.25) "
                    + "ON CONFLICT (id) DO UPDATE SET note = " + t + ".note || '+' || EXCLUDED.note, r = EXCLUDED.r"));
            assertEquals(List.of("one+two|2.25"), rows(s, "SELECT note || '|' || CAST(r AS VARCHAR) FROM " + t));
            assertEquals("0A000", failure(s, "INSERT INTO " + t + " (id, ts) VALUES "
                    + "('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', NULL) "
                    + "ON CONFLICT (id) DO UPDATE SET ts = EXCLUDED.ts").getSQLState());
        }
    }
}
