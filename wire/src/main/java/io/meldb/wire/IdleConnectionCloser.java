package io.meldb.wire;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Closes a server connection from which nothing has been read for the idle timeout: a silent client, or one that
 * sent half a frame and stopped, no longer holds a connection (and the buffer of its half frame) forever. MeldDB's
 * own clients send a keepalive well within the timeout. A connection the server itself stopped reading
 * (backpressure, auto-read off) is not idle by its own doing and is left alone.
 */
public final class IdleConnectionCloser extends IdleStateHandler {
    private static final Logger LOG = LoggerFactory.getLogger(IdleConnectionCloser.class);
    private final String portName;
    private final LongAdder closed;

    /** @param closed counts the connections closed for idleness (the port's metric) */
    public IdleConnectionCloser(Duration timeout, String portName, LongAdder closed) {
        super(timeout.toNanos(), 0, 0, TimeUnit.NANOSECONDS);
        this.portName = portName;
        this.closed = closed;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
        if (!ctx.channel().config().isAutoRead()) {
            return;
        }
        closed.increment();
        LOG.info("{}: closing the connection from {}: nothing read for {} ms (idle timeout)", portName,
                ctx.channel().remoteAddress(), getReaderIdleTimeInMillis());
        ctx.close();
    }
}
