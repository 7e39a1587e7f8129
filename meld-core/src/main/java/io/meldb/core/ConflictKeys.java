package io.meldb.core;

import java.util.ArrayList;
import java.util.List;

/**
 * A debug meter of why meld aborts: for every conflict abort, the key class it conflicted on (the first
 * {@code prefixBytes} bytes of the node's key, or of a range dependency's low bound) and the key classes of the
 * smallest and largest key the aborted intention wrote (which tells a benchmark the transaction's type). Off by
 * default ({@link #enable}); while off, meld pays one volatile read per abort. Counts are a function of the log and
 * the pipeline configuration only (the first conflicting node in key order, the written bounds), never of timing; a
 * premeld abort counts where premeld found it. One table per JVM, shared by every pipeline in it (servers replace
 * their pipeline at each checkpoint, and a benchmark wants the run's total).
 *
 * <p>Recording happens on the abort path only, while the meter is on, into a fixed open-addressed table under a
 * lock (premeld threads and the meld thread may abort at once); while it is off nothing is recorded or allocated.
 */
public final class ConflictKeys {
    /** A conflict on a point (a node the intention read or wrote). */
    public static final int POINT = 0;
    /** A conflict on a range dependency (a scan, or a read of an absent key). */
    public static final int RANGE = 1;

    private static final int SLOTS = 512;
    private static volatile int prefixBytes;
    private static final long[] conflictClass = new long[SLOTS];
    private static final long[] writtenLo = new long[SLOTS];
    private static final long[] writtenHi = new long[SLOTS];
    private static final int[] kinds = new int[SLOTS];
    private static final long[] counts = new long[SLOTS];
    private static long overflow;

    /** One row of the meter. Key classes are the first bytes of a key, big-endian, zero-padded to 8 bytes. */
    public record Row(int kind, long conflictClass, long writtenLo, long writtenHi, long count) {
    }

    private ConflictKeys() {
    }

    /** Starts counting, by the first {@code bytes} (1–8) bytes of a key, and clears the counts. */
    public static synchronized void enable(final int bytes) {
        if (bytes < 1 || bytes > 8) {
            throw new IllegalArgumentException("key class of " + bytes + " bytes: 1 to 8");
        }
        clear();
        prefixBytes = bytes;
    }

    /** Stops counting. */
    public static synchronized void disable() {
        prefixBytes = 0;
    }

    static boolean enabled() {
        return prefixBytes != 0;
    }

    /** The key class of a key prefix ({@link NodeMemory#prefix}). */
    static long classOf(final long prefix) {
        final int bytes = prefixBytes;
        return bytes == 0 ? 0 : prefix & (-1L << (8 * (8 - bytes)));
    }

    /**
     * Counts the conflict abort of {@code intention}: on intention node {@code conflictNode}, or (0) on a range whose
     * low bound starts with {@code rangePrefix}; a point range ({@code point}: a whole-row read) counts as its row.
     */
    static void recordAbort(final Intention intention, final long conflictNode, final long rangePrefix,
                            final boolean point) {
        final long[] bounds = {0, 0};
        writtenBounds(intention.root, intention.minCsn, intention.csn, bounds);
        final long lo = bounds[0] == 0 ? 0 : Node.keyPrefix(bounds[0]);
        final long hi = bounds[1] == 0 ? 0 : Node.keyPrefix(bounds[1]);
        if (conflictNode != 0) {
            record(POINT, Node.keyPrefix(conflictNode), lo, hi);
        } else if (point) {
            record(POINT, rangePrefix, lo, hi);
        } else {
            record(RANGE, rangePrefix, lo, hi);
        }
    }

    /** The smallest and largest node the intention (CSNs minCsn..csn) altered, into {@code bounds}. */
    private static void writtenBounds(final long n, final long minCsn, final long csn, final long[] bounds) {
        if (n == 0) {
            return;
        }
        final long c = Versions.csnOf(Node.vn(n));
        if (c < minCsn || c > csn) {
            return;
        }
        final int f = Node.flags(n);
        if ((f & Node.EXTERNAL_LEFT) == 0) {
            writtenBounds(Node.left(n), minCsn, csn, bounds);
        }
        if ((f & Node.ALTERED) != 0) {
            if (bounds[0] == 0) {
                bounds[0] = n;
            }
            bounds[1] = n;
        }
        if ((f & Node.EXTERNAL_RIGHT) == 0) {
            writtenBounds(Node.right(n), minCsn, csn, bounds);
        }
    }

    static synchronized void record(final int kind, final long conflictPrefix, final long writtenLoPrefix,
                                    final long writtenHiPrefix) {
        if (prefixBytes == 0) {
            return;
        }
        final long c = classOf(conflictPrefix);
        final long lo = classOf(writtenLoPrefix);
        final long hi = classOf(writtenHiPrefix);
        int slot = (int) (mix(c * 31 + lo * 17 + hi * 7 + kind) & (SLOTS - 1));
        for (int probe = 0; probe < SLOTS; probe++) {
            if (counts[slot] == 0) {
                conflictClass[slot] = c;
                writtenLo[slot] = lo;
                writtenHi[slot] = hi;
                kinds[slot] = kind;
                counts[slot] = 1;
                return;
            }
            if (conflictClass[slot] == c && writtenLo[slot] == lo && writtenHi[slot] == hi && kinds[slot] == kind) {
                counts[slot]++;
                return;
            }
            slot = (slot + 1) & (SLOTS - 1);
        }
        overflow++;
    }

    private static long mix(final long x) {
        long h = x * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }

    /** The rows counted since {@link #enable} or {@link #clear}, largest count first (ties by key class). */
    public static synchronized List<Row> rows() {
        final List<Row> rows = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            if (counts[i] != 0) {
                rows.add(new Row(kinds[i], conflictClass[i], writtenLo[i], writtenHi[i], counts[i]));
            }
        }
        rows.sort((a, b) -> a.count() != b.count() ? Long.compare(b.count(), a.count())
            : a.conflictClass() != b.conflictClass() ? Long.compareUnsigned(a.conflictClass(), b.conflictClass())
            : a.writtenLo() != b.writtenLo() ? Long.compareUnsigned(a.writtenLo(), b.writtenLo())
            : Long.compareUnsigned(a.writtenHi(), b.writtenHi()) != 0
                ? Long.compareUnsigned(a.writtenHi(), b.writtenHi()) : Integer.compare(a.kind(), b.kind()));
        return rows;
    }

    /** Aborts not counted because the table was full. */
    public static synchronized long overflow() {
        return overflow;
    }

    /** Zeroes the counts (a benchmark does it between windows). */
    public static synchronized void clear() {
        java.util.Arrays.fill(counts, 0);
        overflow = 0;
    }
}
