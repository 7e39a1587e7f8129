package io.meldb.wire.client;

import io.meldb.wire.auth.ClusterAuthClientHandler;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Connects a long-lived connection again after it broke, in the background, with exponential backoff: each failed
 * attempt (no TCP connection, or a refused cluster handshake, which never reaches the connection's own handler)
 * doubles the wait up to the maximum; {@link #connected()} resets it. Runs on one event loop; stops once
 * {@code stopped} says so. A client of several servers (a replicated log) gives it {@link Targets}: each attempt
 * goes where they say, and a failed attempt may be retried elsewhere at once, at the minimum backoff.
 */
public final class Reconnector {
    private static final Logger LOG = LoggerFactory.getLogger(Reconnector.class);

    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final long minNanos;
    private final long maxNanos;
    private final BooleanSupplier stopped;
    private final String what;
    /** Null: every attempt goes to the bootstrap's own remote address. */
    private final Targets targets;
    /** Event loop only. */
    private long backoffNanos;

    /** Where the attempts of a client of several servers go. Event loop only. */
    public interface Targets {
        /** The server the next attempt connects to. */
        SocketAddress current();

        /** The attempt to {@link #current()} failed; true to try the next one at the minimum backoff. */
        boolean failed();
    }

    /** {@code what} names the connection in logs ("log server 127.0.0.1:7420", "subscription to ..."). */
    public Reconnector(final EventLoop loop, final Bootstrap bootstrap, final Duration min, final Duration max,
                       final BooleanSupplier stopped, final String what) {
        this(loop, bootstrap, min, max, stopped, what, null);
    }

    /** As above, with each attempt going to {@code targets}' current server (null: the bootstrap's address). */
    public Reconnector(final EventLoop loop, final Bootstrap bootstrap, final Duration min, final Duration max,
                       final BooleanSupplier stopped, final String what, final Targets targets) {
        this.targets = targets;
        this.loop = loop;
        this.bootstrap = bootstrap;
        this.minNanos = min.toNanos();
        this.maxNanos = max.toNanos();
        this.stopped = stopped;
        this.what = what;
        this.backoffNanos = minNanos;
    }

    /** Event loop: a connection came up; the next failure waits the minimum again. */
    public void connected() {
        backoffNanos = minNanos;
    }

    /** Connects now, in the background; a failure retries {@link #later()}. */
    public void connectNow() {
        if (stopped.getAsBoolean()) {
            return;
        }
        final ChannelFuture attempt = targets == null ? bootstrap.connect() : bootstrap.connect(targets.current());
        attempt.addListener((ChannelFuture f) -> {
            if (!f.isSuccess() && !stopped.getAsBoolean()) {
                LOG.debug("connecting {} failed: {}", what, f.cause().toString());
                retry();
            } else if (f.isSuccess()) {
                ClusterAuthClientHandler.ready(f.channel()).addListener(a -> {
                    if (!a.isSuccess() && !stopped.getAsBoolean()) {
                        LOG.warn("connecting {} failed: {}", what, a.cause().getMessage());
                        retry();
                    }
                });
            }
        });
    }

    private void retry() {
        if (targets != null && targets.failed()) {
            soon();
        } else {
            later();
        }
    }

    /** Connects after the minimum backoff, leaving the current one as it is (another server is tried next). */
    public void soon() {
        schedule(minNanos);
    }

    /** Connects after the current backoff, which then doubles (up to the maximum). */
    public void later() {
        final long delay = backoffNanos;
        backoffNanos = Math.min(backoffNanos * 2, maxNanos);
        schedule(delay);
    }

    private void schedule(final long delay) {
        try {
            loop.schedule(this::connectNow, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the event loop is shutting down: so is the client
        }
    }
}
