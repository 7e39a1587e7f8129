package io.meldb.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

import static io.meldb.wire.FrameFormat.*;

/**
 * Splits the byte stream of one protocol ({@link FrameFormat}) into its frames; each protocol names its subclass.
 * One per connection, used by servers and clients alike.
 *
 * <ul>
 *   <li>An incomplete frame waits for more bytes.</li>
 *   <li>A wrong magic, version or impossible length means the stream cannot be trusted: it throws
 *   {@link FrameStreamException} once (checked as soon as the bytes are there, so garbage is caught without
 *   waiting for a whole header) and ignores everything after, while the handler answers and closes.</li>
 *   <li>A frame longer than {@code maxFrameLength} with a sound header is skipped without being buffered, and a
 *   {@link FrameTooLarge} is passed on so the request gets an error answer.</li>
 * </ul>
 * The body is a retained slice of the read buffer: an appended block reaches the storage without a copy.
 */
public abstract class FrameDecoder extends ByteToMessageDecoder {
    private final FrameFormat<?> format;
    private final int maxFrameLength;
    /** Shared by a server's connections; null where nothing bounds them together (clients). */
    private final FrameBudget budget;
    /** Bytes this connection holds of {@link #budget} for its incomplete frame. */
    private long reserved;
    /** The last decode found no room in the budget and turned reading off. */
    private boolean waitingForBudget;
    private long discarding;
    private boolean failed;

    protected FrameDecoder(FrameFormat<?> format, int maxFrameLength) {
        this(format, maxFrameLength, null);
    }

    /** {@code budget}: the in-flight frame bytes of all the server's connections together, or null. */
    protected FrameDecoder(FrameFormat<?> format, int maxFrameLength, FrameBudget budget) {
        if (maxFrameLength < MIN_FRAME_LENGTH) {
            throw new IllegalArgumentException("maxFrameLength " + maxFrameLength);
        }
        this.format = format;
        this.maxFrameLength = maxFrameLength;
        this.budget = budget;
    }

    /**
     * A decoder that produced nothing on a connection that is not auto-read asks for another read, to make
     * progress; a connection waiting for the budget must not, or it would read its frame anyway.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (waitingForBudget) {
            waitingForBudget = false;
            discardSomeReadBytes();
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        giveBack();
    }

    private void giveBack() {
        if (reserved > 0) {
            budget.release(reserved);
            reserved = 0;
        }
    }

    /** Frames up to this size are not counted against the budget: one socket read's worth. */
    private static final int SMALL_FRAME = 64 * 1024;

    @Override
    protected final void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (discarding > 0 && discard(in) > 0) {
            return;
        }
        int readable = in.readableBytes();
        int base = in.readerIndex();
        if (readable >= MAGIC_OFFSET + 4 && in.getInt(base + MAGIC_OFFSET) != format.magic()) {
            fail(in, FrameStreamException.Fault.BAD_MAGIC, String.format("bad magic 0x%08X (expected 0x%08X, %s)",
                    in.getInt(base + MAGIC_OFFSET), format.magic(), format.name()));
        }
        if (readable > VERSION_OFFSET && in.getByte(base + VERSION_OFFSET) != format.version()) {
            fail(in, FrameStreamException.Fault.BAD_VERSION, "protocol version " + in.getByte(base + VERSION_OFFSET)
                    + " (this side speaks " + format.version() + ")");
        }
        if (readable >= LENGTH_FIELD_LENGTH && in.getInt(base + LENGTH_OFFSET) < MIN_FRAME_LENGTH) {
            fail(in, FrameStreamException.Fault.BAD_LENGTH, "frame length " + in.getInt(base + LENGTH_OFFSET)
                    + " is shorter than the header");
        }
        if (readable < HEADER_LENGTH) {
            return;
        }
        int frameLength = in.getInt(base + LENGTH_OFFSET);
        byte type = in.getByte(base + TYPE_OFFSET);
        long requestId = in.getLong(base + REQUEST_ID_OFFSET);
        if (frameLength > maxFrameLength) {
            in.skipBytes(HEADER_LENGTH);
            discarding = (long) frameLength - MIN_FRAME_LENGTH;
            discard(in);
            out.add(new FrameTooLarge(type, requestId, frameLength, maxFrameLength));
            return;
        }
        if (readable < LENGTH_FIELD_LENGTH + frameLength) {
            // the rest of a frame too big for one read: only with room in the server's budget
            if (budget != null && reserved == 0 && frameLength > SMALL_FRAME) {
                if (budget.reserve(ctx.channel(), frameLength)) {
                    reserved = frameLength;
                } else {
                    waitingForBudget = true;
                }
            }
            return;
        }
        giveBack();
        ByteBuf body = in.retainedSlice(base + HEADER_LENGTH, frameLength - MIN_FRAME_LENGTH);
        in.skipBytes(LENGTH_FIELD_LENGTH + frameLength);
        out.add(format.frame(type, requestId, body));
    }

    /** Skips what is there of an oversized frame's body; returns how much of it is still to come. */
    private long discard(ByteBuf in) {
        int n = (int) Math.min(discarding, in.readableBytes());
        in.skipBytes(n);
        discarding -= n;
        return discarding;
    }

    private void fail(ByteBuf in, FrameStreamException.Fault fault, String message) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new FrameStreamException(fault, message);
    }
}
