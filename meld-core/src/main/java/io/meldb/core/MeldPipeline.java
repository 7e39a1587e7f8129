package io.meldb.core;

import java.util.Arrays;

/**
 * Rolls the log forward: premeld, group meld and final meld over intentions delivered in log order, and the
 * sequence of committed states they produce (Hyder II §3–4; meld paper §3). This is the single-threaded,
 * deterministic form of the pipeline; the threaded one in txn-server runs the same stages on the same inputs.
 *
 * <ul>
 *   <li>Premeld (Algorithm 1): intention v is melded against state m = v - t*d - 1 by premeld slot v mod t,
 *   unless its snapshot is already at or after m. A conflict there is final: the transaction aborts.</li>
 *   <li>Group meld: intentions 2k-1 and 2k are melded into one group intention when the first is in the
 *   second's conflict zone. If the second conflicts with the first, or final meld rejects the group, the two
 *   are melded one by one instead, so grouping never changes a decision (no fate sharing).</li>
 *   <li>Final meld decides commit or abort and produces the next last committed state.</li>
 * </ul>
 * A state that only existed inside a group intention is not materialized; {@link #state(long)} then answers
 * the newest state at or before the requested CSN, on every replica alike.
 */
public final class MeldPipeline implements AutoCloseable {
    /** Receives each intention's outcome, in log order. */
    @FunctionalInterface
    public interface DecisionListener {
        void onDecision(long csn, boolean committed);
    }

    /** {@link #stateRootAt} of a CSN whose state only existed inside a group intention. */
    public static final long NO_STATE = -1;

    private final MeldConfig config;
    private final NodeDirectory directory;
    private final Arena finalArena = new Arena();
    private final Meld finalMeld;
    private final Arena[] premeldArenas;
    private final Meld[] premelds;
    /** Premelds run, per slot (each slot's counter is written by one premeld thread only). */
    private final long[] premeldCalls;
    private final Arena groupArena = new Arena();
    private final Meld groupMeld;
    /** Reused for every group: a group intention lives only within the submit that forms it. */
    private final Intention groupIntention = new Intention();

    /**
     * Root of each held state, a ring indexed by {@code csn & (length - 1)}: entries from {@link #baseCsn} to
     * {@link #lcsCsn} are valid. Without a retention window the ring grows to hold every state; with one, the
     * oldest states fall out as new ones arrive, so an unbounded run keeps a bounded index. Premeld threads read
     * it (states they read are decided and far from being overwritten).
     */
    private long[] stateRoots = newRing(1024);
    /** States kept behind the LCS (0 = all). */
    private long retainStates;
    private long lcsCsn;
    /** States below this CSN were never held (recovery started here). */
    private long baseCsn;
    private long lcsRoot;
    private Intention heldFirst;
    private boolean heldFirstAborted;
    /** Open reorder window and its planner (null when the window is off). */
    private final ReorderWindow window;
    private final Reorderer reorderer;
    private final ReorderStats reorderStats = new ReorderStats();
    private long windowsClosed;
    private long reorderAborts;

    private long commits;
    private long aborts;
    private int lastAbortReason;
    /** Final meld's abort reason per member of the window being closed. */
    private final int[] windowReasons = new int[ReorderConfig.MAX_WINDOW];
    private long finalMelds;
    private long conflictZoneTotal;
    private long effectiveConflictZoneTotal;
    private long groupsFormed;
    private long groupsFallenBack;

    /** A pipeline starting from the empty state (CSN 0). */
    public MeldPipeline(final MeldConfig config, final NodeDirectory directory) {
        this(config, directory, new Snapshot(0, 0));
    }

