package io.meldb.sql.server;

import java.sql.Statement;

/** Tests' way to cancel a statement from another thread while it runs. */
public final class Cancelling {
    private Cancelling() {
    }

    /**
     * Starts a thread that cancels {@code statement} after {@code millis}; join it after the statement failed. A
     * cancel that cannot be sent is ignored: the test's assertion on the statement fails instead.
     */
    public static Thread after(final Statement statement, final long millis) {
        final Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(millis);
                statement.cancel();
            } catch (Exception ignored) {
                // the statement's assertion fails instead
            }
        }, "test-canceller");
        canceller.start();
        return canceller;
    }
}
