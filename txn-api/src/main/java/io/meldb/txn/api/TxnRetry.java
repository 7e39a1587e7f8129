package io.meldb.txn.api;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Runs a transaction again when meld aborts it as the loser of a conflict (Hyder §3.3: optimistic concurrency
 * control, so a conflict is settled after the fact and the caller re-executes; PostgreSQL's SQLSTATE 40001). Only
 * {@link TxnError#CONFLICT} is retried: that transaction certainly wrote nothing, so running it again is safe.
 * Every other error, {@link TxnError#OUTCOME_UNKNOWN} and {@link TxnError#TIMEOUT} above all (the commit may have
 * happened), goes to the caller unchanged.
 *
 * <p>The work must be a function of what it reads in its session, since it may run several times. Between attempts
 * the calling thread waits a random time under a doubling bound (1 ms, 2 ms, ... up to 100 ms), so that two
 * transactions that conflicted do not meet again in lockstep.
 */
public final class TxnRetry {
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private TxnRetry() {
    }

    /**
     * Begins a read-write transaction, applies {@code work} to it and commits, up to {@code maxAttempts} times while
     * meld aborts it with {@link TxnError#CONFLICT}.
     *
     * @return what {@code work} returned in the attempt that committed
     * @throws TxnException the last CONFLICT once {@code maxAttempts} have failed (its message says how many), or any
     *                      other error at once
     */
    public static <T> T inTransaction(final TxnService service, final IsolationLevel isolation, final int maxAttempts,
                                      final Function<TxnSession, T> work) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
        }
        long backoffBound = FIRST_BACKOFF_NANOS;
        for (int attempt = 1; ; attempt++) {
            try (TxnSession session = service.begin(isolation, false)) {
                final T result = work.apply(session);
                session.commit();
                return result;
            } catch (TxnException e) {
                if (e.error() != TxnError.CONFLICT) {
                    throw e;
                }
                if (attempt >= maxAttempts) {
                    throw new TxnException(TxnError.CONFLICT, "gave up after " + attempt + " attempts, each aborted by a "
                            + "conflict; the last: " + e.getMessage(), e);
                }
            }
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(backoffBound) + 1);
            backoffBound = Math.min(backoffBound * 2, MAX_BACKOFF_NANOS);
        }
    }
}
