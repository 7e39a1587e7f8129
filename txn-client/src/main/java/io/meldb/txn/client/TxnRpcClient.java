package io.meldb.txn.client;

import io.meldb.txn.protocol.TxnBodyReader;
import io.meldb.txn.protocol.TxnFrame;
import io.meldb.txn.protocol.TxnFrameDecoder;
import io.meldb.txn.protocol.TxnFrameEncoder;
import io.meldb.txn.protocol.TxnRpcProtocol;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.wire.Frame;
import io.meldb.wire.FrameTooLarge;
import io.meldb.wire.client.RpcCall;
import io.meldb.wire.client.RpcClientCore;
import io.meldb.wire.client.RpcConnectException;
import io.meldb.wire.client.RpcPeer;
import io.meldb.wire.client.RpcProtocol;
import io.netty.bootstrap.Bootstrap;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

import static io.meldb.txn.protocol.TxnRpcProtocol.*;

/**
 * A {@link TxnService} in another process, reached over the transaction RPC ({@link TxnRpcProtocol}). Its sessions
 * are {@link TxnSession}s that run every call as a request to the server; errors are the server's
 * {@link TxnException}s with their {@link TxnError} codes, plus:
 *
 * <ul>
 *   <li>{@link TxnError#TIMEOUT}: no answer within {@link TxnRpcClientOptions#requestTimeout()};</li>
 *   <li>{@link TxnError#SESSION_LOST}: the connection broke with the request in flight, or the session's connection
 *   is gone (the server aborted its open transactions). A COMMIT whose answer was lost may still have committed:
 *   the message says to ask {@link #outcome(TxnId)};</li>
 *   <li>{@link TxnError#UNAVAILABLE}: the server cannot be reached.</li>
 * </ul>
 * All sessions share one connection, with any number of requests in flight matched to answers by request id. When
 * the connection breaks, the sessions on it are lost; the next {@link #begin}, {@link #outcome} or
 * {@link #status} connects again. Thread-safe: many threads may each run their own sessions. Futures from
 * {@link TxnSession#commitAsync()} complete on the client's I/O thread: chain only non-blocking work onto them
 * (or use the {@code ...Async} stages); a blocking call of this client on that thread fails at once instead of
 * deadlocking. Connections, request ids, the calls in flight and their deadlines are the wire kit's
 * {@link RpcClientCore}, shared with the log client.
 */
public final class TxnRpcClient implements TxnService {
    private static final Logger LOG = LoggerFactory.getLogger(TxnRpcClient.class);

    private final TxnRpcClientOptions options;
    private final RpcClientCore<Pending<?>> core;
    private final Bootstrap bootstrap;
    private final String target;
    private final long timeoutNanos;
    private final Object connectLock = new Object();
    private volatile Channel channel;
    /** After a failed connect, calls fail at once until {@link #retryConnectAt} (guarded by connectLock). */
    private static final long RETRY_CONNECT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private String lastConnectFailure;
    private long retryConnectAt;
    private volatile boolean closed;

    private TxnRpcClient(TxnRpcClientOptions options) {
        this.options = options;
        RpcPeer peer = new RpcPeer("the transaction server", options.host(), options.port(), TxnRpcProtocol.MAGIC,
                TxnRpcProtocol.VERSION, options.clusterSecret(), options.connectTimeout(), options.keepaliveInterval());
        this.core = new RpcClientCore<>(peer, new RpcProtocol() {
            @Override
            public ChannelHandler newDecoder() {
                return new TxnFrameDecoder(options.maxFrameLength());
            }

            @Override
            public ChannelHandler encoder() {
                return TxnFrameEncoder.INSTANCE;
            }

            @Override
            public Frame keepalive(long requestId) {
                return TxnFrame.status(requestId);
            }
        }, null, options.ioThreads(), "txn-client", options.requestTimeout(), 0);
        this.target = core.target();
        this.timeoutNanos = options.requestTimeout().toNanos();
        this.bootstrap = core.bootstrap(core.group(), new AnswerHandler(), 0);
        core.startSweeper(5, p -> p.future.completeExceptionally(new TxnException(TxnError.TIMEOUT, p.describe()
                + " got no answer from " + target + " within " + options.requestTimeout().toMillis() + " ms"
                + p.outcomeHint())));
    }

