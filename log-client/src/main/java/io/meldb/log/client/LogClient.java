package io.meldb.log.client;

import io.meldb.log.ConfigBlock;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogConnectionException;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogException;
import io.meldb.log.LogTimeoutException;
import io.meldb.wire.FrameTooLarge;
import io.meldb.log.protocol.LogFrame;
import io.meldb.log.protocol.LogFrameDecoder;
import io.meldb.log.protocol.LogFrameEncoder;
import io.meldb.log.protocol.LogProtocol;
import io.meldb.wire.Mailbox;
import io.meldb.wire.Frame;
import io.meldb.wire.client.Reconnector;
import io.meldb.wire.client.RpcCall;
import io.meldb.wire.client.RpcClientCore;
import io.meldb.wire.client.RpcConnectException;
import io.meldb.wire.client.RpcPeer;
import io.meldb.wire.client.RpcProtocol;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.meldb.log.protocol.LogProtocol.*;

/**
 * Client of the log service (Hyder II §5.1) over the network: asynchronous, pipelined requests over one connection,
 * and subscriptions over connections of their own. ({@code io.meldb.log.server.InProcessLog} is the same service without a network, for
 * a transaction server in the log server's process.)
 *
 * <ul>
 *   <li>Every request returns a {@link CompletableFuture} completed with the answer, or exceptionally with
 *   {@link LogErrorException} (the server's {@link ErrorCode}), {@link LogTimeoutException} (no answer within the
 *   request timeout) or {@link LogConnectionException} (the connection was lost after the request was sent).
 *   Any number of requests may be in flight (up to {@link LogClientOptions#maxInFlight()}); answers are matched by
 *   request id.</li>
 *   <li>The connection is re-established in the background after a failure, with exponential backoff; requests
 *   made meanwhile wait for it (and time out if it does not come back in time). A request already sent when the
 *   connection broke fails: for an APPEND the outcome is then unknown. A sent request left unanswered for the
 *   request timeout also closes the connection, since a server host that died without a word would otherwise keep
 *   it half-open for the kernel's retransmission timeout (about 15 minutes), every later request timing out too.</li>
 *   <li>Futures complete on the client's I/O thread: callbacks chained onto them must not block.</li>
 *   <li>The client binds itself to one log: the first answer that carries a log id (CREATE's or TAIL's) names it.
 *   Every later connection first asks for the tail and compares ids, holding requests back meanwhile; should the
 *   server now hold another log (its data directory wiped or swapped), nothing is sent there and the client stops
 *   for good: every request fails with {@link LogConnectionException} saying so.</li>
 * </ul>
 * Connections, request ids, the calls in flight and their deadlines are the wire kit's {@link RpcClientCore}, shared
 * with the transaction RPC's client. Thread-safe.
 */
public final class LogClient implements LogService {
    private static final Logger LOG = LoggerFactory.getLogger(LogClient.class);

    private final LogClientOptions options;
    private final RpcClientCore<Pending<?>> core;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final Reconnector reconnector;
    /** The server the request connection uses now (replicated log: moves to the leader). */
    private volatile String target;
    /** Event loop: where the request connection goes next. */
    private final ReplicaAddresses replicas;
    private final long timeoutNanos;
    private final Outbound outbound;
    private final Set<LogSubscription> subscriptions = ConcurrentHashMap.newKeySet();

    // event loop only
    private final ArrayDeque<LogFrame> backlog = new ArrayDeque<>();
    private Channel channel;

    private volatile boolean closed;
    /** The log this client is bound to, from the first answer that carried a log id; null until then. */
    private volatile UUID logId;
    /** Why the client stopped for good: its server now holds another log. */
    private volatile LogConnectionException diverged;
    /** Event loop: the current connection's TAIL asked before anything else, 0 when none is outstanding. */
    private long handshakeId;
    private long handshakeDeadline;
    /** Replicated log: the current connection is to the replica that named itself the leader. */
    private volatile boolean atLeader;
    /** Event loop, replicated log: reconnects since the last round through every replica or real answer. */
    private int attemptsThisRound;
    /** Event loop: the connection is being closed to go to another server already chosen; do not move on again. */
    private boolean moveOnPending;

