package io.meldb.txn.session;

import io.meldb.txn.FenceBook;
import io.meldb.txn.ServerContext;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Answers what became of a transaction, from this server's reading of the log (docs/architecture.md "Failure and recovery"):
 * outcomes the reply stage recorded, intentions the reader has seen, and fences. To make a pending answer
 * definite it fences off the transaction's server incarnation, after which meld decides everything of it on every
 * replica alike. Runs on client (or RPC worker) threads.
 */
public final class OutcomeService {
    private static final Logger LOG = LoggerFactory.getLogger(OutcomeService.class);

    private final ServerContext ctx;
    private final IntentionAppender appender;
    /** Fences this server is appending for other servers' incarnations, by incarnation. */
    private final ConcurrentHashMap<Long, CompletableFuture<Long>> fencing = new ConcurrentHashMap<>();

    public OutcomeService(final ServerContext ctx, final IntentionAppender appender) {
        this.ctx = ctx;
        this.appender = appender;
    }

    public TxnOutcome outcome(final TxnId id) {
        // the fence first: once the reader has read a newer fence, every earlier intention of that incarnation is
        // in seen or in outcomes (reply records an outcome before it forgets the id), so checking them after it
        // cannot miss one that is in the log
        final FenceBook fences = ctx.fences();
        final Integer server = fences.serverOf(id.incarnation());
        final long newest = server == null ? 0 : fences.newest(server, id.incarnation());
        if (ctx.seen().containsKey(id)) {
            final TxnOutcome known = ctx.outcomes().get(id);
            return known != null ? known : new TxnOutcome(id, TxnOutcome.State.PENDING, 0, "in the log, not decided yet");
        }
        final TxnOutcome known = ctx.outcomes().get(id);
        if (known != null) {
            return known;
        }
        if (server == null) {
            final String why = id.incarnation() < ctx.knowledgeStart()
                ? "older than this server's recovery point " + ctx.knowledgeStart()
                : "no server incarnation " + id.incarnation() + " is known here";
            return new TxnOutcome(id, TxnOutcome.State.UNKNOWN, 0, why);
        }
        if (newest > id.incarnation()) {
            return new TxnOutcome(id, TxnOutcome.State.NOT_COMMITTED, 0, "its server (" + server
                + ") was fenced off as of log position " + newest + " before the transaction reached the log");
        }
        return new TxnOutcome(id, TxnOutcome.State.PENDING, 0, "not in the log yet");
    }

    /**
     * The definite outcome of {@code id}, waiting up to {@code waitMillis} for it. A transaction not in the log
     * yet is given a short while to arrive; then, unless its server has restarted since, this server appends a
     * fence for that server's incarnation: everything of it before the fence is melded and decided as usual, and
     * meld rejects anything of it after, on every replica alike, so once this server has melded up to the fence
     * the outcome is COMMITTED, ABORTED or NOT_COMMITTED. PENDING only when the log did not take the fence, or
     * meld did not get there, in time; UNKNOWN when the transaction is older than what this server remembers.
     * A server fenced off this way re-fences itself and goes on (see {@link io.meldb.txn.StreamHealer}).
     */
    public TxnOutcome awaitOutcome(final TxnId id, final long waitMillis) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
        final long fenceAfter = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(300, waitMillis / 4));
        TxnOutcome o = outcome(id);
        CompletableFuture<Long> fence = null;
        while (o.state() == TxnOutcome.State.PENDING && !ctx.stopped()) {
            final long now = System.nanoTime();
            if (now - deadline > 0) {
                break;
            }
            final Integer server = ctx.fences().serverOf(id.incarnation());
            final boolean own = server != null && ctx.isThisProcess(server, id.incarnation());
            if (fence == null && server != null && !own && now - fenceAfter > 0 && !ctx.seen().containsKey(id)
                    && ctx.fences().newest(server, id.incarnation()) <= id.incarnation()) {
                fence = fencing.computeIfAbsent(id.incarnation(), inc -> {
                    LOG.info("server {}: fencing off incarnation {} of server {} to decide transaction {}",
                        ctx.serverId(), inc, server, id);
                    return appender.appendFence(server, ctx.incarnation());
                });
            }
            if (fence != null && fence.isCompletedExceptionally()) {
                fencing.remove(id.incarnation(), fence);
                fence = null;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            o = outcome(id);
        }
        if (fence != null && fence.isDone()) {
            fencing.remove(id.incarnation(), fence);
        }
        return o;
    }
}
