package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.meldb.wire.FrameServerHandler;
import io.meldb.wire.FrameStreamException;
import io.meldb.wire.FrameTooLarge;
import io.meldb.log.protocol.LogFrame;
import io.meldb.log.protocol.LogProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

import static io.meldb.log.protocol.LogProtocol.*;

/**
 * One client connection of the log service (Hyder II §5.1): carries out each request against the
 * {@link LogStore} and answers it, with the request's id, as a frame. Runs on the connection's event loop.
 *
 * <ul>
 *   <li>Appends are pipelined: each goes to the store's writer thread and its answer comes back through the
 *   {@link AckDispatcher}, so acknowledgements of one storage batch cost one event-loop task and one flush per
 *   connection. A connection with too many unanswered appends or READs, or with more answers queued than its socket
 *   takes, is not read until they clear ({@link #updateReading}), which bounds what one client can park in server
 *   memory.</li>
 *   <li>Stored blocks (READ, SUBSCRIBE) are read on the connection's read thread, one of {@link LogServer#readers()},
 *   and the answers handed back to the event loop to write: a read that has to wait for the disk holds up that
 *   connection's reads, not the event loop's appends. The connection's {@link LogReader} is confined to that
 *   thread.</li>
 *   <li>Every malformed request gets an ERROR answer and the connection goes on; only a stream that cannot be
 *   resynchronised (bad magic, bad version, impossible length) is closed, after its ERROR
 *   ({@link FrameServerHandler}).</li>
 * </ul>
 */
final class LogServerHandler extends FrameServerHandler<LogFrame> {
    /** READs one connection may have unanswered before the server stops reading its requests. */
    static final int MAX_READS_IN_FLIGHT = 4;
    private final LogServer server;
    private final LogStore store;
    private final LogMetrics metrics;
    private final int blockSize;
    private final int maxInFlight;
    private final Map<Long, ServerSubscription> subscriptions = new HashMap<>();

    private ChannelHandlerContext ctx;
    /**
     * Where other threads hand this connection work (acknowledgements, READ answers, subscription pushes): the
     * channel's event loop. Tests give their own, drained by the thread an {@code EmbeddedChannel} is confined to.
     */
    private EventExecutor loop;
    private AckDispatcher.LoopAcks acks;
    /** Acknowledgements written since the last flush (event loop). */
    private boolean acksToFlush;
    /** Where this connection reads stored blocks; {@link #reader} and the subscriptions' readers live there. */
    private final EventExecutor readExecutor;
    /** Read thread. */
    private LogReader reader;
    private int appendsInFlight;
    /** READs handed to the read thread and not yet answered (event loop). */
    private int readsInFlight;
    /**
     * Event loop: acknowledgements already answered, reused for this connection's next appends, so that the append
     * path allocates no {@link Ack} in steady state (at most as many as were ever in flight at once).
     */
    private final ArrayDeque<Ack> freeAcks = new ArrayDeque<>();
    private boolean readingPaused;
    /**
     * Event loop: requests decoded while reading was paused (the rest of the socket read that paused it), carried out
     * in order once it resumes; at most one socket read's worth, since no more is read meanwhile.
     */
    private final ArrayDeque<LogFrame> deferred = new ArrayDeque<>();
    private final Runnable drainTask = this::drainDeferred;
    private boolean drainScheduled;

    LogServerHandler(LogServer server) {
        this(server, server.readers().next(), null);
    }

