package io.meldb.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting in tests for a condition instead of sleeping: polls until the condition holds and fails with what was
 * awaited when it does not hold in time, so a test never asserts after a guessed pause.
 */
public final class Await {
    private static final long POLL_MILLIS = 20;

    private Await() {
    }

    /** Polls {@code condition} until it holds; an {@link AssertionError} naming {@code what} after {@code timeout}. */
    public static void until(final Duration timeout, final String what, final BooleanSupplier condition) {
        value(timeout, what, () -> condition.getAsBoolean() ? Boolean.TRUE : null);
    }

    /** Polls {@code probe} until it answers non-null, and returns that answer. */
    public static <T> T value(final Duration timeout, final String what, final Supplier<T> probe) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            final T v = probe.get();
            if (v != null) {
                return v;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
    }
}
