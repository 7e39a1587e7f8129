package io.meldb.txn.protocol;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.wire.FrameStreamException;
import io.meldb.wire.FrameTooLarge;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.meldb.wire.FrameFormat.HEADER_LENGTH;
import static io.meldb.txn.protocol.TxnRpcProtocol.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The frame codec and body layouts on their own, in Netty's {@link EmbeddedChannel}. */
class TxnFrameCodecTest {
    private static final ByteBufAllocator A = ByteBufAllocator.DEFAULT;
    private final EmbeddedChannel decoder = new EmbeddedChannel(new TxnFrameDecoder(1024));
    private final EmbeddedChannel encoder = new EmbeddedChannel(TxnFrameEncoder.INSTANCE);

    @AfterEach
    void finish() {
        decoder.finishAndReleaseAll();
        encoder.finishAndReleaseAll();
    }

    private ByteBuf encode(TxnFrame frame) {
        encoder.writeOutbound(frame);
        ByteBuf wire = Unpooled.buffer();
        for (ByteBuf part; (part = encoder.readOutbound()) != null; ) {
            wire.writeBytes(part);
            part.release();
        }
        return wire;
    }

    private TxnFrame roundTrip(TxnFrame frame) {
        decoder.writeInbound(encode(frame));
        return decoder.readInbound();
    }

    @Test
    void shouldRoundTripAScanRequestWithOpenAndClosedBounds() {
        TxnFrame f = roundTrip(TxnFrame.scan(A, 7, 3, null, true, new byte[]{1, 2}, false, true, 10));
        try {
            assertEquals(SCAN, f.type());
            assertEquals(7, f.requestId());
            TxnBodyReader r = f.reader();
            assertEquals(3, r.readLong("handle"));
            assertEquals(SCAN_LO_INCLUSIVE | SCAN_DESCENDING, r.readByte("flags"));
            assertEquals(10, r.readInt("limit"));
            assertNull(r.readBytes("lo"));
            assertArrayEquals(new byte[]{1, 2}, r.readBytes("hi"));
            r.end();
        } finally {
            f.release();
        }
    }

    @Test
    void shouldRoundTripAnswersWithNullValuesAndLargeBodies() {
        TxnFrame absent = roundTrip(TxnFrame.value(A, 1, null));
        assertNull(absent.reader().readBytes("value"));
        absent.release();

        byte[] big = new byte[600];
        big[599] = 9;
        TxnFrame entries = roundTrip(TxnFrame.entries(A, 2, List.of(new KeyValue(new byte[]{1}, big),
                new KeyValue(new byte[]{2}, new byte[0]))));
        TxnBodyReader r = entries.reader();
        assertEquals(2, r.readInt("count"));
        assertArrayEquals(new byte[]{1}, r.readBytes("key"));
        assertArrayEquals(big, r.readBytes("value"));
        assertArrayEquals(new byte[]{2}, r.readBytes("key"));
        assertArrayEquals(new byte[0], r.readBytes("value"));
        r.end();
        entries.release();

        TxnFrame outcome = roundTrip(TxnFrame.outcomeIs(A, 3, new TxnOutcome(new TxnId(5, 6), TxnOutcome.State.ABORTED, 77, "conflict on k")));
        TxnBodyReader o = outcome.reader();
        assertEquals(5, o.readLong("incarnation"));
        assertEquals(6, o.readLong("sequence"));
        assertEquals(TxnOutcome.State.ABORTED, stateOf(o.readByte("state")));
        assertEquals(77, o.readLong("csn"));
        assertEquals("conflict on k", o.readString("reason"));
        o.end();
        outcome.release();

        TxnFrame error = roundTrip(TxnFrame.error(A, 4, TxnError.READ_ONLY, "no writes here"));
        assertEquals(TxnError.READ_ONLY, error.errorCode());
        assertEquals("no writes here", error.errorMessage());
        error.release();
    }

    @Test
    void shouldMapEveryOutcomeStateToAStableCode() {
        for (TxnOutcome.State s : TxnOutcome.State.values()) {
            assertEquals(s, stateOf(stateCode(s)));
        }
        assertThrows(IllegalArgumentException.class, () -> stateOf(0));
    }

    @Test
    void shouldWaitForMoreBytesWhenAFrameIsTruncated() {
        ByteBuf wire = encode(TxnFrame.begin(A, 9, IsolationLevel.SNAPSHOT, true));
        int length = wire.readableBytes();
        for (int cut : new int[]{2, 6, HEADER_LENGTH, length - 1}) {
            ByteBuf copy = wire.copy();
            assertFalse(decoder.writeInbound(copy.readRetainedSlice(cut)), "nothing decoded from " + cut + " bytes");
            decoder.writeInbound(copy.readRetainedSlice(length - cut));
            copy.release();
            TxnFrame f = decoder.readInbound();
            assertEquals(BEGIN, f.type());
            TxnBodyReader r = f.reader();
            assertEquals(IsolationLevel.SNAPSHOT, r.readIsolation());
            assertTrue(r.readBoolean("readOnly"));
            f.release();
        }
        wire.release();
    }

    @Test
    void shouldRejectBadMagicAsSoonAsItArrivesAndIgnoreTheRest() {
        ByteBuf bad = Unpooled.buffer().writeInt(16).writeInt(0x12345678);
        FrameStreamException e = assertThrows(FrameStreamException.class, () -> decoder.writeInbound(bad));
        assertTrue(e.getMessage().contains("bad magic"));
        assertFalse(decoder.writeInbound(encode(TxnFrame.status(1))), "nothing decoded after the stream broke");
    }

    @Test
    void shouldRejectAFrameLengthShorterThanTheHeader() {
        assertThrows(FrameStreamException.class, () -> decoder.writeInbound(Unpooled.buffer().writeInt(3)));
    }

    @Test
    void shouldSkipAnOversizedFrameAndStayInSync() {
        ByteBuf wire = encode(TxnFrame.put(A, 11, 1, new byte[]{1}, new byte[2000]));
        wire.writeBytes(encode(TxnFrame.status(12)));
        decoder.writeInbound(wire);
        FrameTooLarge tooLarge = assertInstanceOf(FrameTooLarge.class, decoder.readInbound());
        assertEquals(11, tooLarge.requestId());
        assertEquals(PUT, tooLarge.type());
        TxnFrame status = decoder.readInbound();
        assertEquals(STATUS, status.type());
        assertEquals(12, status.requestId());
        status.release();
    }

    @Test
    void shouldReportMalformedBodiesAsBadRequest() {
        TxnFrame f = new TxnFrame(GET, 1, Unpooled.buffer().writeLong(1).writeInt(-7));
        try {
            TxnBodyReader r = f.reader();
            r.readLong("handle");
            TxnException e = assertThrows(TxnException.class, () -> r.readBytes("key"));
            assertEquals(TxnError.BAD_REQUEST, e.error());
            assertTrue(e.getMessage().startsWith("GET body of 12 bytes"), e.getMessage());
        } finally {
            f.release();
        }
    }
}