    /** A pipeline starting from a given committed state (recovery from a checkpoint). */
    public MeldPipeline(final MeldConfig config, final NodeDirectory directory, final Snapshot start) {
        this.config = config;
        this.directory = directory;
        this.finalMeld = new Meld(finalArena, directory).bruteForce(config.bruteForce());
        this.premeldArenas = new Arena[config.premeldThreads()];
        this.premelds = new Meld[config.premeldThreads()];
        this.premeldCalls = new long[config.premeldThreads()];
        for (int i = 0; i < premelds.length; i++) {
            premeldArenas[i] = new Arena();
            premelds[i] = new Meld(premeldArenas[i], directory).bruteForce(config.bruteForce());
        }
        this.groupMeld = new Meld(groupArena, directory).bruteForce(config.bruteForce());
        this.window = config.reorder().enabled() ? new ReorderWindow(config.reorder()) : null;
        this.reorderer = window != null ? new Reorderer(config.reorder(), reorderStats) : null;
        this.lcsCsn = start.csn();
        this.baseCsn = start.csn();
        this.lcsRoot = start.root();
        setRoot(lcsCsn, lcsRoot);
    }

    /**
     * Keeps only the newest states: at least {@code states} of them and every state premeld may need, rounded up
     * to the ring's power-of-two size (1,024 or more); older ones are forgotten as new ones arrive. A server sets it to its cluster's snapshot-age limit; 0 keeps every state.
     */
    public MeldPipeline retainStates(final long states) {
        final long premeldReach = config.premeldLag() + 1;
        this.retainStates = states == 0 ? 0 : Math.max(states, premeldReach);
        if (retainStates > 0) {
            growRing(Long.highestOneBit(Math.max(2 * retainStates, 1024) - 1) << 1);
        }
        return this;
    }

    private static long[] newRing(final long capacity) {
        if (capacity > 1 << 30) {
            throw new IllegalStateException("too many states held: " + capacity);
        }
        final long[] ring = new long[(int) capacity];
        Arrays.fill(ring, NO_STATE);
        return ring;
    }

    private static long rootIn(final long[] ring, final long csn) {
        return ring[(int) (csn & (ring.length - 1))];
    }

    private long root(final long csn) {
        return rootIn(stateRoots, csn);
    }

    private void setRoot(final long csn, final long root) {
        if (csn - baseCsn >= stateRoots.length) {
            if (retainStates > 0) {
                baseCsn = csn - stateRoots.length + 1;
            } else {
                growRing((long) stateRoots.length * 2);
            }
        }
        stateRoots[(int) (csn & (stateRoots.length - 1))] = root;
    }

    /** Replaces the ring with a larger one holding the same states (published as a new array for readers). */
    private void growRing(final long capacity) {
        if (capacity <= stateRoots.length) {
            return;
        }
        final long[] ring = newRing(capacity);
        for (long c = baseCsn; c <= lcsCsn; c++) {
            ring[(int) (c & (ring.length - 1))] = root(c);
        }
        stateRoots = ring;
    }

    /**
     * A pipeline resuming from a checkpoint (meld paper App. A): {@code roots[i]} is the root of state
     * {@code baseCsn + i} or {@link #NO_STATE}, as {@link #stateRootAt} answered on the server that wrote it; the
     * last one is the LCS and must be a state. The roots cover every state premeld may still ask for.
     */
    public MeldPipeline(final MeldConfig config, final NodeDirectory directory, final long baseCsn,
                        final long[] roots) {
        this(config, directory, new Snapshot(roots[roots.length - 1], baseCsn + roots.length - 1));
        if (roots[roots.length - 1] == NO_STATE) {
            throw new IllegalArgumentException("the last checkpointed state must be materialized");
        }
        this.baseCsn = baseCsn;
        growRing(Long.highestOneBit(Math.max(2L * roots.length, 1024) - 1) << 1);
        for (int i = 0; i < roots.length; i++) {
            setRoot(baseCsn + i, roots[i]);
        }
    }

    /** Root of the state at exactly {@code csn}, or {@link #NO_STATE} (also for CSNs not held). */
    public long stateRootAt(final long csn) {
        if (csn < baseCsn || csn > lcsCsn) {
            return NO_STATE;
        }
        return root(csn);
    }

