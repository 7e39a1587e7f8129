package io.meldb.log.protocol;

import io.meldb.wire.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/** Frame bytes for protocol tests: well-formed frames through the real encoder, and hand-made headers. */
public final class TestFrames {
    private TestFrames() {
    }

    /** Encodes a frame with {@code encoder} into one buffer (the encoder may emit header and body separately). */
    public static ByteBuf encode(final EmbeddedChannel encoder, final LogFrame frame) {
        encoder.writeOutbound(frame);
        final ByteBuf all = Unpooled.buffer();
        for (ByteBuf b; (b = encoder.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        return all;
    }

    /** A frame header with arbitrary (possibly invalid) fields. */
    public static ByteBuf header(final int frameLength, final int magic, final int version, final byte type,
                                 final long requestId) {
        return Unpooled.buffer().writeInt(frameLength).writeInt(magic).writeByte(version).writeByte(type)
            .writeShort(0).writeLong(requestId);
    }
}
