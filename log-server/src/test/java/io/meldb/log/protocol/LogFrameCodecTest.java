package io.meldb.log.protocol;

import io.meldb.wire.FrameStreamException;
import io.meldb.wire.FrameTooLarge;
import io.meldb.log.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static io.meldb.wire.FrameFormat.HEADER_LENGTH;
import static io.meldb.wire.FrameFormat.MIN_FRAME_LENGTH;
import static io.meldb.log.protocol.LogProtocol.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The frame codec on its own, in Netty's {@link EmbeddedChannel}: every malformed input the decoder must catch. */
class LogFrameCodecTest {
    private static final int MAX_FRAME = 1024;

    private final EmbeddedChannel decoder = new EmbeddedChannel(new LogFrameDecoder(MAX_FRAME));
    private final EmbeddedChannel encoder = new EmbeddedChannel(LogFrameEncoder.INSTANCE);

    @AfterEach
    void finish() {
        decoder.finishAndReleaseAll();
        encoder.finishAndReleaseAll();
    }

    
    @Test
    void encodesTheAppendedAnswerInOneBufferExactlyAsTheEncoderWould() {
        long requestId = 0x0102030405060708L;
        long position = 0x1122334455667788L;
        ByteBuf viaEncoder = TestFrames.encode(encoder,
                new LogFrame(APPENDED, requestId, Unpooled.buffer(8).writeLong(position)));
        ByteBuf direct = LogFrame.appendedFrame(ByteBufAllocator.DEFAULT, requestId, position);
        try {
            assertEquals(HEADER_LENGTH + 8, direct.readableBytes());
            assertEquals(viaEncoder, direct);
            decoder.writeInbound(direct.retainedDuplicate());
            LogFrame answer = decoder.readInbound();
            assertEquals(APPENDED, answer.type());
            assertEquals(requestId, answer.requestId());
            assertEquals(position, answer.longAt(0));
            answer.release();
        } finally {
            viaEncoder.release();
            direct.release();
        }
    }

