package io.meldb.core;

/**
 * The layout of one tree node in off-heap memory and flyweight accessors over a {@code long} handle
 * (meld paper §4, App. C Figure 12). One class owns the layout; everything else goes through it.
 *
 * <pre>
 *   0                   8                   16                  24                  32
 *   +-------------------+-------------------+-------------------+-------------------+
 *   | left   (handle)   | right  (handle)   | key prefix        | key prefix 2      |
 *   +-------------------+-------------------+-------------------+---------+---------+
 *   | VN                | SSV               | SCV               | flags   | keyLen  |   hot: the first 64 bytes
 *   +---------+---------+-------------------+-------------------+-------------------+
 *   | height  | payLen  | key    (handle)   | payload (handle)  | maxCv             |
 *   +---------+---------+-------------------+-------------------+-------------------+
 *   | columns (mask)    |                                                               = 104 bytes
 *   +-------------------+
 * </pre>
 *
 * <ul>
 *   <li>VN, SCV, SSV: version number, source content version, source structure version (see {@link Versions}).
 *   NCV and NSV are calculated: NCV = Altered ? VN : SCV; NSV = SubtreeIsOnlyReadDependent ? SSV : VN.</li>
 *   <li>maxCv: the largest NCV in the node's subtree. Range dependencies (phantom protection) are checked by
 *   walking only subtrees whose maxCv is newer than the reader's snapshot.</li>
 *   <li>height: AVL balance information (meld paper §7: "each node just needs to maintain the depth").</li>
 *   <li>columns: of an intention's read (DEPENDS_ON), the value bytes it used ({@link ColumnReads}; 0 = the whole
 *   row). It took the place of App. B's OldestDescendant, which only the sweep needs, and checkpoints do the sweep's
 *   job here (docs/meld.md). Of a transaction's unread path copy ({@link #PAYLOAD_SHARED}), the VN of the committed
 *   node it was copied from.</li>
 *   <li>flags: ALTERED, DEPENDS_ON, SUBTREE_IS_ONLY_READ_DEPENDENT, TOMBSTONE and SPAN_EXTENDED travel in the
 *   log; EPHEMERAL_BELOW is derived like height and maxCv; EXTERNAL_LEFT and EXTERNAL_RIGHT are hints set when an
 *   intention is decoded or adopted.</li>
 * </ul>
 * Keys and payloads are referenced in place (a handle plus a length), so copying a node never copies bytes.
 * The key's first 16 bytes are also kept in the node (two big-endian longs, zero-padded), so comparisons of
 * keys up to 16 bytes long, and most others, read only the node's first 64 bytes and never the key bytes: a SQL row
 * key (a table prefix of 6 bytes, then the primary key) differs from its neighbours' mostly past byte 8, and the
 * key bytes are a cache miss of their own on every level of a descent.
 * A deleted key is a node with the TOMBSTONE flag (meld paper §6, first approach): deletion is an update of
 * the payload, which keeps conflict detection exact for deletes.
 */
public final class Node {
    public static final int LEFT = 0;
    public static final int RIGHT = 8;
    public static final int KEY_PREFIX = 16;
    public static final int KEY_PREFIX_2 = 24;
    public static final int VN = 32;
    public static final int SSV = 40;
    public static final int SCV = 48;
    public static final int FLAGS = 56;
    public static final int KEY_LENGTH = 60;
    public static final int HEIGHT = 64;
    public static final int PAYLOAD_LENGTH = 68;
    public static final int KEY = 72;
    public static final int PAYLOAD = 80;
    public static final int MAX_CV = 88;
    public static final int COLUMNS = 96;
    public static final int SIZE = 104;