    /**
     * The oldest CSN whose state premeld may still need once intentions after the LCS arrive: a checkpoint must
     * hold every state from here to the LCS.
     */
    public long oldestStateNeeded() {
        // the next intention, lcsCsn + 1, is premelded against lcsCsn + 1 - t*d - 1; later ones against newer states
        long m = Math.max(baseCsn, lcsCsn + 1 - config.premeldLag());
        while (m > baseCsn && root(m) == NO_STATE) {
            m--;
        }
        return Math.min(m, lcsCsn);
    }

    /** Oldest CSN whose state this pipeline holds. */
    public long baseCsn() {
        return baseCsn;
    }

    /**
     * True while group meld holds an odd intention waiting for its partner, or a reorder window is open: the LCS
     * lags the log then, until more intentions or {@link #flush} decide them.
     */
    public boolean holding() {
        return heldFirst != null || window != null && window.open();
    }

    /** The CSNs {@link #holding} waits on: from {@code lcsCsn() + 1} up to this one (the LCS itself if none). */
    public long heldThroughCsn() {
        if (window != null && window.open()) {
            return window.lastCsn();
        }
        return heldFirst != null ? heldFirst.csn : lcsCsn;
    }

    public MeldConfig config() {
        return config;
    }

    /** The last committed state. */
    public Snapshot lcs() {
        return new Snapshot(lcsRoot, lcsCsn);
    }

    /** CSN of the last intention final meld has decided. */
    public long lcsCsn() {
        return lcsCsn;
    }

    /** The newest materialized state at or before {@code csn} (states are kept for the pipeline's life). */
    public Snapshot state(final long csn) {
        long c = Math.min(csn, lcsCsn);
        while (c > baseCsn && root(c) == NO_STATE) {
            c--;
        }
        if (c < baseCsn || root(c) == NO_STATE) {
            throw new IllegalArgumentException("no state at or before csn " + csn);
        }
        return new Snapshot(root(c), c);
    }

    /**
     * The newest materialized state at or before {@code csn}, which every caller guarantees is decided (so this
     * reads nothing the meld thread is still changing; premeld threads call it).
     */
    private Snapshot decidedState(final long csn) {
        final long[] roots = stateRoots;
        final long base = baseCsn;
        long c = csn;
        while (c > base && rootIn(roots, c) == NO_STATE) {
            c--;
        }
        if (c < base || rootIn(roots, c) == NO_STATE) {
            throw new IllegalArgumentException("no state at or before csn " + csn);
        }
        return new Snapshot(rootIn(roots, c), c);
    }

    /**
     * Delivers the next intention in log order. Its CSN must be one more than the previous one's. Decisions
     * reach {@code listener} in log order; with group meld an odd intention's decision waits for its partner
     * (or {@link #flush}).
     */
    public void submit(final Intention intention, final DecisionListener listener) {
        submit(intention, false, listener);
    }

    /**
     * Delivers the next CSN as an intention that aborts without being melded: a record every replica rejects for
     * the same reason found in the log itself (malformed, or appended by a server incarnation that a newer one
     * has fenced off). It takes part in group pairing like any aborted intention.
     */
    public void reject(final long csn, final DecisionListener listener) {
        if (window != null) {
            checkNext(csn);
            closeWindow(listener, ReorderStats.Close.REJECTED);
            lastAbortReason = AbortReason.CONFLICT;
            abort(csn, listener);
            return;
        }
        final Intention placeholder = new Intention().set(csn, csn, csn - 1, 0, 0, Isolation.SNAPSHOT, 0, 0, 0);
        submit(placeholder, true, listener);
    }

