package io.meldb.sql.pg;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;

import java.util.List;

/**
 * Cuts the connection's bytes into {@link PgMessage}s. Until the StartupMessage a message has no type byte
 * (StartupMessage, SSLRequest, GSSENCRequest, CancelRequest); after it every message is a type byte and a length
 * that counts itself. A length beyond the limit, or one too short to count itself, is a {@link
 * TooLongFrameException} or {@link PgProtocolException}: the handler answers with an error and closes, since
 * the stream cannot be resynchronized.
 */
public final class PgFrontendDecoder extends ByteToMessageDecoder {
    /** Protocol 3.0, the code of a StartupMessage. */
    static final int PROTOCOL_3 = 196_608;
    /** Startup packets are small; PostgreSQL allows 10,000 bytes. */
    private static final int MAX_STARTUP_LENGTH = 10_000;

    private final int maxMessageBytes;
    private boolean startup = true;

    public PgFrontendDecoder(final int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
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
