package io.meldb.txn.rpc;

import io.meldb.txn.protocol.TxnFrameDecoder;
import io.meldb.txn.protocol.TxnFrameEncoder;
import io.meldb.txn.protocol.TxnRpcProtocol;
import io.meldb.wire.auth.ClusterAuthServer;
import io.meldb.wire.FrameBudget;
import io.meldb.wire.IdleConnectionCloser;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnService;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Serves a {@link TxnService} over the transaction RPC ({@link TxnRpcProtocol}) on Netty event loops.
 *
 * <ul>
 *   <li>Each connection has its own table of transactions (handles); when the connection closes, every
 *   transaction still open on it is aborted. A commit already in flight goes on: its outcome reaches the log and
 *   can be asked for with OUTCOME.</li>
 *   <li>Event loops never wait: COMMIT uses {@code commitAsync()}, and {@code begin} (which may wait for admission)
 *   runs on a small bounded pool of its own.</li>
 *   <li>Bad requests get an ERROR answer with a {@link io.meldb.txn.api.TxnError} code and the connection goes on;
 *   only a byte stream that cannot be resynchronised is closed, and only that connection.</li>
 * </ul>
 * The server does not own the service: {@link #close()} stops serving (aborting the open transactions of its
 * connections) and leaves the service running.
 */
public final class TxnRpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TxnRpcServer.class);

    private final TxnService service;
    private final TxnRpcServerOptions options;
    private final TxnRpcMetrics metrics;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ThreadPoolExecutor beginExecutor;
    private final ThreadPoolExecutor outcomeExecutor = new ThreadPoolExecutor(4, 4, 0, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(1024), daemonThreads("txn-rpc-outcome-"));
    private final ChannelGroup connections = new DefaultChannelGroup("txn-rpc-connections", GlobalEventExecutor.INSTANCE);
    private final AtomicInteger openTransactions = new AtomicInteger();
    private final ClusterAuthServer auth;
    private final FrameBudget budget;
    private final LongAdder idleClosed = new LongAdder();
    private Channel serverChannel;
    private volatile boolean closed;

    private TxnRpcServer(TxnService service, TxnRpcServerOptions options) {
        this.service = service;
        this.options = options;
        this.auth = options.clusterSecret() == null ? null : new ClusterAuthServer(options.clusterSecret(),
                "the transaction server", TxnRpcProtocol.MAGIC, TxnRpcProtocol.VERSION,
                (short) TxnError.UNAVAILABLE.code(), options.handshakeTimeout());
        this.budget = new FrameBudget(options.maxInflightFrameBytes());
        this.metrics = new TxnRpcMetrics(options.meterRegistry(), this);
        this.boss = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("txn-accept"), NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(options.ioThreads(),
                new DefaultThreadFactory("txn-io"), NioIoHandler.newFactory());
        this.beginExecutor = new ThreadPoolExecutor(options.beginThreads(), options.beginThreads(), 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(options.beginQueue()), daemonThreads("txn-rpc-begin-"));
    }

    /** Serves {@code service} on {@code host:port} (port 0: a free one) with default options. */
    public static TxnRpcServer start(TxnService service, String host, int port) {
        return start(service, TxnRpcServerOptions.on(host, port));
    }

    /**
     * Binds and starts serving.
     *
     * @throws IllegalStateException if the address cannot be bound
     */
    public static TxnRpcServer start(TxnService service, TxnRpcServerOptions options) {
        TxnRpcServer server = new TxnRpcServer(service, options);
        try {
            server.bind();
        } catch (RuntimeException e) {
            server.close();
            throw new IllegalStateException("cannot start the transaction RPC server on " + options.host() + ":"
                    + options.port() + ": " + e, e);
        }
        return server;
    }

    private void bind() {
        serverChannel = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (auth != null) {
                            ch.pipeline().addLast("auth", auth.newHandler());
                        }
                        if (!options.idleTimeout().isZero()) {
                            ch.pipeline().addLast("idle", new IdleConnectionCloser(options.idleTimeout(),
                                    "the transaction server", idleClosed));
                        }
                        ch.pipeline().addLast("decoder", new TxnFrameDecoder(options.maxFrameLength(), budget));
                        ch.pipeline().addLast("encoder", TxnFrameEncoder.INSTANCE);
                        ch.pipeline().addLast("handler", new TxnRpcServerHandler(TxnRpcServer.this));
                    }
                })
                .bind(options.host(), options.port()).syncUninterruptibly().channel();
        LOG.info("transaction RPC on {} (cluster secret {})", serverChannel.localAddress(),
                auth == null ? "off: anyone who reaches the port may use it" : "required");
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** The bound port (the free one picked for port 0). */
    public int port() {
        return address().getPort();
    }

    /** Connections refused by the cluster handshake. */
    public long connectionsRefused() {
        return auth == null ? 0 : auth.refused();
    }

    /** Connections closed by the idle timeout. */
    public long connectionsClosedIdle() {
        return idleClosed.sum();
    }

    /** Bytes of partly received large frames held now, all connections together. */
    public long inflightFrameBytes() {
        return budget.reserved();
    }

    /** Times a connection stopped being read because the in-flight frame budget was spent. */
    public long frameBudgetWaits() {
        return budget.waits();
    }

    public int connectionCount() {
        return connections.size();
    }

    /** Transactions open, beginning or committing on all connections. */
    public int openTransactions() {
        return openTransactions.get();
    }

    TxnService service() {
        return service;
    }

    TxnRpcServerOptions options() {
        return options;
    }

    TxnRpcMetrics metrics() {
        return metrics;
    }

    ThreadPoolExecutor beginExecutor() {
        return beginExecutor;
    }

    /** Runs OUTCOME requests that wait for the log (see {@link TxnRpcServerHandler}). */
    ThreadPoolExecutor outcomeExecutor() {
        return outcomeExecutor;
    }

    boolean isClosed() {
        return closed;
    }

    void transactionsChanged(int delta) {
        openTransactions.addAndGet(delta);
    }

    void connectionOpened(Channel ch) {
        connections.add(ch);
    }

    void connectionClosed(Channel ch) {
        connections.remove(ch);
    }

    /** Stops serving: closes the listening socket and every connection (aborting their open transactions). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        beginExecutor.shutdown();
        outcomeExecutor.shutdownNow();
        try {
            if (!beginExecutor.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("BEGIN requests still waiting for admission after 5 s; interrupting them");
                beginExecutor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            beginExecutor.shutdownNow();
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        LOG.info("transaction RPC stopped");
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
