package io.meldb.sql.catalog;

import io.meldb.sql.codec.ByteReader;
import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.RowCodec;
import io.meldb.sql.codec.SqlType;

import java.util.Arrays;
import java.util.List;

/**
 * Where each column of a table lives in its rows' payloads, so that ALTER TABLE changes columns without rewriting
 * rows, as PostgreSQL's attnum, attisdropped and attmissingval do. A payload is a list of slots ({@link RowCodec});
 * each slot feeds one column or none (a dropped column's slot stays, written NULL from then on). A row whose
 * payload ends before a column's first slot (written before ADD COLUMN, or by a transaction that began before it
 * and committed after) reads the column's missing value, the default fixed at ADD time. A widening type change
 * that changes the stored form (INTEGER to BIGINT) appends a slot in the new type: rows written before it end
 * before that slot and read the old slot's value, widened. Every column also has a stable number ({@link #attnum})
 * that renames and drops of other columns do not change (comments are keyed by it).
 *
 * <p>A table never altered has the compact layout ({@link #compact}: the non-key columns in order), which is not
 * stored; any other layout is a catalog entry of its own (docs/sql.md, "ALTER TABLE").
 */
public final class RowLayout {
    /** Per slot: the column it feeds, or -1. */
    private final int[] slotColumn;
    /** Per slot: the type its values are written in. */
    private final ColumnType[] slotType;
    /** Per column: its stable number, from 1. */
    private final int[] attnum;
    /** Per column: its value in a row whose payload ends before the column's first slot. */
    private final Object[] missing;
    private final int nextAttnum;
    // derived
    private final int[] liveSlot;
    private final int[] firstSlot;
    private final List<ColumnType> slotTypes;
    private final int[] slots;

    private RowLayout(final int[] slotColumn, final ColumnType[] slotType, final int[] attnum, final Object[] missing,
                      final int nextAttnum) {
        this.slotColumn = slotColumn;
        this.slotType = slotType;
        this.attnum = attnum;
        this.missing = missing;
        this.nextAttnum = nextAttnum;
        this.liveSlot = new int[attnum.length];
        this.firstSlot = new int[attnum.length];
        Arrays.fill(liveSlot, -1);
        Arrays.fill(firstSlot, -1);
        for (int s = 0; s < slotColumn.length; s++) {
            final int c = slotColumn[s];
            if (c >= 0) {
                liveSlot[c] = s;
                if (firstSlot[c] < 0) {
                    firstSlot[c] = s;
                }
            }
        }
        this.slotTypes = List.of(slotType);
        this.slots = new int[slotColumn.length];
        for (int s = 0; s < slots.length; s++) {
            slots[s] = s;
        }
    }

    /** The layout of a table never altered: its columns outside {@code primaryKey}, in order. */
    public static RowLayout compact(final List<ColumnDef> columns, final int[] primaryKey) {
        final int[] value = java.util.stream.IntStream.range(0, columns.size())
                .filter(i -> Arrays.stream(primaryKey).noneMatch(k -> k == i)).toArray();
        final ColumnType[] types = new ColumnType[value.length];
        for (int s = 0; s < value.length; s++) {
            types[s] = columns.get(value[s]).type();
        }
        final int[] attnum = new int[columns.size()];
        for (int c = 0; c < attnum.length; c++) {
            attnum[c] = c + 1;
        }
        return new RowLayout(value, types, attnum, new Object[columns.size()], columns.size() + 1);
    }

    /** Whether this is the layout {@link #compact} gives for {@code def}'s columns and key. */
    public boolean isCompact(final List<ColumnDef> columns, final int[] primaryKey) {
        final RowLayout c = compact(columns, primaryKey);
        return Arrays.equals(slotColumn, c.slotColumn) && Arrays.equals(slotType, c.slotType)
                && Arrays.equals(attnum, c.attnum) && Arrays.stream(missing).allMatch(m -> m == null)
                && nextAttnum == c.nextAttnum;
    }

