package io.meldb.core;

/**
 * The meld operator (meld paper §3, §5–7, App. C–D; Hyder II §3.3–4): one recursive algorithm that serves
 * final meld, premeld and group meld.
 *
 * <p>{@code meld(L, N, lo, hi)} merges the intention subtree {@code N} into the state subtree {@code L}, where
 * {@code L} holds exactly the state's keys strictly between the keys of the bound nodes {@code lo} and
 * {@code hi} (0 = unbounded), and returns the merged subtree for that key range, or {@link #CONFLICT}.
 * The cases, in the paper's order:
 * <ol>
 *   <li>No intention node in range (App. C lines 1, 10): the state subtree stands.</li>
 *   <li>Empty state subtree (line 8): the intention's nodes in range are picked up into a new subtree.</li>
 *   <li>Serial subtree, SSV(N) = NSV(L) (line 12): nothing changed under {@code L} since the transaction read
 *   it, so {@code N} is grafted whole.</li>
 *   <li>Read-only subtree (lines 3–7, §5): in final meld it is only checked for conflicts, without creating
 *   ephemeral nodes. Premeld and group meld keep it, because their output is an intention that must still
 *   carry the readset (Hyder II §3.3).</li>
 *   <li>Otherwise the symmetric (same key) or asymmetric (key-range split, §7.2) case: the intention node with
 *   {@code L}'s key, if any, is checked for conflicts, both sides are melded recursively, and an ephemeral node
 *   joins the results, rebalancing as it goes (AVL join).</li>
 * </ol>
 *
 * <p>Conflict tests use the monotone version numbers of {@link Versions}: a node the transaction wrote or
 * read conflicts iff the state's content for that key is newer than the content it saw,
 * {@code NCV(L) > SCV(n)}. That single test covers write-write, read-write, insert-insert and, because a
 * delete writes a tombstone, every delete case; range dependencies cover phantoms. In a group meld the "state"
 * is the first intention, whose own nodes are uncommitted ("pending"); the same test then separates a write of
 * the first intention (a conflict) from a newer snapshot of the second (not a conflict).
 *
 * <p>Ephemeral nodes get VN {@code (csn, stage, counter)}, so every replica names them identically
 * (Hyder II §3.4). The operator allocates only in its arena; the meld loop creates no Java objects.
 *
 * <p>Brute-force mode (App. F) disables the grafting shortcuts (serial subtrees, read-only subtrees), so
 * every intention node is visited and re-created.
 */
public final class Meld {
    /** Returned instead of a root when the intention conflicts. */
    public static final long CONFLICT = -1L;

    /** Largest intention span {@link #stream} loads: a quarter of a typical 1–2 MiB L2. */
    private static final long STREAM_LIMIT = 256 << 10;

    /**
     * Smallest conflict zone (intentions committed since the snapshot) for which {@link #stream} pays. MeldBenchmark,
     * optimized, alternating builds with and without streaming: concurrency 1 lost 5–16% (txnSize 2, 4, 32);
     * concurrency 4 gained 28% at txnSize 8 and concurrency 16 gained 12–24% at txnSize 4 to 32, while txnSize 2
     * lost 10–20% at 4 and 16 (still 1.9M melds/s).
     */
    private static final long STREAM_MIN_ZONE = 4;

    private final Arena arena;
    private boolean bruteForce;

    private long intentionMinCsn;
    /** Newest CSN of the intention's nodes: a reorder window may put newer members' nodes into the state. */
    private long intentionMaxCsn;
    private long pendingMinCsn;
    private boolean keepReadset;

    /** Sink of {@link #touch}. */
    private long touched;

    private long nodesVisited;
    /** The range half of the conflict test. */
    private final RangeValidation rangeValidation = new RangeValidation();
    private int abortReason;
    /** The intention node whose conflict aborted the last call (0: none, or a range conflicted). */
    private long conflictNode;

    private long[] scratch = new long[64];
    private int scratchCount;
    /** The nodes the current call creates, and their publication. */
    private final EphemeralNodes ephemerals;