    public static final int ALTERED = 1;
    public static final int DEPENDS_ON = 2;
    public static final int SUBTREE_IS_ONLY_READ_DEPENDENT = 4;
    public static final int TOMBSTONE = 8;
    /**
     * The intention inserted a key that is a new smallest or largest key of this node's subtree, so the
     * subtree may reach beyond the key range its source covered; a serial graft must check its extremes
     * against the range being melded (meld paper App. D, Theorem 3).
     */
    public static final int SPAN_EXTENDED = 16;
    /**
     * Derived, never logged: the subtree holds an ephemeral node (meld paper §5, "an ephemeral flag indicating
     * whether each subtree contains any ephemeral nodes"), so a flush finds them without scanning the tree.
     */
    public static final int EPHEMERAL_BELOW = 32;
    /**
     * Derived, never logged: the left child is an external pointer (into the committed state the intention was
     * built on), so it belongs to no intention this node can be melded as part of: its CSN is at most the
     * snapshot's, below the intention's and (group meld requires it) below a group partner's. Set by decoding and
     * adoption, cleared whenever the children change; meld then descends the intention without reading the child
     * just to find out it is not an intention node (a cache miss per intention path).
     */
    public static final int EXTERNAL_LEFT = 64;
    /** As {@link #EXTERNAL_LEFT}, for the right child. */
    public static final int EXTERNAL_RIGHT = 128;
    private static final int CHILD_HINTS = EXTERNAL_LEFT | EXTERNAL_RIGHT;
    /**
     * The node is an increment (seed 002 §3.2): its payload is the value the transaction saw followed by an
     * {@link Increment} descriptor, and final meld applies the descriptor's delta to the last committed value instead
     * of checking the content version. Travels in the log (as {@link IntentionFormat#INCREMENT}); never in a
     * committed state.
     */
    public static final int INCREMENT = 256;
    /**
     * Derived, never logged: the subtree holds an {@link #INCREMENT} node, so final meld must not graft it whole (the
     * increment has to be applied to the committed value).
     */
    public static final int INCREMENT_BELOW = 512;
    /**
     * The payload is followed by the content's increment history ({@link ColumnReads}): the base version and the
     * bytes incremented since. Goes wherever the payload goes; in the log as {@link IntentionFormat#EXT_HISTORY}.
     */
    public static final int HISTORY = 1024;
    /**
     * Transient, on a transaction's own nodes only: the node is a path copy whose payload (and increment history) is
     * still its committed source's, and the columns field holds that source's VN. The encoder then writes a
     * reference to the source instead of the payload bytes ({@link IntentionFormat#EXT_PAYLOAD_REF}): most nodes of
     * an intention are such copies, ancestors of what the transaction wrote or read. Never logged, never in a state.
     */
    public static final int PAYLOAD_SHARED = 2048;

    private Node() {
    }

    public static long left(final long n) {
        return NodeMemory.getLong(n, LEFT);
    }

    public static void left(final long n, final long child) {
        NodeMemory.putLong(n, LEFT, child);
    }

    public static long right(final long n) {
        return NodeMemory.getLong(n, RIGHT);
    }

    public static void right(final long n, final long child) {
        NodeMemory.putLong(n, RIGHT, child);
    }

    public static long key(final long n) {
        return NodeMemory.getLong(n, KEY);
    }

    public static int keyLength(final long n) {
        return NodeMemory.getInt(n, KEY_LENGTH);
    }

    /** Sets the key (referenced in place) and its prefix. */
    public static void key(final long n, final long key, final int length) {
        NodeMemory.putLong(n, KEY, key);
        NodeMemory.putInt(n, KEY_LENGTH, length);
        NodeMemory.putLong(n, KEY_PREFIX, NodeMemory.prefix(key, length));
        NodeMemory.putLong(n, KEY_PREFIX_2, NodeMemory.prefix2(key, length));
    }

    /** Gives {@code n} the same key as {@code source} without reading the key bytes. */
    public static void copyKey(final long n, final long source) {
        NodeMemory.putLong(n, KEY, NodeMemory.getLong(source, KEY));
        NodeMemory.putInt(n, KEY_LENGTH, NodeMemory.getInt(source, KEY_LENGTH));
        NodeMemory.putLong(n, KEY_PREFIX, NodeMemory.getLong(source, KEY_PREFIX));
        NodeMemory.putLong(n, KEY_PREFIX_2, NodeMemory.getLong(source, KEY_PREFIX_2));
    }

    public static long keyPrefix(final long n) {
        return NodeMemory.getLong(n, KEY_PREFIX);
    }

    public static long payload(final long n) {
        return NodeMemory.getLong(n, PAYLOAD);
    }

    public static int payloadLength(final long n) {
        return NodeMemory.getInt(n, PAYLOAD_LENGTH);
    }

    public static void payload(final long n, final long payload, final int length) {
        NodeMemory.putLong(n, PAYLOAD, payload);
        NodeMemory.putInt(n, PAYLOAD_LENGTH, length);
    }

