package io.meldb.txn.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.util.List;

import static io.meldb.txn.rpc.TxnRpcProtocol.*;

/**
 * Writes {@link TxnFrame}s of the transaction RPC. Small bodies are copied behind the header; a large body (a
 * scan answer, a big value) is passed on as its own buffer after the header so the socket write gathers both.
 */
@ChannelHandler.Sharable
public final class TxnFrameEncoder extends MessageToMessageEncoder<TxnFrame> {
    public static final TxnFrameEncoder INSTANCE = new TxnFrameEncoder();
    private static final int COPY_LIMIT = 512;

    private TxnFrameEncoder() {
        super(TxnFrame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, TxnFrame frame, List<Object> out) {
        ByteBuf body = frame.content();
        int bodyLength = body.readableBytes();
        boolean copy = bodyLength <= COPY_LIMIT;
        ByteBuf header = ctx.alloc().ioBuffer(HEADER_LENGTH + (copy ? bodyLength : 0));
        header.writeInt(MIN_FRAME_LENGTH + bodyLength)
                .writeInt(MAGIC)
                .writeByte(VERSION)
                .writeByte(frame.type())
                .writeShort(0)
                .writeLong(frame.requestId());
        if (copy) {
            header.writeBytes(body, body.readerIndex(), bodyLength);
            out.add(header);
        } else {
            out.add(header);
            out.add(body.retain());
        }
    }
}