    public Meld(final Arena arena, final NodeDirectory directory) {
        this.arena = arena;
        this.ephemerals = new EphemeralNodes(arena, directory);
    }

    /** Brute force (App. F): no grafting of serial or read-only subtrees. */
    public Meld bruteForce(final boolean bruteForce) {
        this.bruteForce = bruteForce;
        return this;
    }

    public Arena arena() {
        return arena;
    }

    /** Nodes visited (intention/state pairs examined) since creation. */
    public long nodesVisited() {
        return nodesVisited + rangeValidation.nodesVisited();
    }

    /** Why the last call returned {@link #CONFLICT} or false ({@link AbortReason}), {@link AbortReason#NONE} otherwise. */
    public int abortReason() {
        return abortReason;
    }

    /** Ephemeral nodes created since creation. */
    public long ephemeralsCreated() {
        return ephemerals.created();
    }

    /**
     * Final meld: melds {@code intention} into the last committed state and returns the new LCS root, or
     * {@link #CONFLICT} if the transaction must abort.
     */
    public long finalMeld(final Intention intention, final long lcsRoot) {
        begin(intention, Long.MAX_VALUE, false, intention.csn, Versions.KIND_FINAL);
        stream(intention, lcsRoot);
        if (rangeValidation.anyChanged(intention.ranges, intention.rangeCount, lcsRoot)) {
            abortReason = AbortReason.CONFLICT;
            countConflict(intention);
            return CONFLICT;
        }
        final long root = publish(meld(lcsRoot, intention.root, 0, 0));
        if (root == CONFLICT) {
            countConflict(intention);
        }
        return root;
    }

    /** Feeds {@link ConflictKeys} (a debug meter, off by default) with the conflict that aborted {@code intention}. */
    private void countConflict(final Intention intention) {
        if (abortReason == AbortReason.CONFLICT && ConflictKeys.enabled()) {
            ConflictKeys.recordAbort(intention, conflictNode,
                conflictNode == 0 ? rangeValidation.lastChangedPrefix() : 0,
                conflictNode == 0 && rangeValidation.lastChangedIsPoint());
        }
    }

    /**
     * Premeld (Hyder II §3, Algorithm 1 line 6): melds {@code intention} into an older committed state. The
     * result, written to {@code out}, is an intention again, with the readset kept, that final meld melds
     * instead of the original. Returns false if the transaction conflicts.
     */
    public boolean premeld(final Intention intention, final long stateRoot, final Intention out) {
        begin(intention, Long.MAX_VALUE, true, intention.csn, Versions.KIND_PREMELD);
        stream(intention, stateRoot);
        if (rangeValidation.anyChanged(intention.ranges, intention.rangeCount, stateRoot)) {
            abortReason = AbortReason.CONFLICT;
            countConflict(intention);
            return false;
        }
        final long root = publish(meld(stateRoot, intention.root, 0, 0));
        if (root == CONFLICT) {
            countConflict(intention);
            return false;
        }
        out.set(intention.csn, intention.minCsn, intention.snapshotCsn, root, intention.nodeCount,
            intention.isolation, intention.flags, intention.ranges, intention.rangeCount);
        return true;
    }

