package io.meldb.txn.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

import static io.meldb.txn.rpc.TxnRpcProtocol.*;

/**
 * Splits the byte stream of the transaction RPC into {@link TxnFrame}s (layout in {@link TxnRpcProtocol}); used by
 * server and client alike.
 *
 * <ul>
 *   <li>An incomplete frame waits for more bytes.</li>
 *   <li>A wrong magic, version or impossible length means the stream cannot be trusted: it throws
 *   {@link TxnProtocolException} once (as soon as the offending bytes are there, so garbage is caught without
 *   waiting for a whole header) and ignores everything after, while the handler answers and closes.</li>
 *   <li>A frame longer than {@code maxFrameLength} with a sound header is skipped without being buffered, and a
 *   {@link TxnFrameTooLarge} is passed on so the request gets an error answer.</li>
 * </ul>
 */
public final class TxnFrameDecoder extends ByteToMessageDecoder {
    private final int maxFrameLength;
    private long discarding;
    private boolean failed;

    public TxnFrameDecoder(int maxFrameLength) {
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
        if (readable >= LENGTH_FIELD_LENGTH && in.getInt(base) < MIN_FRAME_LENGTH) {
            fail(in, "frame length " + in.getInt(base) + " is shorter than the header");
        }
        if (readable >= MAGIC_OFFSET + 4 && in.getInt(base + MAGIC_OFFSET) != MAGIC) {
            fail(in, String.format("bad magic 0x%08X (expected 0x%08X, the transaction RPC)",
                    in.getInt(base + MAGIC_OFFSET), MAGIC));
        }
        if (readable > VERSION_OFFSET && in.getByte(base + VERSION_OFFSET) != VERSION) {
            fail(in, "protocol version " + in.getByte(base + VERSION_OFFSET) + " (this side speaks " + VERSION + ")");
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
            out.add(new TxnFrameTooLarge(type, requestId, frameLength, maxFrameLength));
            return;
        }
        if (readable < LENGTH_FIELD_LENGTH + frameLength) {
            return;
        }
        ByteBuf body = in.retainedSlice(base + HEADER_LENGTH, frameLength - MIN_FRAME_LENGTH);
        in.skipBytes(LENGTH_FIELD_LENGTH + frameLength);
        out.add(new TxnFrame(type, requestId, body));
    }

    private void fail(ByteBuf in, String message) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new TxnProtocolException(message);
    }
}
