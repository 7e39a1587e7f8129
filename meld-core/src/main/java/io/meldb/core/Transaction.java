package io.meldb.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A transaction executing on a snapshot and building its intention tree (meld paper App. E, Hyder II §2).
 *
 * <p>Writes copy-on-write the root-to-node path into nodes the transaction owns (allocated from its
 * {@link Arena}, VN still 0 because the CSN is known only once the intention is in the log). A copied node
 * records the source versions of its snapshot node: SCV = NCV(source), SSV = NSV(source). Under serializable
 * isolation a read copies the path too and marks the node DependsOn; a read that finds no key, and every scan,
 * adds a {@link RangeDependency}. At either isolation {@link #dependOn} adds a range without reading it. Deletes
 * write a tombstone (meld paper §6, first approach).
 *
 * <p>Inserts rebalance the intention tree (AVL). The executor keeps the promise meld's serial-graft case relies
 * on (App. D, Theorem 3): a rotated node loses its SSV (its subtree is no longer its source's plus changes), and a
 * node whose subtree gains a new smallest or largest key is flagged {@link Node#SPAN_EXTENDED}, so meld checks
 * that the subtree still fits the key range before grafting it.
 *
 * <p>The transaction keeps a running upper bound of its intention record's size ({@link #intentionBytesBound()}), so
 * a server can refuse the write that makes a transaction too large at once, rather than at commit when the
 * encoder measures the record exactly.
 *
 * <p>Not thread-safe: one thread drives a transaction.
 */
public final class Transaction {
    private static final int LEFT = 0;
    private static final int RIGHT = 1;

    private final Arena arena;
    private final Snapshot snapshot;
    private final Isolation isolation;
    private final List<RangeDependency> ranges = new ArrayList<>();
    private long root;
    private boolean writes;
    private final Scratch scratch;
    private long[] path;
    private int[] dirs;
    private int depth;
    private long ownedNodes;
    /** Key and payload bytes of the owned nodes, and the bytes of the recorded ranges' bounds. */
    private long ownedBytes;

    /**
     * Most bytes one node's record can take besides its key and payload and their length varints (see
     * {@link IntentionFormat}): flags and pointer kinds (2), height (1: an AVL tree of fewer than 2^63 nodes is
     * less than 128 high), and two version references and two pointers of at most 10 bytes each (a csn delta
     * below {@link IntentionFormat#MAX_CSN} in 6 varint bytes, a 24-bit index in 4).
     */
    public static final int NODE_OVERHEAD_BOUND = 2 + 1 + 4 * 10;
    /** Most bytes of the record header: three bytes, the snapshot csn, node count and range count varints. */
    public static final int HEADER_BOUND = 3 + 6 + 4 + 5;

    public Transaction(final Arena arena, final Snapshot snapshot, final Isolation isolation) {
        this(arena, snapshot, isolation, new Scratch());
    }

    /**
     * A transaction whose root-to-node path work arrays are {@code scratch}'s, which a session reuses for one
     * transaction after another (they are most of what a transaction allocated).
     */
    public Transaction(final Arena arena, final Snapshot snapshot, final Isolation isolation, final Scratch scratch) {
        this.arena = arena;
        this.snapshot = snapshot;
        this.isolation = isolation;
        this.root = snapshot.root();
        this.scratch = scratch;
        this.path = scratch.path;
        this.dirs = scratch.dirs;
        scratch.reset();
    }

    /** Work arrays for one transaction at a time; they grow with the deepest path and keep that size. */
    public static final class Scratch {
        /** Past this many entries the point-read map is dropped rather than cleared (a rare huge transaction). */
        private static final int KEEP_POINT_READS = 1 << 12;
        private long[] path = new long[64];
        private int[] dirs = new int[64];
        /** Point reads by key hash: the index of their range, so that a key read again adds no range. */
        private org.agrona.collections.Long2LongHashMap pointReads;

        org.agrona.collections.Long2LongHashMap pointReads() {
            if (pointReads == null) {
                pointReads = new org.agrona.collections.Long2LongHashMap(64, 0.6f, -1L);
            }
            return pointReads;
        }

        /** Forgets the previous transaction's point reads. */
        void reset() {
            if (pointReads != null) {
                if (pointReads.capacity() > KEEP_POINT_READS) {
                    pointReads = null;
                } else {
                    pointReads.clear();
                }
            }
        }
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public Isolation isolation() {
        return isolation;
    }

    /** Root of the intention tree (equal to the snapshot root while nothing has been copied). */
    public long root() {
        return root;
    }

    /** True once the transaction wrote something; a transaction without writes needs no intention. */
    public boolean hasWrites() {
        return writes;
    }

    /** Nodes this transaction's intention holds so far (written, or read and copied under serializable). */
    public long ownedNodes() {
        return ownedNodes;
    }

    /**
     * An upper bound of the size {@link IntentionEncoder} would give this transaction's record now: every key and
     * payload with its length varint plus {@link #NODE_OVERHEAD_BOUND} per node, and every range exactly. Kept up
     * to date on every operation without a walk; the slack is the node metadata's varints (a few dozen bytes a
     * node at most).
     */
    public long intentionBytesBound() {
        return HEADER_BOUND + ownedBytes + ownedNodes * NODE_OVERHEAD_BOUND;
    }

    private static int withLength(final int length) {
        return Varint.sizeOf(length) + length;
    }

    /** A point range dependency on {@code key}, once per key however often the transaction reads it. */
    private void addPointRead(final byte[] key) {
        final org.agrona.collections.Long2LongHashMap seen = scratch.pointReads();
        final long hash = (long) Arrays.hashCode(key) << 32 | key.length;
        final long at = seen.get(hash);
        if (at >= 0) {
            final RangeDependency earlier = ranges.get((int) at);
            if (Arrays.equals(earlier.lo(), key) && earlier.lo() == earlier.hi()) {
                return;
            }
        }
        seen.put(hash, ranges.size());
        addRange(RangeDependency.point(key.clone()));
    }

    private void addRange(final RangeDependency range) {
        ranges.add(range);
        ownedBytes += 1 + (range.lo() == null ? 0 : withLength(range.lo().length))
            + (range.hi() == null ? 0 : withLength(range.hi().length));
    }

    /**
     * Makes {@code range} a read dependency at either isolation: meld aborts this transaction if a transaction that
     * committed after its snapshot wrote (inserted, updated or deleted) a key in the range, exactly as it does for a
     * serializable scan. Snapshot isolation records no reads otherwise; this is how a snapshot transaction asks for
     * one read to be validated, the role of PostgreSQL's {@code FOR KEY SHARE} in a foreign-key check (the SQL
     * layer's child insert depends on the parent key, the parent delete on the range of its children). Nothing is
     * read and nothing is written.
     */
    public void dependOn(final RangeDependency range) {
        addRange(new RangeDependency(range.lo() == null ? null : range.lo().clone(), range.loInclusive(),
            range.hi() == null ? null : range.hi().clone(), range.hiInclusive()));
    }

    /** The range dependencies recorded so far (under snapshot isolation only those {@link #dependOn} added). */
    public List<RangeDependency> ranges() {
        return Collections.unmodifiableList(ranges);
    }

    /** True if {@code n} is a node of this transaction's intention (not yet in the log, so VN is 0). */
    public static boolean owned(final long n) {
        return n != 0 && Node.vn(n) == 0;
    }

    /** Reads a key; returns {@code null} if absent or deleted. */
    public byte[] get(final byte[] key) {
        final long n = read(key, ColumnReads.WHOLE_ROW);
        return n == 0 ? null : Node.valueBytes(n);
    }

    /**
     * Reads a key into {@code into} from index 0 (grown if it is expandable; see {@link
     * org.agrona.MutableDirectBuffer#checkLimit}) instead of into a new array, with the read dependency {@link
     * #get} records; answers the value's length, or -1 if absent or deleted. Neither array is kept.
     */
    public int get(final byte[] key, final org.agrona.MutableDirectBuffer into) {
        return get(key, into, ColumnReads.WHOLE_ROW);
    }

    /**
     * {@link #get(byte[], org.agrona.MutableDirectBuffer)} that depends only on the value bytes in {@code columns}
     * ({@link ColumnReads#bytes}; {@link ColumnReads#WHOLE_ROW} for all of them): meld then lets the read stand
     * against concurrent increments of other bytes of the row. The caller promises to use no other byte of the
     * value (nor its length beyond what those bytes imply). Several reads of one key depend on the union.
     */
    public int get(final byte[] key, final org.agrona.MutableDirectBuffer into, final long columns) {
        final long n = read(key, columns);
        if (n == 0) {
            return -1;
        }
        final int length = Node.valueLength(n);
        into.checkLimit(length);
        final byte[] array = into.byteArray();
        if (array != null) {
            NodeMemory.getBytes(Node.payload(n), array, (int) into.wrapAdjustment(), length);
        } else {
            for (int i = 0; i < length; i++) {
                into.putByte(i, NodeMemory.getByte(Node.payload(n), i));
            }
        }
        return length;
    }

    /** The node a read of {@code key} sees, recording its read dependency; 0 when absent or deleted. */
    private long read(final byte[] key, final long mask) {
        // a mask of every byte (a SQL read of all of a row's columns) is a read of the whole row
        final long columns = mask == ColumnReads.EVERY_BYTE ? ColumnReads.WHOLE_ROW : mask;
        long n = find(root, key);
        if (isolation == Isolation.SERIALIZABLE) {
            if (n == 0) {
                addPointRead(key);
                return 0;
            }
            if (columns == ColumnReads.WHOLE_ROW && !(owned(n) && Node.altered(n))) {
                // a read of the whole row depends on the key's content, which a point range says exactly, without
                // copying the path to the key into the intention (docs/meld.md, "Whole-row point reads")
                addPointRead(key);
                return Node.tombstone(n) ? 0 : n;
            }
            // an increment's visible value includes the snapshot's, so reading it is a read of the key; a read of
            // some columns stays a node, whose mask meld checks against increments of the other bytes
            if (!(owned(n) && Node.altered(n)) || Node.increment(n)) {
                final int at = descendCopying(key);
                n = path[at];
                final int f = Node.flags(n);
                if ((f & Node.DEPENDS_ON) == 0) {
                    // a read is written with its payload, and its columns field holds the read's mask from now on
                    final long shared = payloadBytes(n);
                    Node.flags(n, f & ~Node.PAYLOAD_SHARED);
                    ownedBytes += payloadBytes(n) - shared;
                    Node.columns(n, columns);
                    ownedBytes += columns == ColumnReads.WHOLE_ROW ? 0 : 1 + Varint.MAX_LONG_BYTES;
                } else if (Node.columns(n) != ColumnReads.WHOLE_ROW) {
                    Node.columns(n, columns == ColumnReads.WHOLE_ROW ? ColumnReads.WHOLE_ROW : Node.columns(n) | columns);
                }
                Node.flags(n, (f | Node.DEPENDS_ON) & ~Node.PAYLOAD_SHARED);
            }
        }
        return n == 0 || Node.tombstone(n) ? 0 : n;
    }

    /**
     * Adds {@code delta} to the integer {@code field} of {@code key}'s value as an increment (seed 002 §3.2): the
     * intention records the delta, not a read of the value, and final meld adds it to the value committed at that time,
     * so concurrent increments of one key do not conflict. The key must exist in the committed state at meld time and
     * the result must fit the field there, or the transaction aborts ({@link AbortReason}); it is the key's existence
     * that the increment depends on, not its value. A read of the key at serializable isolation (before or after) keeps
     * the ordinary read dependency. A key this transaction already wrote is simply rewritten, and a second field of a
     * key it already increments turns the key into a read-modify-write (serializable: with a read dependency).
     *
     * @throws IncrementException if the key is absent or deleted in this transaction's view, the field is missing or
     *     null there, or the result leaves the field's bounds; nothing changes then
     */
    public void add(final byte[] key, final IntField field, final long delta) {
        final long found = find(root, key);
        if (found == 0 || Node.tombstone(found)) {
            throw new IncrementException(AbortReason.INCREMENT_ABSENT, "increment of an absent key");
        }
        if (owned(found) && Node.altered(found) && !Node.increment(found)) {
            final byte[] value = Node.payloadBytes(found);
            final byte[] added = Increment.first(value, field, delta);
            write(key, Arrays.copyOf(added, value.length), false);
            return;
        }
        // the new payload goes straight from node memory into the arena: no array on the heap
        final boolean again = Node.increment(found);
        final int nextLength = Node.payloadLength(found) + (again ? 0 : Increment.DESCRIPTOR_LENGTH);
        final long next = again ? Increment.againInArena(arena, found, field, delta)
            : Increment.firstInArena(arena, found, field, delta);
        if (next == 0) {
            final byte[] value = Increment.first(Node.valueBytes(found), field, delta);
            if (isolation == Isolation.SERIALIZABLE) {
                get(key);
            }
            write(key, Arrays.copyOf(value, value.length - Increment.DESCRIPTOR_LENGTH), false);
            return;
        }
        writes = true;
        final int at = descendCopying(key);
        final long n = path[at];
        ownedBytes += withLength(nextLength) - payloadBytes(n);
        Node.payload(n, next, nextLength);
        Node.flags(n, (Node.flags(n) | Node.ALTERED | Node.INCREMENT)
            & ~(Node.SUBTREE_IS_ONLY_READ_DEPENDENT | Node.HISTORY | Node.PAYLOAD_SHARED));
        for (int i = 0; i < at; i++) {
            clearReadOnly(path[i]);
        }
    }

    /** Inserts or replaces the value of a key. */
    public void put(final byte[] key, final byte[] value) {
        write(key, value, false);
    }

    /** Deletes a key (writes a tombstone, whether or not the key existed). */
    public void delete(final byte[] key) {
        write(key, null, true);
    }

    /**
     * Scans keys in a range in ascending or descending order, skipping deleted keys, up to {@code limit} rows
     * ({@code limit <= 0}: no limit). Under serializable isolation the range actually read becomes a dependency:
     * the whole range, or up to the last row returned when the limit stopped the scan.
     */
    public List<byte[][]> scan(final byte[] lo, final boolean loInclusive, final byte[] hi, final boolean hiInclusive,
                               final boolean descending, final int limit) {
        final List<byte[][]> rows = new ArrayList<>();
        final RangeDependency range = new RangeDependency(lo == null ? null : lo.clone(), loInclusive,
            hi == null ? null : hi.clone(), hiInclusive);
        collect(root, range, descending, limit, rows);
        if (isolation == Isolation.SERIALIZABLE) {
            if (limit > 0 && rows.size() == limit) {
                final byte[] last = rows.get(rows.size() - 1)[0].clone();
                addRange(descending
                    ? new RangeDependency(last, true, range.hi(), hiInclusive)
                    : new RangeDependency(range.lo(), loInclusive, last, true));
            } else {
                addRange(range);
            }
        }
        return rows;
    }

    private static void collect(final long n, final RangeDependency range, final boolean descending, final int limit,
                                final List<byte[][]> rows) {
        if (n == 0 || (limit > 0 && rows.size() >= limit)) {
            return;
        }
        final byte[] key = Node.keyBytes(n);
        final boolean aboveLo = range.lo() == null || Arrays.compareUnsigned(key, range.lo()) >= 0;
        final boolean belowHi = range.hi() == null || Arrays.compareUnsigned(key, range.hi()) <= 0;
        final long first = descending ? Node.right(n) : Node.left(n);
        final long second = descending ? Node.left(n) : Node.right(n);
        if (descending ? belowHi : aboveLo) {
            collect(first, range, descending, limit, rows);
        }
        if (limit > 0 && rows.size() >= limit) {
            return;
        }
        if (range.contains(key) && !Node.tombstone(n)) {
            rows.add(new byte[][] {key, Node.valueBytes(n)});
        }
        if (descending ? aboveLo : belowHi) {
            collect(second, range, descending, limit, rows);
        }
    }

    /**
     * Makes this a flush intention (meld paper §5): copies every ephemeral node reachable from the snapshot,
     * with its path, unaltered and without dependencies, so melding it replaces the ephemeral nodes with
     * persisted ones and cannot conflict. Returns the number of nodes copied.
     */
    public int flushEphemeral() {
        final int before = flushed;
        root = flushCopy(root);
        writes |= flushed > before;
        return flushed - before;
    }

    private int flushed;

    private long flushCopy(final long n) {
        if (n == 0 || (Node.flags(n) & Node.EPHEMERAL_BELOW) == 0 || owned(n)) {
            return n;
        }
        final long c = copy(n);
        Node.flags(c, Node.flags(c) & ~Node.SUBTREE_IS_ONLY_READ_DEPENDENT);
        Node.left(c, flushCopy(Node.left(n)));
        Node.right(c, flushCopy(Node.right(n)));
        flushed++;
        return c;
    }

    private static long find(long n, final byte[] key) {
        final long prefix = NodeMemory.prefix(key);
        final long prefix2 = NodeMemory.prefix2(key);
        while (n != 0) {
            final int c = Node.compareKey(key, prefix, prefix2, n);
            if (c == 0) {
                return n;
            }
            n = c < 0 ? Node.left(n) : Node.right(n);
        }
        return 0;
    }

    private void write(final byte[] key, final byte[] value, final boolean tombstone) {
        writes = true;
        final int at = descendCopying(key);
        final long payload = tombstone ? 0 : arena.copyOf(value);
        final int payloadLength = tombstone ? 0 : value.length;
        if (at >= 0) {
            final long n = path[at];
            ownedBytes += withLength(payloadLength) - payloadBytes(n);
            Node.payload(n, payload, payloadLength);
            int flags = (Node.flags(n) | Node.ALTERED)
                & ~(Node.SUBTREE_IS_ONLY_READ_DEPENDENT | Node.INCREMENT | Node.HISTORY | Node.PAYLOAD_SHARED);
            flags = tombstone ? flags | Node.TOMBSTONE : flags & ~Node.TOMBSTONE;
            Node.flags(n, flags);
            for (int i = 0; i < at; i++) {
                clearReadOnly(path[i]);
            }
            return;
        }
        final long leaf = arena.allocate(Node.SIZE);
        Node.key(leaf, arena.copyOf(key), key.length);
        Node.payload(leaf, payload, payloadLength);
        Node.flags(leaf, Node.ALTERED | (tombstone ? Node.TOMBSTONE : 0));
        Node.height(leaf, 1);
        ownedNodes++;
        ownedBytes += withLength(key.length) + withLength(payloadLength);
        if (depth == 0) {
            root = leaf;
            return;
        }
        link(depth - 1, leaf);
        final int lastDir = dirs[depth - 1];
        boolean extreme = true;
        for (int i = depth - 1; i >= 0; i--) {
            final long a = path[i];
            clearReadOnly(a);
            extreme &= dirs[i] == lastDir;
            if (extreme) {
                Node.flags(a, Node.flags(a) | Node.SPAN_EXTENDED);
            }
        }
        rebalancePath();
    }

    private static void clearReadOnly(final long n) {
        Node.flags(n, Node.flags(n) & ~Node.SUBTREE_IS_ONLY_READ_DEPENDENT);
    }

    /** Attaches {@code child} under {@code path[i]} in direction {@code dirs[i]}. */
    private void link(final int i, final long child) {
        if (dirs[i] == LEFT) {
            Node.left(path[i], child);
        } else {
            Node.right(path[i], child);
        }
    }

    /**
     * Descends to {@code key}, copying every snapshot node on the way into the intention. Fills {@code path}
     * and {@code dirs}; returns the index in {@code path} of the node holding the key, or -1 (then
     * {@code depth} nodes are on the path and the key belongs under the last one).
     */
    private int descendCopying(final byte[] key) {
        depth = 0;
        long n = root;
        final long prefix = NodeMemory.prefix(key);
        final long prefix2 = NodeMemory.prefix2(key);
        while (n != 0) {
            if (!owned(n)) {
                n = copy(n);
                if (depth == 0) {
                    root = n;
                } else {
                    link(depth - 1, n);
                }
            }
            ensurePathCapacity();
            path[depth] = n;
            final int c = Node.compareKey(key, prefix, prefix2, n);
            if (c == 0) {
                return depth;
            }
            dirs[depth] = c < 0 ? LEFT : RIGHT;
            depth++;
            n = c < 0 ? Node.left(n) : Node.right(n);
        }
        return -1;
    }

    private void ensurePathCapacity() {
        if (depth == path.length) {
            path = Arrays.copyOf(path, depth * 2);
            dirs = Arrays.copyOf(dirs, depth * 2);
            scratch.path = path;
            scratch.dirs = dirs;
        }
    }

    private long copy(final long source) {
        final long n = arena.allocate(Node.SIZE);
        Node.copyKey(n, source);
        Node.payload(n, Node.payload(source), Node.payloadLength(source));
        Node.left(n, Node.left(source));
        Node.right(n, Node.right(source));
        Node.scv(n, Node.ncv(source));
        Node.ssv(n, Node.nsv(source));
        Node.flags(n, Node.SUBTREE_IS_ONLY_READ_DEPENDENT | (Node.flags(source) & (Node.TOMBSTONE | Node.HISTORY)));
        if (!Node.tombstone(source)) {
            Node.sharePayload(n, Node.vn(source));
        }
        Node.height(n, Node.height(source));
        ownedNodes++;
        ownedBytes += withLength(Node.keyLength(source)) + payloadBytes(n);
        return n;
    }

    /**
     * What {@code n}'s payload adds to {@link #intentionBytesBound()}: the encoder writes it out, or, for a path copy
     * that still shares its source's ({@link Node#PAYLOAD_SHARED}), a reference when that is shorter enough.
     */
    private long payloadBytes(final long n) {
        if ((Node.flags(n) & Node.PAYLOAD_SHARED) != 0) {
            final int reference = IntentionEncoder.referenceSize(Node.columns(n), snapshot.csn());
            if (IntentionEncoder.referenced(n, reference)) {
                return reference;
            }
        }
        return IntentionEncoder.payloadSize(n);
    }

    /** AVL rebalancing from the new leaf's parent up to the root; rotated nodes lose their SSV. */
    private void rebalancePath() {
        for (int i = depth - 1; i >= 0; i--) {
            final long a = path[i];
            final long replacement = rebalance(a);
            if (replacement != a) {
                if (i == 0) {
                    root = replacement;
                } else {
                    link(i - 1, replacement);
                }
            }
        }
    }

    private static int balance(final long n) {
        return Node.height(Node.left(n)) - Node.height(Node.right(n));
    }

    private static void fixHeight(final long n) {
        Node.height(n, 1 + Math.max(Node.height(Node.left(n)), Node.height(Node.right(n))));
    }

    /** Rebalances an owned node whose children are balanced; rotations only touch owned insert-path nodes. */
    private static long rebalance(final long a) {
        fixHeight(a);
        final int b = balance(a);
        if (b > 1) {
            if (balance(Node.left(a)) < 0) {
                Node.left(a, rotateLeft(Node.left(a)));
            }
            return rotateRight(a);
        }
        if (b < -1) {
            if (balance(Node.right(a)) > 0) {
                Node.right(a, rotateRight(Node.right(a)));
            }
            return rotateLeft(a);
        }
        return a;
    }

    private static long rotateRight(final long a) {
        final long b = Node.left(a);
        Node.left(a, Node.right(b));
        Node.right(b, a);
        Node.ssv(a, 0);
        Node.ssv(b, 0);
        fixHeight(a);
        fixHeight(b);
        return b;
    }

    private static long rotateLeft(final long a) {
        final long b = Node.right(a);
        Node.right(a, Node.left(b));
        Node.left(b, a);
        Node.ssv(a, 0);
        Node.ssv(b, 0);
        fixHeight(a);
        fixHeight(b);
        return b;
    }
}
