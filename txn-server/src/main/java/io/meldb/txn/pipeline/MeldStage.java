package io.meldb.txn.pipeline;

import io.meldb.core.MeldPipeline;
import io.meldb.txn.LogRecords;
import io.meldb.txn.ServerContext;
import io.meldb.txn.checkpoint.Checkpointer;
import io.meldb.txn.session.IntentionAppender;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The meld stage (Hyder II §3-4; meld paper §3): group meld and final meld in log order, over {@link MeldPipeline}.
 * Thread: "meldb-meld-N", or the reader's in threading modes SHARED and CHAINED. Receives {@link PipelineMessage}s in log order
 * from the reader (waiting, for an intention, on its deserializer and premeld threads). Publishes each new LCS to
 * the {@link io.meldb.txn.checkpoint.CommittedState} (waking deserializer and premeld threads that wait for a
 * state), then hands each decision to the reply stage; at block ends records the position processed; at checkpoint
 * markers has the {@link Checkpointer} start a new memory generation. Allocates nothing per intention in steady
 * state: decisions go out on the message objects the reader allocated, through preallocated queues (in mode
 * CHAINED the reply stage runs in line instead, and its bookkeeping allocates on this thread).
 */
final class MeldStage {
    /** How long the log must be quiet before a held group-meld intention is nudged. */
    private static final long NUDGE_AFTER_NANOS = 2_000_000;

    private final ServerContext ctx;
    private final StageLinks links;
    private final Checkpointer checkpointer;
    private final IntentionAppender appender;
    /** The reply stage when it runs in line on this thread (threading mode CHAINED), else null: the reply queue. */
    private final ReplyStage inlineReplies;
    /** The current generation's pipeline; replaced at every checkpoint (by this thread). */
    private MeldPipeline pipeline;
    /** Messages handed to the pipeline and not yet decided. */
    private final Long2ObjectHashMap<Decidable> undecided = new Long2ObjectHashMap<>();
    private final MeldPipeline.DecisionListener decisionListener = this::onDecision;
    private final LongArrayList decidedCsns = new LongArrayList();
    private final LongArrayList decidedCommitted = new LongArrayList();
    /** CSN of the held group-meld intention this server last nudged (see {@link #nudgeIfHolding}). */
    private long nudgedCsn;
    /** When the meld thread last found no work (0 while busy). */
    private long idleSince;

    MeldStage(final ServerContext ctx, final StageLinks links, final Checkpointer checkpointer,
              final IntentionAppender appender, final ReplyStage inlineReplies) {
        this.ctx = ctx;
        this.links = links;
        this.checkpointer = checkpointer;
        this.appender = appender;
        this.inlineReplies = inlineReplies;
        this.pipeline = ctx.state().current().pipeline();
    }

    /** The meld thread's loop (only when it has a thread of its own). */
    void run() {
        links.run("the meld pipeline", links.toMeld, links.meldIdler, links.readerIdler, m -> {
            idleSince = 0;
            handle(m);
        }, this::whenIdle);
    }