    /**
     * Group meld (Hyder II §4): melds {@code second} into {@code first}, its neighbour in the log, producing one
     * group intention in {@code out} whose members are kept for a fallback. Requires that {@code first} is in
     * {@code second}'s conflict zone. Returns false if {@code second} conflicts with {@code first}; the caller
     * then melds the two one by one, so grouping never changes a decision.
     */
    public boolean groupMeld(final Intention first, final Intention second, final Intention out) {
        if (second.snapshotCsn >= first.minCsn || second.minCsn <= first.csn) {
            throw new IllegalArgumentException("group meld needs adjacent intentions, the first in the second's"
                + " conflict zone: " + first + ", " + second);
        }
        begin(second, first.minCsn, true, second.csn, Versions.KIND_GROUP);
        if (rangeValidation.anyChanged(second.ranges, second.rangeCount, first.root)) {
            abortReason = AbortReason.CONFLICT;
            return false;
        }
        final long root = publish(meld(first.root, second.root, 0, 0));
        if (root == CONFLICT) {
            return false;
        }
        final int rangeCount = first.rangeCount + second.rangeCount;
        long ranges = 0;
        if (rangeCount > 0) {
            ranges = arena.allocate(rangeCount * Intention.RANGE_SIZE);
            copyRanges(first.ranges, first.rangeCount, ranges, 0);
            copyRanges(second.ranges, second.rangeCount, ranges, first.rangeCount);
        }
        out.set(second.csn, first.minCsn, Math.min(first.snapshotCsn, second.snapshotCsn), root,
            first.nodeCount + second.nodeCount, first.isolation, first.flags | second.flags, ranges, rangeCount);
        out.meldedThroughCsn = Math.min(first.meldedThroughCsn, second.meldedThroughCsn);
        out.first = first;
        out.second = second;
        return true;
    }

    private static void copyRanges(final long from, final int count, final long to, final int at) {
        for (int i = 0; i < count; i++) {
            final long src = from + (long) i * Intention.RANGE_SIZE;
            final long dst = to + (long) (at + i) * Intention.RANGE_SIZE;
            NodeMemory.copy(src, dst, Intention.RANGE_SIZE);
        }
    }

    private void begin(final Intention intention, final long pendingMinCsn, final boolean keepReadset,
                       final long outCsn, final int outKind) {
        this.intentionMinCsn = intention.minCsn;
        this.intentionMaxCsn = intention.csn;
        this.pendingMinCsn = pendingMinCsn;
        this.keepReadset = keepReadset;
        ephemerals.begin(outCsn, outKind);
        this.abortReason = AbortReason.NONE;
        this.conflictNode = 0;
    }

    /** Publishes the nodes this call created to the directory: only output that exists is ever looked up. */
    private long publish(final long root) {
        if (root == CONFLICT) {
            if (abortReason == AbortReason.NONE) {
                abortReason = AbortReason.CONFLICT;
            }
        } else {
            ephemerals.publish();
        }
        return root;
    }

    private boolean inIntention(final long n) {
        final long c = Versions.csnOf(Node.vn(n));
        return c >= intentionMinCsn && c <= intentionMaxCsn;
    }

    /**
     * True if one of {@code intention}'s range dependencies saw a change in the state at {@code stateRoot}: the
     * range half of meld's conflict test, for the reorderer's pre-validation (seed 001 §4.3).
     */
    boolean rangesConflict(final Intention intention, final long stateRoot) {
        return rangeValidation.anyChanged(intention.ranges, intention.rangeCount, stateRoot);
    }

    /** A node of the first intention of a group meld: part of the output, not yet committed. */
    private boolean pending(final long n) {
        return Versions.csnOf(Node.vn(n)) >= pendingMinCsn;
    }

    /** Created by this meld call, so not yet visible to anyone and safe to modify. */
    private boolean fresh(final long n) {
        return ephemerals.fresh(n);
    }

    /**
     * The root of the intention nodes with keys strictly between {@code lo} and {@code hi}, found by descending
     * past nodes outside the range (the node d of meld paper §7.2), or 0 if the intention has none there.
     */
    private long inRange(long n, final long lo, final long hi) {
        while (n != 0 && inIntention(n)) {
            if (lo != 0 && Node.compareKeys(n, lo) <= 0) {
                n = intentionRight(n);
            } else if (hi != 0 && Node.compareKeys(n, hi) >= 0) {
                n = intentionLeft(n);
            } else {
                return n;
            }
        }
        return 0;
    }

