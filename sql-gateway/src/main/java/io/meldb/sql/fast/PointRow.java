package io.meldb.sql.fast;

import io.meldb.sql.catalog.TableStore;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.sql.codec.RowCodec;
import io.meldb.sql.server.RowCursor;
import org.agrona.ExpandableArrayBuffer;

import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The one row of a point read (or none), read in place: the row's payload is fetched into this cursor's own
 * buffer ({@link io.meldb.txn.api.TxnSession#get(byte[], org.agrona.MutableDirectBuffer)}) and an integer column is
 * read from its bytes, in the key or in the payload, by {@link #longValue}, with no decoded row, no box and no
 * copy of the payload (issue 16); a VARCHAR or TEXT column of the payload is handed out as its UTF-8 bytes in
 * place ({@link #utf8Length}). Other columns, and any column of a table whose payload is not in the direct
 * layout (a column was altered), are decoded into an {@code Object[]} row the first time one is asked for.
 * A {@link FastPlan} keeps one and reuses it once the previous execution's cursor is closed.
 */
final class PointRow implements RowCursor {
    private static final int NOT_THERE = -1;
    private static final int UNKNOWN = -2;

    private final ExpandableArrayBuffer payload = new ExpandableArrayBuffer(64);
    private final int[] output;
    private TableStore store;
    /** Per column of the table: its type, whether in the key, and (key columns) its position among them. */
    private ColumnType[] types;
    private int[] keyRank;
    private int[] valueColumns;
    /** The value bytes the output columns occupy ({@link io.meldb.sql.catalog.ReadColumns}): the read's dependency. */
    private long readMask;
    /** Per column: where its value's presence or tag byte is in the key or payload, NOT_THERE, or UNKNOWN. */
    private int[] at;
    private boolean offsetsKnown;
    private byte[] key;
    private int payloadLength = -1;
    private boolean before;
    private Object[] decoded;
    /** Whether the cursor is handed out and not yet closed. */
    boolean open;

    PointRow(final int[] output) {
        this.output = output;
    }

    /**
     * Reads row {@code key} (null: no row) of {@code store} in {@code txn} into this cursor, which is then open.
     * The cursor reads {@code key} while it is open.
     */
    PointRow read(final io.meldb.txn.api.TxnSession txn, final TableStore store, final byte[] key) {
        if (store != this.store) {
            bind(store);
        }
        this.key = key;
        payloadLength = key == null ? -1 : txn.get(key, payload, readMask);
        before = true;
        decoded = null;
        offsetsKnown = false;
        open = true;
        return this;
    }

    private void bind(final TableStore s) {
        store = s;
        final int n = s.def().columns().size();
        types = new ColumnType[n];
        for (int c = 0; c < n; c++) {
            types[c] = s.def().columns().get(c).type();
        }
        keyRank = new int[n];
        Arrays.fill(keyRank, -1);
        final int[] pk = s.def().primaryKey();
        for (int i = 0; i < pk.length; i++) {
            keyRank[pk[i]] = i;
        }
        valueColumns = s.def().valueColumns();
        at = new int[n];
        readMask = io.meldb.sql.catalog.ReadColumns.mask(s, output);
    }

    @Override
    public boolean next() {
        if (before && payloadLength >= 0) {
            before = false;
            return true;
        }
        before = false;
        return false;
    }

    @Override
    public Object value(final int column) {
        if (decoded == null) {
            decoded = store.decodeRow(key, Arrays.copyOf(payload.byteArray(), payloadLength));
        }
        final int c = output[column];
        return FastPlan.external(types[c], decoded[c]);
    }

    @Override
    public boolean hasLong(final int column) {
        final int c = output[column];
        if (!types[c].integral() || !store.directLayout()) {
            return false;
        }
        if (!offsetsKnown) {
            locate();
        }
        final int i = at[c];
        if (i < 0) {
            return false;
        }
        // a value follows the tag (key) or the presence byte (payload)
        return keyRank[c] >= 0 ? (key[i] & 0xFF) == KeyCodec.TAG_VALUE : payload.getByte(i) != 0;
    }

    @Override
    public long longValue(final int column) {
        final int c = output[column];
        if (!hasLong(column)) {
            return ((Number) value(column)).longValue();
        }
        final int i = at[c] + 1;
        if (keyRank[c] >= 0) {
            return switch (types[c].type()) {
                case SMALLINT -> (short) (((key[i] & 0xFF) << 8 | (key[i + 1] & 0xFF)) ^ 0x8000);
                case INTEGER -> bigEndianInt(key, i) ^ Integer.MIN_VALUE;
                default -> ((long) bigEndianInt(key, i) << 32 | (bigEndianInt(key, i + 4) & 0xFFFFFFFFL))
                        ^ Long.MIN_VALUE;
            };
        }
        return switch (types[c].type()) {
            case SMALLINT -> payload.getShort(i, ByteOrder.BIG_ENDIAN);
            case INTEGER -> payload.getInt(i, ByteOrder.BIG_ENDIAN);
            default -> payload.getLong(i, ByteOrder.BIG_ENDIAN);
        };
    }

    @Override
    public int utf8Length(final int column) {
        final int c = output[column];
        final io.meldb.sql.codec.SqlType t = types[c].type();
        // a key holds text escaped; a payload holds its UTF-8 bytes as they are, after their length
        if ((t != io.meldb.sql.codec.SqlType.VARCHAR && t != io.meldb.sql.codec.SqlType.TEXT) || keyRank[c] >= 0
                || !store.directLayout()) {
            return -1;
        }
        if (!offsetsKnown) {
            locate();
        }
        final int i = at[c];
        return i < 0 || payload.getByte(i) == 0 ? -1 : varInt(i + 1);
    }

    @Override
    public int utf8Offset(final int column) {
        return skipVarInt(at[output[column]] + 1);
    }

    @Override
    public byte[] utf8Array() {
        return payload.byteArray();
    }

    private static int bigEndianInt(final byte[] b, final int i) {
        return (b[i] & 0xFF) << 24 | (b[i + 1] & 0xFF) << 16 | (b[i + 2] & 0xFF) << 8 | (b[i + 3] & 0xFF);
    }

    /**
     * Finds where each column's bytes start: key columns by walking the key past the table's prefix (up to the
     * first column of variable width), value columns by walking the payload as {@link io.meldb.sql.codec.RowCodec}
     * wrote it (up to its end: a row written before ADD COLUMN is shorter).
     */
    private void locate() {
        offsetsKnown = true;
        Arrays.fill(at, UNKNOWN);
        int i = store.prefix().length;
        for (int c : store.def().primaryKey()) {
            if (i >= key.length) {
                break;
            }
            at[c] = i;
            final int width = RowCodec.fixedWidth(types[c]);
            if (width == 0 || (key[i] & 0xFF) != KeyCodec.TAG_VALUE) {
                break; // variable width (or NULL, which a primary key never holds): stop here
            }
            i += 1 + width;
        }
        int p = 0;
        for (int c : valueColumns) {
            if (p >= payloadLength) {
                break;
            }
            at[c] = p;
            final boolean present = payload.getByte(p++) != 0;
            if (!present) {
                continue;
            }
            final int width = RowCodec.fixedWidth(types[c]);
            if (width > 0) {
                p += width;
                continue;
            }
            switch (types[c].type()) {
                case DECIMAL -> {
                    p = skipVarInt(p); // scale
                    final int n = varInt(p);
                    p = skipVarInt(p) + n;
                }
                default -> { // BYTEA, UUID-less strings, JSON: length then bytes
                    final int n = varInt(p);
                    p = skipVarInt(p) + n;
                }
            }
        }
    }

    private int varInt(final int from) {
        int v = 0;
        int shift = 0;
        int p = from;
        while (true) {
            final int b = payload.getByte(p++) & 0xFF;
            v |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
            shift += 7;
        }
    }

    private int skipVarInt(final int from) {
        int p = from;
        while ((payload.getByte(p++) & 0x80) != 0) {
            // continuation bytes
        }
        return p;
    }

    @Override
    public void close() {
        open = false;
        decoded = null;
        key = null;
    }
}
