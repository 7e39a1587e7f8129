package io.meldb.sql.server;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A transaction handed out by {@link TxnRouter} whose COMMIT never leaves its client in doubt when it can be
 * helped (issue 18): when the answer to a commit is lost (the connection to the txn-server broke, the server lost
 * the log, no answer in time), it asks the live txn-servers, the others first, for the transaction's outcome.
 * Each such server waits until the log decides it, fencing off the transaction's server if need be (the fence
 * record makes "not in the log" definite on every replica: docs/architecture.md "Failure and recovery"). The client then
 * gets the commit or a 40001 as if nothing had happened, and {@link TxnError#OUTCOME_UNKNOWN} (SQLSTATE 40003)
 * only when no server could decide within the gateway's outcome wait. Everything else passes straight through.
 */
final class ResolvingSession extends ForwardingSession {
    private static final Logger LOG = LoggerFactory.getLogger(ResolvingSession.class);

    private final TxnService origin;
    private final TxnRouter router;

    ResolvingSession(final TxnSession session, final TxnService origin, final TxnRouter router) {
        super(session);
        this.origin = origin;
        this.router = router;
    }

    @Override
    public long commit() {
        try {
            return session.commit();
        } catch (TxnException e) {
            if (!inDoubt(e)) {
                throw e;
            }
            return resolve(e);
        }
    }

    @Override
    public CompletableFuture<Long> commitAsync() {
        final CompletableFuture<Long> out = new CompletableFuture<>();
        session.commitAsync().whenComplete((csn, error) -> {
            if (error == null) {
                out.complete(csn);
                return;
            }
            final Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            if (cause instanceof TxnException e && inDoubt(e)) {
                // asking other servers blocks: not on the thread that completed the commit
                CompletableFuture.runAsync(() -> {
                    try {
                        out.complete(resolve(e));
                    } catch (RuntimeException r) {
                        out.completeExceptionally(r);
                    }
                });
            } else {
                out.completeExceptionally(cause);
            }
        });
        return out;
    }

    /** A commit whose answer was lost: it may have committed (a commit refused before it was sent may not). */
    static boolean inDoubt(final TxnException e) {
        return e.error() == TxnError.OUTCOME_UNKNOWN || e.error() == TxnError.TIMEOUT;
    }

    private long resolve(final TxnException lost) {
        final TxnId id = session.id();
        final long deadline = System.nanoTime() + router.outcomeWaitNanos();
        final List<TxnService> order = new ArrayList<>();
        for (TxnService s : router.services()) {
            if (s != origin) {
                order.add(s);
            }
        }
        order.add(origin); // it may be back (or, in a single-server database, the only one there is)
        TxnOutcome last = null;
        String why = lost.getMessage();
        while (System.nanoTime() - deadline < 0) {
            for (TxnService s : order) {
                final long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    break;
                }
                final TxnOutcome o;
                try {
                    o = s.awaitOutcome(id, Math.min(left, 5000));
                } catch (TxnException e) {
                    why = e.getMessage(); // that server is away too: another may know
                    continue;
                }
                // outside the try above: a decided outcome answers at once, never swallowed as "server away"
                last = o;
                switch (o.state()) {
                    case COMMITTED -> {
                        router.resolved(true);
                        router.observed(o.csn());
                        LOG.info("commit of {} lost its answer ({}); the log says it committed at csn {}", id,
                                lost.getMessage(), o.csn());
                        return o.csn();
                    }
                    case ABORTED, NOT_COMMITTED -> {
                        router.resolved(true);
                        LOG.info("commit of {} lost its answer ({}); the log says it did not commit ({})", id,
                                lost.getMessage(), o.reason() == null ? o.state() : o.reason());
                        throw new TxnException(TxnError.CONFLICT, "transaction " + id + " was not committed ("
                                + (o.reason() == null ? o.state() : o.reason()) + "); retry it", lost);
                    }
                    default -> {
                        // PENDING or UNKNOWN here: another server may know
                    }
                }
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        router.resolved(false);
        throw new TxnException(TxnError.OUTCOME_UNKNOWN, "no txn-server could tell within "
                + TimeUnit.NANOSECONDS.toMillis(router.outcomeWaitNanos()) + " ms whether transaction " + id
                + " committed (" + (last != null ? last.state() + ": " + last.reason() : why) + ")", lost);
    }
}