    private void submit(final Intention intention, final boolean rejected, final DecisionListener listener) {
        checkNext(intention.csn);
        if (window != null) {
            closeWindowBefore(intention, listener);
        }
        Intention current = intention;
        boolean aborted = rejected;
        if (config.premeld() && !rejected) {
            current = premeld(intention);
            aborted = current == null;
        }
        afterPremeld(intention, current, aborted, listener);
    }

    /**
     * Premeld of one intention, for a premeld thread running ahead of final meld (Hyder II §3, Algorithm 1, with
     * slot {@code csn mod t} on thread {@code csn mod t}): the intention final meld should take instead, the
     * intention itself where premeld does not apply, or null if premeld aborted it. Every intention up to
     * {@code csn - t*d - 1} must have been decided (the state it melds into is then final); calls for distinct
     * slots may run concurrently with each other and with the meld thread.
     */
    public Intention premeldAhead(final Intention intention) {
        return premeld(intention);
    }

    /** {@link #submit} of an intention whose premeld {@link #premeldAhead} already did (null: it aborted). */
    public void submitPremelded(final Intention original, final Intention premelded,
                                final DecisionListener listener) {
        checkNext(original.csn);
        if (window != null) {
            closeWindowBefore(original, listener);
        }
        afterPremeld(original, premelded == null ? original : premelded, premelded == null, listener);
    }

    private void checkNext(final long csn) {
        final long expected = heldThroughCsn() + 1;
        if (csn != expected) {
            throw new IllegalArgumentException("intention csn " + csn + " delivered, expected " + expected);
        }
    }

    /**
     * The reorder window rule for the next intention, which the caller may apply before the intention is even
     * decoded (it needs only the snapshot CSN from the record's header): decides the open window if the intention
     * may not join it (its snapshot is not older than the window, or it is a flush or checkpoint intention).
     * A txn-server must do this before waiting for the intention's snapshot state, which the open window holds.
     */
    public void closeWindowBefore(final long snapshotCsn, final int flags, final DecisionListener listener) {
        if (window != null && window.open()) {
            if (snapshotCsn >= window.firstCsn()) {
                closeWindow(listener, ReorderStats.Close.SNAPSHOT_INSIDE);
            } else if ((flags & (Intention.FLAG_CHECKPOINT | Intention.FLAG_FLUSH)) != 0) {
                closeWindow(listener, ReorderStats.Close.MARKER);
            }
        }
    }

    private void closeWindowBefore(final Intention intention, final DecisionListener listener) {
        closeWindowBefore(intention.snapshotCsn, intention.flags, listener);
    }

    private void afterPremeld(final Intention intention, final Intention current, final boolean aborted,
                              final DecisionListener listener) {
        if (window != null) {
            window.add(intention.csn, aborted ? null : current);
            if (window.full()) {
                closeWindow(listener, ReorderStats.Close.FULL);
            } else if ((intention.flags & (Intention.FLAG_CHECKPOINT | Intention.FLAG_FLUSH)) != 0) {
                closeWindow(listener, ReorderStats.Close.MARKER);
            }
            return;
        }
        if (!config.groupMeld()) {
            decide(current, aborted, intention.csn, listener);
            return;
        }
        if (heldFirst == null && (intention.csn & 1) == 1) {
            heldFirst = aborted ? intention : current;
            heldFirstAborted = aborted;
            return;
        }
        if (heldFirst == null) {
            decide(current, aborted, intention.csn, listener);
            return;
        }
        final Intention first = heldFirst;
        final boolean firstAborted = heldFirstAborted;
        heldFirst = null;
        if (!firstAborted && !aborted && intention.snapshotCsn < first.minCsn) {
            final Intention group = groupIntention;
            if (groupMeld.groupMeld(first, current, group)) {
                groupsFormed++;
                final long root = finalMeld(group);
                if (root != Meld.CONFLICT) {
                    commit(first.csn, NO_STATE, listener);
                    commit(current.csn, root, listener);
                    return;
                }
                groupsFallenBack++;
            }
        }
        decide(first, firstAborted, first.csn, listener);
        decide(current, aborted, intention.csn, listener);
    }