    private long meld(final long lcs, final long itree, final long lo, final long hi) {
        nodesVisited++;
        final long n = inRange(itree, lo, hi);
        if (n == 0) {
            return lcs;
        }
        if (lcs == 0) {
            return pickUp(n, lo, hi);
        }
        final int nf = Node.flags(n);
        if (!bruteForce) {
            final long ssv = Node.ssv(n);
            final boolean readOnly = !keepReadset && (nf & Node.SUBTREE_IS_ONLY_READ_DEPENDENT) != 0;
            if (ssv != 0 && !pending(lcs) && ssv == Node.nsv(lcs)
                && ((nf & Node.SPAN_EXTENDED) == 0 || fitsRange(n, lo, hi))
                && (keepReadset || (nf & Node.INCREMENT_BELOW) == 0)) {
                return readOnly ? lcs : n;
            }
            if (readOnly) {
                return readOnlyConflict(lcs, n, lo, hi) ? CONFLICT : lcs;
            }
        }
        final long ll = Node.left(lcs);
        final long lr = Node.right(lcs);
        final long nl = (nf & Node.EXTERNAL_LEFT) != 0 ? 0 : Node.left(n);
        final long nr = (nf & Node.EXTERNAL_RIGHT) != 0 ? 0 : Node.right(n);
        touch(nl, nr, ll, lr);
        touchChildren(nl, nr);
        final int c = Node.compareKeys(n, lcs);
        final long p = c == 0 ? n : find(n, lcs);
        if (p != 0) {
            final int pf = p == n ? nf : Node.flags(p);
            if (conflicts(pf, p, lcs) || ((pf & Node.INCREMENT) != 0 && incrementFails(p, lcs))) {
                conflictNode = p;
                return CONFLICT;
            }
        }
        // n lies strictly between lo and hi, so the first step of each recursion's descent is known from c
        final long left = meldChild(ll, c >= 0 ? nl : n, lo, lcs);
        if (left == CONFLICT) {
            return CONFLICT;
        }
        final long right = meldChild(lr, c <= 0 ? nr : n, lcs, hi);
        if (right == CONFLICT) {
            return CONFLICT;
        }
        return merge(lcs, p, left, right);
    }

    /** {@link #meld} of a child range, without the call when no intention node can be in it. */
    private long meldChild(final long lcs, final long itree, final long lo, final long hi) {
        if (itree == 0 || !inIntention(itree)) {
            nodesVisited++;
            return lcs;
        }
        return meld(lcs, itree, lo, hi);
    }

    /**
     * Starts loading both cache lines of the given nodes (0 = none) without waiting for them: meld descends two
     * trees in lock step, one recursion after the other, so a child's lines would otherwise be requested only
     * once the sibling's whole subtree is done. The loaded values go into a field nobody reads, so the JIT keeps
     * the loads; the CPU overlaps their misses with the work that follows (Java has no prefetch instruction).
     */
    private void touch(final long a, final long b, final long c, final long d) {
        touched ^= touch(a) ^ touch(b) ^ touch(c) ^ touch(d);
    }

    /** {@link #touch} of the children of intention nodes {@code a} and {@code b}: two levels ahead. */
    private void touchChildren(final long a, final long b) {
        long t = 0;
        if (a != 0 && inIntention(a)) {
            t = touch(intentionLeft(a)) ^ touch(intentionRight(a));
        }
        if (b != 0 && inIntention(b)) {
            t ^= touch(intentionLeft(b)) ^ touch(intentionRight(b));
        }
        touched ^= t;
    }

    private static long touch(final long x) {
        return x == 0 ? 0 : NodeMemory.getLong(x, 0) ^ NodeMemory.getLong(x, Node.SIZE - 8);
    }

    /**
     * Loads the intention's packed nodes ({@link Intention#spanStart}) into the cache, one load per line in
     * address order, before meld descends the tree. Meld visits them by following pointers, so each cold node
     * would be a dependent miss; a sequential sweep lets the CPU keep many misses in flight and its stream
     * prefetcher run ahead. Skipped for spans beyond {@link #STREAM_LIMIT}, which would not stay cached anyway,
     * and for conflict zones under {@link #STREAM_MIN_ZONE} intentions: there meld grafts most of the intention
     * whole and reads few of its nodes, so loading them all costs more than it saves.
     */
    private void stream(final Intention intention, final long stateRoot) {
        final long start = intention.spanStart;
        final long end = intention.spanEnd;
        if (start == 0 || end - start > STREAM_LIMIT || stateRoot == 0
            || Versions.csnOf(Node.vn(stateRoot)) - intention.meldedThroughCsn < STREAM_MIN_ZONE) {
            return;
        }
        long t = 0;
        for (long a = start & -64L; a < end; a += 64) {
            t ^= NodeMemory.getLong(a, 0);
        }
        touched ^= t;
    }

