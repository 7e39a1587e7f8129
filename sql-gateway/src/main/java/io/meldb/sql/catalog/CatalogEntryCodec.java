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