    @Test
    void shouldRoundTripSmallAndBlockSizedFrames() {
        byte[] block = new byte[512];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) i;
        }
        ByteBuf wire = TestFrames.encode(encoder, LogFrame.append(42, Unpooled.wrappedBuffer(block)));
        wire.writeBytes(TestFrames.encode(encoder, LogFrame.read(ByteBufAllocator.DEFAULT, 43, 7, 3)));
        decoder.writeInbound(wire);

        LogFrame append = decoder.readInbound();
        assertEquals(APPEND, append.type());
        assertEquals(42, append.requestId());
        byte[] body = new byte[append.bodyLength()];
        append.body().getBytes(append.body().readerIndex(), body);
        assertArrayEquals(block, body);
        append.release();

        LogFrame read = decoder.readInbound();
        assertEquals(READ, read.type());
        assertEquals(43, read.requestId());
        assertEquals(7, read.longAt(0));
        assertEquals(3, read.intAt(8));
        read.release();
        assertNull(decoder.readInbound());
    }

    @Test
    void shouldWaitForMoreBytesWhenAFrameIsTruncated() {
        ByteBuf wire = TestFrames.encode(encoder, LogFrame.trim(ByteBufAllocator.DEFAULT, 9, 1234));
        int length = wire.readableBytes();
        for (int cut : new int[]{3, 10, HEADER_LENGTH, length - 1}) {
            ByteBuf copy = wire.copy();
            assertFalse(decoder.writeInbound(copy.readRetainedSlice(cut)), "nothing decoded from " + cut + " bytes");
            assertNull(decoder.readInbound());
            decoder.writeInbound(copy.readRetainedSlice(length - cut));
            copy.release();
            LogFrame f = decoder.readInbound();
            assertEquals(TRIM, f.type());
            assertEquals(1234, f.longAt(0));
            f.release();
        }
        wire.release();
    }

    @Test
    void shouldRejectABadMagicAndIgnoreEverythingAfterIt() {
        FrameStreamException e = assertThrows(FrameStreamException.class,
                () -> decoder.writeInbound(TestFrames.header(16, 0x12345678, VERSION, APPEND, 1)));
        assertEquals(FrameStreamException.Fault.BAD_MAGIC, e.fault());
        assertFalse(decoder.writeInbound(TestFrames.encode(encoder, LogFrame.tail(2))), "a later valid frame is not decoded: the stream is untrusted");
    }

    @Test
    void shouldRejectGarbageTextAsBadMagic() {
        FrameStreamException e = assertThrows(FrameStreamException.class,
                () -> decoder.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n", StandardCharsets.US_ASCII)));
        assertEquals(FrameStreamException.Fault.BAD_MAGIC, e.fault());
    }

    @Test
    void shouldRejectAnUnknownProtocolVersion() {
        FrameStreamException e = assertThrows(FrameStreamException.class,
                () -> decoder.writeInbound(TestFrames.header(16, MAGIC, 9, TAIL, 1)));
        assertEquals(FrameStreamException.Fault.BAD_VERSION, e.fault());
    }

    @Test
    void shouldRejectAFrameLengthShorterThanTheHeader() {
        FrameStreamException e = assertThrows(FrameStreamException.class,
                () -> decoder.writeInbound(TestFrames.header(3, MAGIC, VERSION, TAIL, 1)));
        assertEquals(FrameStreamException.Fault.BAD_LENGTH, e.fault());
    }

    @Test
    void shouldSkipAnOversizedFrameAndKeepDecodingTheNextOne() {
        int bodyLength = 5000;
        ByteBuf big = TestFrames.header(MIN_FRAME_LENGTH + bodyLength, MAGIC, VERSION, APPEND, 77);
        // the oversized body arrives in pieces, and the next frame right behind it
        decoder.writeInbound(big);
        FrameTooLarge tooLarge = assertInstanceOf(FrameTooLarge.class, decoder.readInbound());
        assertEquals(77, tooLarge.requestId());
        assertEquals(APPEND, tooLarge.type());
        assertEquals(MIN_FRAME_LENGTH + bodyLength, tooLarge.frameLength());
        decoder.writeInbound(Unpooled.wrappedBuffer(new byte[3000]));
        assertNull(decoder.readInbound());
        ByteBuf rest = Unpooled.wrappedBuffer(new byte[2000]);
        ByteBuf next = TestFrames.encode(encoder, LogFrame.tail(78));
        decoder.writeInbound(Unpooled.wrappedBuffer(rest, next));
        LogFrame f = decoder.readInbound();
        assertEquals(TAIL, f.type());
        assertEquals(78, f.requestId());
        f.release();
    }

    @Test
    void shouldPassUnknownTypesAndUndersizedBodiesOnForTheHandlerToAnswer() {
        // the decoder checks framing only; what a type means (and whether its body fits) is the handler's business
        ByteBuf unknown = TestFrames.header(MIN_FRAME_LENGTH + 2, MAGIC, VERSION, (byte) 0x42, 5).writeShort(7);
        ByteBuf shortAppend = TestFrames.header(MIN_FRAME_LENGTH + 10, MAGIC, VERSION, APPEND, 6).writeBytes(new byte[10]);
        decoder.writeInbound(Unpooled.wrappedBuffer(unknown, shortAppend));
        LogFrame u = decoder.readInbound();
        assertEquals(0x42, u.type());
        assertEquals(2, u.bodyLength());
        u.release();
        LogFrame a = decoder.readInbound();
        assertEquals(APPEND, a.type());
        assertEquals(10, a.bodyLength());
        a.release();
    }

    @Test
    void shouldEncodeErrorFramesWithCodeAndMessage() {
        decoder.writeInbound(TestFrames.encode(encoder, LogFrame.error(ByteBufAllocator.DEFAULT, 11, ErrorCode.TRIMMED, "position 3 was trimmed")));
        LogFrame f = decoder.readInbound();
        assertEquals(ERROR, f.type());
        assertEquals(ErrorCode.TRIMMED, f.errorCode());
        assertEquals("position 3 was trimmed", f.errorMessage());
        f.release();
    }
}
