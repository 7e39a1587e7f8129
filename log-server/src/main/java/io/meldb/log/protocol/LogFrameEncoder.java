package io.meldb.log.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.util.List;

import static io.meldb.log.protocol.LogProtocol.*;

/**
 * Writes {@link LogFrame}s of the log protocol (Hyder II §5.1 operations). Small bodies are copied behind the header; a block-sized body is passed on as its own
 * buffer after the header so the socket write gathers both without copying the block.
 */
@ChannelHandler.Sharable
public final class LogFrameEncoder extends MessageToMessageEncoder<LogFrame> {
    public static final LogFrameEncoder INSTANCE = new LogFrameEncoder();
    private static final int COPY_LIMIT = 256;

    private LogFrameEncoder() {
        super(LogFrame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, LogFrame frame, List<Object> out) {
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
