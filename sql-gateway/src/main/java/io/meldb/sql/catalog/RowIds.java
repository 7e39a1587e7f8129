package io.meldb.sql.catalog;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hidden row ids of tables without a primary key ({@link TableDef#hiddenRowId()}). A row of such a table lives at
 *
 * <pre>
 * 0x01 table id(4)  0x00  origin(8)  counter(8)   → payload of every column
 * </pre>
 * where {@code origin} is a random 64-bit number drawn once per JVM (per gateway process) when this class loads,
 * and {@code counter} counts the row ids this process handed out, both big-endian. The marker byte 0x00 sorts
 * below every tag of {@link io.meldb.sql.codec.KeyCodec} (values start with 0x01, NULLs with 0x02), so the row-id
 * keys of a table are a key range of their own, apart from the keys the same table has once ALTER TABLE ... ADD
 * PRIMARY KEY rewrites it (which reads the one range while writing the other). An index entry of such a table ends
 * with the same 17 bytes, as one of a keyed table ends with the encoded primary key.
 *
 * <p>Why this and not a counter in the tree: a shared counter key would be read and written by every INSERT, and
 * meld would abort all but one of any set of concurrent inserts into the table (one hot key). Why not the
 * txn-server's incarnation: a gateway routes to several txn-servers and may change servers mid-session, so the id
 * would have to come back from the server. A random origin needs no one else: two gateways (or a gateway and its
 * own restart) hand out the same id only if they draw the same 64-bit origin, about n²/2⁶⁵ for n processes ever
 * started (1e-8 for a million). Inserts of one process append at the end of its own run of keys; concurrent
 * inserts of different processes land in different places of the tree. Rows are returned in row-id order: in
 * insertion order per process.
 */
public final class RowIds {
    /** The byte after the table prefix that marks a row-id key. */
    public static final byte MARKER = 0x00;
    /** Length of the row id after the table prefix: marker, origin, counter. */
    public static final int LENGTH = 17;

    private static final long ORIGIN = new SecureRandom().nextLong();
    private static final AtomicLong COUNTER = new AtomicLong();

    private RowIds() {
    }

    /** A fresh row key of the table whose data prefix is {@code prefix}. */
    public static byte[] next(final byte[] prefix) {
        final long n = COUNTER.getAndIncrement();
        final byte[] key = new byte[prefix.length + LENGTH];
        System.arraycopy(prefix, 0, key, 0, prefix.length);
        key[prefix.length] = MARKER;
        putLong(key, prefix.length + 1, ORIGIN);
        putLong(key, prefix.length + 9, n);
        return key;
    }

    /** The first key after every row-id key of the table whose data prefix is {@code prefix}. */
    public static byte[] rangeEnd(final byte[] prefix) {
        final byte[] end = new byte[prefix.length + 1];
        System.arraycopy(prefix, 0, end, 0, prefix.length);
        end[prefix.length] = MARKER + 1;
        return end;
    }

    /** The first key of the row-id range of the table whose data prefix is {@code prefix}. */
    public static byte[] rangeStart(final byte[] prefix) {
        final byte[] start = new byte[prefix.length + 1];
        System.arraycopy(prefix, 0, start, 0, prefix.length);
        start[prefix.length] = MARKER;
        return start;
    }

    private static void putLong(final byte[] b, final int at, final long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (56 - 8 * i));
        }
    }
}
