package io.meldb.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.DefaultByteBufHolder;

import java.nio.charset.StandardCharsets;

/**
 * One frame of a protocol on the shared framing ({@link FrameFormat}): type, request id and body. A
 * {@code ByteBufHolder}, so Netty releases it like a buffer. Each protocol subclasses it with its factories and the
 * meaning of its error codes.
 */
public abstract class Frame extends DefaultByteBufHolder {
    private final byte type;
    private final long requestId;

    protected Frame(byte type, long requestId, ByteBuf body) {
        super(body);
        this.type = type;
        this.requestId = requestId;
    }

    public final byte type() {
        return type;
    }

    public final long requestId() {
        return requestId;
    }

    public final ByteBuf body() {
        return content();
    }

    public final int bodyLength() {
        return content().readableBytes();
    }

    public final long longAt(int offset) {
        return content().getLong(content().readerIndex() + offset);
    }

    public final int intAt(int offset) {
        return content().getInt(content().readerIndex() + offset);
    }

    /** Name of this frame's type, for messages. */
    public abstract String typeName();

    /** Numeric code of an ERROR frame. */
    protected final short errorCodeValue() {
        return content().getShort(content().readerIndex());
    }

    /** Message of an ERROR frame. */
    public final String errorMessage() {
        ByteBuf b = content();
        return b.toString(b.readerIndex() + 2, b.readableBytes() - 2, StandardCharsets.UTF_8);
    }

    /** The body of an ERROR frame: the code, then the message in UTF-8, cut to {@code maxMessageBytes}. */
    protected static ByteBuf errorBody(ByteBufAllocator alloc, int code, String message, int maxMessageBytes) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, maxMessageBytes);
        return alloc.buffer(2 + n).writeShort(code).writeBytes(text, 0, n);
    }

    @Override
    public abstract Frame replace(ByteBuf content);

    @Override
    public Frame retain() {
        super.retain();
        return this;
    }

    @Override
    public Frame retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public Frame touch() {
        super.touch();
        return this;
    }

    @Override
    public Frame touch(Object hint) {
        super.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return typeName() + "#" + requestId + "(" + (refCnt() > 0 ? content().readableBytes() + " bytes" : "released") + ")";
    }
}