    /**
     * Idle meld thread: once the log has been quiet a while, nudges a held group-meld intention. Returns how long
     * the thread may park: until the nudge is due while one is, else the idler's safety bound.
     */
    private long whenIdle() {
        final long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
        }
        if (!pipeline.holding()) {
            return StageIdler.MAX_PARK_NANOS;
        }
        final long quiet = now - idleSince;
        if (quiet <= NUDGE_AFTER_NANOS) {
            return NUDGE_AFTER_NANOS - quiet + 1;
        }
        nudgeIfHolding();
        return StageIdler.MAX_PARK_NANOS;
    }

    /** Whether group meld holds an intention for its partner. */
    boolean holding() {
        return pipeline.holding();
    }

    void handle(final PipelineMessage message) {
        if (message instanceof IntentionMessage m) {
            meld(m);
        } else if (message instanceof Rejection r) {
            undecided.put(r.csn, r);
            pipeline.reject(r.csn, decisionListener);
            settle();
        } else if (message instanceof BlockEnd b) {
            publishLcs();
            ctx.processed(b.position);
        } else if (message instanceof CheckpointMarker c) {
            if (pipeline.holding() || pipeline.lcsCsn() != c.csn) {
                c.result.complete(false);
            } else {
                pipeline = checkpointer.checkpoint(c.position, c.resumePosition, c.fences).pipeline();
                c.result.complete(true);
            }
        } else {
            throw new IllegalStateException("unknown pipeline message " + message);
        }
    }

    private void meld(final IntentionMessage m) {
        // an intention that may not join the open reorder window closes it first: its decoder may be waiting for
        // the state after the window
        pipeline.closeWindowBefore(m.snapshotCsn, 0, decisionListener);
        settle();
        links.awaitDecoded(m, links.meldIdler);
        undecided.put(m.csn, m);
        if (m.intention != null) {
            m.restarts = m.intention.restarts();
        }
        if (m.malformed) {
            pipeline.reject(m.csn, decisionListener);
            settle();
            return;
        }
        final long visitedBefore = pipeline.finalNodesVisited();
        final long zoneBefore = pipeline.conflictZoneTotal();
        final long effectiveBefore = pipeline.effectiveConflictZoneTotal();
        final long meldsBefore = pipeline.finalMelds();
        if (links.toPremelds.length > 0) {
            awaitPremeld(m);
            pipeline.submitPremelded(m.intention, m.premelded, decisionListener);
        } else {
            pipeline.submit(m.intention, decisionListener);
        }
        m.finalMelds = pipeline.finalMelds() - meldsBefore;
        m.nodesVisited = pipeline.finalNodesVisited() - visitedBefore;
        m.conflictZone = pipeline.conflictZoneTotal() - zoneBefore;
        m.effectiveConflictZone = pipeline.effectiveConflictZoneTotal() - effectiveBefore;
        settle();
    }

    /** Waits for the premeld thread of the message's slot, which wakes this thread when done. */
    private void awaitPremeld(final IntentionMessage m) {
        while (!m.premeldDone) {
            if (ctx.stopped()) {
                throw new IllegalStateException("the premeld stage stopped");
            }
            links.meldIdler.idle();
        }
        links.meldIdler.reset();
    }

    /**
     * Group meld holds an odd intention until its even partner arrives (Hyder II §4). When the log goes quiet the
     * server that appended the held intention appends an empty one, which every replica rejects the same way and
     * which lets the held one be decided alone; its client is not kept waiting for unrelated traffic.
     */
    void nudgeIfHolding() {
        if (!pipeline.holding()) {
            return;
        }
        final long held = pipeline.lcsCsn() + 1;
        if (held == nudgedCsn || ctx.refencing() != null || !mayNudge(held, pipeline.heldThroughCsn())) {
            return;
        }
        nudgedCsn = held;
        final UnsafeBuffer nudge = new UnsafeBuffer(new byte[LogRecords.INTENTION_HEADER]);
        final long appendAs = ctx.incarnation();
        LogRecords.putIntentionHeader(nudge, ctx.serverId(), appendAs, 0);
        appender.append(nudge, LogRecords.INTENTION_HEADER).whenComplete((p, e) -> {
            if (e != null) {
                appender.onAppendFailure(appendAs, e);
            }
        });
    }

    /**
     * Whether this server nudges the held intentions {@code from..to} (a group-meld member, or a reorder window):
     * when it appended one of them, or one's server was fenced off (its clients ask this server for the outcome).
     */
    private boolean mayNudge(final long from, final long to) {
        for (long c = from; c <= to; c++) {
            final Decidable d = undecided.get(c);
            if (d != null && (ctx.isThisProcess(d.serverId, d.incarnation)
                || ctx.fences().newest(d.serverId, d.incarnation) > d.incarnation)) {
                return true;
            }
        }
        return false;
    }

    /** Makes the pipeline's LCS the snapshot new transactions begin on. */
    private void publishLcs() {
        long c = pipeline.lcsCsn();
        final long published = ctx.state().meldedCsn();
        if (c == published) {
            return;
        }
        long root = pipeline.stateRootAt(c);
        while (root == MeldPipeline.NO_STATE) {
            // inside a group meld the first member's state is not materialized: publish the one before
            root = pipeline.stateRootAt(--c);
        }
        if (c != published) {
            ctx.state().publish(root, c);
            // deserializer and premeld threads may wait for this state
            StageIdler.wakeAll(links.decodeIdlers);
            StageIdler.wakeAll(links.premeldIdlers);
        }
    }

    /** Pipeline callback: decisions are acted on once the submit that made them returns (see {@link #settle}). */
    private void onDecision(final long decided, final boolean committed) {
        decidedCsns.addLong(decided);
        // 1 = committed, otherwise minus the abort reason (read now: the pipeline knows it only during this call)
        decidedCommitted.addLong(committed ? 1 : -pipeline.lastAbortReason());
    }

    /**
     * Publishes the new LCS, then answers clients: a client told of its commit must see it in its next
     * transaction. Within a group meld the first member's state is not materialized until the second's decision,
     * so nothing is published or answered in between.
     */
    private void settle() {
        if (decidedCsns.isEmpty()) {
            return;
        }
        publishLcs();
        for (int i = 0; i < decidedCsns.size(); i++) {
            final long outcome = decidedCommitted.getLong(i);
            decide(decidedCsns.getLong(i), outcome == 1, (int) -Math.min(0, outcome));
        }
        decidedCsns.clear();
        decidedCommitted.clear();
    }

    /** Hands a decision to the reply thread; the LCS is already published. */
    private void decide(final long decided, final boolean committed, final int abortReason) {
        final Decidable d = undecided.remove(decided);
        if (d == null || d instanceof Rejection r && r.nudge()) {
            return;
        }
        d.committed = committed;
        d.abortReason = abortReason;
        if (d instanceof IntentionMessage m) {
            m.meldedNanos = System.nanoTime();
        }
        if (inlineReplies != null) {
            inlineReplies.reply(d);
            return;
        }
        while (!links.toReply.offer(d)) {
            if (ctx.closed()) {
                return;
            }
            links.meldIdler.idle();
        }
        links.meldIdler.reset();
        links.replyIdler.wake();
    }
}
