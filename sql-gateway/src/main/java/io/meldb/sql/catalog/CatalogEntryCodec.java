package io.meldb.sql.catalog;

import io.meldb.sql.codec.ByteReader;
import io.meldb.sql.codec.ByteWriter;

import java.nio.charset.StandardCharsets;

/**
 * The payloads of database and schema entries of the catalog (table entries use {@link TableDefCodec}). The
 * names are in the key already; they are repeated in the payload so an entry reads on its own.
 *
 * <pre>
 * database: version(1)=1  'D'  db (string)
 * schema:   version(1)=1  'S'  db schema (strings)
 * sequence: version(1)=1  'Q'  db schema name (strings)  id(4)  type(1)  start increment min max cache (8 each)
 *           owner table, owner column (strings, empty when not owned)
 * string = length(varint) UTF-8
 * </pre>
 */
public final class CatalogEntryCodec {
    private static final int VERSION = 1;

    private CatalogEntryCodec() {
    }

    public static byte[] encodeDatabase(final String db) {
        final ByteWriter out = new ByteWriter(16);
        out.write(VERSION).write('D');
        string(out, db);
        return out.toByteArray();
    }

    public static String decodeDatabase(final byte[] bytes) {
        final ByteReader in = header(bytes, 'D');
        return string(in);
    }

    public static byte[] encodeSchema(final SchemaDef schema) {
        final ByteWriter out = new ByteWriter(24);
        out.write(VERSION).write('S');
        string(out, schema.db());
        string(out, schema.name());
        return out.toByteArray();
    }

    public static SchemaDef decodeSchema(final byte[] bytes) {
        final ByteReader in = header(bytes, 'S');
        final String db = string(in);
        return new SchemaDef(db, string(in));
    }

    public static byte[] encodeSequence(final SequenceDef q) {
        final ByteWriter out = new ByteWriter(96);
        out.write(VERSION).write('Q');
        string(out, q.db());
        string(out, q.schema());
        string(out, q.name());
        out.writeInt(q.id());
        out.write(q.type().ordinal());
        for (long v : new long[] {q.start(), q.increment(), q.min(), q.max(), q.cache()}) {
            out.writeLong(v);
        }
        string(out, q.ownerTable() == null ? "" : q.ownerTable());
        string(out, q.ownerColumn() == null ? "" : q.ownerColumn());
        return out.toByteArray();
    }

    public static SequenceDef decodeSequence(final byte[] bytes) {
        final ByteReader in = header(bytes, 'Q');
        final String db = string(in);
        final String schema = string(in);
        final String name = string(in);
        final int id = in.readInt();
        final io.meldb.sql.codec.SqlType type = io.meldb.sql.codec.SqlType.values()[in.read()];
        final long start = in.readLong();
        final long increment = in.readLong();
        final long min = in.readLong();
        final long max = in.readLong();
        final long cache = in.readLong();
        final String ownerTable = string(in);
        final String ownerColumn = string(in);
        return new SequenceDef(db, schema, name, id, type, start, increment, min, max, cache,
                ownerTable.isEmpty() ? null : ownerTable, ownerColumn.isEmpty() ? null : ownerColumn);
    }

    private static ByteReader header(final byte[] bytes, final char kind) {
        final ByteReader in = new ByteReader(bytes, 0);
        final int version = in.read();
        if (version != VERSION) {
            throw new IllegalArgumentException("unknown catalog entry version " + version);
        }
        final int k = in.read();
        if (k != kind) {
            throw new IllegalArgumentException("expected a catalog entry of kind " + kind + ", found " + (char) k);
        }
        return in;
    }

    private static void string(final ByteWriter out, final String s) {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeVarInt(b.length).write(b);
    }

    private static String string(final ByteReader in) {
        return new String(in.readBytes(in.readVarInt()), StandardCharsets.UTF_8);
    }
}
