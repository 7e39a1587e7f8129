package io.meldb.sql.catalog;

import io.meldb.sql.codec.ByteReader;
import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of a catalog entry: a {@link TableDef} in a small versioned binary form.
 *
 * <pre>
 * version(1)=1|2  db schema name (strings)  id(4)
 * ncolumns(varint) { name  type ordinal(1)  precision(varint)  scale(varint)  nullable(1) }
 * npk(varint) { column(varint) }
 * nindexes(varint) { name  id(4)  ncols(varint) { column(varint) } }
 * version 2 only: flags(varint)   bit 0 = hidden row id (npk = 0; rows keyed as {@link RowIds} says)
 * string = length(varint) UTF-8
 * </pre>
 * A definition without flags is written as version 1, exactly as before version 2 existed, so gateways of the
 * previous version still read every table that has a primary key; both versions are read.
 */
public final class TableDefCodec {
    private static final int VERSION_1 = 1;
    private static final int VERSION_2 = 2;
    private static final int FLAG_HIDDEN_ROW_ID = 1;

    private TableDefCodec() {
    }

    public static byte[] encode(final TableDef t) {
        final ByteWriter out = new ByteWriter(128);
        final int flags = t.hiddenRowId() ? FLAG_HIDDEN_ROW_ID : 0;
        out.write(flags == 0 ? VERSION_1 : VERSION_2);
        string(out, t.db());
        string(out, t.schema());
        string(out, t.name());
        out.writeInt(t.id());
        out.writeVarInt(t.columns().size());
        for (ColumnDef c : t.columns()) {
            string(out, c.name());
            out.write(c.type().type().ordinal());
            out.writeVarInt(c.type().precision());
            out.writeVarInt(c.type().scale());
            out.write(c.nullable() ? 1 : 0);
        }
        ints(out, t.primaryKey());
        out.writeVarInt(t.indexes().size());
        for (IndexDef i : t.indexes()) {
            string(out, i.name());
            out.writeInt(i.id());
            ints(out, i.columns());
        }
        if (flags != 0) {
            out.writeVarInt(flags);
        }
        return out.toByteArray();
    }

    public static TableDef decode(final byte[] bytes) {
        final ByteReader in = new ByteReader(bytes, 0);
        final int version = in.read();
        if (version != VERSION_1 && version != VERSION_2) {
            throw new IllegalArgumentException("unknown table definition version " + version);
        }
        final String db = string(in);
        final String schema = string(in);
        final String name = string(in);
        final int id = in.readInt();
        final int ncols = in.readVarInt();
        final List<ColumnDef> columns = new ArrayList<>(ncols);
        for (int i = 0; i < ncols; i++) {
            final String cname = string(in);
            final SqlType type = SqlType.values()[in.read()];
            final int precision = in.readVarInt();
            final int scale = in.readVarInt();
            final boolean nullable = in.read() != 0;
            columns.add(new ColumnDef(cname, new ColumnType(type, precision, scale), nullable));
        }
        final int[] pk = ints(in);
        final int nidx = in.readVarInt();
        final List<IndexDef> indexes = new ArrayList<>(nidx);
        for (int i = 0; i < nidx; i++) {
            final String iname = string(in);
            final int iid = in.readInt();
            indexes.add(new IndexDef(iname, iid, ints(in)));
        }
        final int flags = version == VERSION_1 ? 0 : in.readVarInt();
        if ((flags & ~FLAG_HIDDEN_ROW_ID) != 0) {
            throw new IllegalArgumentException("unknown table definition flags " + flags);
        }
        return new TableDef(db, schema, name, id, columns, pk, indexes, (flags & FLAG_HIDDEN_ROW_ID) != 0);
    }

    private static void string(final ByteWriter out, final String s) {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeVarInt(b.length).write(b);
    }

    private static String string(final ByteReader in) {
        return new String(in.readBytes(in.readVarInt()), StandardCharsets.UTF_8);
    }

    private static void ints(final ByteWriter out, final int[] values) {
        out.writeVarInt(values.length);
        for (int v : values) {
            out.writeVarInt(v);
        }
    }

    private static int[] ints(final ByteReader in) {
        final int[] values = new int[in.readVarInt()];
        for (int i = 0; i < values.length; i++) {
            values[i] = in.readVarInt();
        }
        return values;
    }
}
