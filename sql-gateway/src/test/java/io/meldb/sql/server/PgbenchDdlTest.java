package io.meldb.sql.server;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.Keys;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.catalog.TableDefCodec;
import io.meldb.sql.catalog.TableStore;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static io.meldb.sql.server.SqlGatewayTest.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DDL {@code pgbench -i} needs, through both front ends: tables without a primary key (hidden row ids),
 * storage parameters, DROP TABLE of several tables, TRUNCATE, ALTER TABLE ... ADD PRIMARY KEY on a table with
 * rows, and a table entry of the catalog's first encoding read by a running gateway.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PgbenchDdlTest {
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
    void shouldRunPgbenchInitDdlOverThePostgresProtocol() throws SQLException {
        try (Connection c = db.connectPg("preferQueryMode=simple"); Statement s = c.createStatement()) {
            s.execute("drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers");
            s.execute("create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,"
                    + "filler char(22))");
            s.execute("create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) "
                    + "with (fillfactor=100)");
            s.execute("create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) "
                    + "with (fillfactor=100)");
            s.execute("create table pgbench_branches(bid int not null,bbalance int,filler char(88)) "
                    + "with (fillfactor=100)");
            c.setAutoCommit(false);
            s.execute("truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers");
            s.execute("insert into pgbench_branches(bid,bbalance) values(1,0)");
            for (int t = 1; t <= 10; t++) {
                s.execute("insert into pgbench_tellers(tid,bid,tbalance) values (" + t + ",1,0)");
            }
            for (int a = 1; a <= 100; a++) {
                s.execute("insert into pgbench_accounts(aid,bid,abalance,filler) values (" + a + ",1,0,'')");
            }
            c.commit();
            c.setAutoCommit(true);
            s.execute("vacuum analyze pgbench_branches");
            s.execute("alter table pgbench_branches add primary key (bid)");
            s.execute("alter table pgbench_tellers add primary key (tid)");
            s.execute("alter table pgbench_accounts add primary key (aid)");

            assertEquals(List.of("100:5050"), column(s.executeQuery("select count(*), sum(aid) from pgbench_accounts")));
            assertEquals(List.of("1:0"), column(s.executeQuery("select aid, abalance from pgbench_accounts where aid = 1")));
            s.execute("update pgbench_accounts set abalance = abalance + 5 where aid = 7");
            s.execute("insert into pgbench_history (tid, bid, aid, delta, mtime) values (1, 1, 7, 5, "
                    + "CURRENT_TIMESTAMP)");
            assertEquals(List.of("7:5"), column(s.executeQuery("select aid, abalance from pgbench_accounts where aid = 7")));
            assertEquals(List.of("1:1:7:5"), column(s.executeQuery("select tid, bid, aid, delta from pgbench_history")));
            assertEquals("23505", stateOf(() -> s.execute("insert into pgbench_branches values (1, 0, null)")));
            s.execute("drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers");
        }
    }

    @Test
    void shouldHideTheRowIdFromSelectStarAndInsertColumnLists() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE hist (tid INT, delta INT, filler CHAR(4))");
            assertEquals(2, s.executeUpdate("INSERT INTO hist VALUES (1, 10, 'a'), (1, 10, 'a')"), "no row id value");
            assertEquals(1, s.executeUpdate("INSERT INTO hist (delta, tid) SELECT 30, 3 FROM (VALUES (1))"),
                    "through Calcite's plan");
            try (ResultSet rs = s.executeQuery("SELECT * FROM hist")) {
                final ResultSetMetaData md = rs.getMetaData();
                assertEquals(3, md.getColumnCount());
                assertEquals(List.of("tid", "delta", "filler"),
                        List.of(md.getColumnName(1), md.getColumnName(2), md.getColumnName(3)));
            }
            assertEquals(List.of("1:10:a   ", "1:10:a   ", "3:30:null"),
                    column(s.executeQuery("SELECT * FROM hist ORDER BY tid, filler")));

            // identical rows are told apart: UPDATE and DELETE touch as many rows as they match
            assertEquals(2, s.executeUpdate("UPDATE hist SET delta = delta + 1 WHERE tid = 1"));
            assertEquals(List.of("1:11", "1:11", "3:30"), column(s.executeQuery("SELECT tid, delta FROM hist ORDER BY tid")));
            s.execute("CREATE INDEX hist_delta ON hist (delta)");
            assertEquals(List.of("3"), column(s.executeQuery("SELECT tid FROM hist WHERE delta = 30")));
            assertEquals(1, s.executeUpdate("DELETE FROM hist WHERE delta = 30"));
            assertEquals(List.of(), column(s.executeQuery("SELECT tid FROM hist WHERE delta = 30")));
            assertEquals(2, s.executeUpdate("DELETE FROM hist"));
            assertEquals(List.of("0"), column(s.executeQuery("SELECT COUNT(*) FROM hist")));
            s.execute("DROP TABLE hist");
        }
    }

    @Test
    void shouldCommitConcurrentInsertsIntoATableWithoutPrimaryKey() throws SQLException {
        try (Connection a = db.connect(); Connection b = db.connectPg();
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            sa.execute("CREATE TABLE events (who VARCHAR(8), n INT)");
            for (int isolation : new int[] {Connection.TRANSACTION_SERIALIZABLE, Connection.TRANSACTION_REPEATABLE_READ}) {
                a.setAutoCommit(false);
                b.setAutoCommit(false);
                a.setTransactionIsolation(isolation);
                b.setTransactionIsolation(isolation);
                sa.executeUpdate("INSERT INTO events VALUES ('a', " + isolation + ")");
                sb.executeUpdate("INSERT INTO events VALUES ('b', " + isolation + ")");
                sa.executeUpdate("INSERT INTO events VALUES ('a', " + isolation + ")");
                sb.executeUpdate("INSERT INTO events VALUES ('b', " + isolation + ")");
                a.commit();
                b.commit();
                a.setAutoCommit(true);
                b.setAutoCommit(true);
            }
            assertEquals(List.of("a:4", "b:4"),
                    column(sa.executeQuery("SELECT who, COUNT(*) FROM events GROUP BY who ORDER BY who")));
            sa.execute("DROP TABLE events");
        }
    }

    @Test
    void shouldAddAPrimaryKeyToATableWithRows() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE branches (bid INT, bbalance INT, filler CHAR(8)) WITH (fillfactor=100)");
            s.execute("CREATE INDEX branches_balance ON branches (bbalance)");
            s.executeUpdate("INSERT INTO branches VALUES (3, 30, 'c'), (1, 10, 'a'), (2, 20, 'b')");
            s.execute("ALTER TABLE branches ADD PRIMARY KEY (bid)");

            assertEquals(List.of("1:10", "2:20", "3:30"), column(s.executeQuery("SELECT bid, bbalance FROM branches")),
                    "rows now in key order");
            final String plan = String.join("\n",
                    column(s.executeQuery("EXPLAIN PLAN FOR SELECT bbalance FROM branches WHERE bid = 2")));
            assertTrue(plan.contains("range=[bid = 2]"), plan);
            assertEquals(List.of("20"), column(s.executeQuery("SELECT bbalance FROM branches WHERE bid = 2")));
            assertEquals(List.of("3"), column(s.executeQuery("SELECT bid FROM branches WHERE bbalance = 30")),
                    "the index points at the new keys");
            assertEquals("23505", stateOf(() -> s.executeUpdate("INSERT INTO branches VALUES (2, 0, 'x')")));
            assertEquals("23502", stateOf(() -> s.executeUpdate("INSERT INTO branches (bbalance) VALUES (5)")),
                    "a key column is NOT NULL");
            assertEquals("42P16", stateOf(() -> s.execute("ALTER TABLE branches ADD PRIMARY KEY (bbalance)")));
            s.execute("CREATE TABLE keyed (k INT PRIMARY KEY, v INT)");
            assertEquals("42P16", stateOf(() -> s.execute("ALTER TABLE keyed ADD CONSTRAINT keyed_pk PRIMARY KEY (v)")));
            assertEquals(1, s.executeUpdate("UPDATE branches SET bid = 4 WHERE bid = 3"));
            assertEquals(List.of("4"), column(s.executeQuery("SELECT bid FROM branches WHERE bbalance = 30")));
            s.execute("DROP TABLE branches, keyed");
        }
    }

    @Test
    void shouldRefuseAPrimaryKeyOverDuplicatesOrNullsAndLeaveTheTableAsItWas() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE tellers (tid INT, bid INT)");
            s.executeUpdate("INSERT INTO tellers VALUES (1, 1), (2, 1), (1, 2)");
            final SQLException dup = assertThrows(SQLException.class,
                    () -> s.execute("ALTER TABLE tellers ADD CONSTRAINT tellers_pk PRIMARY KEY (tid)"));
            assertEquals("23505", dup.getSQLState());
            // PostgreSQL's words (the key is in its DETAIL, which MeldDB's JDBC front end does not carry)
            assertTrue(dup.getMessage().contains("could not create unique index \"tellers_pk\""), dup.getMessage());
            s.execute("ALTER TABLE tellers ADD PRIMARY KEY (tid, bid)");
            assertEquals(List.of("1:1", "1:2", "2:1"), column(s.executeQuery("SELECT * FROM tellers")));

            s.execute("CREATE TABLE accounts (aid INT, abalance INT)");
            s.executeUpdate("INSERT INTO accounts VALUES (1, 0), (NULL, 0)");
            assertEquals("23502", stateOf(() -> s.execute("ALTER TABLE accounts ADD PRIMARY KEY (aid)")));
            assertEquals("42703", stateOf(() -> s.execute("ALTER TABLE accounts ADD PRIMARY KEY (nope)")));
            assertEquals("42P01", stateOf(() -> s.execute("ALTER TABLE nope ADD PRIMARY KEY (aid)")));
            s.execute("ALTER TABLE IF EXISTS nope ADD PRIMARY KEY (aid)");
            assertEquals(List.of("1:0", "null:0"), column(s.executeQuery("SELECT * FROM accounts ORDER BY aid")),
                    "the failed statement changed nothing");
            assertEquals(1, s.executeUpdate("INSERT INTO accounts VALUES (NULL, 1)"), "still without a key");
            s.execute("DROP TABLE tellers, accounts");
        }
    }

    @Test
    void shouldTruncateSeveralTablesAndInsertAgain() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE tk (k INT PRIMARY KEY, v INT)");
            s.execute("CREATE INDEX tk_v ON tk (v)");
            s.execute("CREATE TABLE tn (v INT)");
            s.executeUpdate("INSERT INTO tk VALUES (1, 10), (2, 20)");
            s.executeUpdate("INSERT INTO tn VALUES (1), (1)");
            s.execute("TRUNCATE tk, tn");
            assertEquals(List.of("0"), column(s.executeQuery("SELECT COUNT(*) FROM tk")));
            assertEquals(List.of("0"), column(s.executeQuery("SELECT COUNT(*) FROM tn")));
            assertEquals(List.of(), column(s.executeQuery("SELECT k FROM tk WHERE v = 10")), "index entries gone");
            s.executeUpdate("INSERT INTO tk VALUES (1, 11)");
            s.executeUpdate("INSERT INTO tn VALUES (7)");
            assertEquals(List.of("1:11"), column(s.executeQuery("SELECT * FROM tk")));
            assertEquals(List.of("1"), column(s.executeQuery("SELECT k FROM tk WHERE v = 11")));
            assertEquals(List.of("7"), column(s.executeQuery("SELECT * FROM tn")));
            assertEquals("42P01", stateOf(() -> s.execute("TRUNCATE TABLE tk, nope")));
            assertEquals(List.of("1"), column(s.executeQuery("SELECT COUNT(*) FROM tk")), "nothing truncated");
            s.execute("DROP TABLE tk, tn");
        }
    }

    @Test
    void shouldDropSeveralTablesOrNoneWhenOneIsMissing() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE d1 (a INT)");
            s.execute("CREATE TABLE IF NOT EXISTS d2 (a INT PRIMARY KEY)");
            s.execute("CREATE TABLE IF NOT EXISTS d2 (a INT PRIMARY KEY)");
            assertEquals("42P01", stateOf(() -> s.execute("DROP TABLE d1, nope, d2")));
            assertEquals(List.of("0"), column(s.executeQuery("SELECT COUNT(*) FROM d1")), "d1 is still there");
            s.execute("DROP TABLE IF EXISTS d1, nope, d2 CASCADE");
            assertEquals("42P01", stateOf(() -> s.executeQuery("SELECT * FROM d1")));
            assertEquals("42P01", stateOf(() -> s.executeQuery("SELECT * FROM d2")));
            s.execute("DROP TABLE IF EXISTS d1, d2 RESTRICT");
        }
    }

    @Test
    void shouldServeATableWhoseCatalogEntryHasTheFirstEncoding() throws SQLException {
        final int id = 900_000;
        final TableDef old = new TableDef("meldb", "public", "legacy", id,
                List.of(new ColumnDef("id", ColumnType.of(SqlType.INTEGER), false),
                        new ColumnDef("name", new ColumnType(SqlType.VARCHAR, 10, 0), true)),
                new int[] {0}, List.of(new IndexDef("legacy_name", id + 1, new int[] {1})));
        final byte[] entry = TableDefCodec.encode(old);
        assertEquals(1, entry[0], "a table with a key is written as version 1 (TableDefCodecTest pins the bytes)");
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS warm (a INT)"); // the catalog exists
            final TxnRouter router = db.gateway.router();
            try (TxnSession txn = router.begin(IsolationLevel.SERIALIZABLE, false)) {
                txn.put(Keys.tableDefKey("meldb", "public", "legacy"), entry);
                new TableStore(old).insert(txn, new Object[] {1, "old"});
                final UUID token = UUID.randomUUID();
                txn.put(Keys.CATALOG_VERSION, java.nio.ByteBuffer.allocate(16)
                        .putLong(token.getMostSignificantBits()).putLong(token.getLeastSignificantBits()).array());
                router.observed(txn.commit());
            }
            s.executeUpdate("INSERT INTO legacy VALUES (2, 'new')");
            assertEquals(List.of("1:old", "2:new"), column(s.executeQuery("SELECT * FROM legacy")));
            assertEquals(List.of("1"), column(s.executeQuery("SELECT id FROM legacy WHERE name = 'old'")));
            assertEquals("42P16", stateOf(() -> s.execute("ALTER TABLE legacy ADD PRIMARY KEY (name)")));
            s.execute("DROP TABLE legacy, warm");
            assertEquals("42P01", stateOf(() -> s.executeQuery("SELECT * FROM legacy")));
        }
    }

    private static String stateOf(final SqlGatewayTest.SqlAction action) {
        return SqlGatewayTest.stateOf(action);
    }
}
