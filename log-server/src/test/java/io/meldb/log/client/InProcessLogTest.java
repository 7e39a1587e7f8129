package io.meldb.log.client;

import io.meldb.log.server.InProcessLog;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogConnectionException;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogException;
import io.meldb.log.LogStore;
import io.meldb.log.LogTimeoutException;
import io.meldb.log.storage.ChronicleLogStore;
import io.meldb.log.storage.StoreOptions;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The log service in process: the same answers as a log server gives a {@link LogClient}, over the store itself. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InProcessLogTest {
    private static final int BLOCK = 1024;
    private static final byte[] CONFIG = "meld config".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;
    private ChronicleLogStore store;
    private InProcessLog log;

    @BeforeEach
    void open() throws Exception {
        store = ChronicleLogStore.open(StoreOptions.at(dir).pretouch(false));
        log = InProcessLog.over(store, BLOCK);
        log.create(BLOCK, CONFIG).join();
    }

    @AfterEach
    void close() {
        log.close();
        store.close();
    }

    private static byte[] block(final int mark) {
        final byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) mark);
        b[0] = (byte) (mark >> 8);
        return b;
    }

    private void appendBlocks(final int from, final int to) {
        for (int i = from; i <= to; i++) {
            assertEquals(i, log.append(block(i)).join());
        }
    }

    private static ErrorCode codeOf(final CompletableFuture<?> f) {
        final Throwable e = assertThrows(CompletionException.class, f::join).getCause();
        return assertInstanceOf(LogErrorException.class, e).code();
    }

    @Test
    void appendsAtDensePositionsAndReadsThemBackWithBlockZeroHoldingTheConfiguration() {
        appendBlocks(1, 10);
        final LogStatus status = log.status().join();
        assertEquals(11, status.tail());
        assertEquals(1, status.trimPoint());
        assertEquals(BLOCK, status.blockSize());
        assertEquals(store.logId(), status.logId());
        assertEquals(store.logId(), log.logId());
        assertEquals(11, log.tail().join());
        assertArrayEquals(CONFIG, log.config().join());

        final List<byte[]> blocks = log.read(1, 100).join();
        assertEquals(10, blocks.size(), "never past the tail");
        for (int i = 0; i < blocks.size(); i++) {
            assertArrayEquals(block(i + 1), blocks.get(i));
        }
        assertEquals(ErrorCode.PAST_TAIL, codeOf(log.read(11, 1)));
        assertEquals(ErrorCode.BAD_ARGUMENT, codeOf(log.read(1, 0)));
        assertEquals(ErrorCode.BLOCK_SIZE, codeOf(log.append(new byte[BLOCK - 1])));
    }

    @Test
    void createIsIdempotentButRefusesAnotherBlockSizeOrConfiguration() {
        log.create(BLOCK, CONFIG).join();
        assertEquals(ErrorCode.CREATE_MISMATCH, codeOf(log.create(2 * BLOCK, CONFIG)), "not the server's block size");
        assertEquals(ErrorCode.CREATE_MISMATCH, codeOf(log.create(BLOCK, "other".getBytes(StandardCharsets.UTF_8))));
        assertArrayEquals(CONFIG, log.config().join());
    }

    @Test
    void subscriptionDeliversFromItsPositionInOrderAndThenWhatIsAppendedLater() throws Exception {
        appendBlocks(1, 5);
        final Recorder r = new Recorder();
        try (LogService.Subscription s = log.subscribe(3, r)) {
            r.awaitPositions(3, 5);
            appendBlocks(6, 8);
            r.awaitPositions(3, 8);
            assertEquals(9, s.nextPosition());
        }
        for (int i = 0; i < r.positions.size(); i++) {
            assertArrayEquals(block(3 + i), r.blocks.get(i));
        }
        assertTrue(r.errors.isEmpty(), r.errors.toString());
    }

    @Test
    void blocksAppendedFromReusedBuffersReachTheSubscriptionFromMemoryByteForByte() throws Exception {
        final BlockBufferPool pool = new BlockBufferPool(BLOCK, 256); // above the 64 blocks the log keeps in memory
        final Recorder r = new Recorder();
        final int n = 3000;
        try (LogService.Subscription s = log.subscribe(1, r)) {
            final List<CompletableFuture<Long>> appends = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                final ByteBuf b = pool.take();
                b.setBytes(0, block(i)); // a recycled buffer is rewritten here while the log may still hold its block
                appends.add(log.append(b));
                if (i % 64 == 0) {
                    appends.get(appends.size() - 1).join(); // let the pool turn over
                }
            }
            for (int i = 0; i < n; i++) {
                assertEquals(i + 1, appends.get(i).join());
            }
            r.awaitPositions(1, n);
            assertTrue(log.deliveredFromMemory() > 0, "no block came from memory");
        }
        for (int i = 0; i < n; i++) {
            assertArrayEquals(block(i + 1), r.blocks.get(i), "delivered position " + (i + 1));
        }
        // the store's copy, for recovery and remote subscribers, is the same
        for (int i = 1; i <= n; i += 97) {
            assertArrayEquals(block(i), log.read(i, 1).join().get(0), "stored position " + i);
        }
        assertTrue(pool.created() < n / 4, pool.created() + " buffers created for " + n + " appends");
        assertTrue(r.errors.isEmpty(), r.errors.toString());
    }

    @Test
    void pausedSubscriptionDeliversNothingUntilResumed() throws Exception {
        final Recorder r = new Recorder();
        try (LogService.Subscription s = log.subscribe(1, r)) {
            appendBlocks(1, 2);
            r.awaitPositions(1, 2);
            s.pause();
            appendBlocks(3, 6);
            Thread.sleep(200);
            assertEquals(2, r.positions.size(), "delivered while paused: " + r.positions);
            s.resume();
            r.awaitPositions(1, 6);
        }
    }

    @Test
    void subscriptionBelowTheTrimPointEndsWithTrimmedAndReadsThereFail() throws Exception {
        appendBlocks(1, 10);
        assertEquals(6, log.trim(6).join());
        assertEquals(6, log.status().join().trimPoint());
        assertEquals(ErrorCode.TRIMMED, codeOf(log.read(2, 1)));
        assertEquals(ErrorCode.BAD_ARGUMENT, codeOf(log.trim(0)));

        final Recorder trimmed = new Recorder();
        final LogService.Subscription below = log.subscribe(2, trimmed);
        final LogException error = trimmed.awaitError();
        assertEquals(ErrorCode.TRIMMED, assertInstanceOf(LogErrorException.class, error).code());
        assertTrue(below.isClosed());
        assertTrue(trimmed.positions.isEmpty());

        final Recorder from = new Recorder();
        try (LogService.Subscription s = log.subscribe(6, from)) {
            from.awaitPositions(6, 10);
        }
        assertArrayEquals(CONFIG, log.config().join(), "block 0 outlives the trim");
    }

    @Test
    void reopenedStoreServesTheSameLogToANewInProcessLog() throws Exception {
        appendBlocks(1, 7);
        final UUID id = log.logId();
        log.close();
        store.close();

        store = ChronicleLogStore.open(StoreOptions.at(dir).pretouch(false));
        log = InProcessLog.over(store, BLOCK);
        assertEquals(id, log.logId());
        assertEquals(8, log.tail().join());
        assertArrayEquals(CONFIG, log.config().join());
        log.create(BLOCK, CONFIG).join();
        final Recorder r = new Recorder();
        try (LogService.Subscription s = log.subscribe(1, r)) {
            r.awaitPositions(1, 7);
            appendBlocks(8, 9);
            r.awaitPositions(1, 9);
        }
        assertArrayEquals(block(7), r.blocks.get(6));
    }

    @Test
    void closingEndsSubscriptionsAndRefusesLaterRequests() throws Exception {
        final Recorder r = new Recorder();
        final LogService.Subscription s = log.subscribe(1, r);
        log.close();
        assertTrue(s.isClosed());
        final Throwable e = assertThrows(CompletionException.class, () -> log.append(block(1)).join()).getCause();
        assertInstanceOf(LogConnectionException.class, e);
        assertThrows(LogConnectionException.class, () -> log.subscribe(1, new Recorder()));
        appendThroughAnotherService(store);
        Thread.sleep(100);
        assertTrue(r.positions.isEmpty(), "delivered after close: " + r.positions);
    }

    private static void appendThroughAnotherService(final LogStore store) {
        try (InProcessLog other = InProcessLog.over(store, BLOCK)) {
            assertEquals(1, other.append(block(1)).join());
        }
    }

    @Test
    void appendsBeyondTheInFlightLimitWaitForAPermitAndThenTimeOut() {
        // a store that never finishes an append: the third waits for one of the first two, then gives up
        final LogStore stuck = (LogStore) Proxy.newProxyInstance(LogStore.class.getClassLoader(),
            new Class<?>[] {LogStore.class}, (proxy, method, args) -> switch (method.getName()) {
                case "blockSize" -> BLOCK;
                case "isCreated" -> true;
                case "tail", "trimPoint" -> 1L;
                case "hashCode" -> 0;
                case "equals" -> proxy == args[0];
                default -> null;
            });
        try (InProcessLog limited = InProcessLog.over(stuck, BLOCK, 2, Duration.ofMillis(300))) {
            final CompletableFuture<Long> first = limited.append(block(1));
            final CompletableFuture<Long> second = limited.append(block(2));
            assertEquals(2, limited.inFlight());
            final long start = System.nanoTime();
            final CompletableFuture<Long> third = limited.append(block(3));
            final long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waitedMillis >= 250, "did not wait for a permit: " + waitedMillis + " ms");
            assertInstanceOf(LogTimeoutException.class, assertThrows(CompletionException.class, third::join).getCause());
            assertTrue(!first.isDone() && !second.isDone());
        }
    }

    /** Records what a subscription delivers, copying each block (the buffer is valid during the call only). */
    private static final class Recorder implements BlockListener {
        final List<Long> positions = new CopyOnWriteArrayList<>();
        final List<byte[]> blocks = new CopyOnWriteArrayList<>();
        final List<LogException> errors = new CopyOnWriteArrayList<>();

        @Override
        public void onBlock(final long position, final ByteBuf block) {
            final byte[] copy = new byte[block.readableBytes()];
            block.getBytes(block.readerIndex(), copy);
            blocks.add(copy);
            positions.add(position);
        }

        @Override
        public void onError(final LogException error) {
            errors.add(error);
        }

        void awaitPositions(final long first, final long last) throws InterruptedException {
            final List<Long> expected = new ArrayList<>();
            for (long p = first; p <= last; p++) {
                expected.add(p);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (positions.size() < expected.size() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertEquals(expected, positions);
        }

        LogException awaitError() throws InterruptedException {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (errors.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertNotNull(errors.isEmpty() ? null : errors.get(0), "no error delivered");
            return errors.get(0);
        }
    }
}
