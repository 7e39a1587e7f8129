package io.meldb.core;

/**
 * The range half of meld's conflict test: an intention's range dependencies (a scan it read, with the CSN it read
 * as of) against a state. A range conflicts when some node in it, or a node of its subtree bounded by the range, is
 * newer than the read; subtrees whose newest version ({@code maxCv}) is not newer are skipped whole (Hyder II §3's
 * range validation over the multi-versioned tree; docs/meld.md, "Range dependencies are a list beside the
 * tree"). One per {@link Meld}, used on its thread; allocation-free.
 */
final class RangeValidation {
    private long nodesVisited;
    /** The range record that {@link #anyChanged} last found changed. */
    private long lastChanged;

    /** Nodes this validation has visited, for meld's statistics. */
    long nodesVisited() {
        return nodesVisited;
    }

    /** True if any range dependency saw a change: a key in range whose content is newer than the read. */
    boolean anyChanged(final long ranges, final int count, final long stateRoot) {
        for (int i = 0; i < count; i++) {
            if (changed(stateRoot, ranges + (long) i * Intention.RANGE_SIZE)) {
                lastChanged = ranges + (long) i * Intention.RANGE_SIZE;
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the range {@link #anyChanged} last found changed is a point (both bounds the same key, inclusive): a
     * whole-row read of one key, so its conflict is on that row.
     */
    boolean lastChangedIsPoint() {
        final long r = lastChanged;
        if (r == 0) {
            return false;
        }
        final int flags = NodeMemory.getInt(r, Intention.RANGE_FLAGS);
        final int both = Intention.RANGE_LO_INCLUSIVE | Intention.RANGE_HI_INCLUSIVE;
        if ((flags & (both | Intention.RANGE_LO_UNBOUNDED | Intention.RANGE_HI_UNBOUNDED)) != both) {
            return false;
        }
        final int length = NodeMemory.getInt(r, Intention.RANGE_LO_LENGTH);
        return length == NodeMemory.getInt(r, Intention.RANGE_HI_LENGTH)
            && NodeMemory.compare(NodeMemory.getLong(r, Intention.RANGE_LO), length,
                NodeMemory.getLong(r, Intention.RANGE_HI), length) == 0;
    }

    /** The first 8 bytes of the low bound of the range {@link #anyChanged} last found changed (0: unbounded). */
    long lastChangedPrefix() {
        final long r = lastChanged;
        if (r == 0 || (NodeMemory.getInt(r, Intention.RANGE_FLAGS) & Intention.RANGE_LO_UNBOUNDED) != 0) {
            return 0;
        }
        return NodeMemory.prefix(NodeMemory.getLong(r, Intention.RANGE_LO), NodeMemory.getInt(r, Intention.RANGE_LO_LENGTH));
    }

    private boolean changed(long x, final long r) {
        final long asOf = NodeMemory.getLong(r, Intention.RANGE_AS_OF);
        while (x != 0) {
            nodesVisited++;
            if (Versions.csnOf(Node.maxCv(x)) <= asOf) {
                return false;
            }
            if (belowLo(x, r)) {
                x = Node.right(x);
            } else if (aboveHi(x, r)) {
                x = Node.left(x);
            } else {
                if (Versions.csnOf(Node.ncv(x)) > asOf) {
                    return true;
                }
                if (changed(Node.left(x), r)) {
                    return true;
                }
                x = Node.right(x);
            }
        }
        return false;
    }

    private static boolean belowLo(final long x, final long r) {
        final int flags = NodeMemory.getInt(r, Intention.RANGE_FLAGS);
        if ((flags & Intention.RANGE_LO_UNBOUNDED) != 0) {
            return false;
        }
        final int c = NodeMemory.compare(Node.key(x), Node.keyLength(x),
            NodeMemory.getLong(r, Intention.RANGE_LO), NodeMemory.getInt(r, Intention.RANGE_LO_LENGTH));
        return c < 0 || (c == 0 && (flags & Intention.RANGE_LO_INCLUSIVE) == 0);
    }

    private static boolean aboveHi(final long x, final long r) {
        final int flags = NodeMemory.getInt(r, Intention.RANGE_FLAGS);
        if ((flags & Intention.RANGE_HI_UNBOUNDED) != 0) {
            return false;
        }
        final int c = NodeMemory.compare(Node.key(x), Node.keyLength(x),
            NodeMemory.getLong(r, Intention.RANGE_HI), NodeMemory.getInt(r, Intention.RANGE_HI_LENGTH));
        return c > 0 || (c == 0 && (flags & Intention.RANGE_HI_INCLUSIVE) == 0);
    }
}