    /** Gives {@code n} the payload of {@code source}. */
    static void copyPayload(final long n, final long source) {
        final long payload = NodeMemory.getLong(source, PAYLOAD);
        final int length = NodeMemory.getInt(source, PAYLOAD_LENGTH);
        NodeMemory.putLong(n, PAYLOAD, payload);
        NodeMemory.putInt(n, PAYLOAD_LENGTH, length);
    }

    public static long vn(final long n) {
        return NodeMemory.getLong(n, VN);
    }

    public static void vn(final long n, final long vn) {
        NodeMemory.putLong(n, VN, vn);
    }

    public static long scv(final long n) {
        return NodeMemory.getLong(n, SCV);
    }

    public static void scv(final long n, final long scv) {
        NodeMemory.putLong(n, SCV, scv);
    }

    public static long ssv(final long n) {
        return NodeMemory.getLong(n, SSV);
    }

    public static void ssv(final long n, final long ssv) {
        NodeMemory.putLong(n, SSV, ssv);
    }

    public static long maxCv(final long n) {
        return NodeMemory.getLong(n, MAX_CV);
    }

    public static void maxCv(final long n, final long maxCv) {
        NodeMemory.putLong(n, MAX_CV, maxCv);
    }

    public static int flags(final long n) {
        return NodeMemory.getInt(n, FLAGS);
    }

    public static void flags(final long n, final int flags) {
        NodeMemory.putInt(n, FLAGS, flags);
    }

    public static boolean altered(final long n) {
        return (flags(n) & ALTERED) != 0;
    }

    public static boolean dependsOn(final long n) {
        return (flags(n) & DEPENDS_ON) != 0;
    }

    public static boolean subtreeIsOnlyReadDependent(final long n) {
        return (flags(n) & SUBTREE_IS_ONLY_READ_DEPENDENT) != 0;
    }

    public static boolean tombstone(final long n) {
        return (flags(n) & TOMBSTONE) != 0;
    }

    public static boolean increment(final long n) {
        return (flags(n) & INCREMENT) != 0;
    }

    public static int height(final long n) {
        return n == 0 ? 0 : NodeMemory.getInt(n, HEIGHT);
    }

    public static void height(final long n, final int height) {
        NodeMemory.putInt(n, HEIGHT, height);
    }

    /** The value bytes an intention's read used ({@link ColumnReads}), 0 for the whole row. */
    public static long columns(final long n) {
        return NodeMemory.getLong(n, COLUMNS);
    }

    public static void columns(final long n, final long mask) {
        NodeMemory.putLong(n, COLUMNS, mask);
    }

    /** Makes transaction node {@code n} a path copy sharing the payload of the committed node with VN {@code source}. */
    static void sharePayload(final long n, final long sourceVn) {
        NodeMemory.putLong(n, COLUMNS, sourceVn);
        flags(n, flags(n) | PAYLOAD_SHARED);
    }

    /**
     * The VN of the committed node whose payload transaction node {@code n} still has unchanged (see
     * {@link #PAYLOAD_SHARED}), or 0 when it has one of its own: written, deleted, incremented, read (a read keeps
     * its column mask there) or never a copy. Reads nothing but {@code n}: the source may be long out of the cache
     * when the intention is encoded.
     */
    static long sharedPayloadSource(final long n) {
        final int f = flags(n);
        return (f & (PAYLOAD_SHARED | ALTERED | DEPENDS_ON | TOMBSTONE | INCREMENT)) == PAYLOAD_SHARED
            ? NodeMemory.getLong(n, COLUMNS) : 0;
    }

    /** New content version: the version later readers of this content record as their SCV. */
    public static long ncv(final long n) {
        final int flags = flags(n);
        return (flags & ALTERED) != 0 ? vn(n) : scv(n);
    }

    /** New structure version: the oldest version of this node whose subtree is exactly this subtree. */
    public static long nsv(final long n) {
        final int flags = flags(n);
        return (flags & SUBTREE_IS_ONLY_READ_DEPENDENT) != 0 ? ssv(n) : vn(n);
    }

