package io.meldb.sql.catalog;

import io.meldb.sql.codec.ByteReader;
import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.RowCodec;
import io.meldb.sql.codec.SqlType;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of a catalog entry: a {@link TableDef} in a small versioned binary form.
 *
 * <pre>
 * version(1)=1..6  db schema name (strings)  id(4)
 * ncolumns(varint) { name  type ordinal(1)  precision(varint)  scale(varint)  nullable(1) }
 * npk(varint) { column(varint) }
 * nindexes(varint) { name  id(4)  ncols(varint) { column(varint) }
 *                    version 4: index flags(varint) bit 0 = unique, bit 1 = backs a UNIQUE constraint }
 *                    version 5: bit 2 = hidden (a foreign key's index) }
 * version 2..5: flags(varint)   bit 0 = hidden row id (npk = 0; rows keyed as {@link RowIds} says),
 *                               bit 1 = the rows follow a stored {@link RowLayout} (an altered table)
 * version 3, 4: ncolumns × { identity(1)  default kind(1) (0 = none, else 1 + {@link ColumnDefault.Kind})
 *                              [sql (string)  constant: value (bytes, a one-column row payload)
 *                                             nextval: sequence schema, name (strings)] }
 *                 nchecks(varint) { name  sql }
 * version 5:    nforeignkeys(varint) { name  ncols(varint) { column(varint) }  parent id(4)
 *                                      ncols(varint) { parent column(varint) }  on delete(1)  on update(1)
 *                                      index id(4) (0: the primary key)
 *                                      version 6: timing(1) ({@link ForeignKeyDef.Timing}) }
 * string = length(varint) UTF-8; bytes = length(varint) then the bytes
 * </pre>
 * A definition is written in the oldest version that holds it (version 1 without flags, defaults or checks,
 * version 4 only for a table with a unique index,
 * version 5 only for one with a foreign key, version 6 for a deferrable one), so gateways of a previous version
 * still read every table that needs nothing newer; all versions are read.
 */
public final class TableDefCodec {
    private static final int VERSION_1 = 1;
    private static final int VERSION_2 = 2;
    private static final int VERSION_3 = 3;
    private static final int VERSION_4 = 4;
    private static final int VERSION_5 = 5;
    /** Version 5 with each foreign key's {@link ForeignKeyDef.Timing} after its index id. */
    private static final int VERSION_6 = 6;
    private static final int FLAG_HIDDEN_ROW_ID = 1;
    /**
     * The rows follow a {@link RowLayout} stored beside the definition (ALTER TABLE changed a column): a gateway
     * that does not know the flag refuses the table rather than misread its rows.
     */
    private static final int FLAG_ROW_LAYOUT = 2;
    private static final int INDEX_UNIQUE = 1;
    private static final int INDEX_CONSTRAINT = 2;
    private static final int INDEX_HIDDEN = 4;

    private TableDefCodec() {
    }

    public static byte[] encode(final TableDef t) {
        final ByteWriter out = new ByteWriter(128);
        final int flags = (t.hiddenRowId() ? FLAG_HIDDEN_ROW_ID : 0)
                | (t.layout().isCompact(t.columns(), t.primaryKey()) ? 0 : FLAG_ROW_LAYOUT);
        final boolean v6 = t.foreignKeys().stream().anyMatch(fk -> fk.timing().deferrable());
        final boolean v5 = v6 || !t.foreignKeys().isEmpty();
        final boolean v4 = v5 || t.indexes().stream().anyMatch(IndexDef::unique);
        final boolean v3 = v4 || !t.checks().isEmpty()
                || t.columns().stream().anyMatch(c -> c.dflt() != null || c.identity() != ColumnDef.Identity.NONE);
        out.write(v6 ? VERSION_6 : v5 ? VERSION_5 : v4 ? VERSION_4 : v3 ? VERSION_3 : flags == 0 ? VERSION_1 : VERSION_2);
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
            if (v4) {
                out.writeVarInt((i.unique() ? INDEX_UNIQUE : 0) | (i.constraint() ? INDEX_CONSTRAINT : 0)
                        | (i.hidden() ? INDEX_HIDDEN : 0));
            }
        }
        if (flags != 0 || v3) {
            out.writeVarInt(flags);
        }
        if (v3) {
            for (ColumnDef c : t.columns()) {
                out.write(c.identity().ordinal());
                final ColumnDefault d = c.dflt();
                out.write(d == null ? 0 : 1 + d.kind().ordinal());
                if (d != null) {
                    string(out, d.sql());
                    if (d.kind() == ColumnDefault.Kind.CONSTANT) {
                        final byte[] v = RowCodec.encode(new Object[] {d.value()}, List.of(c.type()), new int[] {0});
                        out.writeVarInt(v.length).write(v);
                    } else if (d.kind() == ColumnDefault.Kind.NEXTVAL) {
                        string(out, d.sequenceSchema() == null ? "" : d.sequenceSchema());
                        string(out, d.sequence());
                    }
                }
            }
            out.writeVarInt(t.checks().size());
            for (CheckDef check : t.checks()) {
                string(out, check.name());
                string(out, check.sql());
            }
        }
        if (v5) {
            out.writeVarInt(t.foreignKeys().size());
            for (ForeignKeyDef fk : t.foreignKeys()) {
                string(out, fk.name());
                ints(out, fk.columns());
                out.writeInt(fk.parentId());
                ints(out, fk.parentColumns());
                out.write(fk.onDelete().ordinal());
                out.write(fk.onUpdate().ordinal());
                out.writeInt(fk.indexId());
                if (v6) {
                    out.write(fk.timing().ordinal());
                }
            }
        }
        return out.toByteArray();
    }

    public static TableDef decode(final byte[] bytes) {
        final ByteReader in = new ByteReader(bytes, 0);
        final int version = in.read();
        if (version < VERSION_1 || version > VERSION_6) {
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
            final int[] icols = ints(in);
            final int iflags = version >= VERSION_4 ? in.readVarInt() : 0;
            if ((iflags & ~(INDEX_UNIQUE | INDEX_CONSTRAINT | INDEX_HIDDEN)) != 0) {
                throw new IllegalArgumentException("unknown index flags " + iflags);
            }
            indexes.add(new IndexDef(iname, iid, icols, (iflags & INDEX_UNIQUE) != 0,
                    (iflags & INDEX_CONSTRAINT) != 0, (iflags & INDEX_HIDDEN) != 0));
        }
        final int flags = version == VERSION_1 ? 0 : in.readVarInt();
        if ((flags & ~(FLAG_HIDDEN_ROW_ID | FLAG_ROW_LAYOUT)) != 0) {
            throw new IllegalArgumentException("unknown table definition flags " + flags);
        }
        final List<CheckDef> checks = new ArrayList<>();
        if (version >= VERSION_3) {
            for (int i = 0; i < ncols; i++) {
                final ColumnDef c = columns.get(i);
                final ColumnDef.Identity identity = ColumnDef.Identity.values()[in.read()];
                final int kind = in.read();
                ColumnDefault d = null;
                if (kind != 0) {
                    final String sql = string(in);
                    d = switch (ColumnDefault.Kind.values()[kind - 1]) {
                        case CONSTANT -> {
                            final Object[] one = new Object[1];
                            RowCodec.decode(in.readBytes(in.readVarInt()), List.of(c.type()), new int[] {0}, one);
                            yield ColumnDefault.constant(one[0], sql);
                        }
                        case NOW -> ColumnDefault.now();
                        case TODAY -> ColumnDefault.today();
                        case RANDOM_UUID -> ColumnDefault.randomUuid();
                        case NEXTVAL -> {
                            final String seqSchema = string(in);
                            yield ColumnDefault.nextval(seqSchema.isEmpty() ? null : seqSchema, string(in));
                        }
                    };
                }
                columns.set(i, new ColumnDef(c.name(), c.type(), c.nullable(), d, identity));
            }
            final int nchecks = in.readVarInt();
            for (int i = 0; i < nchecks; i++) {
                checks.add(new CheckDef(string(in), string(in)));
            }
        }
        final List<ForeignKeyDef> foreignKeys = new ArrayList<>();
        if (version >= VERSION_5) {
            final int nfks = in.readVarInt();
            for (int i = 0; i < nfks; i++) {
                final String fname = string(in);
                final int[] fcols = ints(in);
                final int parentId = in.readInt();
                final int[] pcols = ints(in);
                final ForeignKeyDef.Action onDelete = ForeignKeyDef.Action.values()[in.read()];
                final ForeignKeyDef.Action onUpdate = ForeignKeyDef.Action.values()[in.read()];
                final int indexId = in.readInt();
                final ForeignKeyDef.Timing timing = version >= VERSION_6
                        ? ForeignKeyDef.Timing.values()[in.read()] : ForeignKeyDef.Timing.NOT_DEFERRABLE;
                foreignKeys.add(new ForeignKeyDef(fname, fcols, parentId, pcols, onDelete, onUpdate, indexId, timing));
            }
        }
        return new TableDef(db, schema, name, id, columns, pk, indexes, (flags & FLAG_HIDDEN_ROW_ID) != 0, checks,
                foreignKeys);
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
