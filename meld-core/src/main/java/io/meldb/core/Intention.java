package io.meldb.core;

/**
 * An intention as meld sees it (meld paper §3; Hyder II §3.3): the root of an intention tree in node memory,
 * the CSN(s) it carries and its range dependencies. The same type describes an intention decoded from the log,
 * the output of premeld (an intention again, readset kept) and a group intention (two adjacent intentions
 * melded into one, Hyder II §4).
 *
 * <p>Nodes with {@code csnOf(vn) >= minCsn} belong to the intention; every other node it points to is part of
 * a committed state it was built on.
 *
 * <p>Range dependencies live in node memory as fixed records, {@link #RANGE_SIZE} bytes each:
 * <pre>
 *   0 lo key handle | 8 hi key handle | 16 asOf csn | 24 lo length | 28 hi length | 32 flags
 * </pre>
 * {@code asOf} is the snapshot CSN the range was read at: any key in the range whose NCV is newer is a conflict.
 */
public final class Intention {
    public static final int RANGE_LO = 0;
    public static final int RANGE_HI = 8;
    public static final int RANGE_AS_OF = 16;
    public static final int RANGE_LO_LENGTH = 24;
    public static final int RANGE_HI_LENGTH = 28;
    public static final int RANGE_FLAGS = 32;
    public static final int RANGE_SIZE = 40;

    public static final int RANGE_LO_UNBOUNDED = 1;
    public static final int RANGE_LO_INCLUSIVE = 2;
    public static final int RANGE_HI_UNBOUNDED = 4;
    public static final int RANGE_HI_INCLUSIVE = 8;

    /** Intention flag: a flush intention (meld paper §5), written to make ephemeral nodes persistent. */
    public static final int FLAG_FLUSH = 1;
    /** Intention flag: a checkpoint intention (meld paper App. A). */
    public static final int FLAG_CHECKPOINT = 2;
    /**
     * The high six bits of the flag byte carry how many times the transaction has already restarted (saturating at
     * {@link #MAX_RESTARTS}): the tail-latency reorder policy keeps often-restarted transactions (seed 001 §4.2).
     */
    public static final int RESTARTS_SHIFT = 2;
    public static final int MAX_RESTARTS = 63;

    /** The intention flag bits that carry {@code restarts} (saturated). */
    public static int restartFlags(final int restarts) {
        return Math.min(Math.max(restarts, 0), MAX_RESTARTS) << RESTARTS_SHIFT;
    }

    long csn;
    long minCsn;
    long snapshotCsn;
    /**
     * The newest committed state this intention has already been melded against: its snapshot, or for a premeld
     * output the state premeld used (Hyder II §3). Final meld's real conflict zone starts here; metrics only.
     */
    long meldedThroughCsn;
    long root;
    int nodeCount;
    Isolation isolation = Isolation.SERIALIZABLE;
    int flags;
    long ranges;
    int rangeCount;
    /**
     * The node memory the intention's own nodes lie in, {@code [spanStart, spanEnd)}, when they are packed there
     * (decoded or adopted intentions); 0 when unknown. Meld streams it into the cache before descending the tree.
     */
    long spanStart;
    long spanEnd;
    /** For a group intention: its two members, so final meld can fall back to melding them one by one. */
    Intention first;
    Intention second;

    public Intention() {
    }

    /** Resets every field so a pooled instance can describe another intention. */
    public Intention set(final long csn, final long minCsn, final long snapshotCsn, final long root, final int nodeCount,
                         final Isolation isolation, final int flags, final long ranges, final int rangeCount) {
        this.csn = csn;
        this.minCsn = minCsn;
        this.snapshotCsn = snapshotCsn;
        this.meldedThroughCsn = snapshotCsn;
        this.root = root;
        this.nodeCount = nodeCount;
        this.isolation = isolation;
        this.flags = flags;
        this.ranges = ranges;
        this.rangeCount = rangeCount;
        this.first = null;
        this.second = null;
        this.spanStart = 0;
        this.spanEnd = 0;
        return this;
    }

    /**
     * Records where the intention's own nodes lie: {@code lowest} and {@code highest} are the lowest and highest
     * node handles. Kept only when the nodes are packed (at most twice the bytes of the nodes themselves), so a
     * span never stretches over unrelated memory, e.g. across arena segments.
     */
    Intention span(final long lowest, final long highest, final int count) {
        final long end = highest + Node.SIZE;
        if (count > 0 && lowest > 0 && end - lowest <= 2L * count * Node.SIZE) {
            spanStart = lowest;
            spanEnd = end;
        }
        return this;
    }

    /** See {@link #meldedThroughCsn}. */
    public long meldedThroughCsn() {
        return meldedThroughCsn;
    }

    /** CSN: the intention's ordinal in the log (for a group intention, that of its second member). */
    public long csn() {
        return csn;
    }

    /** Smallest CSN of a node that belongs to this intention (equal to {@link #csn()} unless grouped). */
    public long minCsn() {
        return minCsn;
    }

    /** CSN of the state the transaction read (for a group intention, the older of the two). */
    public long snapshotCsn() {
        return snapshotCsn;
    }

    public long root() {
        return root;
    }

    /** Number of nodes decoded from the log (0 for intentions built by meld). */
    public int nodeCount() {
        return nodeCount;
    }

    public Isolation isolation() {
        return isolation;
    }

    public int flags() {
        return flags;
    }

    /** How many times the transaction had restarted when it wrote this intention (see {@link #RESTARTS_SHIFT}). */
    public int restarts() {
        return (flags >>> RESTARTS_SHIFT) & MAX_RESTARTS;
    }

    public long ranges() {
        return ranges;
    }

    public int rangeCount() {
        return rangeCount;
    }

    public boolean isGroup() {
        return first != null;
    }

    public Intention first() {
        return first;
    }

    public Intention second() {
        return second;
    }

    /** True if {@code node} belongs to this intention rather than to a committed state it points into. */
    public boolean contains(final long node) {
        return node != 0 && Versions.csnOf(Node.vn(node)) >= minCsn;
    }

    /** Writes one range record at index {@code i} of a range array allocated in an arena. */
    public static void writeRange(final long ranges, final int i, final long lo, final int loLength, final long hi,
                                  final int hiLength, final long asOf, final int rangeFlags) {
        final long r = ranges + (long) i * RANGE_SIZE;
        NodeMemory.putLong(r, RANGE_LO, lo);
        NodeMemory.putLong(r, RANGE_HI, hi);
        NodeMemory.putLong(r, RANGE_AS_OF, asOf);
        NodeMemory.putInt(r, RANGE_LO_LENGTH, loLength);
        NodeMemory.putInt(r, RANGE_HI_LENGTH, hiLength);
        NodeMemory.putInt(r, RANGE_FLAGS, rangeFlags);
    }

    @Override
    public String toString() {
        return "Intention{csn=" + csn + ", minCsn=" + minCsn + ", snapshot=" + snapshotCsn + ", nodes=" + nodeCount
            + ", ranges=" + rangeCount + (isGroup() ? ", group" : "") + "}";
    }
}
