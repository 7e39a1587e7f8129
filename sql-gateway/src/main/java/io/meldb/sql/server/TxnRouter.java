package io.meldb.sql.server;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Chooses the txn-server for each transaction. Every server holds the whole database, so any of them can run any
 * transaction: read-only snapshots and update transactions are both spread round-robin; a server that is
 * unavailable or overloaded is skipped in favour of the next one.
 *
 * <p>Read-after-commit across servers: each server applies the log on its own, so right after a commit on one
 * server another may not have melded it yet. The router remembers the highest CSN any transaction through this
 * gateway committed at (or read), and {@link #begin} only hands out a transaction whose snapshot is at least that
 * recent, trying the other servers and then waiting briefly for a lagging one. So whatever a client of this
 * gateway saw committed, any later transaction of any client of this gateway sees too. (Clients of other gateways
 * get no such promise: they see the commit once their server has melded it.)
 */
public final class TxnRouter implements AutoCloseable {
    /** How long {@link #begin} waits for some server to catch up before it gives up. */
    static final long CATCH_UP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final List<TxnService> services;
    private final AtomicInteger next = new AtomicInteger();
    /** The newest CSN a transaction through this router committed at or read. */
    private final AtomicLong seenCsn = new AtomicLong();
    /** How long a commit whose answer was lost waits for the cluster to decide it (see {@link ResolvingSession}). */
    private volatile long outcomeWaitNanos = TimeUnit.SECONDS.toNanos(15);
    private final AtomicLong outcomesResolved = new AtomicLong();
    private final AtomicLong outcomesUnknown = new AtomicLong();

    public TxnRouter(final List<TxnService> services) {
        if (services.isEmpty()) {
            throw new IllegalArgumentException("no txn-servers");
        }
        this.services = List.copyOf(services);
    }

    public List<TxnService> services() {
        return services;
    }

    /**
     * Begins a transaction on the next server that accepts it and has melded every commit this router has seen.
     *
     * @throws TxnException {@link TxnError#TIMEOUT} when no server catches up within 10 s; the errors of
     *                      {@link TxnService#begin} otherwise
     */
    public TxnSession begin(final IsolationLevel isolation, final boolean readOnly) {
        return begin(isolation, readOnly, 0);
    }

    /** {@link #begin(IsolationLevel, boolean)} of a transaction that has restarted {@code restarts} times already. */
    public TxnSession begin(final IsolationLevel isolation, final boolean readOnly, final int restarts) {
        final long required = seenCsn.get();
        final long deadline = System.nanoTime() + CATCH_UP_TIMEOUT_NANOS;
        long pauseNanos = 50_000;
        while (true) {
            final int start = Math.floorMod(next.getAndIncrement(), services.size());
            TxnException last = null;
            boolean behind = false;
            for (int i = 0; i < services.size(); i++) {
                final TxnService service = services.get((start + i) % services.size());
                final TxnSession session;
                try {
                    session = service.begin(isolation, readOnly, restarts);
                } catch (TxnException e) {
                    if (e.error() != TxnError.UNAVAILABLE && e.error() != TxnError.OVERLOADED
                            && e.error() != TxnError.SESSION_LOST) {
                        throw e;
                    }
                    last = e;
                    continue;
                }
                if (session.snapshotCsn() >= required) {
                    observed(session.snapshotCsn());
                    return readOnly ? session : new ResolvingSession(session, service, this);
                }
                session.close(); // that server has not melded everything this gateway has seen yet
                behind = true;
            }
            if (!behind) {
                throw last;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TxnException(TxnError.TIMEOUT, "no txn-server has caught up with CSN " + required
                        + " within " + TimeUnit.NANOSECONDS.toSeconds(CATCH_UP_TIMEOUT_NANOS) + " s"
                        + (last == null ? "" : "; " + last.getMessage()));
            }
            LockSupport.parkNanos(pauseNanos);
            pauseNanos = Math.min(pauseNanos * 2, 5_000_000);
        }
    }

    /**
     * Whether {@link #begin} would answer now without waiting: every server admits a transaction at once and has
     * melded everything this router has seen (so no pass of the loop above can end in a pause).
     */
    public boolean beginsWithoutWaiting() {
        final long required = seenCsn.get();
        for (TxnService s : services) {
            if (!s.beginsWithoutWaiting(required)) {
                return false;
            }
        }
        return true;
    }

    /** A transaction through this router committed at, or read, {@code csn}: later transactions must see it. */
    public void observed(final long csn) {
        seenCsn.accumulateAndGet(csn, Math::max);
    }

    /** How long a commit whose answer was lost waits for some txn-server to decide it before it answers 40003. */
    public TxnRouter outcomeWait(final java.time.Duration wait) {
        this.outcomeWaitNanos = wait.toNanos();
        return this;
    }

    long outcomeWaitNanos() {
        return outcomeWaitNanos;
    }

    /** A commit whose answer was lost was decided by the cluster ({@code true}) or stayed unknown. */
    void resolved(final boolean decided) {
        (decided ? outcomesResolved : outcomesUnknown).incrementAndGet();
    }

    /** Commits whose answer was lost and which the cluster then decided. */
    public long outcomesResolved() {
        return outcomesResolved.get();
    }

    /** Commits whose answer was lost and which no server could decide in time (answered 40003). */
    public long outcomesUnknown() {
        return outcomesUnknown.get();
    }

    /** The newest CSN this router has seen committed or read. */
    public long seenCsn() {
        return seenCsn.get();
    }

    @Override
    public void close() {
        for (TxnService s : services) {
            s.close();
        }
    }
}
