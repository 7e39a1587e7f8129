package io.meldb.core;

import java.util.Arrays;

/**
 * The read and write sets meld already records, gathered per member of a reorder window (seed 001 §3.2): the
 * intention's own nodes flagged ALTERED (written) or DEPENDS_ON (read), in key order (an in-order walk of the
 * intention tree), plus its range dependencies. {@link Reorderer} builds the dependency graph from them and
 * pre-validates against the state before the window. Arrays grow to the largest window seen and are reused.
 */
final class WindowKeys {
    /** Per member: where its nodes start in {@link #nodes}; {@code starts[count]} is the end. */
    private final int[] starts = new int[ReorderConfig.MAX_WINDOW + 1];
    private long[] nodes = new long[1024];
    /** The member each node of {@link #nodes} belongs to. */
    private int[] owners = new int[1024];
    /** Positions in {@link #nodes} in key order (ties: member order), after {@link #sortByKey}; and merge scratch. */
    private int[] byKey = new int[1024];
    private int[] scratch = new int[1024];
    private int size;
    private int members;
    /** Bounds of the member being collected: its own nodes have CSNs in [minCsn, maxCsn]. */
    private long minCsn;
    private long maxCsn;

    void clear() {
        size = 0;
        members = 0;
        starts[0] = 0;
    }

    /** Appends the next member's keys; an aborted or rejected member gets an empty set. */
    void add(final Intention intention) {
        if (intention != null && intention.root != 0) {
            minCsn = intention.minCsn;
            maxCsn = intention.csn;
            collect(intention.root);
        }
        starts[++members] = size;
    }

    int from(final int member) {
        return starts[member];
    }

    int to(final int member) {
        return starts[member + 1];
    }

    long node(final int i) {
        return nodes[i];
    }

    /** Total nodes of all members. */
    int size() {
        return size;
    }

    /**
     * Orders every member's nodes by key, ties by member: a stable merge of the members' runs (each already in key
     * order), so the window's pairs of members sharing a key are found in O(n log W) instead of a merge per pair.
     */
    void sortByKey() {
        for (int i = 0; i < size; i++) {
            byKey[i] = i;
        }
        // runs: one per member; merge neighbouring runs until one is left
        for (int width = 1; width < members; width *= 2) {
            for (int m = 0; m + width < members; m += 2 * width) {
                merge(starts[m], starts[m + width], starts[Math.min(m + 2 * width, members)]);
            }
        }
    }

    private void merge(final int lo, final int mid, final int hi) {
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
            // ties keep the left run first: it holds the lower members
            scratch[k++] = Node.compareKeys(nodes[byKey[j]], nodes[byKey[i]]) < 0 ? byKey[j++] : byKey[i++];
        }
        while (i < mid) {
            scratch[k++] = byKey[i++];
        }
        while (j < hi) {
            scratch[k++] = byKey[j++];
        }
        System.arraycopy(scratch, lo, byKey, lo, hi - lo);
    }

    /** The {@code i}-th node in key order (after {@link #sortByKey}). */
    long sortedNode(final int i) {
        return nodes[byKey[i]];
    }

    /** The member of the {@code i}-th node in key order. */
    int sortedOwner(final int i) {
        return owners[byKey[i]];
    }

    static boolean writes(final long node) {
        return (Node.flags(node) & Node.ALTERED) != 0;
    }

    /**
     * True unless the node is an increment without a read: meld checks no version for it (it commutes with every
     * other write of the key), so nothing melded before it can make it abort.
     */
    static boolean versionChecked(final long node) {
        return (Node.flags(node) & (Node.INCREMENT | Node.DEPENDS_ON)) != Node.INCREMENT;
    }

    private boolean own(final long n) {
        if (n == 0) {
            return false;
        }
        final long c = Versions.csnOf(Node.vn(n));
        return c >= minCsn && c <= maxCsn;
    }

    private void collect(final long n) {
        if (!own(n)) {
            return;
        }
        final int f = Node.flags(n);
        if ((f & Node.EXTERNAL_LEFT) == 0) {
            collect(Node.left(n));
        }
        if ((f & (Node.ALTERED | Node.DEPENDS_ON)) != 0) {
            if (size == nodes.length) {
                nodes = Arrays.copyOf(nodes, size * 2);
                owners = Arrays.copyOf(owners, size * 2);
                byKey = new int[size * 2];
                scratch = new int[size * 2];
            }
            owners[size] = members;
            nodes[size++] = n;
        }
        if ((f & Node.EXTERNAL_RIGHT) == 0) {
            collect(Node.right(n));
        }
    }

    /** True if {@code node}'s key lies in the range record {@code r} (an {@link Intention} range). */
    static boolean inRange(final long node, final long r) {
        final int flags = NodeMemory.getInt(r, Intention.RANGE_FLAGS);
        if ((flags & Intention.RANGE_LO_UNBOUNDED) == 0) {
            final int c = NodeMemory.compare(Node.key(node), Node.keyLength(node),
                NodeMemory.getLong(r, Intention.RANGE_LO), NodeMemory.getInt(r, Intention.RANGE_LO_LENGTH));
            if (c < 0 || (c == 0 && (flags & Intention.RANGE_LO_INCLUSIVE) == 0)) {
                return false;
            }
        }
        if ((flags & Intention.RANGE_HI_UNBOUNDED) == 0) {
            final int c = NodeMemory.compare(Node.key(node), Node.keyLength(node),
                NodeMemory.getLong(r, Intention.RANGE_HI), NodeMemory.getInt(r, Intention.RANGE_HI_LENGTH));
            return c < 0 || (c == 0 && (flags & Intention.RANGE_HI_INCLUSIVE) != 0);
        }
        return true;
    }
}
