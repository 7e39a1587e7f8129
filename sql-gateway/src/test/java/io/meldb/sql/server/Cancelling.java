package io.meldb.sql.server;

import java.sql.Statement;

/** Tests' way to cancel a statement from another thread while it runs. */
public final class Cancelling {
    private Cancelling() {
    }

    /**
     * Starts a thread that cancels {@code statement} after {@code millis}, and again every {@code millis} until
     * {@link #stop} is called: a cancel request applies only to the statement running when it arrives (PostgreSQL's
     * rule), so on a loaded machine one that overtakes the statement's Execute would be lost and the test would wait
     * for minutes. Call {@link #stop} once the statement failed. A cancel that cannot be sent is ignored: the
     * test's assertion on the statement fails instead.
     */
    public static Thread after(final Statement statement, final long millis) {
        final Thread canceller = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(millis);
                    statement.cancel();
                }
            } catch (InterruptedException stopped) {
                // stop() was called: the statement ended
            } catch (Exception ignored) {
                // the statement's assertion fails instead
            }
        }, "test-canceller");
        canceller.start();
        return canceller;
    }

    /**
     * Stops the canceller and waits for it. pgjdbc's cancel waits until the server has taken the request, so no
     * request of this canceller reaches the next statement.
     */
    public static void stop(final Thread canceller) throws InterruptedException {
        canceller.interrupt();
        canceller.join();
    }
}
