package io.meldb.sql.catalog;

import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The catalog's table entries: entries written before tables without a primary key existed still read. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TableDefCodecTest {
    /**
     * MELDB.PUBLIC.OLD_T (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(10)), id 7, index OLD_T_NAME (NAME) id 8,
     * as the codec wrote it before version 2 (captured from that code, commit e286443).
     */
    private static final String OLD_ENTRY = "01054d454c4442065055424c4943054f4c445f5400000007020249440100000004"
            + "4e414d45060a00010100010a4f4c445f545f4e414d45000000080101";

    private static TableDef oldTable() {
        return new TableDef("MELDB", "PUBLIC", "OLD_T", 7,
                List.of(new ColumnDef("ID", ColumnType.of(SqlType.INTEGER), false),
                        new ColumnDef("NAME", new ColumnType(SqlType.VARCHAR, 10, 0), true)),
                new int[] {0}, List.of(new IndexDef("OLD_T_NAME", 8, new int[] {1})));
    }

    @Test
    void shouldReadAnEntryWrittenBeforeVersionTwo() {
        final TableDef t = TableDefCodec.decode(HexFormat.of().parseHex(OLD_ENTRY));
        final TableDef expected = oldTable();
        assertEquals("OLD_T", t.name());
        assertEquals(7, t.id());
        assertEquals(expected.columns(), t.columns());
        assertArrayEquals(new int[] {0}, t.primaryKey());
        assertEquals("OLD_T_NAME", t.indexes().get(0).name());
        assertArrayEquals(new int[] {1}, t.indexes().get(0).columns());
        assertFalse(t.hiddenRowId());
    }

    @Test
    void shouldWriteATableWithAPrimaryKeyExactlyAsVersionOneDid() {
        assertEquals(OLD_ENTRY, HexFormat.of().formatHex(TableDefCodec.encode(oldTable())));
    }

    @Test
    void shouldRoundTripUniqueIndexesAsVersionFourAndKeepOthersOlder() {
        final TableDef t = oldTable().withIndexes(List.of(new IndexDef("OLD_T_NAME", 8, new int[] {1}),
                new IndexDef("OLD_T_NAME_KEY", 9, new int[] {1}, true, true),
                new IndexDef("OLD_T_U", 10, new int[] {1, 0}, true, false)));
        final byte[] bytes = TableDefCodec.encode(t);
        assertEquals(4, bytes[0]);
        final List<IndexDef> back = TableDefCodec.decode(bytes).indexes();
        assertEquals(3, back.size());
        assertFalse(back.get(0).unique());
        assertTrue(back.get(1).unique() && back.get(1).constraint());
        assertTrue(back.get(2).unique() && !back.get(2).constraint());
        assertArrayEquals(new int[] {1, 0}, back.get(2).columns());
        assertEquals(1, TableDefCodec.encode(oldTable())[0], "a table without unique indexes stays version 1");
    }

    @Test
    void shouldRoundTripForeignKeysAndTheirHiddenIndexAsVersionFive() {
        final ForeignKeyDef fk = new ForeignKeyDef("OLD_T_NAME_FKEY", new int[] {1}, 3, new int[] {0},
                ForeignKeyDef.Action.CASCADE, ForeignKeyDef.Action.SET_NULL, 8);
        final TableDef t = oldTable().withForeignKeys(List.of(fk), List.of(new IndexDef("OLD_T_NAME_FKEY", 8,
                new int[] {1}, false, false, true)));
        final byte[] bytes = TableDefCodec.encode(t);
        assertEquals(5, bytes[0]);
        final TableDef back = TableDefCodec.decode(bytes);
        assertTrue(back.indexes().get(0).hidden());
        final ForeignKeyDef read = back.foreignKeys().get(0);
        assertEquals("OLD_T_NAME_FKEY", read.name());
        assertArrayEquals(new int[] {1}, read.columns());
        assertEquals(3, read.parentId());
        assertArrayEquals(new int[] {0}, read.parentColumns());
        assertEquals(ForeignKeyDef.Action.CASCADE, read.onDelete());
        assertEquals(ForeignKeyDef.Action.SET_NULL, read.onUpdate());
        assertEquals(8, read.indexId());
        assertEquals(4, TableDefCodec.encode(back.withForeignKeys(List.of(), List.of(new IndexDef("U", 9,
                new int[] {1}, true, true))))[0], "without foreign keys the older version is written");
    }

    @Test
    void shouldRoundTripATableWithoutAPrimaryKeyAsVersionTwo() {
        final TableDef keyless = new TableDef("MELDB", "PUBLIC", "HIST", 9,
                List.of(new ColumnDef("TID", ColumnType.of(SqlType.INTEGER), true)), new int[0], List.of());
        assertTrue(keyless.hiddenRowId());
        final byte[] bytes = TableDefCodec.encode(keyless);
        assertEquals(2, bytes[0]);
        final TableDef back = TableDefCodec.decode(bytes);
        assertTrue(back.hiddenRowId());
        assertEquals(0, back.primaryKey().length);
        assertEquals(keyless.columns(), back.columns());

        final TableDef keyed = TableDefCodec.decode(TableDefCodec.encode(back.withPrimaryKey(new int[] {0})));
        assertFalse(keyed.hiddenRowId());
        assertFalse(keyed.columns().get(0).nullable(), "a key column becomes NOT NULL");
    }

    @Test
    void shouldRefuseUnknownFlagsAndVersions() {
        final byte[] bytes = TableDefCodec.encode(new TableDef("MELDB", "PUBLIC", "H", 9,
                List.of(new ColumnDef("A", ColumnType.of(SqlType.INTEGER), true)), new int[0], List.of()));
        bytes[bytes.length - 1] = 5; // bit 2 is no flag (bit 1, the row layout, is)
        assertThrows(IllegalArgumentException.class, () -> TableDefCodec.decode(bytes));
        bytes[0] = 4;
        assertThrows(IllegalArgumentException.class, () -> TableDefCodec.decode(bytes));
    }

    @Test
    void shouldRoundTripDefaultsIdentityAndChecksAsVersionThree() {
        final TableDef t = new TableDef("meldb", "public", "orders", 11, List.of(
                new ColumnDef("id", ColumnType.of(SqlType.BIGINT), false,
                        ColumnDefault.nextval("public", "orders_id_seq"), ColumnDef.Identity.ALWAYS),
                new ColumnDef("qty", ColumnType.of(SqlType.INTEGER), true, ColumnDefault.constant(-1, "-1"),
                        ColumnDef.Identity.NONE),
                new ColumnDef("price", new ColumnType(SqlType.DECIMAL, 6, 2), true,
                        ColumnDefault.constant(new java.math.BigDecimal("2.50"), "2.5"), ColumnDef.Identity.NONE),
                new ColumnDef("made", ColumnType.of(SqlType.TIMESTAMP), true, ColumnDefault.now(),
                        ColumnDef.Identity.NONE),
                new ColumnDef("ref", ColumnType.of(SqlType.UUID), true, ColumnDefault.randomUuid(),
                        ColumnDef.Identity.NONE),
                new ColumnDef("note", new ColumnType(SqlType.VARCHAR, 5, 0), true)),
                new int[] {0}, List.of(), false, List.of(new CheckDef("orders_qty_check", "qty >= 0")));
        final byte[] bytes = TableDefCodec.encode(t);
        assertEquals(3, bytes[0]);
        final TableDef back = TableDefCodec.decode(bytes);
        assertEquals(t.columns(), back.columns());
        assertEquals(t.checks(), back.checks());
        assertEquals("nextval('public.orders_id_seq'::regclass)", back.columns().get(0).dflt().sql());
        assertEquals(ColumnDefault.Kind.RANDOM_UUID, back.columns().get(4).dflt().kind());
    }
}
