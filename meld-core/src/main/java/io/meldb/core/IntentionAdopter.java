package io.meldb.core;

import java.util.List;

/**
 * Turns a finished transaction's own intention tree into an {@link Intention} in place, without encoding and
 * decoding it (meld paper App. E: "T's intention tree should not be destroyed immediately after being
 * serialized ..., since it can be used by meld in the same server to avoid unnecessary deserialization").
 *
 * <p>It assigns exactly what decoding the same intention from the log would: VN = (csn, persisted, post-order
 * index), the derived subtree fields, and range records with {@code asOf} = the snapshot CSN. So a server that
 * adopts and a server that decodes build identical trees (same state hash).
 */
public final class IntentionAdopter {
    private final Arena arena;
    private final NodeDirectory directory;
    private long[] stack = new long[64];
    /** Lowest and highest handle of the nodes the last {@link #assignVersions} visited. */
    private long lowest;
    private long highest;
    private int[] state = new int[64];

    public IntentionAdopter(final Arena arena, final NodeDirectory directory) {
        this.arena = arena;
        this.directory = directory;
    }

    public Intention adopt(final Transaction txn, final long csn, final int intentionFlags, final Intention into) {
        if (!Transaction.owned(txn.root())) {
            throw new IllegalArgumentException("a transaction without writes needs no intention");
        }
        final int count = assignVersions(txn.root(), csn);
        final List<RangeDependency> list = txn.ranges();
        long ranges = 0;
        if (!list.isEmpty()) {
            ranges = arena.allocate(list.size() * Intention.RANGE_SIZE);
            for (int i = 0; i < list.size(); i++) {
                final RangeDependency r = list.get(i);
                int flags = 0;
                long lo = 0;
                long hi = 0;
                int loLength = 0;
                int hiLength = 0;
                if (r.lo() == null) {
                    flags |= Intention.RANGE_LO_UNBOUNDED;
                } else {
                    lo = arena.copyOf(r.lo());
                    loLength = r.lo().length;
                    flags |= r.loInclusive() ? Intention.RANGE_LO_INCLUSIVE : 0;
                }
                if (r.hi() == null) {
                    flags |= Intention.RANGE_HI_UNBOUNDED;
                } else {
                    hi = arena.copyOf(r.hi());
                    hiLength = r.hi().length;
                    flags |= r.hiInclusive() ? Intention.RANGE_HI_INCLUSIVE : 0;
                }
                Intention.writeRange(ranges, i, lo, loLength, hi, hiLength, txn.snapshot().csn(), flags);
            }
        }
        return into.set(csn, csn, txn.snapshot().csn(), txn.root(), count, txn.isolation(), intentionFlags, ranges,
            list.size()).span(lowest, highest, count);
    }

    /** Iterative post-order over owned nodes: children first, so derived fields can use the children's. */
    private int assignVersions(final long root, final long csn) {
        int index = 0;
        int top = 0;
        lowest = Long.MAX_VALUE;
        highest = 0;
        stack[0] = root;
        state[0] = 0;
        while (top >= 0) {
            final long n = stack[top];
            final int s = state[top];
            if (s < 2) {
                state[top] = s + 1;
                final long child = s == 0 ? Node.left(n) : Node.right(n);
                if (Transaction.owned(child)) {
                    top++;
                    if (top == stack.length) {
                        stack = java.util.Arrays.copyOf(stack, top * 2);
                        state = java.util.Arrays.copyOf(state, top * 2);
                    }
                    stack[top] = child;
                    state[top] = 0;
                }
            } else {
                final long vn = Versions.vn(csn, Versions.KIND_PERSISTED, index++);
                Node.vn(n, vn);
                final int f = Node.flags(n);
                if ((f & Node.PAYLOAD_SHARED) != 0) {
                    // the payload stays the source's, as a decoded payload reference; the field is a read's again
                    Node.flags(n, f & ~Node.PAYLOAD_SHARED);
                    if ((f & Node.DEPENDS_ON) == 0) {
                        Node.columns(n, ColumnReads.WHOLE_ROW);
                    }
                }
                Node.updateDerived(n);
                final long l = Node.left(n);
                final long r = Node.right(n);
                Node.markExternalChildren(n, l != 0 && Versions.csnOf(Node.vn(l)) < csn,
                    r != 0 && Versions.csnOf(Node.vn(r)) < csn);
                directory.register(vn, n);
                lowest = Math.min(lowest, n);
                highest = Math.max(highest, n);
                top--;
            }
        }
        return index;
    }
}
