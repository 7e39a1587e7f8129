package io.meldb.sql.catalog;

import io.meldb.core.ColumnReads;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.RowCodec;

/**
 * The value bytes a statement's read of some columns of a row depends on, as meld's byte mask ({@link ColumnReads};
 * issue 21): meld then lets the read stand against concurrent increments ({@code SET c = c + ?}) of other columns.
 *
 * <p>A payload holds the value columns in order, each a presence byte and then its bytes. While every earlier value
 * column is fixed-width and NOT NULL, a column sits at a fixed offset: its presence byte and its bytes are exact. From
 * the first column of variable width (or nullable) on, offsets vary from row to row, so a column there stands for
 * every byte from that point to the end. A column's decoded value depends only on its own bytes and on the presence
 * and length bytes of earlier columns, which no increment writes (an increment writes only the data bytes of an
 * integer column at a fixed offset), so the mask covers everything an increment could change under the read. A read
 * of key columns only still gets a mask (the first presence byte): meld protects a row's existence with every mask.
 * A table whose payload is not in the direct layout (a column was altered) is read whole.
 */
public final class ReadColumns {
    private ReadColumns() {
    }

    /** The mask of a read of the table columns {@code used} (true per column index) of {@code store}'s rows. */
    public static long mask(final TableStore store, final boolean[] used) {
        if (!store.directLayout()) {
            return ColumnReads.WHOLE_ROW;
        }
        final TableDef def = store.def();
        long mask = ColumnReads.bytes(0, 1);
        int offset = 0;
        boolean fixed = true;
        for (int c : def.valueColumns()) {
            final ColumnDef col = def.columns().get(c);
            final int width = RowCodec.fixedWidth(col.type());
            final boolean varies = width == 0 || col.nullable();
            if (c < used.length && used[c]) {
                mask |= fixed && !varies ? ColumnReads.bytes(offset, offset + 1 + width)
                    : ColumnReads.bytes(offset, Integer.MAX_VALUE);
            }
            if (fixed && varies) {
                fixed = false; // offset now marks where the varying part begins
            } else if (fixed) {
                offset += 1 + width;
            }
        }
        return mask;
    }

    /** {@link #mask(TableStore, boolean[])} of the columns listed in {@code columns}. */
    public static long mask(final TableStore store, final int[] columns) {
        final boolean[] used = new boolean[store.def().columns().size()];
        for (int c : columns) {
            if (c >= 0 && c < used.length) {
                used[c] = true;
            } else {
                return ColumnReads.WHOLE_ROW;
            }
        }
        return mask(store, used);
    }
}
