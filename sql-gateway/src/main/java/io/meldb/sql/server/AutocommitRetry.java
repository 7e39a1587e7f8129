package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The gateway's invisible retry of an autocommit statement whose commit meld refused (40001) before anything of it
 * reached the client, as CockroachDB does for implicit transactions: the statement runs again, whole, on a new
 * snapshot, after a short randomized backoff ("full jitter": a random pause below {@code backoff * 2^retry}, capped
 * at {@code maxBackoff}), at most {@link #retries()} times; the client sees 40001 only once they are exhausted. An
 * autocommit statement has sent no row when its commit is decided, so nothing the client saw can change; the
 * front ends decide what counts as sent ({@link GatewayConnection#runStatement} for JDBC, the PostgreSQL front
 * end's {@code PgAutocommitRetry}). Explicit transactions are never retried: their earlier statements' answers
 * are the client's.
 *
 * <p>Backoff alone does not stop a statement from losing every race on a hot row while new statements keep winning
 * (on a loaded machine one of 8 clients ran out of 30 retries). So a statement that has conflicted
 * {@link #TURN_AFTER} times runs its further attempts in the gateway's <em>retry turn</em>, a fair lock: repeat
 * losers go one at a time, in arrival order, and each competes only with statements on their first attempts. The
 * turn is held from the attempt's start to its commit's outcome, on the thread that runs it.
 *
 * <p>Configured with {@code -Dmeldb.sql.autocommit_retries=N} (0 turns it off) and
 * {@code -Dmeldb.sql.autocommit_backoff_micros=N} (the first pause's bound; the cap is 64 times that). Counted in
 * {@link SqlMetrics}: {@code meldb.sql.autocommit.retries} and {@code meldb.sql.autocommit.retries.exhausted}.
 */
public final class AutocommitRetry {
    /** Retries after the first attempt, by default. */
    public static final int DEFAULT_RETRIES = 30;
    /** The bound of the first pause, by default. */
    public static final long DEFAULT_BACKOFF_MICROS = 100;
    private static final int MAX_DOUBLINGS = 6;
    /** Conflicts after which a statement's attempts take the retry turn. */
    public static final int TURN_AFTER = 2;

    private final int retries;
    private final long backoffNanos;
    private final SqlMetrics metrics;
    private final java.util.concurrent.locks.ReentrantLock turn = new java.util.concurrent.locks.ReentrantLock(true);

    public AutocommitRetry(final int retries, final long backoffMicros, final SqlMetrics metrics) {
        if (retries < 0 || backoffMicros < 0) {
            throw new IllegalArgumentException("autocommit retries and backoff must not be negative");
        }
        this.retries = retries;
        this.backoffNanos = backoffMicros * 1000;
        this.metrics = metrics;
    }

    /** The limits given as system properties, or the defaults. */
    public static AutocommitRetry fromSystemProperties(final SqlMetrics metrics) {
        return new AutocommitRetry(Integer.getInteger("meldb.sql.autocommit_retries", DEFAULT_RETRIES),
                Long.getLong("meldb.sql.autocommit_backoff_micros", DEFAULT_BACKOFF_MICROS), metrics);
    }

    public int retries() {
        return retries;
    }

    /** Whether {@code error} is a meld conflict (40001), which a new attempt on a new snapshot may not meet. */
    public static boolean isConflict(final Throwable error) {
        return SqlErrors.SERIALIZATION_FAILURE.equals(SqlErrors.describe(error).sqlState());
    }

    /**
     * Whether the statement whose commit failed with {@code error}, after {@code retriesDone} retries, runs again;
     * counts the retry, or the exhaustion when the failure is a conflict but the bound is reached.
     */
    public boolean retry(final Throwable error, final int retriesDone) {
        if (!isConflict(error)) {
            return false;
        }
        if (retriesDone >= retries) {
            if (retries > 0) {
                metrics.exhaustedAutocommitRetries();
            }
            return false;
        }
        metrics.retriedAutocommit();
        return true;
    }

    /**
     * Pauses before retry number {@code retriesDone + 1}, a random time below its bound; answers early, with 57014,
     * once {@code cancelled} holds (a CancelRequest, statement_timeout, the client gone).
     */
    public void backoff(final int retriesDone, final BooleanSupplier cancelled) {
        checkCancelled(cancelled);
        final long bound = backoffNanos << Math.min(retriesDone, MAX_DOUBLINGS);
        if (bound <= 0) {
            return;
        }
        final long deadline = System.nanoTime() + ThreadLocalRandom.current().nextLong(bound);
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(Math.min(left, 1_000_000));
            checkCancelled(cancelled);
        }
    }

    private static void checkCancelled(final BooleanSupplier cancelled) {
        if (cancelled.getAsBoolean()) {
            throw new SqlStateException("57014", "canceling statement due to user request");
        }
    }

    /**
     * Takes the retry turn for attempt number {@code retriesDone + 1} when the statement has conflicted
     * {@link #TURN_AFTER} times; answers whether it did (then {@link #leaveTurn} once the attempt's commit is
     * decided). Waits in arrival order; answers with 57014 once {@code cancelled} holds.
     */
    public boolean enterTurn(final int retriesDone, final BooleanSupplier cancelled) {
        if (retriesDone < TURN_AFTER) {
            return false;
        }
        try {
            while (!turn.tryLock(1, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                checkCancelled(cancelled);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SqlStateException("57014", "canceling statement due to user request");
        }
        return true;
    }

    /** Gives up the retry turn taken by {@link #enterTurn}. */
    public void leaveTurn() {
        turn.unlock();
    }
}
