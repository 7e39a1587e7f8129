package io.meldb.core;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tree invariants as properties: key order without duplicates, AVL balance and heights, derived fields. */
final class TreeInvariants {
    private TreeInvariants() {
    }

    /** Checks the invariants of the tree under {@code root}; returns its height. */
    static int check(final long root) {
        return check(root, 0, 0);
    }

    private static int check(final long n, final long lo, final long hi) {
        if (n == 0) {
            return 0;
        }
        final int h = shape(n, lo, hi);
        check(Node.left(n), lo, n);
        check(Node.right(n), n, hi);
        assertTrue(Node.vn(n) != 0, "every reachable node has an identity");
        long max = Node.ncv(n);
        if (Node.left(n) != 0) {
            max = Math.max(max, Node.maxCv(Node.left(n)));
        }
        if (Node.right(n) != 0) {
            max = Math.max(max, Node.maxCv(Node.right(n)));
        }
        assertEquals(max, Node.maxCv(n), "maxCv summarises the subtree");
        return h;
    }

    /** Order, no duplicates and AVL balance with stored heights, for a tree that may hold unversioned nodes. */
    static int checkShape(final long root) {
        return shape(root, 0, 0);
    }

    private static int shape(final long n, final long lo, final long hi) {
        if (n == 0) {
            return 0;
        }
        if (lo != 0) {
            assertTrue(Node.compareKeys(lo, n) < 0, "keys strictly ascending (no duplicates)");
        }
        if (hi != 0) {
            assertTrue(Node.compareKeys(n, hi) < 0, "keys strictly ascending (no duplicates)");
        }
        final int hl = shape(Node.left(n), lo, n);
        final int hr = shape(Node.right(n), n, hi);
        assertTrue(Math.abs(hl - hr) <= 1, "AVL balance: " + hl + " vs " + hr);
        assertEquals(1 + Math.max(hl, hr), Node.height(n), "stored height");
        return 1 + Math.max(hl, hr);
    }

    /** Live (non-tombstone) key/value pairs in key order. */
    static void inOrder(final long n, final List<byte[][]> out) {
        if (n == 0) {
            return;
        }
        inOrder(Node.left(n), out);
        if (!Node.tombstone(n)) {
            out.add(new byte[][] {Node.keyBytes(n), Node.payloadBytes(n)});
        }
        inOrder(Node.right(n), out);
    }
}