    /**
     * True unless an insert made {@code n}'s subtree reach past the key range (lo, hi) it is grafted into; only
     * called for a node flagged {@link Node#SPAN_EXTENDED} (any other subtree fits).
     */
    private static boolean fitsRange(final long n, final long lo, final long hi) {
        long x = n;
        while (Node.left(x) != 0) {
            x = Node.left(x);
        }
        if (lo != 0 && Node.compareKeys(x, lo) <= 0) {
            return false;
        }
        x = n;
        while (Node.right(x) != 0) {
            x = Node.right(x);
        }
        return hi == 0 || Node.compareKeys(x, hi) < 0;
    }

    /** The intention node with the key of state node {@code m} under {@code n}, or 0. */
    private long find(long n, final long m) {
        while (n != 0 && inIntention(n)) {
            final int c = Node.compareKeys(m, n);
            if (c == 0) {
                return n;
            }
            n = c < 0 ? intentionLeft(n) : intentionRight(n);
        }
        return 0;
    }

    /** The left child of intention node {@code n}, or 0 if it is known not to be an intention node. */
    private static long intentionLeft(final long n) {
        return (Node.flags(n) & Node.EXTERNAL_LEFT) != 0 ? 0 : Node.left(n);
    }

    /** The right child of intention node {@code n}, or 0 if it is known not to be an intention node. */
    private static long intentionRight(final long n) {
        return (Node.flags(n) & Node.EXTERNAL_RIGHT) != 0 ? 0 : Node.right(n);
    }

    /**
     * A write or read of {@code p} (whose flags are {@code pFlags}) conflicts iff the state's content for its key
     * is newer than what it saw; for a read of some columns only, newer in those columns ({@link ColumnReads}).
     */
    private static boolean conflicts(final int pFlags, final long p, final long m) {
        // an increment without a read depends on the key's existence, not on its version (incrementFails)
        return (pFlags & (Node.ALTERED | Node.DEPENDS_ON)) != 0 && ColumnReads.conflicts(pFlags, p, m);
    }

    /**
     * Final meld applies an increment to committed node {@code m}, so it aborts here if the increment does not apply.
     * Premeld cannot judge (the key may be re-inserted, the value change, before final meld) and carries it on; group
     * meld falls back to melding the two one by one when both intentions touch the key, so increments never need to be
     * combined.
     */
    private boolean incrementFails(final long p, final long m) {
        if (pending(m)) {
            return true;
        }
        if (keepReadset) {
            return false;
        }
        abortReason = Increment.check(p, m);
        return abortReason != AbortReason.NONE;
    }

    /** Conflict check of a read-only intention subtree against the state, creating nothing (App. C MeldNoEphem). */
    private boolean readOnlyConflict(final long lcs, final long itree, final long lo, final long hi) {
        nodesVisited++;
        final long n = inRange(itree, lo, hi);
        if (n == 0) {
            return false;
        }
        if (lcs == 0) {
            throw missingFromState(n);
        }
        final long ssv = Node.ssv(n);
        if (ssv != 0 && ssv == Node.nsv(lcs)) {
            return false;
        }
        final long ll = Node.left(lcs);
        final long lr = Node.right(lcs);
        final long nl = intentionLeft(n);
        final long nr = intentionRight(n);
        touch(nl, nr, ll, lr);
        final int c = Node.compareKeys(n, lcs);
        final long p = c == 0 ? n : find(n, lcs);
        if (p != 0 && conflicts(Node.flags(p), p, lcs)) {
            conflictNode = p;
            return true;
        }
        return readOnlyConflictChild(ll, c >= 0 ? nl : n, lo, lcs) || readOnlyConflictChild(lr, c <= 0 ? nr : n, lcs, hi);
    }

