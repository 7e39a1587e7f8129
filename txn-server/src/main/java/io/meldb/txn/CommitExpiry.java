package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Bounds how long a commit waits for its decision whichever front end waits for it (in process, the RPC, the
 * gateway): a commit whose intention is stuck behind a log that does not answer (an outage longer than the commit
 * timeout, issue 22) is answered OUTCOME_UNKNOWN at its deadline instead of holding its client until the client's
 * own timeout. The outcome stays askable: once the log is back the stream healer's fence makes it definite
 * (docs/txn-server.md "Definite outcomes"). One sweep every {@link #SWEEP_MILLIS} ms, off every hot path.
 */
final class CommitExpiry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommitExpiry.class);
    static final long SWEEP_MILLIS = 200;

    private final ServerContext server;
    private final ScheduledExecutorService sweeper;

    CommitExpiry(final ServerContext server) {
        this.server = server;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "meldb-commit-expiry-" + server.serverId());
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void sweep() {
        try {
            final String broken = server.refencing();
            final int expired = server.pending().expire(System.nanoTime(), id -> new TxnException(
                TxnError.OUTCOME_UNKNOWN, "no decision on " + id + " within the commit timeout ("
                + server.config().commitTimeout().toMillis() + " ms)"
                + (broken != null ? " while server " + server.serverId() + " cannot write to the log (" + broken + ")"
                : "") + "; its outcome is unknown: ask outcome(" + id + ")"));
            if (expired > 0) {
                LOG.warn("server {}: {} commits got no decision within the commit timeout; answered OUTCOME_UNKNOWN",
                    server.serverId(), expired);
            }
        } catch (RuntimeException e) {
            LOG.warn("server {}: expiring overdue commits failed", server.serverId(), e);
        }
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }
}
