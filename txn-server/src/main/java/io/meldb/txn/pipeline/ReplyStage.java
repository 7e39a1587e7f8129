package io.meldb.txn.pipeline;

import io.meldb.core.AbortReason;
import io.meldb.txn.ServerContext;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;

import java.util.concurrent.CompletableFuture;

/**
 * The reply stage (Hyder II §5.3: the meld thread does no bookkeeping of its own). Thread: "meldb-reply-N".
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

    private void reply(final Decidable d) {
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
        }
    }
}
