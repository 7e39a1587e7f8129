package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.protocol.LogFrame;
import io.meldb.log.protocol.LogFrameDecoder;
import io.meldb.log.protocol.LogFrameEncoder;
import io.meldb.log.protocol.LogProtocol;
import io.meldb.log.protocol.TestFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.ImmediateEventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.meldb.wire.FrameFormat.MIN_FRAME_LENGTH;
import static io.meldb.log.protocol.LogProtocol.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's pipeline (decoder, encoder, request handler) in an {@link EmbeddedChannel}, fed raw bytes: every
 * malformed request gets its ERROR answer, and only an untrustworthy stream closes the connection; a storage
 * batch's acknowledgements go out only once the batch is published, a refusal at once.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LogServerHandlerTest {
    private static final int BLOCK = 512;

    @TempDir
    Path dir;

    private LogServer server;
    private LogServerHandler handler;
    /** The connections' event loop for work from the store's writer and read threads; this test's thread runs it. */
    private final TestLoop loop = new TestLoop();
    private EmbeddedChannel channel;
    private final EmbeddedChannel encoder = new EmbeddedChannel(LogFrameEncoder.INSTANCE);
    private final EmbeddedChannel answers = new EmbeddedChannel(new LogFrameDecoder(1 << 24));

    /** Stored blocks are read at once on the calling thread: an {@link EmbeddedChannel} is confined to the test's. */
    @BeforeEach
    void start() throws IOException {
        server = LogServer.start(LogServerConfig.at(dir).blockSize(BLOCK).metricsPort(-1).ioThreads(1));
        handler = new LogServerHandler(server, ImmediateEventExecutor.INSTANCE, loop);
        channel = connection(handler);
    }

    private EmbeddedChannel connection(LogServerHandler h) {
        return new EmbeddedChannel(new LogFrameDecoder(LogProtocol.maxRequestFrameLength(BLOCK)), LogFrameEncoder.INSTANCE, h);
    }

    @AfterEach
    void stop() {
        try {
            loop.runPending();
            channel.finishAndReleaseAll();
            encoder.finishAndReleaseAll();
            answers.finishAndReleaseAll();
        } finally {
            server.close();
        }
    }


    /** Carries out what other threads handed connection {@code ch}, then what it queued itself. */
    private void runTasks(EmbeddedChannel ch) {
        loop.runPending();
        ch.runPendingTasks();
    }

    /** The next answer the server wrote, waiting for answers that come back from the storage thread. */
    private LogFrame answer() throws InterruptedException {
        return answer(channel, answers);
    }

    /** The next answer written to connection {@code ch}, decoded by that connection's {@code decoder}. */
    private LogFrame answer(EmbeddedChannel ch, EmbeddedChannel decoder) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            runTasks(ch);
            for (Object o; (o = ch.readOutbound()) != null; ) {
                decoder.writeInbound(o);
            }
            LogFrame f = decoder.readInbound();
            if (f != null) {
                return f;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no answer");
            }
            Thread.sleep(1);
        }
    }

    private void assertError(ErrorCode expected, long requestId) throws InterruptedException {
        LogFrame f = answer();
        try {
            assertEquals(ERROR, f.type(), "answer " + f);
            assertEquals(expected, f.errorCode(), f.errorMessage());
            assertEquals(requestId, f.requestId());
        } finally {
            f.release();
        }
    }

    private void assertStillServing() throws InterruptedException {
        assertTrue(channel.isOpen());
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.tail(999)));
        LogFrame f = answer();
        assertEquals(TAIL_IS, f.type());
        assertEquals(999, f.requestId());
        f.release();
    }

    @Test
    void shouldAnswerAppendsBeforeCreateWithNotCreated() throws InterruptedException {
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(1, Unpooled.wrappedBuffer(new byte[BLOCK]))));
        assertError(ErrorCode.NOT_CREATED, 1);
        assertStillServing();
    }

    @Test
    void shouldAppendAndAnswerWithThePosition() throws InterruptedException {
        server.store().create(BLOCK, new byte[0]);
        ByteBuf request = TestFrames.encode(encoder, LogFrame.append(5, Unpooled.wrappedBuffer(new byte[BLOCK])));
        channel.writeInbound(request);
        LogFrame f = answer();
        assertEquals(APPENDED, f.type());
        assertEquals(5, f.requestId());
        assertEquals(1, f.longAt(0));
        f.release();
        // the block the store was given is a slice of the request, released by the time the append is answered
        assertEquals(0, request.refCnt());
        assertTrue(loop.tasksRun() > 0, "the store's answer came through the connection's loop, not the channel's own");
    }

    @Test
    void shouldAnswerAnUndersizedBlockWithBlockSizeAndStayOpen() throws InterruptedException {
        server.store().create(BLOCK, new byte[0]);
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(2, Unpooled.wrappedBuffer(new byte[BLOCK - 1]))));
        assertError(ErrorCode.BLOCK_SIZE, 2);
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(3, Unpooled.wrappedBuffer(new byte[0]))));
        assertError(ErrorCode.BLOCK_SIZE, 3);
        assertStillServing();
    }

    @Test
    void shouldAnswerAnOversizedBlockWithBlockSizeAndStayOpen() throws InterruptedException {
        server.store().create(BLOCK, new byte[0]);
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(4, Unpooled.wrappedBuffer(new byte[BLOCK + 8]))));
        assertError(ErrorCode.BLOCK_SIZE, 4);
        assertStillServing();
    }

    @Test
    void shouldAnswerAFrameAboveTheLimitWithFrameTooLargeAndStayOpen() throws InterruptedException {
        server.store().create(BLOCK, new byte[0]);
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(6, Unpooled.wrappedBuffer(new byte[BLOCK * 10]))));
        assertError(ErrorCode.FRAME_TOO_LARGE, 6);
        assertStillServing();
        assertEquals(1, server.store().tail(), "nothing was appended");
    }

    @Test
    void shouldAnswerAnUnknownRequestTypeAndStayOpen() throws InterruptedException {
        channel.writeInbound(TestFrames.header(MIN_FRAME_LENGTH + 4, MAGIC, VERSION, (byte) 0x3C, 8).writeInt(1));
        assertError(ErrorCode.UNKNOWN_REQUEST, 8);
        channel.writeInbound(TestFrames.encode(encoder, new LogFrame(APPENDED, 9, Unpooled.buffer().writeLong(1))));
        assertError(ErrorCode.UNKNOWN_REQUEST, 9);
        assertStillServing();
    }

    @Test
    void shouldAnswerAMalformedBodyAndStayOpen() throws InterruptedException {
        channel.writeInbound(TestFrames.header(MIN_FRAME_LENGTH + 3, MAGIC, VERSION, READ, 10).writeBytes(new byte[3]));
        assertError(ErrorCode.MALFORMED_REQUEST, 10);
        channel.writeInbound(TestFrames.header(MIN_FRAME_LENGTH + 8, MAGIC, VERSION, CREATE, 11).writeInt(BLOCK).writeInt(100));
        assertError(ErrorCode.MALFORMED_REQUEST, 11);
        assertStillServing();
    }

    @Test
    void shouldAnswerReadsPastTheTailAndOfTrimmedPositions() throws InterruptedException {
        server.store().create(BLOCK, new byte[0]);
        for (int i = 0; i < 3; i++) {
            byte[] block = i == 2 ? TestCheckpoints.lastChunk(BLOCK, 3, 3, 0).get(0) : new byte[BLOCK];
            channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(20 + i, Unpooled.wrappedBuffer(block))));
            answer().release();
        }
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.read(ByteBufAllocator.DEFAULT, 30, 4, 1)));
        assertError(ErrorCode.PAST_TAIL, 30);
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.trim(ByteBufAllocator.DEFAULT, 31, 3)));
        LogFrame trimmed = answer();
        assertEquals(TRIMMED_TO, trimmed.type());
        assertEquals(3, trimmed.longAt(0));
        trimmed.release();
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.read(ByteBufAllocator.DEFAULT, 32, 2, 1)));
        assertError(ErrorCode.TRIMMED, 32);
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.read(ByteBufAllocator.DEFAULT, 33, 3, 100)));
        LogFrame blocks = answer();
        assertEquals(BLOCKS, blocks.type(), () -> blocks.errorMessage());
        assertEquals(1, blocks.intAt(8), "a read stops at the tail");
        blocks.release();
    }

    @Test
    void shouldAnswerABadMagicAndCloseTheConnection() throws InterruptedException {
        channel.writeInbound(Unpooled.wrappedBuffer("this is not the log protocol".getBytes()));
        assertError(ErrorCode.BAD_MAGIC, 0);
        runTasks(channel);
        assertFalse(channel.isOpen());
    }

    @Test
    void shouldAnswerABadVersionAndCloseTheConnection() throws InterruptedException {
        channel.writeInbound(TestFrames.header(MIN_FRAME_LENGTH, MAGIC, 7, TAIL, 12));
        LogFrame f = answer();
        assertNotNull(f);
        assertEquals(ErrorCode.BAD_VERSION, f.errorCode());
        f.release();
        runTasks(channel);
        assertFalse(channel.isOpen());
    }

    // ---- acknowledgements travel per storage batch (AckDispatcher); the writer thread is played by this test

    private LogServerHandler.Ack ack(LogServerHandler h, EmbeddedChannel ch, long requestId) {
        return new LogServerHandler.Ack(h, requestId, BLOCK, System.nanoTime(), server.acks().forLoop(loop));
    }

    @Test
    void holdsABatchsAcknowledgementsUntilTheBatchIsPublished() throws InterruptedException {
        LogServerHandler other = new LogServerHandler(server, ImmediateEventExecutor.INSTANCE, loop);
        EmbeddedChannel otherChannel = connection(other);
        EmbeddedChannel otherAnswers = new EmbeddedChannel(new LogFrameDecoder(1 << 24));
        try {
            ack(handler, channel, 10).appended(100);
            ack(other, otherChannel, 20).appended(101);
            ack(handler, channel, 11).appended(102);
            runTasks(channel);
            runTasks(otherChannel);
            assertNull(channel.readOutbound(), "answered before the batch was published");
            assertNull(otherChannel.readOutbound(), "answered before the batch was published");

            server.acks().tailAdvanced(103);
            assertAppended(answer(), 10, 100);
            assertAppended(answer(), 11, 102);
            assertAppended(answer(otherChannel, otherAnswers), 20, 101);

            // the next batch starts empty: publishing again sends nothing more
            server.acks().tailAdvanced(103);
            runTasks(channel);
            assertNull(channel.readOutbound());
        } finally {
            otherChannel.finishAndReleaseAll();
            otherAnswers.finishAndReleaseAll();
        }
    }

    /**
     * At the limit of unanswered appends the connection stops being read, and the requests already decoded from the
     * same socket read wait: never more than the limit are with the store, and the rest are carried out, in order,
     * as the answers come back.
     */
    @Test
    void defersRequestsDecodedPastTheAppendLimitAndCarriesThemOutInOrder() throws Exception {
        LogServerConfig config = LogServerConfig.at(dir.resolve("limited")).blockSize(BLOCK).metricsPort(-1).ioThreads(1)
                .maxAppendsInFlightPerConnection(4);
        try (LogServer limited = LogServer.start(config)) {
            limited.store().create(BLOCK, new byte[0]);
            LogServerHandler h = new LogServerHandler(limited, ImmediateEventExecutor.INSTANCE, loop);
            EmbeddedChannel ch = connection(h);
            EmbeddedChannel decoder = new EmbeddedChannel(new LogFrameDecoder(1 << 24));
            try {
                ByteBuf burst = Unpooled.buffer();
                for (int i = 1; i <= 10; i++) {
                    ByteBuf frame = TestFrames.encode(encoder, LogFrame.append(i, Unpooled.wrappedBuffer(new byte[BLOCK])));
                    burst.writeBytes(frame);
                    frame.release();
                }
                ch.writeInbound(burst);
                // the store may already have answered some (writeInbound runs the channel's pending tasks)
                assertTrue(h.appendsInFlight() <= 4, h.appendsInFlight() + " appends handed to the store at once");
                for (int i = 1; i <= 10; i++) {
                    assertAppended(answer(ch, decoder), i, i);
                    assertTrue(h.appendsInFlight() <= 4, h.appendsInFlight() + " appends handed to the store at once");
                }
                assertTrue(ch.config().isAutoRead(), "read again once everything is answered");
                assertEquals(0, h.deferredRequests());
            } finally {
                ch.finishAndReleaseAll();
                decoder.finishAndReleaseAll();
            }
        }
    }

    @Test
    void sendsARefusalAtOnce() throws InterruptedException {
        ack(handler, channel, 7).failed(new LogErrorException(ErrorCode.STORAGE_FAILURE, "disk gone"));
        assertError(ErrorCode.STORAGE_FAILURE, 7);
    }

    @Test
    void reusesAnAnsweredAcknowledgementForTheConnectionsNextAppend() throws InterruptedException {
        server.store().create(BLOCK, new byte[0]);
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(5, Unpooled.wrappedBuffer(new byte[BLOCK]))));
        assertAppended(answer(), 5, 1);
        assertEquals(1, handler.freeAcks());

        // the second append takes the answered acknowledgement (a new one would leave two free once answered) and
        // is answered with its own id and position
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(6, Unpooled.wrappedBuffer(new byte[BLOCK]))));
        assertAppended(answer(), 6, 2);
        assertEquals(1, handler.freeAcks());

        // a block refused on arrival takes none, and the next append still finds the one free
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(7, Unpooled.wrappedBuffer(new byte[BLOCK - 1]))));
        assertError(ErrorCode.BLOCK_SIZE, 7);
        channel.writeInbound(TestFrames.encode(encoder, LogFrame.append(8, Unpooled.wrappedBuffer(new byte[BLOCK]))));
        assertAppended(answer(), 8, 3);
        assertEquals(1, handler.freeAcks());
    }

    private static void assertAppended(LogFrame f, long requestId, long position) {
        try {
            assertEquals(APPENDED, f.type());
            assertEquals(requestId, f.requestId());
            assertEquals(position, f.longAt(0));
        } finally {
            f.release();
        }
    }
}
