package io.meldb.sql.catalog;

import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.RowCodec;
import io.meldb.sql.codec.SqlType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rows written under one definition of a table read correctly under every later one that ALTER TABLE makes
 * (added, dropped and widened columns), without being rewritten; the layout survives its catalog encoding.
 */
class RowLayoutTest {
    private static final ColumnType INT = ColumnType.of(SqlType.INTEGER);
    private static final ColumnType BIG = ColumnType.of(SqlType.BIGINT);
    private static final ColumnType TEXT = new ColumnType(SqlType.VARCHAR, 10, 0);

    private static TableDef table(final List<ColumnDef> columns, final RowLayout layout) {
        return new TableDef("meldb", "public", "t", 7, columns, new int[] {0}, List.of(), false, List.of(), List.of(),
                layout);
    }

    @Test
    void rowsOfEveryEarlierDefinitionReadInTheLatest() {
        final List<ColumnDef> v1 = List.of(new ColumnDef("id", INT, false), new ColumnDef("a", TEXT, true),
                new ColumnDef("n", INT, true));
        final TableDef t1 = table(v1, null);
        assertTrue(t1.layout().isCompact(v1, t1.primaryKey()));
        final byte[] row1 = payload(t1, new Object[] {1, "one", 10});

        // ADD COLUMN b DEFAULT 5: the compact layout plus a missing value
        final List<ColumnDef> v2 = new ArrayList<>(v1);
        v2.add(new ColumnDef("b", INT, true));
        final TableDef t2 = table(v2, t1.layout().withColumnAdded(INT, 5));
        assertFalse(t2.layout().isCompact(v2, t2.primaryKey()));
        final byte[] row2 = payload(t2, new Object[] {2, "two", 20, 6});

        // DROP COLUMN a, then ALTER COLUMN n TYPE BIGINT (a new slot)
        final List<ColumnDef> v3 = new ArrayList<>(v2);
        v3.remove(1);
        final TableDef t3 = table(v3, t2.layout().withColumnDropped(1));
        final List<ColumnDef> v4 = new ArrayList<>(v3);
        v4.set(1, new ColumnDef("n", BIG, true));
        final TableDef t4 = table(v4, t3.layout().withColumnRetyped(1, BIG, true));
        final byte[] row3 = payload(t3, new Object[] {3, 30, 7}); // a writer still on the pre-TYPE definition
        final byte[] row4 = payload(t4, new Object[] {4, 9_000_000_000L, null});

        final TableStore latest = new TableStore(t4);
        assertArrayEquals(new Object[] {1, 10L, 5}, read(latest, 1, row1), "written before ADD: the default");
        assertArrayEquals(new Object[] {2, 20L, 6}, read(latest, 2, row2));
        assertArrayEquals(new Object[] {3, 30L, 7}, read(latest, 3, row3), "the old width, widened");
        assertArrayEquals(new Object[] {4, 9_000_000_000L, null}, read(latest, 4, row4));
        assertArrayEquals(new Object[] {1, 10, 5}, read(new TableStore(t3), 1, row1));

        final RowLayout decoded = RowLayout.decode(t4.layout().encode(t4.columnTypes()), t4.columnTypes());
        assertArrayEquals(new Object[] {1, 10L, 5}, read(new TableStore(table(v4, decoded)), 1, row1));
        assertEquals(4, decoded.attnum(2), "b keeps the number it was added with after a drops");
    }

    @Test
    void aShortPayloadDecodesTheColumnsItHas() {
        final List<ColumnType> types = List.of(INT, TEXT, INT);
        final byte[] payload = RowCodec.encode(new Object[] {1, "x", 3}, types, new int[] {0, 1});
        final Object[] row = new Object[3];
        Arrays.fill(row, "untouched");
        assertEquals(2, RowCodec.decode(payload, types, new int[] {0, 1, 2}, row));
        assertArrayEquals(new Object[] {1, "x", "untouched"}, row);
    }

    private static byte[] payload(final TableDef def, final Object[] row) {
        final TableStore store = new TableStore(def);
        final byte[] key = store.primaryKey(row);
        final byte[][] out = new byte[1][];
        // the payload as TableStore writes it: decodeRow(key, payload) must give the row back
        final RowLayout layout = def.layout();
        out[0] = layout.isCompact(def.columns(), def.primaryKey())
                ? RowCodec.encode(row, def.columnTypes(), def.valueColumns()) : layout.encode(row);
        assertArrayEquals(row, store.decodeRow(key, out[0]));
        return out[0];
    }

    private static Object[] read(final TableStore store, final int id, final byte[] payload) {
        return store.decodeRow(store.primaryKey(new Object[] {id, null, null}), payload);
    }
}
