package io.meldb.wire.client;

import io.meldb.wire.auth.ClusterAuthClientHandler;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The one client core of MeldDB's framed RPCs (the log protocol of Hyder II §5.1 and the transaction RPC): the
 * client's I/O threads, connections set up alike (TCP_NODELAY, connect timeout, the cluster handshake, keepalive on
 * writer idle, the protocol's codec), request ids, the map of calls in flight with their deadlines and an optional
 * bound on how many, and a sweeper that fails the calls left unanswered. What a client does with a connection
 * (connect lazily or keep one up with a {@link Reconnector}, queue requests while it is down, match answers) stays in
 * the client: {@code LogClient} and {@code TxnRpcClient} are its two users.
 *
 * @param <C> the client's call type
 */
public final class RpcClientCore<C extends RpcCall> {
    /** What the sweeper does with a call past its deadline (already removed from the map) and after each sweep. */
    public interface Expiry<C> {
        void expired(C call);

        /** After each sweep, on an I/O thread; {@code sentCallExpired}: some expired call had been sent. */
        default void swept(boolean sentCallExpired) {
        }
    }

    private final RpcPeer peer;
    private final RpcProtocol protocol;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final EventLoop loop;
    private final long requestTimeoutNanos;
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentHashMap<Long, C> calls = new ConcurrentHashMap<>();
    /** Null when the number of calls in flight is not bounded. */
    private final Semaphore permits;
    private ScheduledFuture<?> sweeper;

    /**
     * @param sharedGroup I/O threads to use (the caller shuts them down), or null to start {@code ioThreads} of the
     *                    client's own, named {@code threadName}
     * @param maxInFlight calls in flight at most (further {@link #register}s wait up to the request timeout), or 0
     *                    for no bound
     */
    public RpcClientCore(final RpcPeer peer, final RpcProtocol protocol, final EventLoopGroup sharedGroup,
                         final int ioThreads, final String threadName, final Duration requestTimeout,
                         final int maxInFlight) {
        this.peer = peer;
        this.protocol = protocol;
        this.ownsGroup = sharedGroup == null;
        this.group = ownsGroup ? new MultiThreadIoEventLoopGroup(ioThreads, new DefaultThreadFactory(threadName),
                NioIoHandler.newFactory()) : sharedGroup;
        this.loop = group.next();
        this.requestTimeoutNanos = requestTimeout.toNanos();
        this.permits = maxInFlight > 0 ? new Semaphore(maxInFlight) : null;
    }

    /**
     * Starts failing calls past their deadline, every tenth of the request timeout (between {@code minMillis} and
     * 100 ms), on {@link #loop()}.
     */
    public void startSweeper(final long minMillis, final Expiry<C> expiry) {
        final long millis = Math.max(minMillis, Math.min(100, TimeUnit.NANOSECONDS.toMillis(requestTimeoutNanos) / 10));
        sweeper = loop.scheduleAtFixedRate(() -> sweep(expiry), millis, millis, TimeUnit.MILLISECONDS);
    }

    public RpcPeer peer() {
        return peer;
    }

    /** {@code host:port} of the server. */
    public String target() {
        return peer.target();
    }

    public EventLoopGroup group() {
        return group;
    }

    /** The I/O thread of the client's main connection and of its sweeper. */
    public EventLoop loop() {
        return loop;
    }

    public long requestTimeoutNanos() {
        return requestTimeoutNanos;
    }

    public long nextRequestId() {
        return ids.incrementAndGet();
    }

    // ------------------------------------------------------------------------------------------------ connections