    /** Whether payloads hold exactly {@code valueColumns} in their current types (the direct codec path). */
    boolean direct(final int[] valueColumns, final List<ColumnType> types) {
        if (slotColumn.length != valueColumns.length) {
            return false;
        }
        for (int s = 0; s < slotColumn.length; s++) {
            if (slotColumn[s] != valueColumns[s] || !slotType[s].equals(types.get(valueColumns[s]))) {
                return false;
            }
        }
        return true;
    }

    public int columnCount() {
        return attnum.length;
    }

    /** The stable number of column {@code column} (PostgreSQL's attnum). */
    public int attnum(final int column) {
        return attnum[column];
    }

    /** The missing value of {@code column} (null for most columns). */
    public Object missing(final int column) {
        return missing[column];
    }

    /** The payload of {@code row} (one slot per column, in-flight forms, already checked). */
    byte[] encode(final Object[] row) {
        final Object[] values = new Object[slotColumn.length];
        for (int s = 0; s < values.length; s++) {
            final int c = slotColumn[s];
            values[s] = c >= 0 && liveSlot[c] == s ? row[c] : null;
        }
        return RowCodec.encode(values, slotTypes, slots);
    }

    /** Decodes {@code payload} into the non-key columns of {@code row}; {@code types} are the columns' types. */
    void decode(final byte[] payload, final List<ColumnType> types, final Object[] row) {
        final Object[] values = new Object[slotColumn.length];
        final int n = RowCodec.decode(payload, slotTypes, slots, values);
        for (int s = 0; s < n; s++) {
            final int c = slotColumn[s];
            if (c >= 0) {
                row[c] = values[s] == null || slotType[s].equals(types.get(c)) ? values[s]
                        : types.get(c).coerce(values[s]);
            }
        }
        fillMissing(n, row);
    }

    /** Sets the columns whose first slot is at or past {@code decodedSlots} to their missing values. */
    void fillMissing(final int decodedSlots, final Object[] row) {
        for (int c = 0; c < firstSlot.length; c++) {
            if (firstSlot[c] >= decodedSlots) {
                row[c] = missing[c];
            }
        }
    }

    /** This layout with a new last column of {@code type}, reading {@code missingValue} in older rows. */
    public RowLayout withColumnAdded(final ColumnType type, final Object missingValue) {
        final int n = attnum.length;
        final int[] sc = Arrays.copyOf(slotColumn, slotColumn.length + 1);
        sc[sc.length - 1] = n;
        final ColumnType[] st = Arrays.copyOf(slotType, slotType.length + 1);
        st[st.length - 1] = type;
        final int[] an = Arrays.copyOf(attnum, n + 1);
        an[n] = nextAttnum;
        final Object[] m = Arrays.copyOf(missing, n + 1);
        m[n] = missingValue;
        return new RowLayout(sc, st, an, m, nextAttnum + 1);
    }

    /** This layout without column {@code column}: its slots stay (dead), later columns move down by one. */
    public RowLayout withColumnDropped(final int column) {
        final int[] sc = slotColumn.clone();
        for (int s = 0; s < sc.length; s++) {
            sc[s] = sc[s] == column ? -1 : sc[s] > column ? sc[s] - 1 : sc[s];
        }
        return new RowLayout(sc, slotType, remove(attnum, column), removeObject(missing, column), nextAttnum);
    }

    /**
     * This layout with {@code column} of type {@code type}: in its slot when the stored form stays the same (a longer
     * VARCHAR), else in a new slot (older rows read the old slot, converted).
     */
    public RowLayout withColumnRetyped(final int column, final ColumnType type, final boolean newSlot) {
        if (liveSlot[column] < 0) {
            return this; // a key column: not in the payload
        }
        if (!newSlot) {
            final ColumnType[] st = slotType.clone();
            st[liveSlot[column]] = type;
            return new RowLayout(slotColumn, st, attnum, missing, nextAttnum);
        }
        final int[] sc = Arrays.copyOf(slotColumn, slotColumn.length + 1);
        sc[sc.length - 1] = column;
        final ColumnType[] st = Arrays.copyOf(slotType, slotType.length + 1);
        st[st.length - 1] = type;
        final Object[] m = missing.clone();
        m[column] = m[column] == null ? null : type.coerce(m[column]);
        return new RowLayout(sc, st, attnum, m, nextAttnum);
    }

