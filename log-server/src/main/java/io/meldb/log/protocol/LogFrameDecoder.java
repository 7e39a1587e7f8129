package io.meldb.log.protocol;

import io.meldb.log.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

import static io.meldb.log.protocol.LogProtocol.*;

/**
 * Splits the byte stream of the log protocol (Hyder II §5.1 operations) into {@link LogFrame}s (layout in
 * {@link LogProtocol}).
 *
 * <ul>
 *   <li>An incomplete frame waits for more bytes.</li>
 *   <li>A wrong magic, version or impossible length means the stream cannot be trusted: it throws
 *   {@link LogProtocolException} once (checked as soon as the bytes are there, so garbage is caught without
 *   waiting for a whole header) and ignores everything after, while the handler answers and closes.</li>
 *   <li>A frame longer than {@code maxFrameLength} with a sound header is skipped without being buffered, and a
 *   {@link LogFrameTooLarge} is passed on so the request gets an error answer.</li>
 * </ul>
 * The body is a retained slice of the read buffer: an appended block reaches the storage without a copy.
 */
public final class LogFrameDecoder extends ByteToMessageDecoder {
    private final int maxFrameLength;
    private long discarding;
    private boolean failed;

    public LogFrameDecoder(int maxFrameLength) {
        if (maxFrameLength < MIN_FRAME_LENGTH) {
            throw new IllegalArgumentException("maxFrameLength " + maxFrameLength);
        }
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (discarding > 0) {
            int n = (int) Math.min(discarding, in.readableBytes());
            in.skipBytes(n);
            discarding -= n;
            if (discarding > 0) {
                return;
            }
        }
        int readable = in.readableBytes();
        int base = in.readerIndex();
        if (readable >= MAGIC_OFFSET + 4 && in.getInt(base + MAGIC_OFFSET) != MAGIC) {
            fail(in, ErrorCode.BAD_MAGIC, String.format("bad magic 0x%08X (expected 0x%08X)", in.getInt(base + MAGIC_OFFSET), MAGIC));
        }
        if (readable > VERSION_OFFSET && in.getByte(base + VERSION_OFFSET) != VERSION) {
            fail(in, ErrorCode.BAD_VERSION, "protocol version " + in.getByte(base + VERSION_OFFSET) + " (this side speaks " + VERSION + ")");
        }
        if (readable >= LENGTH_FIELD_LENGTH && in.getInt(base) < MIN_FRAME_LENGTH) {
            fail(in, ErrorCode.BAD_FRAME, "frame length " + in.getInt(base) + " is shorter than the header");
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
            int n = (int) Math.min(discarding, in.readableBytes());
            in.skipBytes(n);
            discarding -= n;
            out.add(new LogFrameTooLarge(type, requestId, frameLength, maxFrameLength));
            return;
        }
        if (readable < LENGTH_FIELD_LENGTH + frameLength) {
            return;
        }
        ByteBuf body = in.retainedSlice(base + HEADER_LENGTH, frameLength - MIN_FRAME_LENGTH);
        in.skipBytes(LENGTH_FIELD_LENGTH + frameLength);
        out.add(new LogFrame(type, requestId, body));
    }

    private void fail(ByteBuf in, ErrorCode code, String message) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new LogProtocolException(code, message);
    }
}
