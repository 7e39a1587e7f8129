package io.meldb.wire;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The connection policy every server on the shared framing ({@link FrameFormat}) follows; subclasses carry out the
 * requests.
 *
 * <ul>
 *   <li>Each frame goes to {@link #frameRead} and is released after it; a frame above the size limit goes to
 *   {@link #frameTooLarge}, which answers an error, and the connection goes on.</li>
 *   <li>Answers written while a read batch is handled are flushed once, when the batch is done.</li>
 *   <li>A stream that cannot be resynchronised ({@link FrameStreamException}) gets the ERROR (request id 0) that
 *   {@link #streamBrokenAnswer} builds, and only this connection is closed after it; an I/O failure or an unexpected
 *   error closes it at once.</li>
 * </ul>
 *
 * @param <F> the protocol's frame class
 */
public abstract class FrameServerHandler<F extends Frame> extends ChannelInboundHandlerAdapter {
    private final Logger log = LoggerFactory.getLogger(getClass());
    private final Class<F> frameClass;

    protected FrameServerHandler(FrameFormat<F> format) {
        this.frameClass = format.frameClass();
    }

    /** Carries out one request; the frame is released afterwards. */
    protected abstract void frameRead(ChannelHandlerContext ctx, F frame);

    /** Answers a request whose frame was above the limit (its body was skipped). */
    protected abstract void frameTooLarge(ChannelHandlerContext ctx, FrameTooLarge tooLarge);

    /** The ERROR frame, request id 0, sent before the connection is closed; {@code message} ends with the closing. */
    protected abstract F streamBrokenAnswer(ChannelHandlerContext ctx, FrameStreamException e, String message);

    @Override
    public final void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FrameTooLarge t) {
            frameTooLarge(ctx, t);
            return;
        }
        if (!frameClass.isInstance(msg)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        F frame = frameClass.cast(msg);
        try {
            frameRead(ctx, frame);
        } finally {
            frame.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
        ctx.fireChannelReadComplete();
    }

    @Override
    public final void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof FrameStreamException e) {
            log.info("closing {}: {} ({})", ctx.channel().remoteAddress(), e.getMessage(), e.fault());
            ctx.writeAndFlush(streamBrokenAnswer(ctx, e, e.getMessage() + "; closing the connection"))
                    .addListener(ChannelFutureListener.CLOSE);
        } else if (cause instanceof IOException) {
            log.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        } else {
            log.warn("closing {} after an unexpected error", ctx.channel().remoteAddress(), cause);
            ctx.close();
        }
    }
}