    /** Connects to {@code host:port} with default options. */
    public static TxnRpcClient connect(String host, int port) {
        return connect(TxnRpcClientOptions.to(host, port));
    }

    /**
     * Connects, waiting for the connection so that a wrong address fails here.
     *
     * @throws TxnException {@link TxnError#UNAVAILABLE} if the server cannot be reached within the connect timeout
     */
    public static TxnRpcClient connect(TxnRpcClientOptions options) {
        TxnRpcClient client = new TxnRpcClient(options);
        try {
            client.connection();
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return client;
    }

    /**
     * A client that connects on first use, so that a server that is down now is picked up once it is back (a
     * gateway starts with the txn-servers that are up). While the server cannot be reached, calls fail with
     * {@link TxnError#UNAVAILABLE}, at once for a short while after each failed attempt.
     */
    public static TxnRpcClient open(TxnRpcClientOptions options) {
        return new TxnRpcClient(options);
    }

    public TxnRpcClientOptions options() {
        return options;
    }

    /** Requests sent and not yet answered. */
    public int inFlight() {
        return core.inFlight();
    }

    // ------------------------------------------------------------------------------------------------ TxnService

    @Override
    public TxnSession begin(IsolationLevel isolation, boolean readOnly) {
        return begin(isolation, readOnly, 0);
    }

    /** BEGIN; a restart count above 0 is sent (the field is optional on the wire, so a first attempt omits it). */
    @Override
    public TxnSession begin(IsolationLevel isolation, boolean readOnly, int restarts) {
        if (isolation == null) {
            throw new TxnException(TxnError.BAD_REQUEST, "isolation must not be null");
        }
        if (restarts < 0) {
            throw new TxnException(TxnError.BAD_REQUEST, "restart count " + restarts + " must not be negative");
        }
        Channel ch = connection();
        return await(send(ch, BEGIN, null, id -> restarts == 0
                        ? TxnFrame.begin(ByteBufAllocator.DEFAULT, id, isolation, readOnly)
                        : TxnFrame.begin(ByteBufAllocator.DEFAULT, id, isolation, readOnly, restarts),
                BEGUN, f -> {
                    TxnBodyReader r = f.reader();
                    long handle = r.readLong("handle");
                    TxnId txn = new TxnId(r.readLong("incarnation"), r.readLong("sequence"));
                    long snapshotCsn = r.readLong("snapshotCsn");
                    IsolationLevel iso = r.readIsolation();
                    boolean ro = r.readBoolean("readOnly");
                    r.end();
                    return new RemoteTxnSession(this, ch, handle, txn, iso, ro, snapshotCsn);
                }));
    }

    @Override
    public TxnOutcome outcome(TxnId id) {
        if (id == null) {
            throw new TxnException(TxnError.BAD_REQUEST, "transaction id must not be null");
        }
        Channel ch = connection();
        return await(send(ch, OUTCOME, null, rid -> TxnFrame.outcome(ByteBufAllocator.DEFAULT, rid, id), OUTCOME_IS, f -> {
            TxnBodyReader r = f.reader();
            TxnId txn = new TxnId(r.readLong("incarnation"), r.readLong("sequence"));
            TxnOutcome.State state = TxnRpcProtocol.stateOf(r.readByte("state"));
            long csn = r.readLong("csn");
            String reason = r.readString("reason");
            r.end();
            return new TxnOutcome(txn, state, csn, reason);
        }));
    }

    /** OUTCOME with a wait; the request's own timeout is extended by the wait. */
    @Override
    public TxnOutcome awaitOutcome(TxnId id, long waitMillis) {
        if (id == null) {
            throw new TxnException(TxnError.BAD_REQUEST, "transaction id must not be null");
        }
        int wait = (int) Math.max(1, Math.min(waitMillis, MAX_OUTCOME_WAIT_MILLIS));
        Channel ch = connection();
        return await(send(ch, OUTCOME, null, rid -> TxnFrame.awaitOutcome(ByteBufAllocator.DEFAULT, rid, id, wait),
                OUTCOME_IS, TxnRpcClient::decodeOutcome, TimeUnit.MILLISECONDS.toNanos(wait)));
    }

    private static TxnOutcome decodeOutcome(TxnFrame f) {
        TxnBodyReader r = f.reader();
        TxnId txn = new TxnId(r.readLong("incarnation"), r.readLong("sequence"));
        TxnOutcome.State state = TxnRpcProtocol.stateOf(r.readByte("state"));
        long csn = r.readLong("csn");
        String reason = r.readString("reason");
        r.end();
        return new TxnOutcome(txn, state, csn, reason);
    }

    @Override
    public ServerStatus status() {
        Channel ch = connection();
        return await(send(ch, STATUS, null, TxnFrame::status, STATUS_IS, f -> {
            TxnBodyReader r = f.reader();
            ServerStatus s = new ServerStatus(r.readInt("serverId"), r.readLong("incarnation"), r.readLong("csn"),
                    r.readLong("stateHash"), r.readInt("inFlight"));
            r.end();
            return s;
        }));
    }

    /**
     * Closes the connection and the I/O threads. Requests in flight fail with SESSION_LOST; the server aborts the
     * open transactions of this client (commits in flight go on).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Channel ch;
        synchronized (connectLock) {
            ch = channel;
        }
        if (ch != null) {
            ch.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        core.failAll(p -> p.future.completeExceptionally(new TxnException(p.type() == COMMIT ? TxnError.OUTCOME_UNKNOWN
                : TxnError.SESSION_LOST, "the client was closed with " + p.describe() + " in flight" + p.outcomeHint())));
        core.shutdown();
    }

    // ------------------------------------------------------------------------------------------------ requests

    /** The current connection, connecting again if it broke. */
    private Channel connection() {
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            return ch;
        }
        synchronized (connectLock) {
            if (closed) {
                throw new TxnException(TxnError.SESSION_LOST, "the client is closed");
            }
            ch = channel;
            if (ch != null && ch.isActive()) {
                return ch;
            }
            if (lastConnectFailure != null && System.nanoTime() - retryConnectAt < 0) {
                throw new TxnException(TxnError.UNAVAILABLE, lastConnectFailure);
            }
            try {
                channel = core.connectNow(bootstrap);
            } catch (RpcConnectException e) {
                if (!e.handshake()) {
                    lastConnectFailure = e.getMessage();
                    retryConnectAt = System.nanoTime() + RETRY_CONNECT_NANOS;
                }
                throw new TxnException(TxnError.UNAVAILABLE, e.getMessage());
            }
            lastConnectFailure = null;
            return channel;
        }
    }

