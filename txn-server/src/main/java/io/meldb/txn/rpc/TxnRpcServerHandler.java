package io.meldb.txn.rpc;

import io.meldb.txn.protocol.TxnBodyReader;
import io.meldb.txn.protocol.TxnFrame;
import io.meldb.txn.protocol.TxnRpcProtocol;
import io.meldb.core.IntField;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.wire.FrameFormat;
import io.meldb.wire.FrameServerHandler;
import io.meldb.wire.FrameStreamException;
import io.meldb.wire.FrameTooLarge;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.netty.channel.ChannelHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

import static io.meldb.txn.protocol.TxnRpcProtocol.*;

/**
 * One client connection of the transaction RPC: carries out each request against the {@link TxnService} and
 * answers it, with the request's id. Runs on the connection's event loop, which owns the connection's table of
 * open transactions (handle to {@link TxnSession}).
 *
 * <ul>
 *   <li>GET, SCAN, DEPEND, PUT, ADD, DELETE, ABORT, OUTCOME and STATUS run on the event loop (they work on the snapshot in
 *   memory). BEGIN runs on the server's begin pool, COMMIT through {@code commitAsync()}; their answers come back to
 *   the event loop, which stays free meanwhile.</li>
 *   <li>A connection has at most {@code maxTransactionsPerConnection} transactions open, beginning or committing;
 *   a BEGIN beyond that is answered OVERLOADED.</li>
 *   <li>When the connection closes, its open transactions are aborted (and transactions whose BEGIN finishes
 *   afterwards are aborted as they arrive); commits in flight go on.</li>
 *   <li>A broken stream (bad magic, version or length) is answered BAD_REQUEST and closed ({@link FrameServerHandler}).</li>
 * </ul>
 */
final class TxnRpcServerHandler extends FrameServerHandler<TxnFrame> {
    private static final Logger LOG = LoggerFactory.getLogger(TxnRpcServerHandler.class);

    private final TxnRpcServer server;
    private final TxnService service;
    private final TxnRpcMetrics metrics;
    private final int maxFrameLength;
    private final int maxTransactions;

    // event loop only
    private final Map<Long, TxnSession> sessions = new HashMap<>();
    private long lastHandle;
    private int beginning;
    private int committing;
    private boolean inactive;
    private ChannelHandlerContext ctx;

