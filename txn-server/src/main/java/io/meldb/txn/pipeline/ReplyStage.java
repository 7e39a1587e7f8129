package io.meldb.txn.pipeline;

import io.meldb.core.AbortReason;
import io.meldb.txn.CommitPathProfile;
import io.meldb.txn.PendingCommits;
import io.meldb.txn.ServerContext;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;

import java.util.concurrent.CompletableFuture;

/**
 * The reply stage (Hyder II §5.3: the meld thread does no bookkeeping of its own). Thread: "meldb-reply-N", or in
 * threading mode CHAINED the meld stage's own, called in line after each decision (one wake-up less per commit).
 * Receives decided intentions from the meld thread, in log order, after the new LCS is published. Records each
 * outcome, per-meld metrics and abort reasons, forgets the intention as merely seen, and answers this process's
 * waiting commit, so a client told of its commit sees it in its next transaction.
 */
final class ReplyStage {
    private final ServerContext ctx;
    private final StageLinks links;

    ReplyStage(final ServerContext ctx, final StageLinks links) {
        this.ctx = ctx;
        this.links = links;
    }

    void run() {
        links.run("the reply thread", links.toReply, links.replyIdler, links.meldIdler, this::reply, null);
    }

    /** One decision, in log order: on the reply thread, or in line on the meld thread (threading mode CHAINED). */
    void reply(final Decidable d) {
        final long replyNanos = System.nanoTime();
        if (d.finalMelds > 0) {
            ctx.metrics().finalMelds(d.finalMelds, d.nodesVisited, d.conflictZone, d.effectiveConflictZone);
        }
        final boolean committed = d.committed;
        final long decided = d.csn;
        final String rejected = d.rejectReason();
        final boolean outOfRange = rejected == null && d.abortReason == AbortReason.INCREMENT_OUT_OF_RANGE;
        final String reason = committed ? null : rejected != null ? rejected
            : d.abortReason > AbortReason.CONFLICT ? AbortReason.describe(d.abortReason) : "conflict";
        if (committed) {
            ctx.metrics().committed(d.restarts);
        } else {
            ctx.metrics().aborted(reason);
        }
        final TxnId id = new TxnId(d.incarnation, d.sequence);
        ctx.outcomes().put(new TxnOutcome(id, committed ? TxnOutcome.State.COMMITTED : TxnOutcome.State.ABORTED,
            decided, reason));
        ctx.seen().remove(id);
        if (ctx.isThisProcess(d.serverId, d.incarnation)) {
            final CompletableFuture<Long> f = ctx.pending().take(d.incarnation, d.sequence);
            if (f != null) {
                answer(f, committed, decided, outOfRange, id, reason);
                if (f instanceof PendingCommits.Decision decision && d instanceof IntentionMessage m) {
                    profile(decision.registeredNanos(), m, replyNanos);
                }
            }
        }
    }

    /** Answers this process's waiting commit. */
    private static void answer(final CompletableFuture<Long> f, final boolean committed, final long decided,
                               final boolean outOfRange, final TxnId id, final String reason) {
        if (committed) {
            f.complete(decided);
        } else {
            f.completeExceptionally(outOfRange
                ? new TxnException(TxnError.OUT_OF_RANGE, "transaction " + id + " aborted by meld at csn "
                    + decided + " (" + reason + ")")
                : new TxnException(TxnError.CONFLICT, "transaction " + id
                    + " aborted by meld at csn " + decided + " (" + reason + "); retry it"));
        }
    }

    /** Records the hand-offs of one of this process's commits, from the stamps its stages left. */
    private void profile(final long registeredNanos, final IntentionMessage m, final long replyNanos) {
        final CommitPathProfile p = ctx.commitPath();
        p.recordBetween(CommitPathProfile.Phase.DELIVERED, registeredNanos, m.deliveredNanos);
        p.recordBetween(CommitPathProfile.Phase.INTAKE_TO_READER, m.deliveredNanos, m.readNanos);
        p.recordBetween(CommitPathProfile.Phase.READER_TO_DECODED, m.readNanos, m.decodedNanos);
        p.recordBetween(CommitPathProfile.Phase.DECODED_TO_MELDED, m.decodedNanos, m.meldedNanos);
        p.recordBetween(CommitPathProfile.Phase.MELDED_TO_REPLY, m.meldedNanos, replyNanos);
        p.record(CommitPathProfile.Phase.REPLY_TO_ANSWERED, System.nanoTime() - replyNanos);
        p.record(CommitPathProfile.Phase.TOTAL, replyNanos - registeredNanos);
    }
}
