package io.meldb.txn.session;

import io.meldb.core.BlockBuffers;
import io.meldb.core.BlockSink;
import io.meldb.log.client.BlockBufferPool;
import io.meldb.log.client.LogService;
import io.netty.buffer.ByteBuf;
import org.agrona.DirectBuffer;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The link between a {@link io.meldb.core.BlockWriter} and the log (Hyder II §5.1): the writer frames each block
 * straight in a buffer of the server's {@link BlockBufferPool}, and the finished block is appended as that buffer,
 * which the log gives back to the pool once written. Neither a copy of the block nor a new array per block.
 * One per writer; used under its writer's lock.
 */
final class PooledBlocks implements BlockBuffers, BlockSink {
    private final BlockBufferPool pool;
    private final LogService log;
    private final List<CompletableFuture<Long>> appends;
    /** The block being framed, from {@link #next()} until the writer hands it to {@link #onBlock}. */
    private ByteBuf current;

    /** Each block appended to {@code log} adds its future to {@code appends}. */
    PooledBlocks(final BlockBufferPool pool, final LogService log, final List<CompletableFuture<Long>> appends) {
        this.pool = pool;
        this.log = log;
        this.appends = appends;
    }

    @Override
    public byte[] next() {
        if (current != null) {
            // the writer was given a block it never finished (a sink that threw, then a discarded writer)
            current.release();
        }
        current = pool.take();
        return current.array();
    }

    @Override
    public void onBlock(final DirectBuffer block, final int offset, final int length) {
        final ByteBuf b = current;
        if (b == null || block.byteArray() != b.array() || offset != 0 || length != pool.blockSize()) {
            throw new IllegalStateException("block not framed in the buffer this sink handed out");
        }
        current = null;
        b.setIndex(0, length);
        appends.add(log.append(b));
    }
}