    /** This layout once {@code primaryKey}'s columns move into the row key (their slots die). */
    public RowLayout withPrimaryKey(final int[] primaryKey) {
        final int[] sc = slotColumn.clone();
        for (int s = 0; s < sc.length; s++) {
            for (int k : primaryKey) {
                if (sc[s] == k) {
                    sc[s] = -1;
                }
            }
        }
        return new RowLayout(sc, slotType, attnum, missing, nextAttnum);
    }

    private static int[] remove(final int[] a, final int i) {
        final int[] out = new int[a.length - 1];
        System.arraycopy(a, 0, out, 0, i);
        System.arraycopy(a, i + 1, out, i, out.length - i);
        return out;
    }

    private static Object[] removeObject(final Object[] a, final int i) {
        final Object[] out = new Object[a.length - 1];
        System.arraycopy(a, 0, out, 0, i);
        System.arraycopy(a, i + 1, out, i, out.length - i);
        return out;
    }

    /**
     * The layout's catalog entry: version(1)=1, nslots(varint) { column+1(varint) type ordinal(1) precision scale
     * (varints) }, ncolumns(varint) { attnum(varint) missing (bytes: a one-column payload) }, next attnum(varint).
     */
    public byte[] encode(final List<ColumnType> columnTypes) {
        final ByteWriter out = new ByteWriter(64);
        out.write(1).writeVarInt(slotColumn.length);
        for (int s = 0; s < slotColumn.length; s++) {
            out.writeVarInt(slotColumn[s] + 1).write(slotType[s].type().ordinal())
                    .writeVarInt(slotType[s].precision()).writeVarInt(slotType[s].scale());
        }
        out.writeVarInt(attnum.length);
        for (int c = 0; c < attnum.length; c++) {
            out.writeVarInt(attnum[c]);
            final byte[] m = RowCodec.encode(new Object[] {missing[c]}, List.of(columnTypes.get(c)), new int[] {0});
            out.writeVarInt(m.length).write(m);
        }
        out.writeVarInt(nextAttnum);
        return out.toByteArray();
    }

    /** Reads what {@link #encode} wrote; {@code columnTypes} are the table's column types. */
    public static RowLayout decode(final byte[] bytes, final List<ColumnType> columnTypes) {
        final ByteReader in = new ByteReader(bytes, 0);
        final int version = in.read();
        if (version != 1) {
            throw new IllegalArgumentException("unknown row layout version " + version);
        }
        final int nslots = in.readVarInt();
        final int[] sc = new int[nslots];
        final ColumnType[] st = new ColumnType[nslots];
        for (int s = 0; s < nslots; s++) {
            sc[s] = in.readVarInt() - 1;
            final SqlType type = SqlType.values()[in.read()];
            st[s] = new ColumnType(type, in.readVarInt(), in.readVarInt());
        }
        final int ncols = in.readVarInt();
        if (ncols != columnTypes.size()) {
            throw new IllegalArgumentException("row layout of " + ncols + " columns for a table of "
                    + columnTypes.size());
        }
        final int[] an = new int[ncols];
        final Object[] m = new Object[ncols];
        for (int c = 0; c < ncols; c++) {
            an[c] = in.readVarInt();
            final Object[] v = new Object[1];
            RowCodec.decode(in.readBytes(in.readVarInt()), List.of(columnTypes.get(c)), new int[] {0}, v);
            m[c] = v[0];
        }
        return new RowLayout(sc, st, an, m, in.readVarInt());
    }
}
