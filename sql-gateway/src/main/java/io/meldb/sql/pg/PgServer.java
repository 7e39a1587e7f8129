package io.meldb.sql.pg;

import io.meldb.sql.server.SqlEngine;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gateway's PostgreSQL protocol v3 server on Netty: psql, pgjdbc, psycopg, pgbench and the tools built on
 * them connect here. Netty's event loops only move bytes; each connection's statements run in order on a worker
 * thread of a shared pool (a statement may wait for meld's decision), so a slow statement never holds up
 * another connection.
 */
public final class PgServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PgServer.class);
    /** Name of the handler that closes connections whose start-up does not finish in time. */
    static final String STARTUP_TIMEOUT = "startup-timeout";

    private final SqlEngine engine;
    private final PgServerConfig config;
    private final EventLoopGroup loops;
    private final ExecutorService workers;
    /** Fires statement timeouts. */
    private final ScheduledExecutorService timers;
    private final Channel serverChannel;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, PgScram.Verifier> verifiers = new HashMap<>();
    private final Map<Integer, PgConnectionHandler> byProcessId = new ConcurrentHashMap<>();
    private final AtomicInteger nextProcessId = new AtomicInteger(1000);
    private final AtomicInteger connections = new AtomicInteger();

    private PgServer(final SqlEngine engine, final PgServerConfig config) {
        this.engine = engine;
        this.config = config;
        for (Map.Entry<String, String> u : config.users().entrySet()) {
            verifiers.put(u.getKey(), PgScram.Verifier.of(u.getValue(), random));
        }
        this.loops = new MultiThreadIoEventLoopGroup(Math.min(2, Runtime.getRuntime().availableProcessors()),
                new DefaultThreadFactory("meldb-pg-io", true), NioIoHandler.newFactory());
        this.timers = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("meldb-pg-timer", true));
        this.workers = new ThreadPoolExecutor(0, config.maxConnections() + 16, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), new DefaultThreadFactory("meldb-pg-worker", true));
        try {
            final ServerBootstrap b = new ServerBootstrap()
                    .group(loops)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    // the pooled allocator recycles its buffers, their slices and their NIO views; Netty 4.2's
                    // default (adaptive) allocates a DirectByteBuffer view per socket read and write
                    .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 << 10, 1 << 20))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel ch) {
                            // PostgreSQL's authentication_timeout: a client that has not finished its start-up
                            // within it (a silent or half-sent connection) is closed; removed once the session opens
                            ch.pipeline().addLast(STARTUP_TIMEOUT, new ReadTimeoutHandler(
                                    config.startupTimeout().toMillis(), TimeUnit.MILLISECONDS));
                            ch.pipeline().addLast("decoder", new PgFrontendDecoder(config.maxMessageBytes(),
                                    config.messageTimeout().toNanos()));
                            ch.pipeline().addLast("handler", new PgConnectionHandler(PgServer.this));
                        }
                    });
            this.serverChannel = b.bind(config.host(), config.port()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            close();
            throw new IllegalStateException("cannot serve the PostgreSQL protocol on " + config.host() + ":"
                    + config.port() + ": " + e.getMessage(), e);
        }
    }

    /** Starts serving; throws when the port cannot be bound. */
    public static PgServer start(final SqlEngine engine, final PgServerConfig config) {
        final PgServer server = new PgServer(engine, config);
        engine.backends(server.backends());
        LOG.info("PostgreSQL protocol on {}:{}", config.host(), server.port());
        return server;
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** A libpq connection URL for this server, e.g. {@code postgresql://127.0.0.1:5432/meldb}. */
    public String url(final String advertisedHost) {
        return "postgresql://" + advertisedHost + ":" + port() + "/meldb";
    }

    SqlEngine engine() {
        return engine;
    }

    PgServerConfig config() {
        return config;
    }

    ExecutorService workers() {
        return workers;
    }

    ScheduledExecutorService timers() {
        return timers;
    }

    SecureRandom random() {
        return random;
    }

    /** The SCRAM verifier of a user; null when passwords are off; a verifier no password matches for others. */
    PgScram.Verifier verifier(final String user) {
        if (verifiers.isEmpty()) {
            return null;
        }
        final PgScram.Verifier v = verifiers.get(user);
        return v != null ? v : PgScram.Verifier.of(Long.toHexString(random.nextLong()), random);
    }

    /** Admits one more connection; answers its process id, or -1 when the server is full. */
    int admit(final PgConnectionHandler handler) {
        if (connections.incrementAndGet() > config.maxConnections()) {
            connections.decrementAndGet();
            return -1;
        }
        final int pid = nextProcessId.incrementAndGet();
        byProcessId.put(pid, handler);
        return pid;
    }

    void release(final int processId) {
        if (byProcessId.remove(processId) != null) {
            connections.decrementAndGet();
        }
    }

    /** CancelRequest: cancels what the connection with that process id and secret runs. */
    void cancel(final int processId, final int secret) {
        final PgConnectionHandler h = byProcessId.get(processId);
        if (h != null) {
            h.cancel(secret);
        }
    }

    /** The sessions by process id, for pg_cancel_backend and pg_terminate_backend. */
    io.meldb.sql.calcite.Backends backends() {
        return new io.meldb.sql.calcite.Backends() {
            @Override
            public boolean cancel(final long processId) {
                final PgConnectionHandler h = handler(processId);
                return h != null && h.cancel();
            }

            @Override
            public boolean terminate(final long processId) {
                final PgConnectionHandler h = handler(processId);
                return h != null && h.terminate();
            }
        };
    }

    private PgConnectionHandler handler(final long processId) {
        return processId < Integer.MIN_VALUE || processId > Integer.MAX_VALUE ? null
                : byProcessId.get((int) processId);
    }

    /** Connections open now. */
    public int connectionCount() {
        return connections.get();
    }

    @Override
    public void close() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        for (PgConnectionHandler h : byProcessId.values()) {
            h.closeChannel();
        }
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        timers.shutdownNow();
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
