package io.meldb.txn.session;

import io.meldb.core.BlockWriter;
import io.meldb.log.LogException;
import io.meldb.log.client.BlockBufferPool;
import io.meldb.txn.LogRecords;
import io.meldb.txn.RecordStream;
import io.meldb.txn.ServerContext;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The intention write path (Hyder II §5.1): frames this server's records (intentions, nudges, checkpoints) into
 * its own block stream and appends the blocks, in order, on the log connection; appends fences on the control
 * stream. Each fence's position names an incarnation (docs/architecture.md "Failure and recovery"). Called from client
 * threads, the meld thread (nudges), the checkpoint thread and the stream healer; one lock orders the stream.
 */
public final class IntentionAppender implements RecordStream {
    /**
     * Block buffers the pool keeps for reuse: the appends in flight of a busy server and the 64 blocks an in-process
     * log keeps for its subscriptions.
     */
    private static final int POOLED_BYTES = 4 << 20;
    private final ServerContext ctx;
    private final Object writeLock = new Object();
    private BlockWriter writer;
    private final List<CompletableFuture<Long>> blockAppends = new ArrayList<>();
    /** The blocks the writers frame in and the log gives back once written: no array per block. */
    private final BlockBufferPool blocks;

    public IntentionAppender(final ServerContext ctx) {
        this.ctx = ctx;
        final int blockSize = ctx.cluster().blockSize();
        this.blocks = new BlockBufferPool(blockSize, Math.max(16, POOLED_BYTES / blockSize));
        this.writer = newWriter();
    }

    private BlockWriter newWriter() {
        final PooledBlocks sink = new PooledBlocks(blocks, ctx.log(), blockAppends);
        return new BlockWriter(ctx.cluster().blockSize(), ctx.serverId(), sink, sink);
    }

    /** The pool of block buffers (its {@code created()} count shows whether appends reuse them). */
    public BlockBufferPool blockBuffers() {
        return blocks;
    }

    @Override
    public CompletableFuture<Long> append(final DirectBuffer record, final int length) {
        synchronized (writeLock) {
            blockAppends.clear();
            writer.append(record, 0, length);
            writer.flush();
            return blockAppends.get(blockAppends.size() - 1).thenCombine(
                CompletableFuture.allOf(blockAppends.toArray(new CompletableFuture[0])), (p, ignored) -> p);
        }
    }

    @Override
    public List<CompletableFuture<Long>> appendBlocks(final DirectBuffer record, final int length) {
        synchronized (writeLock) {
            blockAppends.clear();
            writer.append(record, 0, length);
            writer.flush();
            return List.copyOf(blockAppends);
        }
    }

    /**
     * Appends a fence for {@code server}, alone in one block of the control stream; its position names the
     * server's next incarnation. {@code fencer} is 0 for a server's own fence, else the incarnation of the server
     * that fences another one off (see {@link OutcomeService#awaitOutcome}).
     */
    public CompletableFuture<Long> appendFence(final int server, final long fencer) {
        final List<CompletableFuture<Long>> appends = new ArrayList<>();
        final PooledBlocks sink = new PooledBlocks(blocks, ctx.log(), appends);
        final BlockWriter control = new BlockWriter(ctx.cluster().blockSize(), LogRecords.CONTROL_WRITER, sink, sink);
        final int length = fencer == 0 ? LogRecords.FENCE_LENGTH : LogRecords.FOREIGN_FENCE_LENGTH;
        final UnsafeBuffer fence = new UnsafeBuffer(new byte[length]);
        fence.putByte(0, LogRecords.FENCE);
        fence.putInt(1, server, LogRecords.ORDER);
        if (fencer != 0) {
            fence.putLong(LogRecords.FENCE_LENGTH, fencer, LogRecords.ORDER);
        }
        control.append(fence, 0, length);
        control.flush();
        return appends.get(0);
    }

    /** The healer: appends a new fence for this server. */
    public CompletableFuture<Long> appendOwnFence() {
        return appendFence(ctx.serverId(), 0);
    }

    /**
     * The fence at {@code position} is this server's new incarnation. Later records go out on a fresh block
     * stream (every server resynchronizes this server's stream at the fence).
     */
    public void switchIncarnation(final long position) {
        synchronized (writeLock) {
            writer = newWriter();
            ctx.incarnation(position);
        }
    }

    /**
     * An append of this server's failed: blocks of the record may or may not be in the log, and any later record
     * of this stream could be misframed after a half-written one. The server stops taking transactions and
     * re-fences its stream once the log takes appends again; the commits in flight are answered then, from the log.
     */
    public void onAppendFailure(final long appendedAs, final Throwable error) {
        final Throwable cause = error instanceof CompletionException && error.getCause() != null
            ? error.getCause() : error;
        final String why = cause instanceof LogException ? cause.getMessage() : String.valueOf(cause);
        ctx.streamBroken(appendedAs, "a log append failed: " + why);
    }
}
