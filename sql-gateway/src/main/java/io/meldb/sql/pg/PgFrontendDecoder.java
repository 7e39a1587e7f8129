package io.meldb.sql.pg;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;

import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Cuts the connection's bytes into {@link PgMessage}s. Until the StartupMessage a message has no type byte
 * (StartupMessage, SSLRequest, GSSENCRequest, CancelRequest); after it every message is a type byte and a length
 * that counts itself. A length beyond the limit, or one too short to count itself, is a {@link
 * TooLongFrameException} or {@link PgProtocolException}: the handler answers with an error and closes, since
 * the stream cannot be resynchronized.
 *
 * <p>Once the session is open, a message must not stay half-sent: while one is incomplete, no byte for the message
 * timeout ({@link PgServerConfig#messageTimeout}) closes the connection with a FATAL 08P01, so that a client that
 * sends the first bytes of a message and stops does not hold its connection (and what it holds) forever. Between
 * whole messages a session may be idle as long as it likes, and a connection the server stopped reading
 * (backpressure) is not waiting for its client. (Before the session opens, the start-up timeout covers it.)
 */
public final class PgFrontendDecoder extends ByteToMessageDecoder {
    /** Protocol 3.0, the code of a StartupMessage. */
    static final int PROTOCOL_3 = 196_608;
    /** Startup packets are small; PostgreSQL allows 10,000 bytes. */
    private static final int MAX_STARTUP_LENGTH = 10_000;

    private final int maxMessageBytes;
    private final long messageTimeoutNanos;
    private boolean startup = true;
    /** When the last bytes arrived (or the server last stopped reading), and the check of a half-sent message. */
    private long lastProgress;
    private ScheduledFuture<?> halfSentCheck;

    public PgFrontendDecoder(final int maxMessageBytes) {
        this(maxMessageBytes, PgServerConfig.DEFAULT_MESSAGE_TIMEOUT.toNanos());
    }

    public PgFrontendDecoder(final int maxMessageBytes, final long messageTimeoutNanos) {
        this.maxMessageBytes = maxMessageBytes;
        this.messageTimeoutNanos = messageTimeoutNanos;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception {
        lastProgress = System.nanoTime();
        super.channelRead(ctx, msg);
        if (!startup && actualReadableBytes() > 0 && halfSentCheck == null && ctx.channel().isActive()) {
            halfSentCheck = ctx.executor().schedule(() -> checkHalfSent(ctx), messageTimeoutNanos,
                    TimeUnit.NANOSECONDS);
        }
    }

    /** On the channel's event loop, a message timeout after a message was left incomplete. */
    private void checkHalfSent(final ChannelHandlerContext ctx) {
        halfSentCheck = null;
        if (!ctx.channel().isActive() || actualReadableBytes() == 0) {
            return; // the message was completed (or the connection is gone)
        }
        final long now = System.nanoTime();
        if (!ctx.channel().config().isAutoRead()) {
            lastProgress = now; // the server is not reading: the client is not the one that stalls
        }
        final long left = lastProgress + messageTimeoutNanos - now;
        if (left > 0) {
            halfSentCheck = ctx.executor().schedule(() -> checkHalfSent(ctx), left, TimeUnit.NANOSECONDS);
            return;
        }
        final ByteBuf in = internalBuffer();
        final String what = in.readableBytes() >= 1 ? "a '" + (char) in.getByte(in.readerIndex()) + "' message"
                : "a message";
        in.skipBytes(in.readableBytes());
        ctx.fireExceptionCaught(new PgProtocolException("incomplete message from client: " + what + " was left "
                + "half-sent for " + TimeUnit.NANOSECONDS.toMillis(messageTimeoutNanos) + " ms; closing the "
                + "connection"));
    }

    @Override
    protected void handlerRemoved0(final ChannelHandlerContext ctx) {
        if (halfSentCheck != null) {
            halfSentCheck.cancel(false);
            halfSentCheck = null;
        }
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
        if (startup) {
            if (in.readableBytes() < 8) {
                return;
            }
            final int length = in.getInt(in.readerIndex());
            if (length < 8 || length > MAX_STARTUP_LENGTH) {
                throw new PgProtocolException("invalid length of startup packet: " + length);
            }
            if (in.readableBytes() < length) {
                return;
            }
            final int code = in.getInt(in.readerIndex() + 4);
            in.skipBytes(4);
            if (code == PROTOCOL_3) {
                startup = false; // typed messages from here on
            }
            out.add(PgMessage.of(PgMessage.STARTUP, in.readRetainedSlice(length - 4)));
            return;
        }
        if (in.readableBytes() < 5) {
            return;
        }
        final byte type = in.getByte(in.readerIndex());
        final int length = in.getInt(in.readerIndex() + 1);
        if (length < 4) {
            throw new PgProtocolException("invalid message length " + length);
        }
        if (length - 4 > maxMessageBytes) {
            in.skipBytes(in.readableBytes());
            throw new TooLongFrameException("a '" + (char) type + "' message of " + (length - 4)
                    + " bytes is larger than the limit of " + maxMessageBytes + " bytes");
        }
        if (in.readableBytes() < 1 + length) {
            return;
        }
        in.skipBytes(5);
        out.add(PgMessage.of(type, in.readRetainedSlice(length - 4)));
    }
}
