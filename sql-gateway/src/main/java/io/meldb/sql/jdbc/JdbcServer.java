package io.meldb.sql.jdbc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The gateway's JDBC endpoint: Avatica's protobuf-over-HTTP protocol (what Avatica's remote driver and MeldDB's
 * driver speak) served on Netty, as the PostgreSQL protocol is, rather than on Avatica's Jetty server. A fast-path
 * statement of an in-process transaction and a COMMIT run on the I/O thread (the commit without waiting for meld);
 * everything else on a worker thread of a shared pool. See {@link JdbcChannelHandler} for the answers it gives to
 * bad requests.
 */
public final class JdbcServer implements AutoCloseable {
    private final JdbcAuth auth;
    private final AvaticaRequests requests;
    private final long maxRequestBytes;
    private final EventLoopGroup loops;
    private final ExecutorService workers;
    private final Channel channel;
    private final LongAdder refused = new LongAdder();
    /** The open HTTP connections: closed with the server (a loop's shutdown does not close its channels). */
    private final ChannelGroup connections = new DefaultChannelGroup("meldb-jdbc", GlobalEventExecutor.INSTANCE);

    /**
     * Serves {@code meta} on {@code host:port} (0 picks a free port); {@code users} maps user names to passwords
     * (empty: loopback clients only). Throws when the port cannot be bound.
     */
    public JdbcServer(final InlineMeta meta, final String host, final int port, final Map<String, String> users,
                      final long maxRequestBytes, final Duration idleTimeout, final int maxConnections) {
        this.auth = new JdbcAuth(users);
        this.requests = new AvaticaRequests(meta);
        this.maxRequestBytes = maxRequestBytes;
        this.loops = new MultiThreadIoEventLoopGroup(Math.min(2, Runtime.getRuntime().availableProcessors()),
                new DefaultThreadFactory("meldb-jdbc-io", true), NioIoHandler.newFactory());
        this.workers = new ThreadPoolExecutor(0, maxConnections + 16, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                new DefaultThreadFactory("meldb-jdbc-worker", true));
        try {
            this.channel = new ServerBootstrap()
                    .group(loops)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel ch) {
                            connections.add(ch);
                            ch.pipeline().addLast("idle", new IdleStateHandler(0, 0, idleTimeout.toMillis(),
                                    TimeUnit.MILLISECONDS));
                            ch.pipeline().addLast("http", new HttpServerCodec());
                            ch.pipeline().addLast("avatica", new JdbcChannelHandler(JdbcServer.this));
                        }
                    })
                    .bind(host, port).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            shutdown();
            throw new IllegalStateException("cannot serve JDBC on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        requests.serverAddress(host + ":" + port());
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** Requests parsed so far by Avatica request kind ({@code ExecuteRequest=...}): the round trips clients made. */
    public Map<String, Long> requestCounts() {
        return requests.counts();
    }

    /** Requests refused: unauthenticated, too large, not Avatica's protocol, no worker free. */
    public long refused() {
        return refused.sum();
    }

    JdbcAuth auth() {
        return auth;
    }

    AvaticaRequests requests() {
        return requests;
    }

    long maxRequestBytes() {
        return maxRequestBytes;
    }

    ExecutorService workers() {
        return workers;
    }

    void countRefusal() {
        refused.increment();
    }

    @Override
    public void close() {
        try {
            channel.close().syncUninterruptibly();
            connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        } finally {
            shutdown();
        }
    }

    private void shutdown() {
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdown();
        try {
            if (!workers.awaitTermination(5, TimeUnit.SECONDS)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
