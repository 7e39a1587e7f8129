package io.meldb.sql.pg;

import io.meldb.sql.server.SqlErrors;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Netty side of one PostgreSQL connection: hands the decoded messages, in order, to the connection's worker
 * (one task at a time on the server's pool), stops reading the socket while too many wait, and turns a broken
 * stream (a message over the size limit, a bad length) into a FATAL error and a close. The worker runs
 * {@link PgStartup} until the session is open, then {@link PgConnection}; messages that cannot wait
 * ({@link PgConnection#runsInline}) run on the I/O thread itself while no worker is busy with the connection.
 */
final class PgConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(PgConnectionHandler.class);
    /** Messages waiting for the worker at which the socket stops being read, and at which it reads again. */
    private static final int PAUSE_AT = 1024;
    private static final int RESUME_AT = 256;
    private static final Object CLOSED = new Object();
    /** pg_terminate_backend: ends the session once what runs has stopped. */
    private static final Object TERMINATE = new Object();

    private final PgServer server;
    private final int secret;
    private final Queue<Object> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private Channel channel;
    private PgOutput output;
    private PgStartup startup;
    private volatile PgConnection connection;
    private boolean done;

    PgConnectionHandler(final PgServer server) {
        this.server = server;
        this.secret = server.random().nextInt();
    }

    int secret() {
        return secret;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) {
        channel = ctx.channel();
        output = new PgOutput(channel);
        startup = new PgStartup(server, channel, output, this);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final PgConnection c = connection;
        if (c != null) {
            c.messageArrived();
        }
        // with no worker running for this connection, what cannot wait runs right here, in order
        if (c != null && !scheduled.get() && inbox.isEmpty() && c.runsInline((PgMessage) msg)) {
            process(msg);
            return;
        }
        inbox.add(msg);
        if (waiting.incrementAndGet() >= PAUSE_AT) {
            ctx.channel().config().setAutoRead(false);
        }
        schedule();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        final PgConnection c = connection;
        if (c != null) {
            c.end(false); // a statement whose client went away stops, and so do those still waiting
        }
        inbox.add(CLOSED);
        waiting.incrementAndGet();
        schedule();
        output.wakeUp();
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
        output.wakeUp();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        final Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        final String sqlState;
        final String message;
        if (c instanceof io.netty.handler.timeout.ReadTimeoutException) {
            sqlState = "57014";
            message = "canceling authentication due to timeout";
        } else if (c instanceof TooLongFrameException) {
            sqlState = "54000";
            message = c.getMessage();
        } else if (c instanceof PgProtocolException p) {
            sqlState = p.sqlState();
            message = p.getMessage();
        } else {
            LOG.debug("PostgreSQL connection {} failed", ctx.channel().remoteAddress(), cause);
            ctx.close();
            return;
        }
        final ByteBuf out = ctx.alloc().buffer(128);
        PgBackend.error(out, 'E', "FATAL", sqlState, message, null, null);
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
    }

    /** CancelRequest from another connection. */
    void cancel(final int requestSecret) {
        final PgConnection c = connection;
        if (requestSecret == secret && c != null) {
            c.cancel();
        }
    }

    /**
     * pg_terminate_backend: the running statement stops and its error is FATAL 57P01; a session that runs nothing
     * gets it next. Answers false when the session is not open yet.
     */
    boolean terminate() {
        final PgConnection c = connection;
        if (c == null) {
            return false;
        }
        c.end(true);
        inbox.add(TERMINATE);
        waiting.incrementAndGet();
        schedule();
        return true;
    }

    /** pg_cancel_backend: as a CancelRequest, without the secret. */
    boolean cancel() {
        final PgConnection c = connection;
        if (c == null) {
            return false;
        }
        c.cancel();
        return true;
    }

    void closeChannel() {
        if (channel != null) {
            channel.close();
        }
    }

    private void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            try {
                server.workers().execute(this::drain);
            } catch (RejectedExecutionException e) {
                scheduled.set(false);
                channel.close(); // the server is stopping
            }
        }
    }

    /** Runs on a worker: the waiting messages in order, then hands the worker back. */
    private void drain() {
        while (true) {
            Object m;
            while ((m = inbox.poll()) != null) {
                final boolean suspended = process(m);
                if (waiting.decrementAndGet() == RESUME_AT) {
                    channel.config().setAutoRead(true);
                }
                if (suspended) {
                    return; // the connection stays held (scheduled) until the commit completes: see resume
                }
            }
            scheduled.set(false);
            if (inbox.isEmpty() || !scheduled.compareAndSet(false, true)) {
                return;
            }
        }
    }

    /** Carries out one message; answers true when it left a COMMIT waiting for meld (see {@link #suspend}). */
    private boolean process(final Object m) {
        if (m == CLOSED) {
            finish();
            return false;
        }
        if (m == TERMINATE) {
            if (!done) {
                fatal(PgContext.terminating().getCause());
            }
            return false;
        }
        final PgMessage message = (PgMessage) m;
        try {
            if (done) {
                return false;
            }
            final PgConnection c = connection;
            if (c != null) {
                c.handle(message);
                final CompletableFuture<Void> pending = c.takeSuspension();
                if (pending != null) {
                    suspend(c, pending);
                    return true;
                }
            } else {
                connection = startup.handle(message);
            }
        } catch (PgFatalException e) {
            fatal(e.getCause());
        } catch (RuntimeException | Error e) {
            LOG.warn("PostgreSQL connection {}: unexpected failure; closing it", channel.remoteAddress(), e);
            fatal(e);
        } finally {
            message.release();
        }
        return false;
    }

    /**
     * A COMMIT of an in-process transaction waits for meld without holding a thread: the connection stays held
     * (no worker, nothing inline: later messages wait in the inbox, in order) until the outcome arrives; then the
     * connection's I/O thread answers it and goes on with the waiting messages ({@link #resume}). This saves the
     * two thread hand-offs of running the COMMIT on a worker that blocks.
     */
    private void suspend(final PgConnection c, final CompletableFuture<Void> pending) {
        scheduled.set(true);
        pending.whenComplete((ignored, error) -> channel.eventLoop().execute(() -> resume(c, error)));
    }

    /** On the I/O thread: answers the COMMIT, then runs what waits here, or hands the rest to a worker. */
    private void resume(final PgConnection c, final Throwable error) {
        if (!done) {
            try {
                c.commitFinished(error);
            } catch (RuntimeException | Error e) {
                LOG.warn("PostgreSQL connection {}: unexpected failure; closing it", channel.remoteAddress(), e);
                fatal(e);
            }
        }
        Object m;
        while ((m = inbox.peek()) != null) {
            final PgConnection now = connection;
            if (m != CLOSED && !done && (now == null || !now.runsInline((PgMessage) m))) {
                try {
                    server.workers().execute(this::drain); // still scheduled: the worker takes the rest
                } catch (RejectedExecutionException e) {
                    channel.close(); // the server is stopping
                }
                return;
            }
            inbox.poll();
            final boolean suspended = process(m);
            if (waiting.decrementAndGet() == RESUME_AT) {
                channel.config().setAutoRead(true);
            }
            if (suspended) {
                return;
            }
        }
        scheduled.set(false);
    }

    /** Sends a FATAL error and closes the connection. */
    private void fatal(final Throwable e) {
        final SqlErrors.Described d = SqlErrors.describe(e);
        PgBackend.error(output.buffer(), 'E', "FATAL", d.sqlState(), d.message(), null, null);
        output.flush();
        channel.close();
        done = true;
    }

    /** The channel is closed: releases the session and the process id. */
    private void finish() {
        done = true;
        final PgConnection c = connection;
        connection = null;
        try {
            if (c != null) {
                c.closed();
            }
        } catch (RuntimeException e) {
            LOG.debug("closing a PostgreSQL session failed", e);
        } finally {
            output.discard();
            server.release(startup.processId());
        }
    }
}
