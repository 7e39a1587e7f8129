package io.meldb.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.util.List;

import static io.meldb.wire.FrameFormat.HEADER_LENGTH;

/**
 * Writes the frames of one protocol ({@link FrameFormat}); each protocol names its subclass, one shared instance. Small bodies are copied behind the header; a
 * large body (a block, a scan answer) is passed on as its own buffer after the header so the socket write gathers
 * both without copying it.
 */
@ChannelHandler.Sharable
public abstract class FrameEncoder<F extends Frame> extends MessageToMessageEncoder<F> {
    private static final int COPY_LIMIT = 256;

    private final FrameFormat<F> format;

    protected FrameEncoder(FrameFormat<F> format) {
        super(format.frameClass());
        this.format = format;
    }

    @Override
    protected final void encode(ChannelHandlerContext ctx, F frame, List<Object> out) {
        ByteBuf body = frame.content();
        int bodyLength = body.readableBytes();
        boolean copy = bodyLength <= COPY_LIMIT;
        ByteBuf header = ctx.alloc().ioBuffer(HEADER_LENGTH + (copy ? bodyLength : 0));
        format.writeHeader(header, bodyLength, frame.type(), frame.requestId());
        if (copy) {
            header.writeBytes(body, body.readerIndex(), bodyLength);
            out.add(header);
        } else {
            out.add(header);
            out.add(body.retain());
        }
    }
}