    /** Sends one request on {@code ch}; {@code txn} names the transaction it belongs to (for error messages). */
    <T> CompletableFuture<T> send(Channel ch, byte type, TxnId txn, LongFunction<TxnFrame> request, byte answerType,
                                  AnswerDecoder<T> decoder) {
        return send(ch, type, txn, request, answerType, decoder, 0);
    }

    /** As {@link #send(Channel, byte, TxnId, LongFunction, byte, AnswerDecoder)}, waiting longer by {@code extraNanos}. */
    <T> CompletableFuture<T> send(Channel ch, byte type, TxnId txn, LongFunction<TxnFrame> request,
                                  byte answerType, AnswerDecoder<T> decoder, long extraNanos) {
        long id = core.nextRequestId();
        Pending<T> p = new Pending<>(id, type, answerType, ch, txn, decoder,
                System.nanoTime() + timeoutNanos + extraNanos);
        core.register(p);
        if (closed) {
            fail(p, new TxnException(TxnError.SESSION_LOST, "the client is closed"));
            return p.future;
        }
        TxnFrame frame = request.apply(id);
        ch.writeAndFlush(frame).addListener(f -> {
            if (!f.isSuccess()) {
                fail(p, lost(p, f.cause()));
            }
        });
        return p.future;
    }