    /** {@link #readOnlyConflict} of a child range, without the call when no intention node can be in it. */
    private boolean readOnlyConflictChild(final long lcs, final long itree, final long lo, final long hi) {
        if (itree == 0 || !inIntention(itree)) {
            nodesVisited++;
            return false;
        }
        return readOnlyConflict(lcs, itree, lo, hi);
    }

    private IllegalStateException missingFromState(final long n) {
        return new IllegalStateException("intention node " + Versions.toString(Node.vn(n))
            + " read a key that the state it is melded into does not have (keys are never removed)");
    }

    /**
     * Builds the output node for state node {@code m} and intention node {@code p} (0 if the intention has no
     * node with that key) over the melded children, or returns {@code m} when nothing changed.
     */
    private long merge(final long m, final long p, final long left, final long right) {
        // every field of m and p is read once, into locals (node memory loads cannot be merged by the JIT across
        // the stores into the new node)
        final int pFlags = p != 0 ? Node.flags(p) : 0;
        final long ml = Node.left(m);
        final long mr = Node.right(m);
        final boolean pCarries = (pFlags & Node.ALTERED) != 0 || (keepReadset && (pFlags & Node.DEPENDS_ON) != 0);
        if (!pCarries && left == ml && right == mr) {
            return m;
        }
        final int mFlags = Node.flags(m);
        final long mVn = Node.vn(m);
        final long mScv = Node.scv(m);
        final long pScv = p != 0 ? Node.scv(p) : 0;
        final boolean mPending = Versions.csnOf(mVn) >= pendingMinCsn;
        final boolean mAltered = (mFlags & Node.ALTERED) != 0;
        int flags;
        long scv;
        long payloadSource;
        boolean stale = false;
        int sourceFlags;
        if ((pFlags & Node.ALTERED) != 0) {
            payloadSource = p;
            sourceFlags = pFlags;
            flags = Node.ALTERED;
            scv = pScv;
        } else if (mPending && mAltered) {
            payloadSource = m;
            sourceFlags = mFlags;
            flags = Node.ALTERED;
            scv = mScv;
        } else {
            final long mVersion = mPending || !mAltered ? mScv : mVn;
            // a column read that stood against newer content (increments of other bytes) keeps the version it read,
            // with that version's payload, and must not be grafted whole: final meld checks it again (stale below)
            stale = keepReadset && p != 0 && (pFlags & Node.DEPENDS_ON) != 0 && pScv < mVersion;
            if (p != 0 && (pScv > mVersion || stale)) {
                payloadSource = p;
                sourceFlags = pFlags;
                scv = pScv;
            } else {
                payloadSource = m;
                sourceFlags = mFlags;
                scv = mVersion;
            }
            flags = 0;
        }
        long columns = 0;
        if (keepReadset) {
            final boolean pDepends = (pFlags & Node.DEPENDS_ON) != 0;
            final boolean mDepends = mPending && (mFlags & Node.DEPENDS_ON) != 0;
            if (pDepends || mDepends) {
                flags |= Node.DEPENDS_ON;
                columns = readColumns(pDepends ? Node.columns(p) : -1L, mDepends ? Node.columns(m) : -1L);
                if (pDepends || (pFlags & Node.ALTERED) != 0) {
                    scv = Math.min(scv, pScv);
                }
                if (mPending && (mDepends || mAltered)) {
                    scv = Math.min(scv, mScv);
                }
            }
        }
        flags |= sourceFlags & (keepReadset ? Node.TOMBSTONE | Node.INCREMENT | Node.HISTORY
            : Node.TOMBSTONE | Node.HISTORY);

        final boolean mReadOnly = (mFlags & Node.SUBTREE_IS_ONLY_READ_DEPENDENT) != 0;
        long ssv = mPending || mReadOnly ? Node.ssv(m) : mVn;
        if (stale || !sameSpan(left, ml) || !sameSpan(right, mr)) {
            ssv = 0;
        }
        if ((flags & Node.ALTERED) == 0 && ssv != 0 && !(mPending && !mReadOnly)
            && unchanged(left, ml) && unchanged(right, mr)) {
            flags |= Node.SUBTREE_IS_ONLY_READ_DEPENDENT;
        }
        final long e = ephemerals.allocate(m);
        if ((sourceFlags & Node.INCREMENT) != 0 && !keepReadset) {
            Increment.apply(arena, payloadSource, m, e);
            flags |= Node.HISTORY;
        } else {
            Node.copyPayload(e, payloadSource);
        }
        Node.columns(e, columns);
        Node.scv(e, scv);
        Node.ssv(e, ssv);
        Node.flags(e, flags);
        return join(left, e, right);
    }

