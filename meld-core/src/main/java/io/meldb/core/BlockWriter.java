package io.meldb.core;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.zip.CRC32C;

/**
 * Packs records (serialized intentions) into fixed-size intention blocks, Hyder II §5.1–5.2: "once the block
 * fills, serialization continues with a new block", several small intentions share a block and a large one spans
 * several. Layout in {@link BlockFormat}.
 *
 * <p>A full block goes to the {@link BlockSink} as soon as it fills; {@link #flush()} sends the partially filled
 * one (a log append cannot wait for more transactions forever). One block buffer and one CRC are reused, so the
 * steady state allocates nothing. If the sink throws, the block stays pending and is offered again by the next
 * {@code append} or {@code flush}; a record whose append was interrupted that way is incomplete, so the writer
 * should then be discarded. Not thread-safe.
 *
 * <p>With {@link BlockBuffers} the writer frames each block in a buffer asked for when the block starts, and the sink
 * owns it once handed over (the buffer is then not reused by the writer): a log append that takes the buffer needs
 * no copy of the block.
 */
public final class BlockWriter {
    private final int blockSize;
    private final int capacity;
    private final BlockSink sink;
    private final int writer;
    /** Null: one array, reused for every block. */
    private final BlockBuffers buffers;
    /** The current block's memory; null between blocks when each block has a buffer of its own. */
    private byte[] array;
    private final UnsafeBuffer block;
    private final UnsafeBuffer lengthPrefix = new UnsafeBuffer(new byte[BlockFormat.RECORD_LENGTH_FIELD]);
    private final CRC32C crc = new CRC32C();
    private int used;
    private int firstRecordOffset = BlockFormat.NO_RECORD_STARTS;
    private long blocksWritten;

    public BlockWriter(final int blockSize, final BlockSink sink) {
        this(blockSize, 0, sink);
    }

    /** A writer whose blocks carry writer id {@code writer} (see {@link BlockFormat}). */
    public BlockWriter(final int blockSize, final int writer, final BlockSink sink) {
        this(blockSize, writer, sink, null);
    }

    /**
     * A writer whose blocks carry writer id {@code writer}, each framed in a buffer from {@code buffers} (null: one
     * array of the writer's own, reused) that {@code sink} then owns.
     */
    public BlockWriter(final int blockSize, final int writer, final BlockSink sink, final BlockBuffers buffers) {
        if (writer < 0 || writer > BlockFormat.MAX_WRITER) {
            throw new IllegalArgumentException("writer " + writer + " outside 0.." + BlockFormat.MAX_WRITER);
        }
        this.writer = writer;
        this.blockSize = BlockFormat.checkBlockSize(blockSize);
        this.capacity = BlockFormat.capacity(blockSize);
        if (sink == null) {
            throw new NullPointerException("sink");
        }
        this.sink = sink;
        this.buffers = buffers;
        this.array = buffers == null ? new byte[blockSize] : null;
        this.block = array == null ? new UnsafeBuffer(0, 0) : new UnsafeBuffer(array);
    }

    public int blockSize() {
        return blockSize;
    }

    /** Blocks handed to the sink so far. */
    public long blocksWritten() {
        return blocksWritten;
    }

    /** Payload bytes in the current, not yet emitted block. */
    public int pendingBytes() {
        return used;
    }

    /** Frames one record and copies it into the current block, emitting every block it fills. */
    public void append(final DirectBuffer record, final int offset, final int length) {
        if (length <= 0 || length > BlockFormat.MAX_RECORD_LENGTH) {
            throw new IllegalArgumentException("record length " + length + " outside 1.."
                + BlockFormat.MAX_RECORD_LENGTH);
        }
        if (used == capacity) {
            emit();
        }
        if (firstRecordOffset == BlockFormat.NO_RECORD_STARTS) {
            firstRecordOffset = used;
        }
        lengthPrefix.putInt(0, length, BlockFormat.BYTE_ORDER);
        copy(lengthPrefix, 0, BlockFormat.RECORD_LENGTH_FIELD);
        copy(record, offset, length);
    }

    /** Emits the current block if it holds any payload; the next record starts a fresh block. */
    public void flush() {
        if (used > 0) {
            emit();
        }
    }

    private void copy(final DirectBuffer src, final int offset, final int length) {
        int done = 0;
        while (done < length) {
            if (used == capacity) {
                emit();
            }
            final int n = Math.min(length - done, capacity - used);
            if (array == null) {
                startBlock();
            }
            block.putBytes(BlockFormat.HEADER_LENGTH + used, src, offset + done, n);
            used += n;
            done += n;
            if (used == capacity) {
                emit();
            }
        }
    }

    /** Takes the next block's buffer from {@link #buffers}. */
    private void startBlock() {
        final byte[] next = buffers.next();
        if (next.length < blockSize) {
            throw new IllegalStateException("block buffer of " + next.length + " bytes for blocks of " + blockSize);
        }
        array = next;
        block.wrap(next, 0, blockSize);
    }

    private void emit() {
        block.setMemory(BlockFormat.HEADER_LENGTH + used, capacity - used, (byte) 0);
        BlockFormat.putHeader(block, 0, writer, used, firstRecordOffset);
        BlockFormat.putCrc(block, 0, BlockFormat.checksum(crc, array, 0, blockSize));
        sink.onBlock(block, 0, blockSize);
        if (buffers != null) {
            // the sink owns it now; a sink that threw left it pending, to be offered again
            array = null;
            block.wrap(0, 0);
        }
        blocksWritten++;
        used = 0;
        firstRecordOffset = BlockFormat.NO_RECORD_STARTS;
    }
}