    /**
     * Decides a held odd intention whose partner has not arrived, or the open reorder window (end of log, or before
     * a checkpoint). Replicas agree only if they call it at the same point of the log.
     */
    public void flush(final DecisionListener listener) {
        if (window != null) {
            closeWindow(listener, ReorderStats.Close.FLUSH);
        }
        if (heldFirst != null) {
            final Intention first = heldFirst;
            heldFirst = null;
            decide(first, heldFirstAborted, first.csn, listener);
        }
    }

    private Intention premeld(final Intention intention) {
        final long v = intention.csn;
        final long m = v - config.premeldLag();
        if (!config.premeld() || m <= 0 || intention.snapshotCsn >= m) {
            return intention;
        }
        final Snapshot input = decidedState(m);
        if (intention.snapshotCsn >= input.csn()) {
            return intention;
        }
        final int slotIndex = (int) (v % config.premeldThreads());
        final Meld slot = premelds[slotIndex];
        premeldCalls[slotIndex]++;
        final Intention out = new Intention();
        if (!slot.premeld(intention, input.root(), out)) {
            return null;
        }
        out.meldedThroughCsn = input.csn();
        return out;
    }

    /**
     * Decides the open reorder window (seed 001 §3.2): the reorderer plans against the state before the window,
     * final meld takes the planned members in the planned order (its own conflict test still decides each), and
     * only the state after the whole window is materialized. Decisions reach the listener in meld order, then the
     * aborted members in log order.
     */
    private void closeWindow(final DecisionListener listener, final ReorderStats.Close reason) {
        if (!window.open()) {
            return;
        }
        final int count = window.count();
        final Intention[] members = window.members();
        reorderStats.closed(reason);
        reorderStats.windows++;
        reorderStats.members += count;
        for (int i = 0; i < count; i++) {
            if (members[i] == null) {
                reorderStats.premeldAborts++;
            }
        }
        reorderer.plan(members, count, lcsRoot, finalMeld);
        long committed = 0;
        java.util.Arrays.fill(windowReasons, 0, count, AbortReason.CONFLICT);
        for (int k = 0; k < reorderer.orderCount(); k++) {
            final int i = reorderer.order(k);
            final long root = finalMeld(members[i]);
            if (root != Meld.CONFLICT) {
                lcsRoot = root;
                committed |= 1L << i;
            } else {
                windowReasons[i] = finalMeld.abortReason();
                reorderStats.finalMeldAborts++;
            }
        }
        windowsClosed++;
        reorderAborts += Long.bitCount(reorderer.aborted());
        for (int i = 0; i < count; i++) {
            advance(window.csn(i), i == count - 1 ? lcsRoot : NO_STATE);
        }
        for (int k = 0; k < reorderer.orderCount(); k++) {
            final int i = reorderer.order(k);
            if ((committed >>> i & 1) != 0) {
                commits++;
                listener.onDecision(window.csn(i), true);
            }
        }
        for (int i = 0; i < count; i++) {
            if ((committed >>> i & 1) == 0) {
                aborts++;
                lastAbortReason = windowReasons[i];
                listener.onDecision(window.csn(i), false);
            }
        }
        window.clear();
    }

    /** Reorder windows decided so far. */
    public long windowsClosed() {
        return windowsClosed;
    }

    /** Where the reorder window's aborts came from, window sizes and close reasons (all zero when it is off). */
    public ReorderStats reorderStats() {
        return reorderStats;
    }

    /** Members aborted by the reorderer (pre-validation or the feedback vertex set) so far. */
    public long reorderAborts() {
        return reorderAborts;
    }

