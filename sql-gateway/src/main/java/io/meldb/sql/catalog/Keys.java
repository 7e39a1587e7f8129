package io.meldb.sql.catalog;

import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.sql.codec.SqlType;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The layout of MeldDB's one tree (docs/architecture.md "The catalog tree"):
 *
 * <pre>
 * 0x00 'C' id(4) attnum(4)          → comment on a table, view (attnum 0) or column ({@link Comments})
 * 0x00 'D' db                       → database entry ({@link CatalogEntryCodec})
 * 0x00 'L' id(4)                    → row layout of a table ALTER TABLE changed ({@link RowLayout})
 * 0x00 'N'                          → next id for tables and indexes (4 bytes)
 * 0x00 'Q' db schema sequence       → sequence definition ({@link CatalogEntryCodec})
 * 0x00 'S' db schema                → schema entry ({@link CatalogEntryCodec})
 * 0x00 'T' db schema table          → table definition ({@link TableDefCodec})
 * 0x00 'V'                          → catalog version: a token every DDL transaction replaces
 * 0x00 'W' db schema view           → view definition ({@link ViewDef})
 * 0x01 id(4) encoded primary key    → row payload (non-key columns)
 * 0x01 id(4) 0x00 row id(16)        → row payload (every column) of a table without primary key ({@link RowIds})
 * 0x01 id(4) encoded index key, pk  → empty payload (pk: the encoded primary key, or 0x00 and the row id)
 * 0x01 id(4)                        → of a sequence: the first value no gateway has reserved (8 bytes)
 * </pre>
 * Names are encoded as VARCHAR keys, so each kind of catalog entry sorts by its path: databases by name,
 * schemas by (db, schema), tables by (db, schema, table); the schemas of one database and the tables of one
 * schema are each one contiguous key range. The whole catalog is the range [0x00, 0x01), read in one scan.
 * (Before schemas became entries there were no 'D' and 'S' keys; data directories of that layout are not
 * read by this version.)
 */
public final class Keys {
    public static final byte CATALOG = 0x00;
    public static final byte DATA = 0x01;
    public static final byte[] CATALOG_PREFIX = {CATALOG};
    public static final byte[] DATABASES_PREFIX = {CATALOG, 'D'};
    public static final byte[] NEXT_ID = {CATALOG, 'N'};
    public static final byte[] SCHEMAS_PREFIX = {CATALOG, 'S'};
    public static final byte[] SEQUENCES_PREFIX = {CATALOG, 'Q'};
    public static final byte[] TABLES_PREFIX = {CATALOG, 'T'};
    public static final byte[] CATALOG_VERSION = {CATALOG, 'V'};
    public static final byte[] LAYOUTS_PREFIX = {CATALOG, 'L'};
    public static final byte[] VIEWS_PREFIX = {CATALOG, 'W'};
    public static final byte[] COMMENTS_PREFIX = {CATALOG, 'C'};
    public static final int FIRST_ID = 1;

    /** Every key and index column has a key encoding; a JSON column is refused as PostgreSQL refuses it (42704). */
    static void requireKeyTypes(final List<ColumnDef> columns, final int[] primaryKey, final List<IndexDef> indexes) {
        for (int c : primaryKey) {
            requireKeyType(columns.get(c));
        }
        for (IndexDef index : indexes) {
            for (int c : index.columns()) {
                requireKeyType(columns.get(c));
            }
        }
    }

    private static void requireKeyType(final ColumnDef column) {
        if (!KeyCodec.isKeyType(column.type().type())) {
            throw KeyCodec.notAKey(column.type().type());
        }
        if (column.type().unconstrained()) {
            // a key keeps the number, not its display scale: 1.50 would come back as 1.5
            throw new io.meldb.sql.SqlStateException("0A000", "column \"" + column.name() + "\": numeric without "
                    + "a precision cannot be in a key or an index yet; declare it numeric(p, s)");
        }
    }

    private Keys() {
    }

    public static byte[] databaseKey(final String db) {
        return catalogKey(DATABASES_PREFIX, db);
    }

    public static byte[] schemaKey(final String db, final String schema) {
        return catalogKey(SCHEMAS_PREFIX, db, schema);
    }

    public static byte[] tableDefKey(final String db, final String schema, final String table) {
        return catalogKey(TABLES_PREFIX, db, schema, table);
    }

    public static byte[] sequenceKey(final String db, final String schema, final String sequence) {
        return catalogKey(SEQUENCES_PREFIX, db, schema, sequence);
    }

    /** The row layout entry of table {@code id}. */
    public static byte[] layoutKey(final int id) {
        return new ByteWriter(6).write(LAYOUTS_PREFIX).writeInt(id).toByteArray();
    }

    public static byte[] viewKey(final String db, final String schema, final String view) {
        return catalogKey(VIEWS_PREFIX, db, schema, view);
    }

    /** The comment on column {@code attnum} of relation {@code id}, or on the relation itself (attnum 0). */
    public static byte[] commentKey(final int id, final int attnum) {
        return new ByteWriter(10).write(COMMENTS_PREFIX).writeInt(id).writeInt(attnum).toByteArray();
    }

    /** The first bytes of every comment of relation {@code id}. */
    public static byte[] commentsPrefix(final int id) {
        return new ByteWriter(6).write(COMMENTS_PREFIX).writeInt(id).toByteArray();
    }

    /** The first bytes of the definitions of every table of one schema. */
    public static byte[] schemaTablesPrefix(final String db, final String schema) {
        return catalogKey(TABLES_PREFIX, db, schema);
    }

    /** A catalog key: the kind's prefix, then each name of the entry's path as a VARCHAR key. */
    private static byte[] catalogKey(final byte[] prefix, final String... path) {
        final ByteWriter out = new ByteWriter();
        out.write(prefix);
        for (final String name : path) {
            KeyCodec.encode(out, SqlType.VARCHAR, name);
        }
        return out.toByteArray();
    }

    /** The first bytes of every key of the table or index {@code id}. */
    public static byte[] dataPrefix(final int id) {
        return new ByteWriter(5).write(DATA).writeInt(id).toByteArray();
    }

    public static byte[] encodeInt(final int v) {
        return new ByteWriter(4).writeInt(v).toByteArray();
    }

    public static int decodeInt(final byte[] b) {
        return ((b[0] & 0xFF) << 24) | ((b[1] & 0xFF) << 16) | ((b[2] & 0xFF) << 8) | (b[3] & 0xFF);
    }

    static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