    /** Waits for an answer (bounded by the request timeout) and throws its error in the caller's thread. */
    <T> T await(CompletableFuture<T> future) {
        if (!future.isDone() && core.onIoThread()) {
            throw new TxnException(TxnError.INTERNAL, "a blocking TxnRpcClient call on the client's I/O thread would "
                    + "deadlock; chain it with an ...Async stage instead");
        }
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TxnException t) {
                throw new TxnException(t.error(), t.getMessage(), t);
            }
            throw new TxnException(TxnError.INTERNAL, String.valueOf(cause), cause);
        }
    }

    /** The error of a session call whose connection is gone. */
    TxnException sessionLost(TxnId txn) {
        return new TxnException(TxnError.SESSION_LOST, "the connection to " + target + " was lost"
                + (closed ? " (client closed)" : "") + "; transaction " + txn + " is gone (the server aborted it)");
    }

    String target() {
        return target;
    }

    private void fail(Pending<?> p, TxnException e) {
        if (core.remove(p)) {
            p.future.completeExceptionally(e);
        }
    }

    private TxnException lost(Pending<?> p, Throwable cause) {
        String because = cause == null ? "" : " (" + cause.getMessage() + ")";
        // a COMMIT that was sent may have committed: its outcome is unknown here, not lost
        return new TxnException(p.type() == COMMIT ? TxnError.OUTCOME_UNKNOWN : TxnError.SESSION_LOST, "the connection to " + target + " was lost" + because + " with "
                + p.describe() + " in flight" + p.outcomeHint());
    }

    /** I/O thread: the connection {@code ch} closed; fails what was in flight on it. */
    private void connectionLost(Channel ch) {
        int failed = 0;
        for (Pending<?> p : core.calls()) {
            if (p.channel() == ch && core.remove(p)) {
                p.future.completeExceptionally(lost(p, null));
                failed++;
            }
        }
        if (!closed) {
            LOG.warn("lost the connection to transaction server {} ({} requests failed)", target, failed);
        }
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    @FunctionalInterface
    interface AnswerDecoder<T> {
        T decode(TxnFrame answer);
    }

    /** One request waiting for its answer. */
    private static final class Pending<T> extends RpcCall {
        final byte answerType;
        final TxnId txn;
        final AnswerDecoder<T> decoder;
        final CompletableFuture<T> future = new CompletableFuture<>();

        Pending(long id, byte type, byte answerType, Channel channel, TxnId txn, AnswerDecoder<T> decoder, long deadline) {
            super(id, type, deadline);
            this.answerType = answerType;
            this.txn = txn;
            this.decoder = decoder;
            sentOn(channel);
        }

        String describe() {
            return typeName(type()) + " request " + id() + (txn == null ? "" : " of transaction " + txn);
        }

        String outcomeHint() {
            return type() == COMMIT ? "; the commit may or may not have happened: its outcome may be asked via outcome("
                    + txn + ")" : "";
        }

        void complete(TxnFrame answer) {
            if (answer.type() == ERROR) {
                future.completeExceptionally(new TxnException(answer.errorCode(), answer.errorMessage()));
            } else if (answer.type() != answerType) {
                future.completeExceptionally(new TxnException(TxnError.INTERNAL, describe() + " was answered with "
                        + typeName(answer.type())));
            } else {
                try {
                    future.complete(decoder.decode(answer));
                } catch (RuntimeException e) {
                    future.completeExceptionally(new TxnException(TxnError.INTERNAL, "malformed "
                            + typeName(answer.type()) + " answer to " + describe() + ": " + e.getMessage()));
                }
            }
        }
    }

    @ChannelHandler.Sharable
    private final class AnswerHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof FrameTooLarge t) {
                Pending<?> p = core.get(t.requestId());
                if (p != null) {
                    fail(p, new TxnException(TxnError.TOO_LARGE, "the answer to " + p.describe() + " ("
                            + t.frameLength() + " bytes) exceeds this client's limit of " + t.maxFrameLength()));
                }
                return;
            }
            if (!(msg instanceof TxnFrame f)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            try {
                Pending<?> p = core.take(f.requestId());
                if (p != null) {
                    p.complete(f);
                } else if (f.type() == BEGUN && f.bodyLength() >= 8) {
                    abortOrphan(ctx.channel(), f.body().getLong(f.body().readerIndex()));
                } else if (f.type() == ERROR) {
                    LOG.warn("transaction server {} reports {}: {}", target, f.errorCode(), f.errorMessage());
                } else {
                    LOG.debug("late or unknown answer {} from {}", f, target);
                }
            } finally {
                f.release();
            }
        }

        /** A BEGIN answered after it timed out: nobody holds the transaction, so end it on the server. */
        private void abortOrphan(Channel ch, long handle) {
            LOG.debug("aborting transaction handle {} whose BEGIN was answered after its timeout", handle);
            ch.writeAndFlush(TxnFrame.abort(ch.alloc(), core.nextRequestId(), handle), ch.voidPromise());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            connectionLost(ctx.channel());
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("connection to transaction server {} failed: {}", target, cause.toString());
            ctx.close();
        }
    }
}
