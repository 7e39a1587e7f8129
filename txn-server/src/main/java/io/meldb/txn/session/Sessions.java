package io.meldb.txn.session;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.ServerContext;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.checkpoint.CommittedState;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side of a txn-server (Hyder II §5.2, "executing transactions"): admission control, transaction ids,
 * the pool of session workspaces, and new {@link LocalSession}s on a pinned snapshot of the last committed state.
 * Runs on client threads.
 */
public final class Sessions {
    private final ServerContext ctx;
    private final IntentionAppender appender;
    private final Semaphore admission;
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentLinkedQueue<Workspace> workspaces = new ConcurrentLinkedQueue<>();
    private final MemoryGuard memory;

    public Sessions(final ServerContext ctx, final IntentionAppender appender) {
        this.ctx = ctx;
        this.appender = appender;
        this.admission = new Semaphore(ctx.config().maxInFlight());
        this.memory = new MemoryGuard(ctx.config().maxNodeMemory());
    }

    /** Begins a transaction that has already restarted {@code restarts} times (carried in its intention). */
    public TxnSession begin(final IsolationLevel isolation, final boolean readOnly, final int restarts) {
        if (isolation == null) {
            throw new TxnException(TxnError.BAD_REQUEST, "isolation level is required");
        }
        checkAvailable();
        if (restarts < 0) {
            throw new TxnException(TxnError.BAD_REQUEST, "restart count " + restarts + " must not be negative");
        }
        if (!readOnly) {
            try {
                memory.admit(ctx.serverId());
            } catch (TxnException e) {
                ctx.metrics().refusedMemory();
                throw e;
            }
        }
        try {
            if (!admission.tryAcquire(ctx.config().admissionWait().toNanos(), TimeUnit.NANOSECONDS)) {
                ctx.metrics().refused();
                throw new TxnException(TxnError.OVERLOADED, "server " + ctx.serverId() + " has "
                    + ctx.config().maxInFlight() + " transactions in flight; try again later");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TxnException(TxnError.UNAVAILABLE, "interrupted while waiting for admission");
        }
        Workspace w = workspaces.poll();
        if (w == null) {
            w = new Workspace(this);
        }
        final CommittedState.Pinned pinned = ctx.state().pin();
        final TxnId id = new TxnId(ctx.incarnation(), sequence.incrementAndGet());
        return new LocalSession(this, id, isolation, readOnly, restarts, pinned, w);
    }

    /** Whether a begin now would neither wait nor fail, on a state at least {@code requiredCsn}. */
    public boolean beginsWithoutWaiting(final long requiredCsn) {
        return ctx.ready() && !ctx.stopped() && ctx.state().meldedCsn() >= requiredCsn
            && admission.availablePermits() > 0;
    }

    /** Transactions open on this server now. */
    public int inFlight() {
        return ctx.config().maxInFlight() - admission.availablePermits();
    }

    void checkAvailable() {
        if (ctx.closed()) {
            throw new TxnException(TxnError.UNAVAILABLE, "server " + ctx.serverId() + " is stopped");
        }
        if (ctx.failure() != null) {
            throw new TxnException(TxnError.UNAVAILABLE, "server " + ctx.serverId() + " has failed: "
                + ctx.failure());
        }
        if (!ctx.ready()) {
            throw new TxnException(TxnError.UNAVAILABLE, "server " + ctx.serverId() + " is starting");
        }
        final String broken = ctx.refencing();
        if (broken != null) {
            throw new TxnException(TxnError.UNAVAILABLE, "server " + ctx.serverId()
                + " is re-fencing its log stream (" + broken + ")");
        }
    }

    ServerContext ctx() {
        return ctx;
    }

    IntentionAppender appender() {
        return appender;
    }

    /** A session ended: its workspace goes back to the pool, its snapshot's generation and admission are released. */
    void ended(final Workspace w, final CommittedState.Pinned pinned) {
        recycle(w);
        endedHolding(pinned);
    }

    /**
     * A session ended whose workspace stays with its intention until the log reader is done with it
     * ({@link io.meldb.txn.OwnIntentions}): its snapshot's generation and admission are released now.
     */
    void endedHolding(final CommittedState.Pinned pinned) {
        ctx.state().unpin(pinned.generation());
        admission.release();
    }

    /** A workspace nothing points into any more goes back to the pool (any thread). */
    void recycle(final Workspace w) {
        w.arena.reset();
        w.trim();
        workspaces.add(w);
    }
}