    /**
     * The byte mask of a read that two reads of one key make together (-1 = that side did not read): the union, or
     * the whole row if either read the whole row.
     */
    private static long readColumns(final long a, final long b) {
        if (a == -1L) {
            return b;
        }
        if (b == -1L) {
            return a;
        }
        return a == ColumnReads.WHOLE_ROW || b == ColumnReads.WHOLE_ROW ? ColumnReads.WHOLE_ROW : a | b;
    }

    /** Structure version of a state node as the output's source: a pending node's own source. */
    private long baseSsv(final long m) {
        return pending(m) ? Node.ssv(m) : Node.nsv(m);
    }

    /** True if result child {@code c} stays within the key span of source child {@code mc} (App. D, Theorem 3). */
    private boolean sameSpan(final long c, final long mc) {
        if (c == mc) {
            return true;
        }
        return c != 0 && mc != 0 && Node.ssv(c) != 0 && Node.ssv(c) == baseSsv(mc);
    }

    /** True if result child {@code c} has exactly the structure and content of source child {@code mc}. */
    private boolean unchanged(final long c, final long mc) {
        if (mc != 0 && pending(mc) && !Node.subtreeIsOnlyReadDependent(mc)) {
            return false;
        }
        if (c == mc) {
            return true;
        }
        return c != 0 && mc != 0 && Node.subtreeIsOnlyReadDependent(c) && Node.ssv(c) == baseSsv(mc);
    }

    /** A copy of {@code x} for a place where its subtree changes shape (rebalancing); SSV no longer holds. */
    private long restructureCopy(final long x) {
        final long c = ephemerals.allocate(x);
        final int f = Node.flags(x);
        if (inIntention(x) || pending(x) || fresh(x)) {
            Node.flags(c, f & (Node.ALTERED | Node.TOMBSTONE | Node.HISTORY
                | (keepReadset ? Node.DEPENDS_ON | Node.INCREMENT : 0)));
            Node.scv(c, Node.scv(x));
            if (keepReadset) {
                Node.columns(c, Node.columns(x));
            }
        } else {
            Node.flags(c, f & (Node.TOMBSTONE | Node.HISTORY));
            Node.scv(c, Node.ncv(x));
        }
        Node.payload(c, Node.payload(x), Node.payloadLength(x));
        Node.left(c, Node.left(x));
        Node.right(c, Node.right(x));
        Node.updateDerived(c);
        return c;
    }

    private long mutable(final long x) {
        if (fresh(x)) {
            final int f = Node.flags(x);
            Node.flags(x, f & ~Node.SUBTREE_IS_ONLY_READ_DEPENDENT);
            Node.ssv(x, 0);
            return x;
        }
        return restructureCopy(x);
    }

    private static void attach(final long x, final long left, final long right) {
        Node.setChildren(x, left, right);
    }

    /** AVL join of two balanced trees around a fresh node whose key lies between them. */
    private long join(final long left, final long e, final long right) {
        final int hl = Node.height(left);
        final int hr = Node.height(right);
        if (hl > hr + 1) {
            mutable(e);
            return joinRight(left, e, right);
        }
        if (hr > hl + 1) {
            mutable(e);
            return joinLeft(left, e, right);
        }
        attach(e, left, right);
        return e;
    }

