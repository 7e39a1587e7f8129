package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.protocol.LogFrame;
import io.meldb.log.protocol.LogFrameDecoder;
import io.meldb.log.protocol.LogFrameEncoder;
import io.meldb.log.protocol.LogProtocol;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.log.protocol.LogProtocol.APPENDED;
import static io.meldb.log.protocol.LogProtocol.ERROR;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The writer-thread side of acknowledgements, driven by hand on the test thread: what a storage batch files stays
 * unsent until the batch is published, then goes out in one flush per connection; a refusal goes out at once.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AckDispatcherTest {
    private static final int BLOCK = 512;

    @TempDir
    Path dir;

    private LogServer server;
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = LogServer.start(LogServerConfig.at(dir).blockSize(BLOCK).metricsPort(-1).ioThreads(1));
    }

    @AfterEach
    void stop() {
        try {
            for (EmbeddedChannel ch : channels) {
                ch.finishAndReleaseAll();
            }
        } finally {
            server.close();
        }
    }

    private LogServerHandler connect() {
        LogServerHandler handler = new LogServerHandler(server);
        channels.add(new EmbeddedChannel(new LogFrameDecoder(LogProtocol.maxRequestFrameLength(BLOCK)),
                LogFrameEncoder.INSTANCE, handler));
        return handler;
    }

    private LogServerHandler.Ack ack(LogServerHandler handler, EmbeddedChannel ch, long requestId) {
        return new LogServerHandler.Ack(handler, requestId, BLOCK, System.nanoTime(), server.acks().forLoop(ch.eventLoop()));
    }

    /** Frames the channel has flushed so far, decoded. */
    private static List<LogFrame> flushed(EmbeddedChannel ch) {
        ch.runPendingTasks();
        EmbeddedChannel decoder = new EmbeddedChannel(new LogFrameDecoder(1 << 20));
        List<LogFrame> frames = new ArrayList<>();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            decoder.writeInbound(o);
        }
        for (LogFrame f; (f = decoder.readInbound()) != null; ) {
            frames.add(f);
        }
        decoder.finishAndReleaseAll();
        return frames;
    }

    @Test
    void holdsABatchsAcknowledgementsUntilTheBatchIsPublished() {
        LogServerHandler a = connect();
        LogServerHandler b = connect();
        EmbeddedChannel chA = channels.get(0);
        EmbeddedChannel chB = channels.get(1);

        ack(a, chA, 10).appended(100);
        ack(b, chB, 20).appended(101);
        ack(a, chA, 11).appended(102);
        assertEquals(List.of(), flushed(chA), "answered before the batch was published");
        assertEquals(List.of(), flushed(chB), "answered before the batch was published");

        server.acks().tailAdvanced(103);
        List<LogFrame> toA = flushed(chA);
        List<LogFrame> toB = flushed(chB);
        assertEquals(2, toA.size());
        assertEquals(1, toB.size());
        assertAppended(toA.get(0), 10, 100);
        assertAppended(toA.get(1), 11, 102);
        assertAppended(toB.get(0), 20, 101);

        // the next batch starts empty: publishing again sends nothing more
        server.acks().tailAdvanced(103);
        assertEquals(List.of(), flushed(chA));
    }

    @Test
    void sendsARefusalAtOnce() {
        LogServerHandler a = connect();
        EmbeddedChannel chA = channels.get(0);

        ack(a, chA, 7).failed(new LogErrorException(ErrorCode.STORAGE_FAILURE, "disk gone"));
        List<LogFrame> toA = flushed(chA);
        assertEquals(1, toA.size());
        LogFrame f = toA.get(0);
        try {
            assertEquals(ERROR, f.type());
            assertEquals(7, f.requestId());
            assertEquals(ErrorCode.STORAGE_FAILURE, f.errorCode());
        } finally {
            f.release();
        }
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
