package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.SqlType;
import io.meldb.sql.server.StatementKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The DDL that {@code pgbench -i} (PostgreSQL 15) sends, as {@link DdlParser} reads it. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class DdlParserTest {
    @Test
    void shouldParseDropOfSeveralTables() {
        final Ddl.DropTable d = assertInstanceOf(Ddl.DropTable.class, DdlParser.parse(
                "drop table if exists pgbench_accounts, pgbench_branches, public.pgbench_history, pgbench_tellers"));
        assertTrue(d.ifExists());
        assertEquals(List.of(new Ddl.TableName(null, "pgbench_accounts"), new Ddl.TableName(null, "pgbench_branches"),
                new Ddl.TableName("public", "pgbench_history"), new Ddl.TableName(null, "pgbench_tellers")),
                d.tables());
        assertTrue(assertInstanceOf(Ddl.DropTable.class, DdlParser.parse("DROP TABLE a, b CASCADE")).cascade());
        assertFalse(assertInstanceOf(Ddl.DropTable.class, DdlParser.parse("DROP TABLE a RESTRICT")).cascade());
    }

    @Test
    void shouldParseATableWithoutPrimaryKeyAndPostgresTypeSpellings() {
        final Ddl.CreateTable c = assertInstanceOf(Ddl.CreateTable.class, DdlParser.parse(
                "create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))"));
        assertEquals(0, c.primaryKey().length);
        assertEquals(6, c.columns().size());
        assertEquals(SqlType.INTEGER, c.columns().get(0).type().type());
        assertEquals(SqlType.TIMESTAMP, c.columns().get(4).type().type());
        assertEquals(SqlType.CHAR, c.columns().get(5).type().type());
        assertEquals(22, c.columns().get(5).type().precision());
        final Ddl.CreateTable d = assertInstanceOf(Ddl.CreateTable.class, DdlParser.parse(
                "CREATE TABLE IF NOT EXISTS t (a int4, b int8, c int2, d float8, e bool)"));
        assertTrue(d.ifNotExists());
        assertEquals(List.of(SqlType.INTEGER, SqlType.BIGINT, SqlType.SMALLINT, SqlType.DOUBLE, SqlType.BOOLEAN),
                d.columns().stream().map(col -> col.type().type()).toList());
    }

    @Test
    void shouldAcceptAndIgnoreStorageParameters() {
        final Ddl.CreateTable c = assertInstanceOf(Ddl.CreateTable.class, DdlParser.parse(
                "create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) "
                        + "with (fillfactor=100)"));
        assertFalse(c.columns().get(0).nullable());
        assertEquals(0, c.primaryKey().length);
        DdlParser.parse("CREATE TABLE t (a INT PRIMARY KEY) WITH (fillfactor = 70, autovacuum_enabled = false, "
                + "toast.autovacuum_enabled = off, parallel_workers = 4, log_autovacuum_min_duration = -1)");
        DdlParser.parse("CREATE INDEX i ON t (a) WITH (fillfactor=90)");
        assertEquals("42601", assertThrows(SqlStateException.class,
                () -> DdlParser.parse("CREATE TABLE t (a INT) WITH (fillfactor=)")).sqlState());
    }

    @Test
    void shouldParseForeignKeysInEveryForm() {
        final Ddl.CreateTable c = assertInstanceOf(Ddl.CreateTable.class, DdlParser.parse(
                "create table c (id int primary key, pid int constraint c_p references s.p (id) on delete cascade "
                        + "not null, x int, y int, foreign key (x, y) references q match simple on update set null "
                        + "on delete restrict not deferrable)"));
        assertEquals(2, c.foreignKeys().size());
        final Ddl.ForeignKey column = c.foreignKeys().get(0);
        assertEquals("c_p", column.name());
        assertEquals(List.of("pid"), column.columns());
        assertEquals(new Ddl.TableName("s", "p"), column.parent());
        assertEquals(List.of("id"), column.parentColumns());
        assertEquals(ForeignKeyDef.Action.CASCADE, column.onDelete());
        assertEquals(ForeignKeyDef.Action.NO_ACTION, column.onUpdate());
        assertFalse(c.columns().get(1).nullable(), "NOT NULL after REFERENCES still applies");
        final Ddl.ForeignKey table = c.foreignKeys().get(1);
        assertNull(table.name());
        assertEquals(List.of("x", "y"), table.columns());
        assertEquals(List.of(), table.parentColumns(), "the parent's primary key");
        assertEquals(ForeignKeyDef.Action.RESTRICT, table.onDelete());
        assertEquals(ForeignKeyDef.Action.SET_NULL, table.onUpdate());
        final Ddl.AddForeignKey a = assertInstanceOf(Ddl.AddForeignKey.class, DdlParser.parse(
                "alter table c add constraint f foreign key (pid) references p"));
        assertEquals("f", a.foreignKey().name());
        assertTrue(assertInstanceOf(Ddl.Truncate.class, DdlParser.parse("truncate p cascade")).cascade());
        assertEquals("0A000", assertThrows(SqlStateException.class, () -> DdlParser.parse(
                "create table c (pid int references p on update set default)")).sqlState());
    }

    @Test
    void shouldParseTruncateOfSeveralTables() {
        final Ddl.Truncate t = assertInstanceOf(Ddl.Truncate.class, DdlParser.parse(
                "truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"));
        assertEquals(4, t.tables().size());
        assertEquals(List.of(new Ddl.TableName(null, "a")), assertInstanceOf(Ddl.Truncate.class,
                DdlParser.parse("TRUNCATE ONLY a RESTART IDENTITY CASCADE")).tables());
    }

    @Test
    void shouldParseAlterTableAddPrimaryKey() {
        final Ddl.AddPrimaryKey a = assertInstanceOf(Ddl.AddPrimaryKey.class,
                DdlParser.parse("alter table pgbench_branches add primary key (bid)"));
        assertEquals(new Ddl.TableName(null, "pgbench_branches"), a.table());
        assertEquals(List.of("bid"), a.columns());
        assertNull(a.constraint());
        final Ddl.AddPrimaryKey named = assertInstanceOf(Ddl.AddPrimaryKey.class, DdlParser.parse(
                "ALTER TABLE IF EXISTS ONLY s.t ADD CONSTRAINT t_pk PRIMARY KEY (a, b)"));
        assertEquals("t_pk", named.constraint());
        assertTrue(named.ifExists());
        assertEquals(List.of("a", "b"), named.columns());
        assertEquals("0A000", assertThrows(SqlStateException.class,
                () -> DdlParser.parse("ALTER TABLE t ADD COLUMN c SERIAL")).sqlState());
        assertEquals("0A000", assertThrows(SqlStateException.class,
                () -> DdlParser.parse("ALTER TABLE t ALTER COLUMN c SET STATISTICS 10")).sqlState());
    }

    @Test
    void shouldParseSeveralAlterTableActionsInOrder() {
        final Ddl.AlterTable a = assertInstanceOf(Ddl.AlterTable.class, DdlParser.parse("ALTER TABLE IF EXISTS t "
                + "ADD COLUMN IF NOT EXISTS c INT DEFAULT 3 NOT NULL CHECK (c > 0), DROP COLUMN IF EXISTS d CASCADE, "
                + "ALTER e SET DEFAULT (1), ALTER COLUMN e DROP NOT NULL, ALTER f TYPE BIGINT, "
                + "ADD CONSTRAINT ck CHECK (f < 9) NOT VALID, DROP CONSTRAINT u;"));
        assertTrue(a.ifExists());
        final AlterAction.AddColumn add = assertInstanceOf(AlterAction.AddColumn.class, a.actions().get(0));
        assertTrue(add.ifNotExists());
        assertEquals(false, add.column().nullable());
        assertEquals(3, add.column().dflt().value());
        assertEquals(1, add.checks().size());
        assertEquals(new AlterAction.DropColumn("d", true, true), a.actions().get(1));
        assertEquals(new AlterAction.SetDefault("e", "(1)"), a.actions().get(2));
        assertEquals(new AlterAction.SetNotNull("e", false), a.actions().get(3));
        assertEquals(new AlterAction.SetType("f", io.meldb.sql.codec.ColumnType.of(
                io.meldb.sql.codec.SqlType.BIGINT)), a.actions().get(4));
        assertEquals(new AlterAction.AddCheck("ck", "f < 9", false), a.actions().get(5));
        assertEquals(new AlterAction.DropConstraint("u", false), a.actions().get(6));
        assertEquals(new AlterAction.RenameColumn("a", "b"), assertInstanceOf(Ddl.AlterTable.class,
                DdlParser.parse("ALTER TABLE t RENAME a TO b")).actions().get(0));
        assertEquals(new AlterAction.RenameTable("u"), assertInstanceOf(Ddl.AlterTable.class,
                DdlParser.parse("ALTER TABLE t RENAME TO u")).actions().get(0));
    }

    @Test
    void shouldParseViewsCreateTableAsAndComments() {
        assertEquals(new Ddl.CreateView(null, "v", List.of("x"), "SELECT a FROM t WHERE a > 0", true),
                DdlParser.parse("CREATE OR REPLACE VIEW v (x) AS SELECT a FROM t WHERE a > 0;"));
        assertEquals(new Ddl.CreateTableAs("s", "c", List.of(), "SELECT * FROM t", false, true),
                DdlParser.parse("CREATE TABLE IF NOT EXISTS s.c AS SELECT * FROM t WITH NO DATA"));
        assertEquals(new Ddl.CreateTableAs(null, "c", List.of("a", "b"), "SELECT 1, 2", true, false),
                DdlParser.parse("CREATE TABLE c (a, b) AS SELECT 1, 2 WITH DATA ;"));
        assertInstanceOf(Ddl.CreateTable.class, DdlParser.parse("CREATE TABLE c (a INT, b INT)"));
        assertEquals(new Ddl.DropView(List.of(new Ddl.TableName(null, "v"), new Ddl.TableName("s", "w")), true,
                true), DdlParser.parse("DROP VIEW IF EXISTS v, s.w CASCADE"));
        assertEquals(new Ddl.CommentOn(new Ddl.TableName("s", "t"), "c", "it's"),
                DdlParser.parse("COMMENT ON COLUMN s.t.c IS 'it''s'"));
        assertEquals(new Ddl.CommentOn(new Ddl.TableName(null, "t"), null, null),
                DdlParser.parse("COMMENT ON TABLE t IS NULL"));
        assertEquals("0A000", assertThrows(SqlStateException.class,
                () -> DdlParser.parse("COMMENT ON FUNCTION f IS 'x'")).sqlState());
    }

    @Test
    void shouldParseUniqueConstraintsAndUniqueIndexes() {
        final Ddl.CreateTable t = assertInstanceOf(Ddl.CreateTable.class, DdlParser.parse("CREATE TABLE t (id INT "
                + "PRIMARY KEY, a INT UNIQUE, b INT CONSTRAINT b_once UNIQUE NOT NULL, c INT, UNIQUE (a, c) NULLS "
                + "DISTINCT, CONSTRAINT bc UNIQUE (b, c))"));
        assertEquals(List.of(new Ddl.Unique(null, List.of("a")), new Ddl.Unique("b_once", List.of("b")),
                new Ddl.Unique(null, List.of("a", "c")), new Ddl.Unique("bc", List.of("b", "c"))), t.uniques());
        assertEquals(false, t.columns().get(2).nullable(), "NOT NULL after UNIQUE still applies");
        final Ddl.CreateIndex i = assertInstanceOf(Ddl.CreateIndex.class,
                DdlParser.parse("CREATE UNIQUE INDEX IF NOT EXISTS t_a ON s.t (a, b)"));
        assertTrue(i.unique() && i.ifNotExists());
        assertEquals(List.of("a", "b"), i.columns());
        // INCLUDE columns are payload PostgreSQL stores in the index; uniqueness is on the key columns alone
        assertEquals(List.of("a"), assertInstanceOf(Ddl.CreateIndex.class,
                DdlParser.parse("CREATE UNIQUE INDEX i ON t (a) INCLUDE (b)")).columns());
        assertEquals(false, assertInstanceOf(Ddl.CreateIndex.class, DdlParser.parse("CREATE INDEX x ON t (a)"))
                .unique());
        final Ddl.AddUnique add = assertInstanceOf(Ddl.AddUnique.class,
                DdlParser.parse("ALTER TABLE t ADD CONSTRAINT u UNIQUE (a)"));
        assertEquals(new Ddl.Unique("u", List.of("a")), add.unique());
        assertEquals(List.of(new AlterAction.DropConstraint("u", true)), assertInstanceOf(Ddl.AlterTable.class,
                DdlParser.parse("ALTER TABLE t DROP CONSTRAINT IF EXISTS u CASCADE")).actions());
        for (String refused : List.of("CREATE TABLE t (a INT UNIQUE NULLS NOT DISTINCT)",
                "CREATE TABLE t (a INT, UNIQUE (a) DEFERRABLE)", "CREATE UNIQUE INDEX i ON t ((a + 1))")) {
            assertEquals("0A000", assertThrows(SqlStateException.class, () -> DdlParser.parse(refused)).sqlState(),
                    refused);
        }
    }

    @Test
    void shouldClassifyTruncateAndAlterAsDdl() {
        assertEquals(StatementKind.DDL, StatementKind.of("truncate table a"));
        assertEquals(StatementKind.DDL, StatementKind.of("ALTER TABLE a ADD PRIMARY KEY (x)"));
        assertEquals(StatementKind.DDL, StatementKind.of("drop table a, b"));
        assertTrue(DdlParser.isDdl("TRUNCATE a"));
        assertTrue(DdlParser.isDdl("alter table a add primary key (b)"));
    }
}
