package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link AutocommitRetry}'s bound, what it retries, its meters, a cancel that ends its backoff, and the retry turn that
 * repeat losers take one at a time.
 */
class AutocommitRetryPolicyTest {
    private static final SqlStateException CONFLICT = new SqlStateException("40001", "aborted by meld");

    @Test
    void shouldRetryOnlyMeldConflictsUpToItsBoundAndCountBoth() {
        final SqlMetrics metrics = SqlMetrics.unexported();
        final AutocommitRetry retry = new AutocommitRetry(2, 0, metrics);
        assertTrue(retry.retry(CONFLICT, 0));
        assertTrue(retry.retry(CONFLICT, 1));
        assertFalse(retry.retry(CONFLICT, 2), "the bound is reached");
        assertFalse(retry.retry(new SqlStateException("23505", "duplicate key"), 0), "not a conflict");
        assertEquals(2, metrics.autocommitRetries());
        assertEquals(1, metrics.autocommitRetriesExhausted());
    }

    @Test
    void shouldNeverRetryWhenTurnedOff() {
        final SqlMetrics metrics = SqlMetrics.unexported();
        assertFalse(new AutocommitRetry(0, 100, metrics).retry(CONFLICT, 0));
        assertEquals(0, metrics.autocommitRetriesExhausted(), "nothing was retried, so nothing ran out");
    }

    @Test
    void shouldEndTheBackoffWith57014OnceCancelled() {
        // a bound of 1000 s: only the cancel ends the pause
        final AutocommitRetry retry = new AutocommitRetry(5, 1_000_000_000L, SqlMetrics.unexported());
        final AtomicBoolean cancelled = new AtomicBoolean();
        final Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            cancelled.set(true);
        });
        canceller.start();
        final long start = System.nanoTime();
        final SqlStateException e = assertThrows(SqlStateException.class, () -> retry.backoff(3, cancelled::get));
        assertEquals("57014", e.sqlState());
        assertTrue(System.nanoTime() - start < 10_000_000_000L);
    }

    @Test
    void shouldLetOnlyRepeatLosersTakeTheTurnAndThemOneAtATime() throws Exception {
        final AutocommitRetry retry = new AutocommitRetry(30, 0, SqlMetrics.unexported());
        assertFalse(retry.enterTurn(AutocommitRetry.TURN_AFTER - 1, () -> false), "an early retry races freely");
        assertTrue(retry.enterTurn(AutocommitRetry.TURN_AFTER, () -> false));
        final AtomicBoolean second = new AtomicBoolean();
        final Thread other = new Thread(() -> {
            if (retry.enterTurn(AutocommitRetry.TURN_AFTER, () -> false)) {
                second.set(true);
                retry.leaveTurn();
            }
        });
        other.start();
        other.join(200);
        assertFalse(second.get(), "the second repeat loser waits while the first holds the turn");
        retry.leaveTurn();
        other.join(10_000);
        assertTrue(second.get(), "it ran once the first left the turn");
    }

    @Test
    void shouldAnswer57014WhenCancelledWhileWaitingForTheTurn() throws Exception {
        final AutocommitRetry retry = new AutocommitRetry(30, 0, SqlMetrics.unexported());
        assertTrue(retry.enterTurn(AutocommitRetry.TURN_AFTER, () -> false));
        try {
            final AtomicBoolean cancelled = new AtomicBoolean();
            final java.util.concurrent.atomic.AtomicReference<Throwable> seen =
                    new java.util.concurrent.atomic.AtomicReference<>();
            final Thread waiter = new Thread(() -> {
                try {
                    retry.enterTurn(AutocommitRetry.TURN_AFTER, cancelled::get);
                } catch (RuntimeException e) {
                    seen.set(e);
                }
            });
            waiter.start();
            Thread.sleep(20);
            cancelled.set(true);
            waiter.join(10_000);
            assertTrue(seen.get() instanceof SqlStateException);
            assertEquals("57014", ((SqlStateException) seen.get()).sqlState());
        } finally {
            retry.leaveTurn();
        }
    }
}