    private void decide(final Intention intention, final boolean abortedEarly, final long csn,
                        final DecisionListener listener) {
        if (abortedEarly) {
            lastAbortReason = AbortReason.CONFLICT;
            abort(csn, listener);
            return;
        }
        final long root = finalMeld(intention);
        if (root == Meld.CONFLICT) {
            lastAbortReason = finalMeld.abortReason();
            abort(csn, listener);
        } else {
            commit(csn, root, listener);
        }
    }

    private long finalMeld(final Intention intention) {
        finalMelds++;
        conflictZoneTotal += lcsCsn - intention.snapshotCsn;
        effectiveConflictZoneTotal += lcsCsn - intention.meldedThroughCsn;
        return finalMeld.finalMeld(intention, lcsRoot);
    }

    private void commit(final long csn, final long root, final DecisionListener listener) {
        commits++;
        advance(csn, root == NO_STATE ? NO_STATE : root);
        if (root != NO_STATE) {
            lcsRoot = root;
        }
        listener.onDecision(csn, true);
    }

    private void abort(final long csn, final DecisionListener listener) {
        aborts++;
        advance(csn, lcsRoot);
        listener.onDecision(csn, false);
    }

    private void advance(final long csn, final long root) {
        setRoot(csn, root);
        lcsCsn = csn;
    }

    /**
     * Why the intention whose abort is being delivered aborted ({@link AbortReason}): valid inside
     * {@link DecisionListener#onDecision} for an abort, which is called on the deciding thread.
     */
    public int lastAbortReason() {
        return lastAbortReason;
    }

    public long commits() {
        return commits;
    }

    public long aborts() {
        return aborts;
    }

    /** Nodes visited by final meld so far. */
    public long finalNodesVisited() {
        return finalMeld.nodesVisited();
    }

    /** Ephemeral nodes created by all stages so far. */
    public long ephemeralsCreated() {
        long total = finalMeld.ephemeralsCreated() + groupMeld.ephemeralsCreated();
        for (final Meld m : premelds) {
            total += m.ephemeralsCreated();
        }
        return total;
    }

    /** Number of final melds run (a group intention counts once, a fallback adds its members). */
    public long finalMelds() {
        return finalMelds;
    }

    /** Sum over final melds of the conflict zone length (LCS CSN minus the intention's snapshot CSN). */
    public long conflictZoneTotal() {
        return conflictZoneTotal;
    }

    /**
     * Sum over final melds of the part of the conflict zone final meld itself still had to cover: LCS CSN minus
     * the newest state the intention was already melded against (its snapshot, or premeld's state). Premeld
     * shrinks this; {@link #conflictZoneTotal} is the zone as the transaction saw it.
     */
    public long effectiveConflictZoneTotal() {
        return effectiveConflictZoneTotal;
    }

    /** Premelds run so far (intentions whose snapshot was older than their premeld state), all slots. */
    public long premelds() {
        long total = 0;
        for (final long c : premeldCalls) {
            total += c;
        }
        return total;
    }

    /** Nodes visited by premeld so far, all slots. */
    public long premeldNodesVisited() {
        long total = 0;
        for (final Meld m : premelds) {
            total += m.nodesVisited();
        }
        return total;
    }

    /** Nodes visited by group meld so far. */
    public long groupNodesVisited() {
        return groupMeld.nodesVisited();
    }

    public long groupsFormed() {
        return groupsFormed;
    }

    public long groupsFallenBack() {
        return groupsFallenBack;
    }

    public NodeDirectory directory() {
        return directory;
    }

    /**
     * Off-heap bytes the pipeline's own arenas hold (final, group and premeld melds' nodes). A plain read of fields
     * other threads write: an estimate for deciding when to compact, never for a meld decision.
     */
    public long reservedBytes() {
        long bytes = finalArena.reservedBytes() + groupArena.reservedBytes();
        for (final Arena a : premeldArenas) {
            bytes += a.reservedBytes();
        }
        return bytes;
    }

    @Override
    public void close() {
        finalArena.close();
        groupArena.close();
        for (final Arena a : premeldArenas) {
            a.close();
        }
    }
}
