package io.meldb.log.client;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogConnectionException;
import io.meldb.log.LogException;
import io.meldb.log.LogErrorException;
import io.meldb.log.protocol.LogFrame;
import io.meldb.log.protocol.LogProtocol;
import io.meldb.wire.client.Reconnector;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A subscription to the log (the feed of a transaction server's log reader, Hyder II §5.1), on a connection of its
 * own so that a slow consumer throttles only itself: the server pushes only while this connection keeps up.
 *
 * <p>If the connection breaks, the subscription reconnects with backoff and subscribes again from the position
 * after the last block delivered, so the listener sees each position once and in order. It ends for good (the
 * listener's {@link BlockListener#onError} is called) only on an error that a retry cannot fix, such as
 * {@link ErrorCode#TRIMMED}, or when the server turns out to hold another log than the one the client is bound to
 * (checked before every subscribe, as the client checks its own connections).
 */
public final class LogSubscription implements LogService.Subscription {
    private static final Logger LOG = LoggerFactory.getLogger(LogSubscription.class);

    private final LogClient client;
    private final BlockListener listener;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private volatile long next;
    private volatile boolean closed;
    private volatile boolean paused;
    private volatile int connects;

    // event loop only
    private Channel channel;
    private long requestId;
    /** The connection's TAIL asked before subscribing, 0 when none is outstanding. */
    private long handshakeId;
    /** A TAIL was sent because the connection fell silent, and nothing has been read since. */
    private boolean probing;
    private final Reconnector reconnector;
    /** Event loop: the connection is closed to go to the leader a replica named (not to the next in turn). */
    private boolean following;
    /** Event loop: the replica this subscription reads from, and the next after a failure (replicated log). */
    private final ReplicaAddresses replicas;

    LogSubscription(LogClient client, long from, BlockListener listener) {
        this.client = client;
        this.listener = listener;
        this.next = from;
        this.loop = client.group().next();
        // probe after half the request timeout of silence, and give up on the connection after another half
        this.bootstrap = client.newBootstrap(loop, new Handler(), client.options().requestTimeout().toNanos() / 2);
        this.replicas = client.newReplicaCursor();
        this.reconnector = new Reconnector(loop, bootstrap, client.options().reconnectBackoffMin(),
                client.options().reconnectBackoffMax(), () -> closed, "subscription to " + client.target(),
                new Reconnector.Targets() {
                    @Override
                    public java.net.SocketAddress current() {
                        return replicas.current();
                    }

                    @Override
                    public boolean failed() {
                        return goOn();
                    }
                });
    }

    /**
     * Event loop, after a failed or lost connection: true to go at once to the leader a replica named; otherwise a
     * replicated log's next replica (which serves the same positions) is tried after the backoff.
     */
    private boolean goOn() {
        if (following) {
            following = false;
            return true;
        }
        if (replicas.several()) {
            replicas.moveOn();
        }
        return false;
    }

    void start() {
        reconnector.connectNow();
    }

    /** The next position the listener will receive. */
    public long nextPosition() {
        return next;
    }

    /** How many times the subscription connected (1 without failures). */
    public int connectCount() {
        return connects;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Stops reading from the connection; the server stops pushing once its buffer for us is full. */
    public void pause() {
        paused = true;
        loop.execute(() -> {
            if (channel != null) {
                channel.config().setAutoRead(false);
            }
        });
    }

    /** Resumes after {@link #pause()}; the server continues from where it stopped, reading from storage. */
    public void resume() {
        paused = false;
        loop.execute(() -> {
            if (channel != null) {
                channel.config().setAutoRead(true);
                channel.read();
            }
        });
    }

    /** Any thread: the client found another log behind its server address; ends the subscription on its loop. */
    void stopFor(LogException e) {
        try {
            loop.execute(() -> end(e));
        } catch (RejectedExecutionException ex) {
            // shutting down
        }
    }

    private void end(LogException e) {
        if (closed) {
            return;
        }
        closed = true;
        client.subscriptionClosed(this);
        if (channel != null) {
            channel.close();
        }
        try {
            listener.onError(e);
        } catch (RuntimeException ex) {
            LOG.warn("subscription listener failed", ex);
        }
    }

    /**
     * Stops the subscription and closes its connection; no block is delivered after this returns. May be called
     * from the listener itself (on the I/O thread), which then closes the connection without waiting.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        client.subscriptionClosed(this);
        if (loop.inEventLoop()) {
            closeChannel();
            return;
        }
        try {
            loop.submit(this::closeChannel).awaitUninterruptibly(5, TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            // already shut down
        }
    }

    /** Event loop. */
    private void closeChannel() {
        if (channel != null) {
            channel.close();
        }
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (closed) {
                ctx.close();
                return;
            }
            channel = ctx.channel();
            connects++;
            probing = false;
            reconnector.connected();
            if (paused) {
                channel.config().setAutoRead(false);
            }
            if (client.logId() != null || replicas.several()) {
                handshakeId = client.nextRequestId();
                ctx.writeAndFlush(LogFrame.tail(handshakeId), ctx.voidPromise());
            } else {
                subscribe(ctx);
            }
            ctx.fireChannelActive();
        }

        private void subscribe(ChannelHandlerContext ctx) {
            requestId = client.nextRequestId();
            ctx.writeAndFlush(LogFrame.subscribe(ctx.alloc(), requestId, next));
        }

        /** The answer to the connection's first TAIL: subscribes if the server holds the client's log. */
        private void handshakeAnswered(ChannelHandlerContext ctx, LogFrame f) {
            handshakeId = 0;
            if (f.type() != LogProtocol.TAIL_IS) {
                ctx.close(); // e.g. SHUTTING_DOWN: try again
                return;
            }
            if (replicas.several()) {
                // a follower applies a block only once the leader's next message says it is committed (up to a
                // heartbeat later when appends pause): read from the leader, as the appends go there, and from
                // another replica only while the leader is unreachable
                if (replicas.redirect(f.leaderInTail(), false) != null) {
                    following = true;
                    ctx.close();
                    return;
                }
                if (client.logId() == null) {
                    subscribe(ctx);
                    return;
                }
            }
            String other = client.otherLog(f);
            if (other == null) {
                subscribe(ctx);
                return;
            }
            if (replicas.several() && f.bodyLength() >= 36 && f.logIdAt(20) == null) {
                ctx.close(); // a replica that has not applied the log's CREATE yet: another one
                return;
            }
            end(new LogConnectionException(other + ", not the log this subscription was reading (id "
                    + client.logId() + ")"));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (channel == ctx.channel()) {
                channel = null;
            }
            if (!closed) {
                LOG.info("subscription to {} lost its connection at position {}; resubscribing", replicas.currentName(), next);
                if (goOn()) {
                    reconnector.soon();
                } else {
                    reconnector.later();
                }
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            probing = false;
            if (!(msg instanceof LogFrame f)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            try {
                if (!closed && handshakeId != 0 && f.requestId() == handshakeId) {
                    handshakeAnswered(ctx, f);
                    return;
                }
                if (closed || f.requestId() != requestId) {
                    return;
                }
                if (f.type() == LogProtocol.PUSH) {
                    long position = f.longAt(0);
                    if (position != next) {
                        LOG.warn("subscription to {} expected position {} but got {}; resubscribing", replicas.currentName(), next, position);
                        ctx.close();
                        return;
                    }
                    ByteBuf block = f.body().slice(f.body().readerIndex() + 8, f.bodyLength() - 8);
                    try {
                        listener.onBlock(position, block);
                    } catch (RuntimeException e) {
                        LOG.warn("subscription listener failed at position {}", position, e);
                    }
                    next = position + 1;
                } else if (f.type() == LogProtocol.ERROR) {
                    ErrorCode code = f.errorCode();
                    if (code == ErrorCode.SHUTTING_DOWN || code == ErrorCode.STORAGE_FAILURE
                            || (replicas.several() && code == ErrorCode.NOT_CREATED)) {
                        ctx.close();
                    } else {
                        end(new LogErrorException(code, f.errorMessage()));
                    }
                }
            } finally {
                f.release();
            }
        }

        /**
         * Nothing read for a while: the log may just be quiet, or the server's host may have died without closing
         * the connection, which would leave the subscription waiting for the kernel's retransmission timeout. Asks
         * TAIL, and reconnects if the connection stays silent. A paused subscription reads nothing on purpose.
         */
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (!(evt instanceof IdleStateEvent) || closed || paused) {
                ctx.fireUserEventTriggered(evt);
                return;
            }
            if (probing) {
                LOG.warn("subscription to {} heard nothing for {} ms, not even an answer to TAIL; reconnecting",
                        replicas.currentName(), client.options().requestTimeout().toMillis());
                ctx.close();
                return;
            }
            probing = true;
            ctx.writeAndFlush(LogFrame.tail(client.nextRequestId()), ctx.voidPromise());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("subscription connection to {} failed: {}", replicas.currentName(), cause.toString());
            ctx.close();
        }
    }
}