    /**
     * Compares the keys of two nodes in unsigned lexicographic order. Equal prefixes with a key of at most
     * 8 (16) bytes mean the shorter key is a prefix of the longer one (the padding is zeros, like the longer key's
     * bytes), so the lengths decide; only keys longer than 16 bytes on both sides read their bytes.
     */
    public static int compareKeys(final long a, final long b) {
        final long pa = keyPrefix(a);
        final long pb = keyPrefix(b);
        if (pa != pb) {
            return Long.compareUnsigned(pa, pb);
        }
        final int la = keyLength(a);
        final int lb = keyLength(b);
        if (la <= 8 || lb <= 8) {
            return la - lb;
        }
        final long qa = NodeMemory.getLong(a, KEY_PREFIX_2);
        final long qb = NodeMemory.getLong(b, KEY_PREFIX_2);
        if (qa != qb) {
            return Long.compareUnsigned(qa, qb);
        }
        if (la <= 16 || lb <= 16) {
            return la - lb;
        }
        return NodeMemory.compare(key(a) + 16, la - 16, key(b) + 16, lb - 16);
    }

    /**
     * Compares a heap key, with its precomputed {@link NodeMemory#prefix(byte[])} and
     * {@link NodeMemory#prefix2(byte[])}, with a node's key.
     */
    public static int compareKey(final byte[] key, final long prefix, final long prefix2, final long n) {
        final long pn = keyPrefix(n);
        if (prefix != pn) {
            return Long.compareUnsigned(prefix, pn);
        }
        final int ln = keyLength(n);
        if (key.length <= 8 || ln <= 8) {
            return key.length - ln;
        }
        final long qn = NodeMemory.getLong(n, KEY_PREFIX_2);
        if (prefix2 != qn) {
            return Long.compareUnsigned(prefix2, qn);
        }
        if (key.length <= 16 || ln <= 16) {
            return key.length - ln;
        }
        return NodeMemory.compare(key, key(n), ln, 16);
    }

    /**
     * Recomputes the derived subtree fields (height, maxCv, EPHEMERAL_BELOW, INCREMENT_BELOW) from the children
     * and clears {@link #EXTERNAL_LEFT} / {@link #EXTERNAL_RIGHT}; called whenever a node's children are set.
     */
    public static void updateDerived(final long n) {
        derive(n, left(n), right(n));
    }

    /** Sets both children and recomputes the derived fields ({@link #updateDerived}). */
    static void setChildren(final long n, final long l, final long r) {
        left(n, l);
        right(n, r);
        derive(n, l, r);
    }

    /** {@link #updateDerived} with the children given: every load first, then the stores. */
    private static void derive(final long n, final long l, final long r) {
        final int f = flags(n);
        final long vn = vn(n);
        long max = (f & ALTERED) != 0 ? vn : scv(n);
        final boolean persisted = Versions.kindOf(vn) == Versions.KIND_PERSISTED;
        int below = (persisted ? 0 : EPHEMERAL_BELOW) | ((f & INCREMENT) != 0 ? INCREMENT_BELOW : 0);
        int height = 0;
        if (l != 0) {
            height = NodeMemory.getInt(l, HEIGHT);
            max = Math.max(max, maxCv(l));
            below |= flags(l) & (EPHEMERAL_BELOW | INCREMENT_BELOW);
        }
        if (r != 0) {
            height = Math.max(height, NodeMemory.getInt(r, HEIGHT));
            max = Math.max(max, maxCv(r));
            below |= flags(r) & (EPHEMERAL_BELOW | INCREMENT_BELOW);
        }
        height(n, height + 1);
        maxCv(n, max);
        flags(n, (f & ~(EPHEMERAL_BELOW | INCREMENT_BELOW | CHILD_HINTS)) | below);
    }

    /** Sets {@link #EXTERNAL_LEFT} / {@link #EXTERNAL_RIGHT} (after the children and derived fields are final). */
    static void markExternalChildren(final long n, final boolean left, final boolean right) {
        flags(n, flags(n) | (left ? EXTERNAL_LEFT : 0) | (right ? EXTERNAL_RIGHT : 0));
    }

    public static byte[] keyBytes(final long n) {
        return NodeMemory.toArray(key(n), keyLength(n));
    }

    public static byte[] payloadBytes(final long n) {
        return NodeMemory.toArray(payload(n), payloadLength(n));
    }

    /** The value the node holds: its payload, without the descriptor of an {@link #INCREMENT} node. */
    public static byte[] valueBytes(final long n) {
        return NodeMemory.toArray(payload(n), valueLength(n));
    }

    /** The length of {@link #valueBytes}. */
    public static int valueLength(final long n) {
        return payloadLength(n) - (increment(n) ? Increment.DESCRIPTOR_LENGTH : 0);
    }
}