    private long joinRight(final long tl, final long k, final long tr) {
        final long l = Node.left(tl);
        final long c = Node.right(tl);
        final long x = mutable(tl);
        if (Node.height(c) <= Node.height(tr) + 1) {
            attach(k, c, tr);
            if (Node.height(k) <= Node.height(l) + 1) {
                attach(x, l, k);
                return x;
            }
            attach(x, l, rotateRight(k));
            return rotateLeft(x);
        }
        final long t = joinRight(c, k, tr);
        attach(x, l, t);
        if (Node.height(t) <= Node.height(l) + 1) {
            return x;
        }
        return rotateLeft(x);
    }

    private long joinLeft(final long tl, final long k, final long tr) {
        final long r = Node.right(tr);
        final long c = Node.left(tr);
        final long x = mutable(tr);
        if (Node.height(c) <= Node.height(tl) + 1) {
            attach(k, tl, c);
            if (Node.height(k) <= Node.height(r) + 1) {
                attach(x, k, r);
                return x;
            }
            attach(x, rotateLeft(k), r);
            return rotateRight(x);
        }
        final long t = joinLeft(tl, k, c);
        attach(x, t, r);
        if (Node.height(t) <= Node.height(r) + 1) {
            return x;
        }
        return rotateRight(x);
    }

    /** Rotates right around fresh node {@code a}. */
    private long rotateRight(final long a) {
        final long b = mutable(Node.left(a));
        attach(a, Node.right(b), Node.right(a));
        attach(b, Node.left(b), a);
        return b;
    }

    /** Rotates left around fresh node {@code a}. */
    private long rotateLeft(final long a) {
        final long b = mutable(Node.right(a));
        attach(a, Node.left(a), Node.left(b));
        attach(b, a, Node.right(b));
        return b;
    }

    /** The state has no key in range: the intention's nodes in range become a new balanced subtree. */
    private long pickUp(final long n, final long lo, final long hi) {
        scratchCount = 0;
        collect(n, lo, hi);
        for (int i = 0; i < scratchCount; i++) {
            final long x = scratch[i];
            if (Node.scv(x) != 0 && pendingMinCsn == Long.MAX_VALUE) {
                throw missingFromState(x);
            }
        }
        return build(0, scratchCount);
    }

    private void collect(final long n, final long lo, final long hi) {
        if (n == 0 || !inIntention(n)) {
            return;
        }
        nodesVisited++;
        final boolean aboveLo = lo == 0 || Node.compareKeys(n, lo) > 0;
        final boolean belowHi = hi == 0 || Node.compareKeys(n, hi) < 0;
        if (aboveLo) {
            collect(Node.left(n), lo, hi);
        }
        if (aboveLo && belowHi) {
            if (scratchCount == scratch.length) {
                final long[] grown = new long[scratch.length * 2];
                System.arraycopy(scratch, 0, grown, 0, scratchCount);
                scratch = grown;
            }
            scratch[scratchCount++] = n;
        }
        if (belowHi) {
            collect(Node.right(n), lo, hi);
        }
    }

    private long build(final int from, final int to) {
        if (from >= to) {
            return 0;
        }
        final int mid = (from + to) >>> 1;
        final long x = scratch[mid];
        final long left = build(from, mid);
        final long right = build(mid + 1, to);
        final long e = ephemerals.allocate(x);
        final int f = Node.flags(x);
        Node.flags(e, f & (Node.ALTERED | Node.TOMBSTONE | Node.HISTORY
            | (keepReadset ? Node.DEPENDS_ON | Node.INCREMENT : 0)));
        Node.scv(e, Node.scv(x));
        if (keepReadset) {
            Node.columns(e, Node.columns(x));
        }
        Node.payload(e, Node.payload(x), Node.payloadLength(x));
        attach(e, left, right);
        return e;
    }
}
