package io.meldb.sql.catalog;

import io.meldb.sql.codec.ByteReader;
import io.meldb.sql.codec.ByteWriter;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A view as the catalog stores it: its query as written (expanded by Calcite at every use, docs/sql.md "Views"),
 * its columns as the query answered them when the view was made (name, JDBC type, precision, scale, nullability:
 * the row type Calcite casts the expansion to), and the ids of the tables and views it reads ({@code dependsOn}),
 * for DROP ... RESTRICT. {@code id} comes from the catalog's id counter (views have no rows; the id names the view
 * in pg_class and keys its comments).
 */
public record ViewDef(String db, String schema, String name, int id, String sql, List<Column> columns,
                      int[] dependsOn) {
    /** One column of a view. */
    public record Column(String name, int jdbcType, int precision, int scale, boolean nullable) {
        /** The column's type as a MeldDB column type (the catalog views show it so; VARCHAR for others). */
        public io.meldb.sql.codec.ColumnType type() {
            final int p = Math.max(1, Math.min(precision, io.meldb.sql.codec.ColumnType.MAX_STRING_LENGTH));
            return switch (jdbcType) {
                case java.sql.Types.INTEGER -> io.meldb.sql.codec.ColumnType.of(io.meldb.sql.codec.SqlType.INTEGER);
                case java.sql.Types.BIGINT -> io.meldb.sql.codec.ColumnType.of(io.meldb.sql.codec.SqlType.BIGINT);
                case java.sql.Types.SMALLINT, java.sql.Types.TINYINT ->
                        io.meldb.sql.codec.ColumnType.of(io.meldb.sql.codec.SqlType.SMALLINT);
                case java.sql.Types.DOUBLE, java.sql.Types.FLOAT, java.sql.Types.REAL ->
                        io.meldb.sql.codec.ColumnType.of(io.meldb.sql.codec.SqlType.DOUBLE);
                case java.sql.Types.BOOLEAN -> io.meldb.sql.codec.ColumnType.of(io.meldb.sql.codec.SqlType.BOOLEAN);
                case java.sql.Types.DATE -> io.meldb.sql.codec.ColumnType.of(io.meldb.sql.codec.SqlType.DATE);
                case java.sql.Types.TIMESTAMP ->
                        io.meldb.sql.codec.ColumnType.of(io.meldb.sql.codec.SqlType.TIMESTAMP);
                case java.sql.Types.DECIMAL, java.sql.Types.NUMERIC -> precision <= 0
                        ? io.meldb.sql.codec.ColumnType.NUMERIC : new io.meldb.sql.codec.ColumnType(
                        io.meldb.sql.codec.SqlType.DECIMAL, Math.min(Math.max(precision, 1),
                        io.meldb.sql.codec.ColumnType.MAX_DECIMAL_PRECISION), Math.max(0, Math.min(scale,
                        Math.max(precision, 1))));
                case java.sql.Types.CHAR -> new io.meldb.sql.codec.ColumnType(io.meldb.sql.codec.SqlType.CHAR, p, 0);
                default -> new io.meldb.sql.codec.ColumnType(io.meldb.sql.codec.SqlType.VARCHAR, precision > 0
                        ? p : io.meldb.sql.codec.ColumnType.DEFAULT_VARCHAR_LENGTH, 0);
            };
        }
    }

    public ViewDef {
        columns = List.copyOf(columns);
    }

    /** Whether this view reads the table or view {@code relationId}. */
    public boolean dependsOn(final int relationId) {
        for (int d : dependsOn) {
            if (d == relationId) {
                return true;
            }
        }
        return false;
    }

    /** Whether the view's query mentions {@code identifier} as a word (a conservative "uses the column"). */
    public boolean mentions(final String identifier) {
        for (SqlLexer.Token t : SqlLexer.tokenize(sql)) {
            if (t.kind() == SqlLexer.Kind.WORD && (t.quoted() ? t.text().equals(identifier)
                    : t.text().equalsIgnoreCase(identifier))) {
                return true;
            }
        }
        return false;
    }

    /**
     * version(1)=1 db schema name (strings) id(4) sql (string) ncolumns(varint) { name jdbcType+1000 precision
     * scale (varints) nullable(1) } ndeps(varint) { id(4) }.
     */
    public byte[] encode() {
        final ByteWriter out = new ByteWriter(128);
        out.write(1);
        string(out, db);
        string(out, schema);
        string(out, name);
        out.writeInt(id);
        string(out, sql);
        out.writeVarInt(columns.size());
        for (Column c : columns) {
            string(out, c.name());
            out.writeVarInt(c.jdbcType() + 1000).writeVarInt(c.precision()).writeVarInt(c.scale())
                    .write(c.nullable() ? 1 : 0);
        }
        out.writeVarInt(dependsOn.length);
        for (int d : dependsOn) {
            out.writeInt(d);
        }
        return out.toByteArray();
    }

    public static ViewDef decode(final byte[] bytes) {
        final ByteReader in = new ByteReader(bytes, 0);
        final int version = in.read();
        if (version != 1) {
            throw new IllegalArgumentException("unknown view definition version " + version);
        }
        final String db = string(in);
        final String schema = string(in);
        final String name = string(in);
        final int id = in.readInt();
        final String sql = string(in);
        final int n = in.readVarInt();
        final List<Column> columns = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final String cname = string(in);
            columns.add(new Column(cname, in.readVarInt() - 1000, in.readVarInt(), in.readVarInt(), in.read() != 0));
        }
        final int[] deps = new int[in.readVarInt()];
        for (int i = 0; i < deps.length; i++) {
            deps[i] = in.readInt();
        }
        return new ViewDef(db, schema, name, id, sql, columns, deps);
    }

    private static void string(final ByteWriter out, final String s) {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeVarInt(b.length).write(b);
    }

    private static String string(final ByteReader in) {
        return new String(in.readBytes(in.readVarInt()), StandardCharsets.UTF_8);
    }
}
