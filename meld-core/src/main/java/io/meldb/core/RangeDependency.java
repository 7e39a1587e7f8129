package io.meldb.core;

import java.util.Arrays;

/**
 * A key range a serializable transaction read (a scan, or a point read that found no key): meld aborts the
 * transaction if any committed transaction in its conflict zone changed (inserted, updated or deleted) a key
 * in the range. This is the DependencyRange of meld paper §4.3.
 *
 * <p>We keep the ranges in a list beside the intention tree instead of on the node that covered the range in
 * the snapshot: a range scan also depends on the gaps at the edges of that node's subtree, and those gaps move
 * to other nodes when a concurrent insert rebalances the ancestors, so a node-attached range is only sound while
 * the ancestors are unchanged. Checked from the root with the {@code maxCv} subtree summary, the list is exact.
 *
 * @param lo          lower bound, {@code null} for unbounded
 * @param hi          upper bound, {@code null} for unbounded
 */
public record RangeDependency(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive) {
    public static RangeDependency point(final byte[] key) {
        return new RangeDependency(key, true, key, true);
    }

    /** True if the range contains {@code key} (unsigned lexicographic order). */
    public boolean contains(final byte[] key) {
        if (lo != null) {
            final int c = Arrays.compareUnsigned(key, lo);
            if (c < 0 || (c == 0 && !loInclusive)) {
                return false;
            }
        }
        if (hi != null) {
            final int c = Arrays.compareUnsigned(key, hi);
            return c < 0 || (c == 0 && hiInclusive);
        }
        return true;
    }

    @Override
    public String toString() {
        return (loInclusive ? "[" : "(") + (lo == null ? "-inf" : Arrays.toString(lo)) + ", "
            + (hi == null ? "+inf" : Arrays.toString(hi)) + (hiInclusive ? "]" : ")");
    }
}