    TxnRpcServerHandler(TxnRpcServer server) {
        super(TxnRpcProtocol.FORMAT);
        this.server = server;
        this.service = server.service();
        this.metrics = server.metrics();
        this.maxFrameLength = server.options().maxFrameLength();
        this.maxTransactions = server.options().maxTransactionsPerConnection();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        server.connectionOpened(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    protected void frameTooLarge(ChannelHandlerContext ctx, FrameTooLarge t) {
        answerError(t.type(), t.requestId(), System.nanoTime(), new TxnException(TxnError.TOO_LARGE,
                typeName(t.type()) + " frame of " + t.frameLength() + " bytes exceeds this server's limit of "
                        + t.maxFrameLength()));
    }

    @Override
    protected void frameRead(ChannelHandlerContext ctx, TxnFrame frame) {
        long start = System.nanoTime();
        try {
            handle(frame, start);
        } catch (TxnException e) {
            answerError(frame.type(), frame.requestId(), start, e);
        } catch (RuntimeException e) {
            answerError(frame.type(), frame.requestId(), start, unexpected(frame.type(), e));
        }
    }

    private void handle(TxnFrame f, long start) {
        TxnBodyReader r = f.reader();
        switch (f.type()) {
            case BEGIN -> begin(f, r, start);
            case GET -> {
                TxnSession s = session(r.readLong("handle"));
                byte[] key = r.readBytes("key");
                long columns = r.hasMore() ? r.readLong("column mask") : io.meldb.core.ColumnReads.WHOLE_ROW;
                r.end();
                byte[] value;
                if (columns == io.meldb.core.ColumnReads.WHOLE_ROW) {
                    value = s.get(key);
                } else {
                    org.agrona.ExpandableArrayBuffer into = new org.agrona.ExpandableArrayBuffer(64);
                    int length = s.get(key, into, columns);
                    value = length < 0 ? null : java.util.Arrays.copyOf(into.byteArray(), length);
                }
                answer(f, start, TxnFrame.value(ctx.alloc(), f.requestId(), value));
            }
            case SCAN -> scan(f, r, start);
            case PUT -> {
                TxnSession s = session(r.readLong("handle"));
                byte[] key = r.readBytes("key");
                byte[] value = r.readBytes("value");
                r.end();
                s.put(key, value);
                answer(f, start, TxnFrame.done(f.requestId()));
            }
            case ADD -> {
                TxnSession s = session(r.readLong("handle"));
                byte[] key = r.readBytes("key");
                int offset = r.readInt("offset");
                int width = r.readByte("width");
                int flags = r.readByte("flags");
                long delta = r.readLong("delta");
                long min = r.readLong("min");
                long max = r.readLong("max");
                r.end();
                if ((flags & ~ADD_PRESENCE_BYTE) != 0) {
                    throw new TxnException(TxnError.BAD_REQUEST, "ADD has unknown flags 0x"
                            + Integer.toHexString(flags & 0xFF));
                }
                IntField field;
                try {
                    field = new IntField(offset, width, (flags & ADD_PRESENCE_BYTE) != 0, min, max);
                } catch (IllegalArgumentException e) {
                    throw new TxnException(TxnError.BAD_REQUEST, "ADD: " + e.getMessage());
                }
                s.add(key, field, delta);
                answer(f, start, TxnFrame.done(f.requestId()));
            }
            case DELETE -> {
                TxnSession s = session(r.readLong("handle"));
                byte[] key = r.readBytes("key");
                r.end();
                s.delete(key);
                answer(f, start, TxnFrame.done(f.requestId()));
            }
            case DEPEND -> {
                TxnSession s = session(r.readLong("handle"));
                int flags = r.readByte("flags");
                byte[] lo = r.readBytes("lo");
                byte[] hi = r.readBytes("hi");
                r.end();
                if ((flags & ~(SCAN_LO_INCLUSIVE | SCAN_HI_INCLUSIVE)) != 0) {
                    throw new TxnException(TxnError.BAD_REQUEST, "DEPEND has unknown flags 0x"
                            + Integer.toHexString(flags & 0xFF));
                }
                s.dependOn(lo, (flags & SCAN_LO_INCLUSIVE) != 0, hi, (flags & SCAN_HI_INCLUSIVE) != 0);
                answer(f, start, TxnFrame.done(f.requestId()));
            }
            case COMMIT -> commit(f, r, start);
            case ABORT -> {
                long handle = r.readLong("handle");
                r.end();
                TxnSession s = sessions.remove(handle);
                if (s != null) {
                    server.transactionsChanged(-1);
                    s.abort();
                }
                answer(f, start, TxnFrame.done(f.requestId()));
            }
            case OUTCOME -> {
                TxnId id = new TxnId(r.readLong("incarnation"), r.readLong("sequence"));
                int waitMillis = r.hasMore() ? r.readInt("waitMillis") : 0;
                r.end();
                if (waitMillis < 0 || waitMillis > MAX_OUTCOME_WAIT_MILLIS) {
                    throw new TxnException(TxnError.BAD_REQUEST, "OUTCOME wait of " + waitMillis
                            + " ms is outside 0.." + MAX_OUTCOME_WAIT_MILLIS);
                }
                if (waitMillis == 0) {
                    answer(f, start, TxnFrame.outcomeIs(ctx.alloc(), f.requestId(), service.outcome(id)));
                } else {
                    awaitOutcome(f.requestId(), id, waitMillis, start);
                }
            }
            case STATUS -> {
                r.end();
                answer(f, start, TxnFrame.statusIs(ctx.alloc(), f.requestId(), service.status()));
            }
            default -> throw new TxnException(TxnError.BAD_REQUEST, "frame type " + typeName(f.type())
                    + " is not a request");
        }
    }

    /** OUTCOME with a wait: waits off the event loop, then answers on it. */
    private void awaitOutcome(long requestId, TxnId id, int waitMillis, long start) {
        try {
            server.outcomeExecutor().execute(() -> {
                TxnFrame answer;
                try {
                    answer = TxnFrame.outcomeIs(ctx.alloc(), requestId, service.awaitOutcome(id, waitMillis));
                } catch (TxnException e) {
                    answer = TxnFrame.error(ctx.alloc(), requestId, e.error(), e.getMessage());
                } catch (RuntimeException e) {
                    TxnException u = unexpected(OUTCOME, e);
                    answer = TxnFrame.error(ctx.alloc(), requestId, u.error(), u.getMessage());
                }
                metrics.record(OUTCOME, null, start);
                ctx.writeAndFlush(answer, ctx.voidPromise());
            });
        } catch (RejectedExecutionException e) {
            throw new TxnException(server.isClosed() ? TxnError.UNAVAILABLE : TxnError.OVERLOADED,
                    "too many OUTCOME requests are waiting on this server");
        }
    }

    private void scan(TxnFrame f, TxnBodyReader r, long start) {
        TxnSession s = session(r.readLong("handle"));
        int flags = r.readByte("flags");
        int limit = r.readInt("limit");
        byte[] lo = r.readBytes("lo");
        byte[] hi = r.readBytes("hi");
        r.end();
        if ((flags & ~(SCAN_LO_INCLUSIVE | SCAN_HI_INCLUSIVE | SCAN_DESCENDING)) != 0) {
            throw new TxnException(TxnError.BAD_REQUEST, "SCAN has unknown flags 0x" + Integer.toHexString(flags & 0xFF));
        }
        List<KeyValue> entries = s.scan(lo, (flags & SCAN_LO_INCLUSIVE) != 0, hi, (flags & SCAN_HI_INCLUSIVE) != 0,
                (flags & SCAN_DESCENDING) != 0, limit);
        long length = FrameFormat.MIN_FRAME_LENGTH + TxnFrame.entriesBodyLength(entries);
        if (length > maxFrameLength) {
            throw new TxnException(TxnError.TOO_LARGE, "the answer to this SCAN (" + entries.size() + " entries, "
                    + length + " bytes) exceeds the frame limit of " + maxFrameLength + "; scan with a limit");
        }
        answer(f, start, TxnFrame.entries(ctx.alloc(), f.requestId(), entries));
    }

    private void begin(TxnFrame f, TxnBodyReader r, long start) {
        IsolationLevel isolation = r.readIsolation();
        boolean readOnly = r.readBoolean("readOnly");
        int restarts = r.hasMore() ? r.readByte("restarts") & 0xFF : 0;
        r.end();
        int open = sessions.size() + beginning + committing;
        if (open >= maxTransactions) {
            throw new TxnException(TxnError.OVERLOADED, "this connection has " + open
                    + " transactions open, beginning or committing (limit " + maxTransactions + "); end some first");
        }
        if (server.isClosed()) {
            throw new TxnException(TxnError.UNAVAILABLE, "the server is stopping");
        }
        long requestId = f.requestId();
        beginning++;
        server.transactionsChanged(1);
        try {
            server.beginExecutor().execute(() -> runBegin(requestId, isolation, readOnly, restarts, start));
        } catch (RejectedExecutionException e) {
            beginning--;
            server.transactionsChanged(-1);
            throw server.isClosed()
                    ? new TxnException(TxnError.UNAVAILABLE, "the server is stopping")
                    : new TxnException(TxnError.OVERLOADED, "too many BEGIN requests are waiting for admission on this server");
        }
    }

    /** Begin pool: begins, then hands the session to the event loop. */
    private void runBegin(long requestId, IsolationLevel isolation, boolean readOnly, int restarts, long start) {
        TxnSession session = null;
        TxnException error = null;
        try {
            session = service.begin(isolation, readOnly, restarts);
        } catch (TxnException e) {
            error = e;
        } catch (RuntimeException e) {
            error = unexpected(BEGIN, e);
        }
        TxnSession s = session;
        TxnException err = error;
        try {
            ctx.executor().execute(() -> begun(requestId, s, err, start));
        } catch (RejectedExecutionException e) {
            server.transactionsChanged(-1);
            abortQuietly(s);
        }
    }

    /** Event loop: a BEGIN finished. */
    private void begun(long requestId, TxnSession s, TxnException error, long start) {
        beginning--;
        if (error != null) {
            server.transactionsChanged(-1);
            if (!inactive) {
                answerError(BEGIN, requestId, start, error);
                ctx.flush();
            }
            return;
        }
        if (inactive) {
            server.transactionsChanged(-1);
            LOG.debug("connection {} closed while transaction {} began; aborting it", ctx.channel().remoteAddress(), s.id());
            abortQuietly(s);
            return;
        }
        long handle = ++lastHandle;
        sessions.put(handle, s);
        TxnFrame answer;
        try {
            answer = TxnFrame.begun(ctx.alloc(), requestId, handle, s.id(), s.snapshotCsn(), s.isolation(), s.readOnly());
        } catch (RuntimeException e) {
            sessions.remove(handle);
            server.transactionsChanged(-1);
            abortQuietly(s);
            answerError(BEGIN, requestId, start, unexpected(BEGIN, e));
            ctx.flush();
            return;
        }
        metrics.record(BEGIN, null, start);
        ctx.writeAndFlush(answer, ctx.voidPromise());
    }

    private void commit(TxnFrame f, TxnBodyReader r, long start) {
        long handle = r.readLong("handle");
        r.end();
        TxnSession s = session(handle);
        sessions.remove(handle);
        committing++;
        long requestId = f.requestId();
        CompletableFuture<Long> future;
        try {
            future = s.commitAsync();
        } catch (RuntimeException e) {
            committing--;
            server.transactionsChanged(-1);
            throw e;
        }
        future.whenComplete((csn, failure) -> {
            if (ctx.executor().inEventLoop()) {
                committed(requestId, s, csn, failure, start);
                return;
            }
            try {
                ctx.executor().execute(() -> committed(requestId, s, csn, failure, start));
            } catch (RejectedExecutionException e) {
                server.transactionsChanged(-1);
                LOG.debug("server stopped before answering the commit of {}; its outcome is in the log", s.id());
            }
        });
    }

    /** Event loop: a COMMIT finished. */
    private void committed(long requestId, TxnSession s, Long csn, Throwable failure, long start) {
        committing--;
        server.transactionsChanged(-1);
        if (inactive) {
            LOG.debug("connection {} closed before the commit of {} finished; its outcome can be asked for",
                    ctx.channel().remoteAddress(), s.id());
            return;
        }
        if (failure == null) {
            metrics.record(COMMIT, null, start);
            ctx.writeAndFlush(TxnFrame.committed(ctx.alloc(), requestId, csn), ctx.voidPromise());
        } else {
            Throwable cause = unwrap(failure);
            TxnException e = cause instanceof TxnException t ? t : unexpected(COMMIT, cause);
            answerError(COMMIT, requestId, start, e);
            ctx.flush();
        }
    }

    private TxnSession session(long handle) {
        TxnSession s = sessions.get(handle);
        if (s == null) {
            throw new TxnException(TxnError.UNKNOWN_TRANSACTION, "no open transaction with handle " + handle
                    + " on this connection (it ended, or was never begun here)");
        }
        return s;
    }

    private void answer(TxnFrame request, long start, TxnFrame answer) {
        metrics.record(request.type(), null, start);
        ctx.write(answer, ctx.voidPromise());
    }

    private void answerError(byte type, long requestId, long start, TxnException e) {
        metrics.record(type, e.error(), start);
        ctx.write(TxnFrame.error(ctx.alloc(), requestId, e.error(), e.getMessage()), ctx.voidPromise());
    }

    private TxnException unexpected(byte type, Throwable e) {
        if (e instanceof IllegalArgumentException) {
            return new TxnException(TxnError.BAD_REQUEST, e.getMessage() == null ? e.toString() : e.getMessage());
        }
        LOG.warn("{} on {} failed unexpectedly", typeName(type), ctx.channel().remoteAddress(), e);
        return new TxnException(TxnError.INTERNAL, typeName(type) + " failed unexpectedly: " + e);
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static void abortQuietly(TxnSession s) {
        if (s == null) {
            return;
        }
        try {
            s.abort();
        } catch (RuntimeException e) {
            LOG.debug("aborting {} failed: {}", s.id(), e.toString());
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // a client that does not read its answers stops being read, instead of growing the outbound buffer
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        inactive = true;
        if (!sessions.isEmpty()) {
            LOG.debug("connection {} closed with {} open transactions; aborting them", ctx.channel().remoteAddress(),
                    sessions.size());
        }
        List<TxnSession> open = new ArrayList<>(sessions.values());
        sessions.clear();
        server.transactionsChanged(-open.size());
        for (TxnSession s : open) {
            abortQuietly(s);
        }
        server.connectionClosed(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    protected TxnFrame streamBrokenAnswer(ChannelHandlerContext ctx, FrameStreamException e, String message) {
        metrics.record((byte) 0, TxnError.BAD_REQUEST, System.nanoTime());
        return TxnFrame.error(ctx.alloc(), 0, TxnError.BAD_REQUEST, message);
    }
}