    /**
     * A bootstrap for connections to the peer on {@code eventLoops}: [cluster handshake] [idle state] decoder encoder
     * keepalive {@code handler}. {@code idleProbeNanos}: when positive, {@code handler} is told (a READER_IDLE
     * {@link IdleStateEvent}) whenever nothing has been read for that long, to probe a connection that may have died
     * silently; writer idle for the keepalive interval sends the protocol's keepalive request.
     */
    public Bootstrap bootstrap(final EventLoopGroup eventLoops, final ChannelHandler handler, final long idleProbeNanos) {
        final Keepalive keepalive = new Keepalive();
        return new Bootstrap()
                .group(eventLoops)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) peer.connectTimeout().toMillis())
                .remoteAddress(peer.host(), peer.port())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        if (peer.clusterSecret() != null) {
                            ch.pipeline().addLast(new ClusterAuthClientHandler(peer.clusterSecret(), peer.magic(),
                                    peer.version(), peer.description() + " at " + peer.target(), peer.connectTimeout()));
                        }
                        final long keepaliveNanos = peer.keepaliveInterval().toNanos();
                        if (idleProbeNanos > 0 || keepaliveNanos > 0) {
                            ch.pipeline().addLast(new IdleStateHandler(idleProbeNanos, keepaliveNanos, 0,
                                    TimeUnit.NANOSECONDS));
                        }
                        ch.pipeline().addLast(protocol.newDecoder(), protocol.encoder(), keepalive, handler);
                    }
                });
    }

    /**
     * Connects with {@code bootstrap} and waits for the cluster handshake, so that a wrong address or secret fails
     * here, clearly.
     *
     * @throws RpcConnectException naming the server and what failed; the connection, if any, is closed
     */
    public Channel connectNow(final Bootstrap bootstrap) {
        return connectNow(bootstrap, null, peer.named());
    }

    /**
     * As {@link #connectNow(Bootstrap)}, to {@code address} (null: the peer's), named {@code named} in errors: a
     * client of several servers tries them in turn.
     */
    public Channel connectNow(final Bootstrap bootstrap, final SocketAddress address, final String named) {
        final long waitMillis = peer.connectTimeout().toMillis() + 1000;
        final ChannelFuture f = address == null ? bootstrap.connect() : bootstrap.connect(address);
        if (!f.awaitUninterruptibly(waitMillis) || !f.isSuccess()) {
            f.channel().close();
            throw new RpcConnectException("cannot connect to " + named + (f.cause() == null ? " within "
                    + peer.connectTimeout().toMillis() + " ms" : ": " + f.cause()), f.cause(), false);
        }
        final Future<Void> auth = ClusterAuthClientHandler.ready(f.channel());
        if (!auth.awaitUninterruptibly(waitMillis) || !auth.isSuccess()) {
            f.channel().close();
            throw new RpcConnectException("cannot connect to " + named + ": " + (auth.cause() == null
                    ? "no cluster handshake within " + peer.connectTimeout().toMillis() + " ms"
                    : auth.cause().getMessage()), auth.cause(), true);
        }
        return f.channel();
    }

    // ------------------------------------------------------------------------------------------------ calls

    /**
     * Tracks a call until {@link #take} or {@link #remove} ends it. With a bound on calls in flight, waits for room
     * up to the request timeout (not at all on an I/O thread, which must not block).
     *
     * @return false if there was no room: the call is not tracked
     */
    public boolean register(final C call) {
        if (permits != null && !acquirePermit()) {
            return false;
        }
        calls.put(call.id(), call);
        return true;
    }

    private boolean acquirePermit() {
        if (permits.tryAcquire()) {
            return true;
        }
        if (onIoThread()) {
            return false;
        }
        try {
            return permits.tryAcquire(requestTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The call with this request id, still tracked; null if none is. */
    public C get(final long id) {
        return calls.get(id);
    }

    /** Ends the call with this request id, exactly once: null if none is tracked (answered, failed or expired). */
    public C take(final long id) {
        final C call = calls.remove(id);
        if (call != null) {
            release();
        }
        return call;
    }

    /** Ends this call if it is still tracked; true if this removed it (the caller then completes it). */
    public boolean remove(final C call) {
        if (calls.remove(call.id(), call)) {
            release();
            return true;
        }
        return false;
    }

    private void release() {
        if (permits != null) {
            permits.release();
        }
    }

    /** The calls in flight, a live view: end one with {@link #remove} while iterating. */
    public Collection<C> calls() {
        return calls.values();
    }

    /** Calls sent or waiting to be sent, not yet answered. */
    public int inFlight() {
        return calls.size();
    }

    /** Ends every tracked call that is still there and hands it to {@code fail}. */
    public void failAll(final Consumer<C> fail) {
        for (C call : calls.values()) {
            if (remove(call)) {
                fail.accept(call);
            }
        }
    }

    private void sweep(final Expiry<C> expiry) {
        final long now = System.nanoTime();
        boolean sentExpired = false;
        for (C call : calls.values()) {
            if (now - call.deadline() > 0 && remove(call)) {
                sentExpired |= call.sent();
                expiry.expired(call);
            }
        }
        expiry.swept(sentExpired);
    }

    // ------------------------------------------------------------------------------------------------ threads

    /** Whether the calling thread is one of the client's I/O threads, which must not block on the client. */
    public boolean onIoThread() {
        for (EventExecutor e : group) {
            if (e.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops the sweeper and, if the client started its own I/O threads, stops them: waiting up to a second for
     * them, unless called on one of them (from a callback), which cannot wait for itself.
     */
    public void shutdown() {
        if (sweeper != null) {
            sweeper.cancel(false);
        }
        if (ownsGroup) {
            final Future<?> stopped = group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (!onIoThread()) {
                stopped.syncUninterruptibly();
            }
        }
    }

    /** Sends the protocol's keepalive when a connection has written nothing for the keepalive interval. */
    @ChannelHandler.Sharable
    private final class Keepalive extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
            if (evt instanceof IdleStateEvent e && e.state() == IdleState.WRITER_IDLE) {
                // the server's idle timeout sees traffic; the answer matches no call and is dropped
                ctx.writeAndFlush(protocol.keepalive(nextRequestId()), ctx.voidPromise());
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }
    }
}
