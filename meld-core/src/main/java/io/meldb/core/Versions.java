package io.meldb.core;

/**
 * Version numbers (VN, SCV/NCV, SSV/NSV of meld paper §4.1–4.3).
 *
 * <p>A VN is derived, never stored in the log: {@code csn << 24 | kind << 22 | index}, where {@code csn} is the
 * commit sequence number of the intention the node belongs to (the intention's ordinal in the log, so every
 * replica derives the same value), {@code kind} says which stage created the node and {@code index} is the
 * node's post-order index in its intention (persisted nodes) or the stage's creation counter for that
 * intention (ephemeral nodes). Two properties follow and meld relies on both:
 * <ul>
 *   <li>unique: different versions of a key never share a VN, on any replica;</li>
 *   <li>monotone: everything committed in state {@code S_j} has {@code csnOf(vn) <= j}, so "was this content
 *   written after snapshot s" is {@code csnOf(ncv) > s}. That makes conflict tests exact at key granularity
 *   (a write in the conflict zone is a newer NCV) and lets group meld tell a newer snapshot from a conflict.</li>
 * </ul>
 * The value 0 means "no version" (a node inserted by the intention has no source content, SCV = 0).
 */
public final class Versions {
    public static final int KIND_PERSISTED = 0;
    public static final int KIND_PREMELD = 1;
    public static final int KIND_GROUP = 2;
    public static final int KIND_FINAL = 3;

    public static final int INDEX_BITS = 22;
    public static final int MAX_INDEX = (1 << INDEX_BITS) - 1;

    private Versions() {
    }

    public static long vn(final long csn, final int kind, final int index) {
        return (csn << 24) | ((long) kind << INDEX_BITS) | index;
    }

    public static long csnOf(final long vn) {
        return vn >>> 24;
    }

    public static int kindOf(final long vn) {
        return (int) (vn >>> INDEX_BITS) & 3;
    }

    public static int indexOf(final long vn) {
        return (int) vn & MAX_INDEX;
    }

    public static String toString(final long vn) {
        if (vn == 0) {
            return "-";
        }
        return csnOf(vn) + "." + "PMGF".charAt(kindOf(vn)) + indexOf(vn);
    }
}