    private LogClient(LogClientOptions options) {
        this.options = options;
        int maxFrame = LogProtocol.maxResponseFrameLength(options.maxBlockSize());
        RpcPeer peer = new RpcPeer("the log server", options.host(), options.port(), LogProtocol.MAGIC,
                LogProtocol.VERSION, options.clusterSecret(), options.connectTimeout(), options.keepaliveInterval());
        this.core = new RpcClientCore<>(peer, new RpcProtocol() {
            @Override
            public ChannelHandler newDecoder() {
                return new LogFrameDecoder(maxFrame);
            }

            @Override
            public ChannelHandler encoder() {
                return LogFrameEncoder.INSTANCE;
            }

            @Override
            public Frame keepalive(long requestId) {
                return LogFrame.tail(requestId);
            }
        }, options.eventLoopGroup(), options.ioThreads(), "log-client", options.requestTimeout(), options.maxInFlight());
        this.loop = core.loop();
        this.replicas = new ReplicaAddresses(options.addresses());
        this.target = replicas.currentName();
        this.timeoutNanos = options.requestTimeout().toNanos();
        this.outbound = new Outbound(loop);
        this.bootstrap = newBootstrap(loop, new RequestHandler(), 0);
        this.reconnector = new Reconnector(loop, bootstrap, options.reconnectBackoffMin(), options.reconnectBackoffMax(),
                () -> closed || diverged != null, "to log server " + target, !replicas.several() ? null
                : new Reconnector.Targets() {
                    @Override
                    public java.net.SocketAddress current() {
                        target = replicas.currentName();
                        return replicas.current();
                    }

                    @Override
                    public boolean failed() {
                        replicas.moveOn();
                        return nextAttemptSoon();
                    }
                });
        core.startSweeper(1, new RpcClientCore.Expiry<>() {
            @Override
            public void expired(Pending<?> p) {
                p.future.completeExceptionally(new LogTimeoutException(LogProtocol.typeName(p.type()) + " request "
                        + p.id() + " to " + target + " got no answer within " + options.requestTimeout().toMillis() + " ms"
                        + (channel == null ? " (not connected)" : "")));
            }

            @Override
            public void swept(boolean sentCallExpired) {
                abandonIfUnanswered(sentCallExpired);
            }
        });
    }

    /** Connects to {@code host:port} with default options. */
    public static LogClient connect(String host, int port) {
        return connect(LogClientOptions.to(host, port));
    }

