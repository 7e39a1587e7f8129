package io.meldb.sql.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The JDBC port's idle-in-transaction timeout (PostgreSQL's idle_in_transaction_session_timeout): a thread that
 * looks at the open connections a few times per timeout and rolls back every transaction that has gone that long
 * without a statement ({@link GatewayConnection#expireIfIdleInTransaction}), so that clients holding transactions
 * open do not keep the txn-servers' admission slots forever.
 */
final class IdleTransactionSweeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IdleTransactionSweeper.class);

    private final ScheduledExecutorService thread;
    private final Collection<GatewayConnection> connections;
    private final Duration timeout;

    /** Starts sweeping {@code connections} (a live view) for transactions idle longer than {@code timeout}. */
    IdleTransactionSweeper(final Collection<GatewayConnection> connections, final Duration timeout) {
        this.connections = connections;
        this.timeout = timeout;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "jdbc-idle-in-transaction");
            t.setDaemon(true);
            return t;
        });
        final long period = Math.max(10, Math.min(1000, timeout.toMillis() / 4));
        thread.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    private void sweep() {
        final long now = System.nanoTime();
        final long timeoutNanos = timeout.toNanos();
        for (GatewayConnection c : connections) {
            try {
                if (c.expireIfIdleInTransaction(now, timeoutNanos)) {
                    LOG.info("JDBC connection {}: transaction idle for more than {} ms rolled back (25P03)", c.id(),
                            timeout.toMillis());
                }
            } catch (RuntimeException e) {
                LOG.warn("JDBC connection {}: ending its idle transaction failed: {}", c.id(), e.toString());
            }
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