    /**
     * {@code readExecutor}: the thread to read stored blocks on (tests pass one that runs them at once);
     * {@code loop}: where other threads hand this connection work, or null for the channel's event loop.
     */
    LogServerHandler(LogServer server, EventExecutor readExecutor, EventExecutor loop) {
        super(LogProtocol.FORMAT);
        this.readExecutor = readExecutor;
        this.loop = loop;
        this.server = server;
        this.store = server.store();
        this.metrics = server.metrics();
        this.blockSize = server.config().blockSize();
        this.maxInFlight = server.config().maxAppendsInFlightPerConnection();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (loop == null) {
            loop = ctx.executor();
        }
        this.acks = server.acks().forLoop(loop);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        server.connectionOpened(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    protected void frameTooLarge(ChannelHandlerContext ctx, FrameTooLarge t) {
        answerError(t.requestId(), ErrorCode.FRAME_TOO_LARGE, LogProtocol.typeName(t.type()) + " frame of "
                + t.frameLength() + " bytes exceeds this server's limit of " + t.maxFrameLength()
                + " (block size " + blockSize + ")");
    }

    @Override
    protected void frameRead(ChannelHandlerContext ctx, LogFrame frame) {
        if (readingPaused || !deferred.isEmpty()) {
            frame.retain();
            deferred.addLast(frame);
            return;
        }
        carryOut(frame);
    }

    private void carryOut(LogFrame frame) {
        try {
            handle(frame);
        } catch (LogErrorException e) {
            answerError(frame.requestId(), e.code(), messageOf(e));
        }
    }

    private void handle(LogFrame f) {
        switch (f.type()) {
            case APPEND -> append(f);
            case READ -> read(f);
            case TAIL -> ctx.write(server.replicated() == null
                    ? LogFrame.tailIs(ctx.alloc(), f.requestId(), store.tail(), store.trimPoint(), store.blockSize(), store.logId())
                    : LogFrame.tailIs(ctx.alloc(), f.requestId(), store.tail(), store.trimPoint(), store.blockSize(),
                            store.logId(), server.replicated().replica().leaderClientAddress()));
            case CREATE -> create(f);
            case TRIM -> trim(f);
            case SUBSCRIBE -> subscribe(f);
            case UNSUBSCRIBE -> unsubscribe(f);
            default -> throw new LogErrorException(ErrorCode.UNKNOWN_REQUEST,
                    "frame type " + LogProtocol.typeName(f.type()) + " is not a request");
        }
    }

    private void append(LogFrame f) {
        if (!store.isCreated()) {
            throw new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
        }
        if (f.bodyLength() != store.blockSize()) {
            throw new LogErrorException(ErrorCode.BLOCK_SIZE, (f.bodyLength() < store.blockSize() ? "undersized" : "oversized")
                    + " block of " + f.bodyLength() + " bytes, the log's block size is " + store.blockSize());
        }
        appendsInFlight++;
        server.appendToStore();
        updateReading();
        Ack a = freeAcks.pollLast();
        if (a == null) {
            a = new Ack(this, f.requestId(), f.bodyLength(), System.nanoTime(), acks);
        } else {
            a.reuse(f.requestId(), f.bodyLength(), System.nanoTime());
        }
        store.append(f.body().retain(), a);
    }

    private void read(LogFrame f) {
        requireBody(f, 12);
        long position = f.longAt(0);
        int count = f.intAt(8);
        if (count <= 0) {
            throw new LogErrorException(ErrorCode.BAD_ARGUMENT, "READ count " + count + " must be positive");
        }
        if (!store.isCreated()) {
            throw new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
        }
        long requestId = f.requestId();
        onReadThread(() -> readBlocks(requestId, position, count));
        readsInFlight++;
        updateReading();
    }

    /**
     * Event loop: stops reading requests from this connection while it has {@code maxAppendsInFlightPerConnection}
     * unanswered appends, {@link #MAX_READS_IN_FLIGHT} unanswered READs, or more answers queued than the write buffer's
     * high water mark (a client that does not take its answers), and reads again once appends are down to half and
     * the rest has cleared. This bounds what one connection can make the server hold: its blocks waiting for storage
     * and its answers waiting for the socket (a READ answer is up to {@link LogProtocol#MAX_READ_BYTES}). Every
     * connection also stops while the store holds {@link LogServerConfig#maxAppendBytesInStore()} of blocks from all
     * of them, and reads again once it is down to half: many connections do not add up to unbounded memory.
     */
    private void updateReading() {
        boolean writable = ctx.channel().isWritable();
        boolean storeFull = server.storeFull();
        if (!readingPaused) {
            if (appendsInFlight >= maxInFlight || readsInFlight >= MAX_READS_IN_FLIGHT || !writable || storeFull) {
                readingPaused = true;
                ctx.channel().config().setAutoRead(false);
                if (storeFull) {
                    server.waitForStore(this);
                }
            }
        } else if (appendsInFlight <= maxInFlight / 2 && readsInFlight < MAX_READS_IN_FLIGHT && writable) {
            if (storeFull) {
                server.waitForStore(this); // its own reasons cleared, but the store is still full: wait for room there
                return;
            }
            readingPaused = false;
            if (deferred.isEmpty()) {
                ctx.channel().config().setAutoRead(true);
            } else if (!drainScheduled) {
                // as a task of its own: this may run inside an acknowledgement delivery or a READ answer
                drainScheduled = true;
                try {
                    loop.execute(drainTask);
                } catch (RejectedExecutionException e) {
                    // the event loop is stopping with the server; the connection closes with it
                }
            }
        }
    }

    /** Event loop: carries out the deferred requests in order until one pauses reading again, then reads again. */
    private void drainDeferred() {
        drainScheduled = false;
        boolean carriedOut = false;
        for (LogFrame f; !readingPaused && (f = deferred.pollFirst()) != null; ) {
            try {
                carryOut(f);
            } catch (RuntimeException e) {
                // what a request read from the socket would have done: close this connection
                exceptionCaught(ctx, e);
                return;
            } finally {
                f.release();
            }
            carriedOut = true;
        }
        if (carriedOut) {
            ctx.flush();
        }
        if (!readingPaused && deferred.isEmpty()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** Event loop: runs {@code task} on this connection's read thread. */
    private void onReadThread(Runnable task) {
        try {
            readExecutor.execute(task);
        } catch (RejectedExecutionException e) {
            throw new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log server is shutting down");
        }
    }

    /** Read thread: has the event loop write and flush a READ's {@code answer}, or releases it if the loop is gone. */
    private void answerFromReadThread(LogFrame answer) {
        try {
            loop.execute(() -> {
                ctx.writeAndFlush(answer, ctx.voidPromise());
                readsInFlight--;
                updateReading();
            });
        } catch (RejectedExecutionException e) {
            answer.release();
        }
    }

    /** Read thread: one READ, answered with the blocks from {@code position} on that could be read. */
    private void readBlocks(long requestId, long position, int count) {
        LogFrame answer;
        try {
            int bs = store.blockSize();
            long available = store.tail() - position;
            int n = (int) Math.max(1, Math.min(Math.min(count, LogProtocol.maxReadCount(bs)), available));
            LogReader r = reader();
            ByteBuf body = LogFrame.blocksBody(ctx.alloc(), position, n, bs);
            int read = 0;
            try {
                for (; read < n; read++) {
                    r.read(position + read, body);
                }
            } catch (RuntimeException | InternalError e) {
                if (read == 0 || !(e instanceof LogErrorException)) {
                    body.release();
                    throw e;
                }
                // answer the blocks before the failing one; the reader's next READ starts at the failure
            }
            body.setInt(body.readerIndex() + 8, read);
            metrics.read(read);
            answer = new LogFrame(BLOCKS, requestId, body);
        } catch (LogErrorException e) {
            metrics.error(e.code());
            answer = LogFrame.error(ctx.alloc(), requestId, e.code(), messageOf(e));
        } catch (RuntimeException | InternalError e) {
            // not one of the store's own errors (an InternalError is a mapped page that could not be read, a SIGBUS):
            // still an answer, never a request left to time out
            metrics.error(ErrorCode.STORAGE_FAILURE);
            answer = LogFrame.error(ctx.alloc(), requestId, ErrorCode.STORAGE_FAILURE,
                    "reading position " + position + " failed: " + e);
        }
        answerFromReadThread(answer);
    }

    private void create(LogFrame f) {
        if (f.bodyLength() < 8 || f.bodyLength() != 8 + f.intAt(4) || f.intAt(4) < 0) {
            throw new LogErrorException(ErrorCode.MALFORMED_REQUEST, "CREATE body of " + f.bodyLength()
                    + " bytes does not match its config length");
        }
        int requested = f.intAt(0);
        if (requested != blockSize) {
            throw new LogErrorException(ErrorCode.CREATE_MISMATCH, "this server serves blocks of " + blockSize
                    + " bytes (--block-size); refusing a log of " + requested + "-byte blocks");
        }
        byte[] config = new byte[f.intAt(4)];
        f.body().getBytes(f.body().readerIndex() + 8, config);
        store.create(requested, config);
        ctx.write(LogFrame.created(ctx.alloc(), f.requestId(), requested, store.logId()));
    }

    /**
     * TRIM is decided on the server's trim thread ({@link LogServer#trimGuard}): a position above the resume position
     * of the newest complete checkpoint is refused with TRIM_REFUSED, whoever asks, so the log always keeps a
     * checkpoint to recover from. The answer comes back to the event loop.
     */
    private void trim(LogFrame f) {
        requireBody(f, 8);
        long position = f.longAt(0);
        if (position < 1) {
            throw new LogErrorException(ErrorCode.BAD_ARGUMENT, "trim position " + position + " must be at least 1");
        }
        long requestId = f.requestId();
        try {
            server.trimGuard().execute(() -> {
                LogFrame answer;
                try {
                    long trimPoint = server.trimChecked(position);
                    answer = LogFrame.trimmedTo(ctx.alloc(), requestId, trimPoint);
                } catch (LogErrorException e) {
                    metrics.error(e.code());
                    answer = LogFrame.error(ctx.alloc(), requestId, e.code(), messageOf(e));
                } catch (RuntimeException e) {
                    metrics.error(ErrorCode.STORAGE_FAILURE);
                    answer = LogFrame.error(ctx.alloc(), requestId, ErrorCode.STORAGE_FAILURE, "trim failed: " + e);
                }
                LogFrame a = answer;
                try {
                    loop.execute(() -> {
                        ctx.writeAndFlush(a, ctx.voidPromise());
                        for (ServerSubscription s : subscriptions.values()) {
                            s.wake();
                        }
                    });
                } catch (RejectedExecutionException e) {
                    a.release();
                }
            });
        } catch (RejectedExecutionException e) {
            throw new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log server is shutting down");
        }
    }

    private void subscribe(LogFrame f) {
        requireBody(f, 8);
        long from = f.longAt(0);
        if (!store.isCreated()) {
            throw new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created");
        }
        if (from < 0) {
            throw new LogErrorException(ErrorCode.BAD_ARGUMENT, "negative position " + from);
        }
        if (from != 0 && from < store.trimPoint()) {
            throw new LogErrorException(ErrorCode.TRIMMED, "position " + from + " was trimmed (trim point "
                    + store.trimPoint() + ")");
        }
        if (subscriptions.containsKey(f.requestId())) {
            throw new LogErrorException(ErrorCode.BAD_ARGUMENT, "request id " + f.requestId() + " already names a subscription");
        }
        ServerSubscription s = new ServerSubscription(this, ctx, loop, readExecutor, store, f.requestId(), from);
        subscriptions.put(f.requestId(), s);
        server.subscriptionOpened(s);
        s.wake();
    }

    private void unsubscribe(LogFrame f) {
        requireBody(f, 8);
        ServerSubscription s = subscriptions.remove(f.longAt(0));
        if (s != null) {
            s.close();
        }
        ctx.write(LogFrame.unsubscribed(f.requestId()));
    }

    void pushed(int blocks) {
        metrics.pushed(blocks);
    }

    /** Called by a subscription that ended itself (trimmed underneath it, storage error). */
    void subscriptionEnded(ServerSubscription s) {
        subscriptions.remove(s.id());
        server.subscriptionClosed(s);
    }

    private static void requireBody(LogFrame f, int length) {
        if (f.bodyLength() != length) {
            throw new LogErrorException(ErrorCode.MALFORMED_REQUEST, LogProtocol.typeName(f.type()) + " body of "
                    + f.bodyLength() + " bytes, expected " + length);
        }
    }

    /** Read thread. */
    private LogReader reader() {
        if (reader == null) {
            reader = store.openReader();
        }
        return reader;
    }

    /** Read thread. */
    private void closeReader() {
        if (reader != null) {
            reader.close();
            reader = null;
        }
    }

    void answerError(long requestId, ErrorCode code, String message) {
        metrics.error(code);
        ctx.write(LogFrame.error(ctx.alloc(), requestId, code, message));
    }

    private static String messageOf(LogErrorException e) {
        String m = e.getMessage();
        String prefix = e.code() + ": ";
        return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateReading();
        if (ctx.channel().isWritable()) {
            for (ServerSubscription s : subscriptions.values()) {
                s.wake();
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        for (ServerSubscription s : subscriptions.values()) {
            s.close();
            server.subscriptionClosed(s);
        }
        subscriptions.clear();
        for (LogFrame f; (f = deferred.pollFirst()) != null; ) {
            f.release();
        }
        try {
            readExecutor.execute(this::closeReader);
        } catch (RejectedExecutionException e) {
            // the server is stopping: closing the store closes the reader
        }
        server.connectionClosed(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    protected LogFrame streamBrokenAnswer(ChannelHandlerContext ctx, FrameStreamException e, String message) {
        ErrorCode code = switch (e.fault()) {
            case BAD_MAGIC -> ErrorCode.BAD_MAGIC;
            case BAD_VERSION -> ErrorCode.BAD_VERSION;
            case BAD_LENGTH -> ErrorCode.BAD_FRAME;
        };
        metrics.error(code);
        return LogFrame.error(ctx.alloc(), 0, code, message);
    }

    /**
     * Event loop: writes one acknowledgement; true if it is the first since the last flush (the caller then calls
     * {@link #acksWritten} once it has written the batch).
     */
    boolean writeAck(Ack a) {
        appendsInFlight--;
        server.appendAnswered();
        a.releaseBlock();
        if (a.error == null) {
            ctx.write(LogFrame.appendedFrame(ctx.alloc(), a.requestId, a.position), ctx.voidPromise());
            metrics.appended(a.bytes, System.nanoTime() - a.startNanos);
        } else {
            metrics.error(a.error.code());
            ctx.write(LogFrame.error(ctx.alloc(), a.requestId, a.error.code(), messageOf(a.error)), ctx.voidPromise());
        }
        // answered: neither the store nor the dispatcher touches it again
        freeAcks.addLast(a);
        if (acksToFlush) {
            return false;
        }
        acksToFlush = true;
        return true;
    }

    /** Appends handed to the store and not yet answered (tests). */
    int appendsInFlight() {
        return appendsInFlight;
    }

    /** Requests decoded while reading was paused, not yet carried out (tests). */
    int deferredRequests() {
        return deferred.size();
    }

    /** Answered acknowledgements waiting for reuse (tests). */
    int freeAcks() {
        return freeAcks.size();
    }

    /** Event loop: after a batch of {@link #writeAck}: flush, and read again if the connection was paused. */
    /** Any thread: the store is down to half its limit; reads again on this connection's loop, if nothing else holds it. */
    void storeHasRoom() {
        try {
            loop.execute(this::updateReading);
        } catch (RejectedExecutionException e) {
            // the event loop is stopping with the server
        }
    }

    void acksWritten() {
        acksToFlush = false;
        ctx.flush();
        if (readingPaused) {
            updateReading();
        }
    }

    /**
     * Completion of one append. A stored block's acknowledgement is filed on the writer thread and delivered with
     * its whole batch; a refusal (from any thread) is delivered at once. Once answered it is reused by its
     * connection for a later append: the store calls back exactly once per append, and the writer does not touch
     * it after filing it, so an answered one is free.
     */
    static final class Ack implements LogStore.AppendCallback {
        final LogServerHandler handler;
        private final AckDispatcher.LoopAcks loop;
        long requestId;
        int bytes;
        long startNanos;
        long position;
        LogErrorException error;
        /** The appended block, which the store is done with: released here, on the event loop that allocated it. */
        private ByteBuf block;

        Ack(LogServerHandler handler, long requestId, int bytes, long startNanos, AckDispatcher.LoopAcks loop) {
            this.handler = handler;
            this.requestId = requestId;
            this.bytes = bytes;
            this.startNanos = startNanos;
            this.loop = loop;
        }

        /** Event loop: the next append of the same connection. */
        void reuse(long requestId, int bytes, long startNanos) {
            this.requestId = requestId;
            this.bytes = bytes;
            this.startNanos = startNanos;
            this.position = 0;
            this.error = null;
        }

        @Override
        public void appended(long position) {
            this.position = position;
            loop.file(this);
        }

        @Override
        public void failed(LogErrorException error) {
            this.error = error;
            loop.post(this);
        }

        /** Called before {@link #appended} or {@link #failed}, which hand it to the event loop. */
        @Override
        public void blockDone(ByteBuf block) {
            this.block = block;
        }

        /** Event loop, or any thread once the event loop is gone. */
        void releaseBlock() {
            ByteBuf b = block;
            if (b != null) {
                block = null;
                b.release();
            }
        }
    }
}