    /**
     * Connects, waiting for the first connection so a wrong address fails here, clearly.
     *
     * @throws LogConnectionException if the server cannot be reached within the connect timeout
     */
    public static LogClient connect(LogClientOptions options) {
        LogClient client = new LogClient(options);
        StringBuilder tried = new StringBuilder();
        // a replicated log: the first server that takes the connection (a follower sends the client on to the leader)
        for (int i = 0; ; i++) {
            try {
                client.core.connectNow(client.bootstrap, client.replicas.current(), "the log server at " + client.target);
                break;
            } catch (RpcConnectException e) {
                tried.append(tried.isEmpty() ? "" : "; ").append(e.getMessage());
                if (i + 1 >= client.replicas.size()) {
                    client.close();
                    throw new LogConnectionException(client.replicas.several()
                            ? "cannot connect to any log server of " + options.addresses() + " (" + tried + ")"
                            : e.getMessage(), e.getCause());
                }
                client.replicas.moveOn();
                client.target = client.replicas.currentName();
            }
        }
        if (client.replicas.several()) {
            // a replicated log starting up elects its leader in a second or two: the first requests (a new
            // server's CREATE and fence) go to it instead of being refused; without one, they wait as usual
            long deadline = System.nanoTime() + options.requestTimeout().toNanos();
            while (!client.atLeader && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return client;
    }

    /**
     * {@code idleProbeNanos}: when positive, the handler is told (a READER_IDLE {@code IdleStateEvent}) whenever
     * nothing has been read for that long, to probe a connection that may have died silently.
     */
    Bootstrap newBootstrap(EventLoop eventLoop, ChannelHandler handler, long idleProbeNanos) {
        return core.bootstrap(eventLoop, handler, idleProbeNanos);
    }

    LogClientOptions options() {
        return options;
    }

    EventLoopGroup group() {
        return core.group();
    }

    long nextRequestId() {
        return core.nextRequestId();
    }

    String target() {
        return target;
    }

    /** The servers a subscription may use: a fresh cursor over the configured ones. */
    ReplicaAddresses newReplicaCursor() {
        return new ReplicaAddresses(options.addresses());
    }

    // ------------------------------------------------------------------------------------------------ requests

    /**
     * Creates the log with this block size and cluster configuration (stored at position 0). Succeeds again,
     * changing nothing, if the log already exists with the same two; fails with
     * {@link ErrorCode#CREATE_MISMATCH} if it exists with others.
     */
    public CompletableFuture<Void> create(int blockSize, byte[] config) {
        long id = nextRequestId();
        return send(LogFrame.create(ByteBufAllocator.DEFAULT, id, blockSize, config), CREATED, f -> {
            learn(f.logIdAt(4));
            return null;
        });
    }

    /** Appends a block (exactly the log's block size); completes with its position. */
    public CompletableFuture<Long> append(byte[] block) {
        return append(Unpooled.wrappedBuffer(block));
    }

    /** Appends a block, taking ownership of the buffer (it is released once sent); completes with its position. */
    @Override
    public CompletableFuture<Long> append(ByteBuf block) {
        long id = nextRequestId();
        return send(LogFrame.append(id, block), APPENDED, f -> f.longAt(0));
    }

    /**
     * Reads up to {@code count} blocks from {@code position}. The answer may hold fewer (never past the tail, and at
     * most {@link LogProtocol#MAX_READ_BYTES} of blocks); read again from where it ended.
     */
    public CompletableFuture<List<byte[]>> read(long position, int count) {
        long id = nextRequestId();
        return send(LogFrame.read(ByteBufAllocator.DEFAULT, id, position, count), BLOCKS, f -> {
            int n = f.intAt(8);
            int blockSize = f.intAt(12);
            List<byte[]> blocks = new ArrayList<>(n);
            ByteBuf body = f.body();
            for (int i = 0; i < n; i++) {
                byte[] b = new byte[blockSize];
                body.getBytes(body.readerIndex() + 16 + i * blockSize, b);
                blocks.add(b);
            }
            return blocks;
        });
    }

    /** Reads one block. */
    public CompletableFuture<byte[]> read(long position) {
        return read(position, 1).thenApply(l -> l.get(0));
    }

    /** The configuration given to CREATE (decoded from position 0). */
    public CompletableFuture<byte[]> config() {
        return read(0).thenApply(ConfigBlock::decodeConfig);
    }

    /** Tail, trim point and block size. */
    public CompletableFuture<LogStatus> status() {
        long id = nextRequestId();
        return send(LogFrame.tail(id), TAIL_IS, f -> {
            UUID logId = f.logIdAt(20);
            learn(logId);
            return new LogStatus(f.longAt(0), f.longAt(8), f.intAt(16), logId);
        });
    }

    /** The next position to be written. */
    public CompletableFuture<Long> tail() {
        return status().thenApply(LogStatus::tail);
    }

    /** Releases positions below {@code position}; completes with the trim point in force. */
    public CompletableFuture<Long> trim(long position) {
        long id = nextRequestId();
        return send(LogFrame.trim(ByteBufAllocator.DEFAULT, id, position), TRIMMED_TO, f -> f.longAt(0));
    }

    /**
     * Subscribes to every block from {@code from} on, in order, over a connection of its own. If that connection
     * breaks, the subscription reconnects and resumes after the last block delivered, so the listener sees every
     * position exactly once. Close the returned subscription to stop.
     */
    public LogSubscription subscribe(long from, BlockListener listener) {
        if (closed) {
            throw new LogConnectionException("the client is closed");
        }
        LogSubscription s = new LogSubscription(this, from, listener);
        subscriptions.add(s);
        s.start();
        return s;
    }

    void subscriptionClosed(LogSubscription s) {
        subscriptions.remove(s);
    }

    /** The id of the log this client is bound to; null until an answer has named it (see the class comment). */
    public UUID logId() {
        return logId;
    }

    /** Requests sent or waiting to be sent, not yet answered. */
    public int inFlight() {
        return core.inFlight();
    }

    private <T> CompletableFuture<T> send(LogFrame frame, byte answerType, AnswerDecoder<T> decoder) {
        CompletableFuture<T> future = new CompletableFuture<>();
        LogConnectionException stopped = diverged;
        if (closed || stopped != null) {
            frame.release();
            future.completeExceptionally(stopped != null ? stopped : new LogConnectionException("the client is closed"));
            return future;
        }
        Pending<T> p = new Pending<>(frame.requestId(), frame.type(), answerType, future, decoder, System.nanoTime() + timeoutNanos);
        if (!core.register(p)) {
            frame.release();
            future.completeExceptionally(new LogTimeoutException(options.maxInFlight() + " requests to " + target
                    + " are in flight and none finished within " + options.requestTimeout().toMillis() + " ms"));
            return future;
        }
        outbound.post(frame);
        return future;
    }

    /** Removes and finishes one pending request exactly once. */
    private Pending<?> take(long id) {
        return core.take(id);
    }

    /** Event loop, after a sweep: abandons a connection that left a request (or its first TAIL) unanswered. */
    private void abandonIfUnanswered(boolean sentCallExpired) {
        boolean unanswered = sentCallExpired || (handshakeId != 0 && System.nanoTime() - handshakeDeadline > 0);
        Channel ch = channel;
        if (unanswered && ch != null) {
            LOG.warn("log server {} left a request unanswered for {} ms; closing the connection and reconnecting",
                    target, options.requestTimeout().toMillis());
            ch.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ connection

    /** Event loop: a new connection; if the client is bound to a log, requests wait until the server proves it holds it. */
    private void connected(Channel ch) {
        channel = ch;
        if (!replicas.several()) {
            reconnector.connected();
        }
        if (logId != null || replicas.several()) {
            // a replicated log: the answer also names the leader, where appends must go
            handshakeId = nextRequestId();
            handshakeDeadline = System.nanoTime() + timeoutNanos;
            ch.writeAndFlush(LogFrame.tail(handshakeId), ch.voidPromise());
            return;
        }
        sendBacklog(ch);
    }

    /** Event loop: the answer to the connection's first TAIL; sends what waited for it, or stops the client. */
    private void handshakeAnswered(Channel ch, LogFrame f) {
        handshakeId = 0;
        if (f.type() != TAIL_IS) {
            LOG.warn("log server {} answered the connection's first TAIL with {}; reconnecting", target,
                    f.type() == ERROR ? f.errorCode() + ": " + f.errorMessage() : LogProtocol.typeName(f.type()));
            ch.close();
            return;
        }
        if (replicas.several()) {
            // a replica that knows no leader (an election, or it is cut off) is left too: the requests wait for one
            // that does (the next in turn, at the backoff) rather than be refused here with NOT_LEADER
            String moved = replicas.redirect(f.leaderInTail(), true);
            if (moved != null) {
                LOG.info("{}; going to {}", moved, replicas.currentName());
                moveOnPending = true;
                ch.close();
                return;
            }
            atLeader = true;
            if (logId == null) {
                learn(f.logIdAt(20));
                sendBacklog(ch);
                return;
            }
        }
        if (replicas.several() && f.bodyLength() >= 36 && f.logIdAt(20) == null) {
            // a replica that has not applied the log's CREATE yet (new, or catching up): another one
            LOG.info("log server {} holds no log yet; trying another replica", target);
            replicas.moveOn();
            moveOnPending = true;
            ch.close();
            return;
        }
        String other = otherLog(f);
        if (other == null) {
            sendBacklog(ch);
            return;
        }
        diverge(other + ", not the log this client was using (id " + logId
                + "); nothing more was sent to it, and this client stops (its data directory was wiped or swapped?)");
    }

    /**
     * What a TAIL answer shows behind this client's address: null if it is the log the client is bound to (or the
     * server is of a version that sends no log id), else a description of the other log there.
     */
    String otherLog(LogFrame tailIs) {
        if (tailIs.bodyLength() < 36) {
            return null; // a server before log ids: nothing to compare
        }
        UUID found = tailIs.logIdAt(20);
        return logId.equals(found) ? null : "the log server at " + target + " now holds "
                + (found == null ? "a log not created yet" : "another log (id " + found + ")");
    }

    /** Event loop: binds the client to the log an answer names, or stops it if that is another log. */
    private void learn(UUID id) {
        UUID known = logId;
        if (id == null || id.equals(known)) {
            return;
        }
        if (known == null) {
            logId = id;
            return;
        }
        diverge("the log server at " + target + " answered for another log (id " + id + ") than the one this client "
                + "was using (id " + known + "); this client stops");
    }

    /** Event loop: stops the client for good; what waits or is in flight fails, subscriptions end. */
    private void diverge(String why) {
        if (diverged != null) {
            return;
        }
        LogConnectionException e = new LogConnectionException(why);
        diverged = e;
        LOG.error(why);
        for (LogFrame f; (f = backlog.poll()) != null; ) {
            f.release();
        }
        core.failAll(p -> p.future.completeExceptionally(e));
        for (LogSubscription s : subscriptions) {
            s.stopFor(e);
        }
        if (channel != null) {
            channel.close();
        }
    }

    /** Event loop: sends the requests that waited for a connection. */
    private void sendBacklog(Channel ch) {
        boolean wrote = false;
        for (LogFrame f; (f = backlog.poll()) != null; ) {
            wrote |= write(f);
        }
        if (wrote) {
            ch.flush();
        }
    }

    /** Event loop. */
    private void disconnected(Channel ch, Throwable cause) {
        if (channel != ch) {
            return;
        }
        channel = null;
        handshakeId = 0;
        atLeader = false;
        int failed = 0;
        for (Pending<?> p : core.calls()) {
            if (p.sent() && core.remove(p)) {
                failed++;
                p.future.completeExceptionally(new LogConnectionException("the connection to " + target + " was lost with "
                        + LogProtocol.typeName(p.type()) + " request " + p.id() + " in flight"
                        + (p.type() == APPEND ? "; the block may or may not have been appended" : ""), cause));
            }
        }
        if (!closed && diverged == null) {
            if (replicas.several() && !moveOnPending) {
                replicas.moveOn();
            }
            moveOnPending = false;
            LOG.warn("lost the connection to log server {} ({} requests failed); reconnecting{}", target, failed,
                    replicas.several() ? " to " + replicas.currentName() : "");
            if (nextAttemptSoon()) {
                reconnector.soon();
            } else {
                reconnector.later();
            }
        }
    }

    /**
     * Event loop: whether the next attempt goes at the minimum backoff. A replicated log's other replicas (or the
     * leader just named) are tried at the shortest backoff; it doubles once per round through all of them without a
     * real answer, so a failover is not slowed by backoff built up against the dead leader, and a cluster without a
     * leader is still not spun on.
     */
    private boolean nextAttemptSoon() {
        if (replicas.several() && ++attemptsThisRound < replicas.size()) {
            return true;
        }
        attemptsThisRound = 0;
        return false;
    }

    /**
     * Event loop, replicated log: a NOT_LEADER or OUTCOME_UNKNOWN answer sends the request connection to the leader it
     * names (or the next replica); the backoff is reset only by a real answer, so a client cannot bounce between
     * replicas faster than the backoff while there is no leader.
     */
    private void leaderCheck(Channel ch, LogFrame answer) {
        if (answer.type() != ERROR) {
            reconnector.connected();
            attemptsThisRound = 0;
            return;
        }
        ErrorCode code = answer.errorCode();
        if ((code == ErrorCode.NOT_LEADER || code == ErrorCode.OUTCOME_UNKNOWN) && !moveOnPending && channel == ch) {
            replicas.follow(answer.errorMessage());
            moveOnPending = true;
            LOG.info("log server {} answered {}; going to {}", target, code, replicas.currentName());
            ch.close();
        }
    }

    /** Event loop: writes a frame unless its request already timed out. */
    private boolean write(LogFrame f) {
        Pending<?> p = core.get(f.requestId());
        if (p == null) {
            f.release();
            return false;
        }
        p.sentOn(channel);
        channel.write(f, channel.voidPromise());
        return true;
    }

    /**
     * Closes the connection and its subscriptions; requests still in flight fail with
     * {@link LogConnectionException}. May be called from a callback on the client's I/O thread, which then does
     * not wait for the I/O threads to stop.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (LogSubscription s : subscriptions) {
            s.close();
        }
        boolean onLoop = loop.inEventLoop();
        if (onLoop) {
            closeConnection();
        } else {
            try {
                loop.submit(this::closeConnection).awaitUninterruptibly(5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the shared group is already shut down
            }
        }
        core.failAll(p -> p.future.completeExceptionally(new LogConnectionException("the client was closed with "
                + LogProtocol.typeName(p.type()) + " request " + p.id() + " in flight")));
        core.shutdown();
    }

    /** Event loop. */
    private void closeConnection() {
        for (LogFrame f; (f = backlog.poll()) != null; ) {
            f.release();
        }
        if (channel != null) {
            channel.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    @FunctionalInterface
    private interface AnswerDecoder<T> {
        T decode(LogFrame answer);
    }

    private static final class Pending<T> extends RpcCall {
        final byte answerType;
        final CompletableFuture<T> future;
        final AnswerDecoder<T> decoder;

        Pending(long id, byte type, byte answerType, CompletableFuture<T> future, AnswerDecoder<T> decoder, long deadline) {
            super(id, type, deadline);
            this.answerType = answerType;
            this.future = future;
            this.decoder = decoder;
        }

        void complete(LogFrame answer) {
            if (answer.type() == ERROR) {
                future.completeExceptionally(new LogErrorException(answer.errorCode(), answer.errorMessage()));
            } else if (answer.type() != answerType) {
                future.completeExceptionally(new LogException(LogProtocol.typeName(type()) + " request " + id()
                        + " was answered with " + LogProtocol.typeName(answer.type())));
            } else {
                try {
                    future.complete(decoder.decode(answer));
                } catch (RuntimeException e) {
                    future.completeExceptionally(new LogException("malformed " + LogProtocol.typeName(answer.type())
                            + " answer to request " + id(), e));
                }
            }
        }
    }

    private final class Outbound extends Mailbox<LogFrame> {
        Outbound(EventLoop loop) {
            super(loop);
        }

        @Override
        protected void deliver(LogFrame f) {
            if (diverged != null) {
                Pending<?> p = take(f.requestId());
                f.release();
                if (p != null) {
                    p.future.completeExceptionally(diverged);
                }
            } else if (channel != null && channel.isActive() && handshakeId == 0) {
                write(f);
            } else {
                backlog.add(f);
            }
        }

        @Override
        protected void delivered() {
            if (channel != null) {
                channel.flush();
            }
        }

        @Override
        protected void rejected(LogFrame f) {
            f.release();
        }
    }

    @ChannelHandler.Sharable
    private final class RequestHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (closed) {
                ctx.close();
                return;
            }
            connected(ctx.channel());
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            disconnected(ctx.channel(), null);
            ctx.fireChannelInactive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof LogFrame f)) {
                if (msg instanceof FrameTooLarge t) {
                    LOG.warn("log server {} sent a frame of {} bytes, above this client's limit of {}", target,
                            t.frameLength(), t.maxFrameLength());
                    Pending<?> p = take(t.requestId());
                    if (p != null) {
                        p.future.completeExceptionally(new LogErrorException(ErrorCode.FRAME_TOO_LARGE, "answer of "
                                + t.frameLength() + " bytes exceeds the client's limit (raise maxBlockSize)"));
                    }
                }
                ReferenceCountUtil.release(msg);
                return;
            }
            try {
                if (handshakeId != 0 && f.requestId() == handshakeId) {
                    handshakeAnswered(ctx.channel(), f);
                    return;
                }
                Pending<?> p = take(f.requestId());
                if (p != null) {
                    p.complete(f);
                    if (replicas.several()) {
                        leaderCheck(ctx.channel(), f);
                    }
                } else if (f.type() == ERROR) {
                    LOG.warn("log server {} reports {}: {}", target, f.errorCode(), f.errorMessage());
                } else {
                    LOG.debug("late or unknown answer {} from {}", f, target);
                }
            } finally {
                f.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("connection to log server {} failed: {}", target, cause.toString());
            ctx.close();
        }
    }
}
