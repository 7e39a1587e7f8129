package io.meldb.log.server;

import io.meldb.wire.MetricsHttpServer;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogStore;
import io.meldb.wire.auth.ClusterAuthServer;
import io.meldb.log.protocol.LogProtocol;
import io.meldb.log.replication.ReplicatedLogStore;
import io.meldb.log.storage.ChronicleLogStore;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The log server (Hyder II §5.1 log service): a Netty server for {@link io.meldb.log.protocol.LogProtocol} over a
 * {@link ChronicleLogStore}, plus the HTTP endpoint for health and Prometheus metrics. Owns its event loops, its
 * read threads and its store; {@link #close()} stops them all.
 *
 * <p>Appends and answers run on the event loops; stored blocks are read (READ, SUBSCRIBE) on separate read threads,
 * because a block that is no longer in the page cache costs a disk read, and on an event loop that wait would hold
 * up the appends of every connection the loop serves. A transaction server that replays the log after a restart
 * reads exactly such blocks.
 */
public final class LogServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogServer.class);

    private final LogServerConfig config;
    /** The store requests go to: {@link #local} at r = 1, its replicated front at r > 1. */
    private final LogStore store;
    /** The blocks on this server's disk (at r > 1, what this replica applied). */
    private final ChronicleLogStore local;
    private final LogMetrics metrics;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final EventExecutorGroup readers;
    private final ChannelGroup connections = new DefaultChannelGroup("log-connections", GlobalEventExecutor.INSTANCE);
    private final Set<ServerSubscription> subscriptions = ConcurrentHashMap.newKeySet();
    private final LogStore.TailListener wakeSubscribers = tail -> {
        for (ServerSubscription s : subscriptions) {
            s.wake();
        }
    };
    private final AckDispatcher acks = new AckDispatcher();
    /** Appends handed to the store and not yet answered, across all connections. */
    private final AtomicInteger appendsInStore = new AtomicInteger();
    private final int maxAppendsInStore;
    /** Connections that stopped reading because the store had {@link #maxAppendsInStore}. */
    private final Set<LogServerHandler> waitingForStore = ConcurrentHashMap.newKeySet();
    /** The cluster handshake every connection must pass; null when the server has no secret. */
    private final ClusterAuthServer auth;
    private final LongAdder idleClosed = new LongAdder();
    private final LongAdder trimsRefused = new LongAdder();
    /** The one thread TRIMs are decided on (a read thread: deciding reads blocks); owns {@link #ceiling}. */
    private final EventExecutor trimGuard;
    private final CheckpointCeiling ceiling;
    private Channel serverChannel;
    private MetricsHttpServer metricsServer;
    private volatile boolean closed;

    private LogServer(LogServerConfig config, ChronicleLogStore local, LogStore store) {
        this.config = config;
        this.local = local;
        this.store = store;
        this.maxAppendsInStore = (int) Math.max(1, Math.min(Integer.MAX_VALUE / 2,
                config.maxAppendBytesInStore() / config.blockSize()));
        this.auth = config.clusterSecret() == null ? null : new ClusterAuthServer(config.clusterSecret(), "the log server",
                LogProtocol.MAGIC, LogProtocol.VERSION, ErrorCode.UNAUTHENTICATED.code(), config.handshakeTimeout());
        this.metrics = new LogMetrics(store, this);
        if (store instanceof io.meldb.log.replication.ReplicatedLogStore replicated) {
            replicated.bindMetrics(metrics.registry());
        }
        this.boss = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("log-accept"), NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(config.ioThreads(),
                new DefaultThreadFactory("log-io"), NioIoHandler.newFactory());
        this.readers = new DefaultEventExecutorGroup(config.readThreads(), new DefaultThreadFactory("log-read"));
        this.trimGuard = readers.next();
        this.ceiling = new CheckpointCeiling(store);
    }

    /**
     * Opens (recovering) the store in the configured data directory and starts serving.
     *
     * @throws IOException if the data directory cannot be opened, is damaged, is in use, or holds a log with
     *                     another block size
     */
    public static LogServer start(LogServerConfig config) throws IOException {
        ChronicleLogStore store = ChronicleLogStore.open(config.store());
        if (store.isCreated() && store.blockSize() != config.blockSize()) {
            store.close();
            throw new IOException("the log in " + config.store().dataDir() + " has " + store.blockSize()
                    + "-byte blocks, but this server is configured for " + config.blockSize() + " (--block-size)");
        }
        LogStore served = store;
        if (config.replication() != null) {
            try {
                served = ReplicatedLogStore.start(store, config.replication(), config.host(), config.blockSize(),
                        config.clusterSecret());
            } catch (IOException | RuntimeException e) {
                store.close();
                throw new IOException("cannot start the replicated log (node " + config.replication().nodeId() + ", peers "
                        + config.replication().peers() + "): " + e.getMessage(), e);
            }
        }
        LogServer server = new LogServer(config, store, served);
        try {
            server.bind();
        } catch (RuntimeException e) {
            server.close();
            throw new IOException("cannot start the log server on " + config.host() + ":" + config.port() + ": " + e, e);
        }
        return server;
    }

    private void bind() {
        store.addTailListener(acks);
        store.addTailListener(wakeSubscribers);
        serverChannel = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.writeBufferLowWaterMark(), config.writeBufferHighWaterMark()))
                .childHandler(new LogServerInitializer(this))
                .bind(config.host(), config.port()).syncUninterruptibly().channel();
        if (config.metricsPort() >= 0) {
            metricsServer = new MetricsHttpServer(config.host(), config.metricsPort(), boss, workers,
                    () -> LogHealth.of(store), metrics::scrape);
        }
        LOG.info("log server on {} (metrics {}, cluster secret {}), data {}", serverChannel.localAddress(),
                metricsServer == null ? "off" : "on port " + metricsServer.port(),
                auth == null ? "off: anyone who reaches the port may use it" : "required", local.dataDir());
    }

    /** At replication factor &gt; 1, the replicated store (its Raft member); null at r = 1. */
    public ReplicatedLogStore replicated() {
        return store instanceof ReplicatedLogStore r ? r : null;
    }

    public LogServerConfig config() {
        return config;
    }

    public LogStore store() {
        return store;
    }

    /** The handshake new connections must pass, or null when the server has no cluster secret. */
    ClusterAuthServer auth() {
        return auth;
    }

    /** Connections refused by the cluster handshake. */
    public long connectionsRefused() {
        return auth == null ? 0 : auth.refused();
    }

    /** Connections closed by the idle timeout. */
    public long connectionsClosedIdle() {
        return idleClosed.sum();
    }

    LongAdder idleClosed() {
        return idleClosed;
    }

    /** Where TRIMs are decided ({@link #trimChecked}). */
    EventExecutor trimGuard() {
        return trimGuard;
    }

    /**
     * Trim thread: trims below {@code position} unless that is above the resume position of the newest complete
     * checkpoint in the log (and above the current trim point): then nothing is trimmed and TRIM_REFUSED is thrown.
     */
    long trimChecked(long position) {
        long trimPoint = store.trimPoint();
        if (position > trimPoint) {
            long allowed = ceiling.ceiling();
            if (position > allowed) {
                trimsRefused.increment();
                LOG.warn("refused TRIM to {}: the newest complete checkpoint in the log resumes at {}", position,
                        allowed <= 1 ? "(none)" : allowed);
                throw new io.meldb.log.LogErrorException(ErrorCode.TRIM_REFUSED, "TRIM to " + position
                        + " refused: " + (allowed <= 1 ? "the log holds no complete checkpoint"
                        : "the newest complete checkpoint in the log resumes at position " + allowed)
                        + ", and a txn-server recovering after the trim would need everything from there");
            }
        }
        return store.trim(position);
    }

    /** TRIMs refused by the checkpoint rule. */
    public long trimsRefused() {
        return trimsRefused.sum();
    }

    AckDispatcher acks() {
        return acks;
    }

    /** The read threads; each connection reads on one of them ({@link LogServerHandler}). */
    EventExecutorGroup readers() {
        return readers;
    }

    public LogMetrics metrics() {
        return metrics;
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    public int port() {
        return address().getPort();
    }

    /** Port of {@code /health} and {@code /metrics}, or -1 if turned off. */
    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    public int subscriberCount() {
        return subscriptions.size();
    }

    public long maxSubscriberLag() {
        long tail = store.tail();
        long max = 0;
        for (ServerSubscription s : subscriptions) {
            max = Math.max(max, s.lag(tail));
        }
        return max;
    }

    /** READ requests and subscription push rounds waiting for a read thread. */
    public int readTasksPending() {
        int n = 0;
        for (EventExecutor e : readers) {
            if (e instanceof SingleThreadEventExecutor t) {
                n += t.pendingTasks();
            }
        }
        return n;
    }

    /** Appends handed to the store and not yet answered, across all connections. */
    public int appendsInStore() {
        return appendsInStore.get();
    }

    /** Event loop: whether the store holds as many appends as the server hands it at once. */
    boolean storeFull() {
        return appendsInStore.get() >= maxAppendsInStore;
    }

    /** Event loop: an append goes to the store. */
    void appendToStore() {
        appendsInStore.incrementAndGet();
    }

    /** Event loop: an append was answered; at half the limit, the connections waiting for the store read again. */
    void appendAnswered() {
        if (appendsInStore.decrementAndGet() <= maxAppendsInStore / 2 && !waitingForStore.isEmpty()) {
            wakeWaitingForStore();
        }
    }

    /** Event loop: {@code h} stopped reading because the store is full; it is told once there is room. */
    void waitForStore(LogServerHandler h) {
        waitingForStore.add(h);
        if (appendsInStore.get() <= maxAppendsInStore / 2) {
            wakeWaitingForStore(); // the store emptied between the check and the registration
        }
    }

    private void wakeWaitingForStore() {
        for (LogServerHandler h : waitingForStore) {
            if (waitingForStore.remove(h)) {
                h.storeHasRoom();
            }
        }
    }

    public int connectionCount() {
        return connections.size();
    }

    /** Bytes written to any connection but not yet taken by its socket: what slow clients hold in server memory. */
    public long pendingWriteBytes() {
        long sum = 0;
        for (Channel ch : connections) {
            sum += pendingWriteBytes(ch);
        }
        return sum;
    }

    /** Bytes written to subscriber connections but not yet taken by their sockets (tests bound it). */
    public long subscriberPendingBytes() {
        long sum = 0;
        Set<Channel> seen = new HashSet<>();
        for (ServerSubscription s : subscriptions) {
            Channel ch = s.channel();
            if (seen.add(ch)) {
                sum += pendingWriteBytes(ch);
            }
        }
        return sum;
    }

    /** Any thread: the channel's queued bytes, 0 once it is closed (its buffer is then gone). */
    private static long pendingWriteBytes(Channel ch) {
        ChannelOutboundBuffer buffer = ch.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    void connectionOpened(Channel ch) {
        connections.add(ch);
    }

    void connectionClosed(Channel ch) {
        connections.remove(ch);
    }

    void subscriptionOpened(ServerSubscription s) {
        subscriptions.add(s);
    }

    void subscriptionClosed(ServerSubscription s) {
        subscriptions.remove(s);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        store.removeTailListener(wakeSubscribers);
        store.removeTailListener(acks);
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        if (metricsServer != null) {
            metricsServer.close();
        }
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        try {
            trimGuard.submit(ceiling::close).awaitUninterruptibly(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // already stopped
        }
        // after the event loops: connections closing hand their readers' close to these threads
        readers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        store.close();
        LOG.info("log server stopped");
    }
}
