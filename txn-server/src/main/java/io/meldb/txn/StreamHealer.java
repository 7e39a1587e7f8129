package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.session.IntentionAppender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Brings a {@link TxnServer} back after its block stream broke: a log append was refused or lost (log outage, lost
 * connection, STORAGE_FULL), or another server fenced this one off to decide one of its transactions. A broken
 * stream may hold a half-written record, so nothing more may go out on it. The healer appends a new fence of this
 * server once the log takes appends again (with backoff, for as long as it takes), switches the server to that
 * incarnation and a fresh stream, waits until the server has melded up to the fence, and answers the commits that
 * were in flight: those whose intention reached the log before the fence are decided by meld as always; the others
 * cannot commit any more (meld rejects an older incarnation's records after its fence, on every replica), so they
 * are told so. The same mechanism as a restart's fence (docs/architecture.md "Failure and recovery"), without the restart.
 * Meanwhile the server refuses new transactions with UNAVAILABLE.
 */
public final class StreamHealer {
    private static final Logger LOG = LoggerFactory.getLogger(StreamHealer.class);
    private static final long MIN_BACKOFF_MILLIS = 50;
    private static final long MAX_BACKOFF_MILLIS = 2000;
    /** How long one fence append may take before it is tried again. */
    private static final long APPEND_WAIT_MILLIS = 5000;

    private final ServerContext server;
    private final IntentionAppender appender;
    private final Object lock = new Object();
    private volatile String brokenBecause;
    private Thread thread;
    private volatile boolean closed;
    private long heals;

    StreamHealer(final ServerContext server, final IntentionAppender appender) {
        this.server = server;
        this.appender = appender;
    }

    /** Null while the stream is sound; otherwise why it broke (the server takes no transactions meanwhile). */
    public String brokenBecause() {
        return brokenBecause;
    }

    /** How many times the stream was re-fenced. */
    public long heals() {
        synchronized (lock) {
            return heals;
        }
    }

    /**
     * The stream of incarnation {@code incarnation} broke. Ignored when that incarnation is already superseded
     * (an append of it failed after the re-fence began) or a re-fence is under way.
     */
    public void streamBroken(final long incarnation, final String why) {
        synchronized (lock) {
            if (closed || server.stopped() || brokenBecause != null || incarnation != server.incarnation()) {
                return;
            }
            brokenBecause = why;
            LOG.warn("server {} incarnation {}: {}; re-fencing its log stream", server.serverId(), incarnation, why);
            thread = new Thread(this::heal, "meldb-refence-" + server.serverId());
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void heal() {
        long backoff = MIN_BACKOFF_MILLIS;
        final long started = System.nanoTime();
        while (!closed && !server.stopped()) {
            final long position;
            try {
                position = appendFence();
            } catch (TxnException e) {
                LOG.debug("server {}: the log does not take the new fence yet: {}", server.serverId(), e.getMessage());
                if (!sleep(backoff)) {
                    return;
                }
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
                continue;
            }
            appender.switchIncarnation(position);
            while (!server.awaitPosition(position, 1000)) {
                if (closed || server.stopped()) {
                    return;
                }
            }
            resolveSuperseded(position);
            if (server.fences().newest(server.serverId(), 0L) > position) {
                // fenced off again meanwhile (or an earlier attempt's fence landed late): once more
                LOG.info("server {}: fenced again at {} while re-fencing; once more", server.serverId(),
                    server.fences().newest(server.serverId(), 0L));
                continue;
            }
            synchronized (lock) {
                heals++;
                LOG.info("server {} re-fenced its log stream as incarnation {} after {} ms ({})", server.serverId(),
                    position, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), brokenBecause);
                brokenBecause = null;
                thread = null;
            }
            return;
        }
    }

    /**
     * Once this server has melded up to its new fence: a commit of an older incarnation of this process whose
     * intention the reader never saw is not in the log before the fence, and meld rejects it after; it did not
     * commit. (Those that were seen are answered by meld as usual.)
     */
    private void resolveSuperseded(final long newIncarnation) {
        server.pending().resolveSuperseded(newIncarnation,
            id -> server.seen().containsKey(id) || server.outcomes().get(id) != null,
            id -> new TxnException(TxnError.CONFLICT, "transaction " + id + " did not reach the log before server "
                + server.serverId() + " re-fenced its stream as incarnation " + newIncarnation
                + "; it was not committed; retry it"),
            () -> server.metrics().aborted("origin_restarted"));
    }

    private long appendFence() {
        final CompletableFuture<Long> f = appender.appendOwnFence();
        try {
            return f.get(APPEND_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TxnException(TxnError.UNAVAILABLE, "interrupted");
        } catch (ExecutionException e) {
            throw new TxnException(TxnError.UNAVAILABLE, String.valueOf(e.getCause()));
        } catch (TimeoutException e) {
            // it may still land: then it is an unused fence of this server, harmless (a later one supersedes it)
            throw new TxnException(TxnError.UNAVAILABLE, "no answer within " + APPEND_WAIT_MILLIS + " ms");
        }
    }

    private boolean sleep(final long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public void close() {
        final Thread t;
        synchronized (lock) {
            closed = true;
            t = thread;
        }
        if (t != null) {
            t.interrupt();
        }
    }
}
