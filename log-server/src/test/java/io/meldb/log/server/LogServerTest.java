package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogConnectionException;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogException;
import io.meldb.log.client.BlockListener;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogStatus;
import io.meldb.log.client.LogSubscription;
import io.meldb.log.protocol.LogFrame;
import io.meldb.log.protocol.LogFrameDecoder;
import io.meldb.log.protocol.LogProtocol;
import io.meldb.log.protocol.TestFrames;
import io.meldb.log.storage.ChronicleLogStore;
import io.meldb.log.storage.StoreOptions;
import io.meldb.log.protocol.LogFrameEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real server on a loopback port and the real client library: the protocol's semantics end to end. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogServerTest {
    static final int BLOCK = 8192;
    static final byte[] CONFIG = "group-meld=on".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private LogServer start() throws IOException {
        return LogServer.start(LogServerConfig.at(dir).blockSize(BLOCK));
    }

    private static LogClient client(LogServer server) {
        return LogClient.connect(LogClientOptions.to("127.0.0.1", server.port()).requestTimeout(Duration.ofSeconds(20)));
    }

    /** A client that reconnects within milliseconds, for tests that restart the server on the same port. */
    private static LogClient reconnectingClient(int port) {
        return LogClient.connect(LogClientOptions.to("127.0.0.1", port)
                .requestTimeout(Duration.ofSeconds(15)).reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200)));
    }

    static byte[] block(long seed) {
        byte[] b = new byte[BLOCK];
        new Random(seed).nextBytes(b);
        return b;
    }

    static ErrorCode errorOf(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        return assertInstanceOf(LogErrorException.class, e.getCause()).code();
    }

    @Test
    void shouldCreateAppendReadTailAndTrim() throws IOException {
        try (LogServer server = start(); LogClient client = client(server)) {
            assertEquals(ErrorCode.NOT_CREATED, errorOf(client.append(block(1))));
            client.create(BLOCK, CONFIG).join();
            UUID logId = server.store().logId();
            assertNotNull(logId, "drawn at CREATE");
            assertEquals(logId, client.logId(), "the client is bound to the log it created");
            assertEquals(new LogStatus(1, 1, BLOCK, logId), client.status().join());
            for (int i = 1; i <= 19; i++) {
                assertEquals(i, client.append(block(i)).join());
            }
            // a checkpoint resuming at 11 lets the log be trimmed up to 11
            assertEquals(20, client.append(TestCheckpoints.lastChunk(BLOCK, 3, 11, 0).get(0)).join());
            assertEquals(21, client.tail().join());
            List<byte[]> blocks = client.read(5, 10).join();
            assertEquals(10, blocks.size());
            for (int i = 0; i < 10; i++) {
                assertArrayEquals(block(5 + i), blocks.get(i));
            }
            assertArrayEquals(CONFIG, client.config().join());
            assertEquals(ErrorCode.PAST_TAIL, errorOf(client.read(21)));
            assertEquals(11, client.trim(11).join());
            assertEquals(ErrorCode.TRIMMED, errorOf(client.read(10)));
            assertArrayEquals(block(11), client.read(11).join());
            assertEquals(new LogStatus(21, 11, BLOCK, logId), client.status().join());
            assertEquals(ErrorCode.BLOCK_SIZE, errorOf(client.append(new byte[BLOCK - 1])));
            assertEquals(ErrorCode.BLOCK_SIZE, errorOf(client.append(new byte[BLOCK + 1])));
        }
    }

    @Test
    void shouldAcceptTheSameCreateAgainAndRefuseADifferentOne() throws IOException {
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            client.append(block(1)).join();
            client.create(BLOCK, CONFIG).join();
            assertEquals(ErrorCode.CREATE_MISMATCH, errorOf(client.create(BLOCK, "group-meld=off".getBytes(StandardCharsets.UTF_8))));
            assertEquals(ErrorCode.CREATE_MISMATCH, errorOf(client.create(4096, CONFIG)));
            assertEquals(2, client.tail().join());
        }
    }

    @Test
    void shouldPipelineManyAppendsWithDenseUniquePositions() throws IOException {
        try (LogServer server = start(); LogClient a = client(server); LogClient b = client(server)) {
            a.create(BLOCK, CONFIG).join();
            int n = 2000;
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add((i % 2 == 0 ? a : b).append(block(i)));
            }
            Set<Long> positions = new HashSet<>();
            for (int i = 0; i < n; i++) {
                long p = futures.get(i).join();
                assertTrue(positions.add(p), "position " + p + " assigned twice");
                assertArrayEquals(block(i), a.read(p).join(), "block " + i + " at " + p);
            }
            assertEquals(n, positions.size());
            assertEquals(1, positions.stream().mapToLong(Long::longValue).min().getAsLong());
            assertEquals(n, positions.stream().mapToLong(Long::longValue).max().getAsLong());
        }
    }

    @Test
    void shouldPushEveryBlockInOrderToSubscribers() throws Exception {
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            for (int i = 1; i <= 50; i++) {
                client.append(block(i)).join();
            }
            Collector fromStart = new Collector(150);
            Collector fromMiddle = new Collector(101);
            try (LogSubscription s1 = client.subscribe(0, fromStart); LogSubscription s2 = client.subscribe(50, fromMiddle)) {
                for (int i = 51; i <= 150; i++) {
                    client.append(block(i));
                }
                assertTrue(fromStart.done.await(20, TimeUnit.SECONDS));
                assertTrue(fromMiddle.done.await(20, TimeUnit.SECONDS));
                assertNull(fromStart.failure.get(), () -> fromStart.failure.get().toString());
                assertEquals(0, fromStart.first);
                assertEquals(50, fromMiddle.first);
                assertEquals(151L, waitFor(s1::nextPosition, 151L));
            }
            assertEquals(0, waitFor(server::subscriberCount, 0));
        }
    }

    /**
     * A queue file whose mapped pages cannot be read (here: cut short under the server; on a real disk, an I/O
     * error) faults the reading thread with an InternalError rather than an exception. READ and SUBSCRIBE still get
     * an answer, STORAGE_FAILURE, instead of waiting forever, and the server goes on serving.
     */
    @Test
    void answersReadsOfAnUnreadableQueueFileWithStorageFailure() throws Exception {
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            for (int i = 1; i <= 3; i++) {
                client.append(block(i)).join();
            }
            try (Stream<Path> files = Files.list(dir.resolve("queue"))) {
                for (Path f : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".cq4"))::iterator) {
                    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
                        raf.setLength(4096); // the first header stays, the index and the blocks go
                    }
                }
            }
            CompletionException read = assertThrows(CompletionException.class, () -> client.read(2, 1).join());
            LogErrorException e = assertInstanceOf(LogErrorException.class, read.getCause());
            assertEquals(ErrorCode.STORAGE_FAILURE, e.code(), e.getMessage());
            double answered = server.metrics().errorCount(ErrorCode.STORAGE_FAILURE);
            try (LogSubscription s = client.subscribe(1, new Collector(3))) {
                // the subscription is answered STORAGE_FAILURE (and, that being retryable, subscribes again)
                assertEquals(true, waitFor(() -> server.metrics().errorCount(ErrorCode.STORAGE_FAILURE) > answered, true));
            }
            assertTrue(client.status().join().tail() >= 4, "still answering");
        }
    }

    /**
     * Each connection may have 1,024 appends waiting for storage, but together they may not exceed the server's
     * limit: with the writer held up, four connections pipelining 64 appends each hand the store at most the limit
     * (plus the one append per connection that finds it full), and everything is stored, densely, once it runs.
     */
    @Test
    void boundsTheAppendsWaitingForStorageAcrossConnections() throws Exception {
        LogServerConfig config = LogServerConfig.at(dir).blockSize(BLOCK).maxAppendBytesInStore(16L * BLOCK);
        CountDownLatch release = new CountDownLatch(1);
        List<LogClient> clients = new ArrayList<>();
        try (LogServer server = LogServer.start(config)) {
            for (int c = 0; c < 4; c++) {
                clients.add(client(server));
            }
            clients.get(0).create(BLOCK, CONFIG).join();
            AtomicBoolean hold = new AtomicBoolean(true);
            server.store().addTailListener(tail -> { // runs on the writer thread: holds it after its next batch
                if (hold.get()) {
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            List<CompletableFuture<Long>> appends = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                for (LogClient c : clients) {
                    appends.add(c.append(block(appends.size() + 1)));
                }
            }
            int most = 0;
            for (long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500); System.nanoTime() < end; ) {
                most = Math.max(most, server.appendsInStore());
                Thread.sleep(2);
            }
            assertTrue(most >= 16, "the store filled up to its limit (" + most + ")");
            assertTrue(most <= 16 + 4, most + " appends handed to the store at once, limit 16");
            hold.set(false);
            release.countDown();
            Set<Long> positions = new HashSet<>();
            for (CompletableFuture<Long> a : appends) {
                positions.add(a.get(20, TimeUnit.SECONDS));
            }
            assertEquals(256, positions.size());
            assertEquals(1L, positions.stream().mapToLong(Long::longValue).min().getAsLong());
            assertEquals(256L, positions.stream().mapToLong(Long::longValue).max().getAsLong());
            assertEquals(0, waitFor(server::appendsInStore, 0));
        } finally {
            release.countDown();
            for (LogClient c : clients) {
                c.close();
            }
        }
    }

    /**
     * A listener may end its own subscription (a reader that has caught up to where it wanted): nothing is delivered
     * after that, and the connection closes, so the server stops pushing to it.
     */
    @Test
    void closesASubscriptionFromItsOwnListener() throws Exception {
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            for (int i = 1; i <= 20; i++) {
                client.append(block(i)).join();
            }
            List<Long> seen = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> closeFailed = new AtomicReference<>();
            CountDownLatch closed = new CountDownLatch(1);
            AtomicReference<LogSubscription> subscription = new AtomicReference<>();
            CountDownLatch subscribed = new CountDownLatch(1);
            LogSubscription s = client.subscribe(1, (position, block) -> {
                seen.add(position);
                if (position == 5) {
                    try {
                        subscribed.await(10, TimeUnit.SECONDS);
                        subscription.get().close();
                    } catch (Throwable t) {
                        closeFailed.set(t);
                    }
                    closed.countDown();
                }
            });
            subscription.set(s);
            subscribed.countDown();
            assertTrue(closed.await(20, TimeUnit.SECONDS), "the listener reached position 5");
            assertNull(closeFailed.get(), () -> "close() from the listener threw " + closeFailed.get());
            assertTrue(s.isClosed());
            assertEquals(0, waitFor(server::subscriberCount, 0), "the connection closed, so the server dropped it");
            for (int i = 21; i <= 30; i++) {
                client.append(block(i)).join();
            }
            Thread.sleep(200);
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L), seen, "nothing delivered after close()");
        }
    }

    /**
     * Stored blocks are read on the read threads, not on the event loop: while the only read thread is held up (as by
     * a read that waits for the disk), appends are still answered, and the READ waits its turn.
     */
    @Test
    void answersAppendsWhileAReadWaitsForStorage() throws Exception {
        try (LogServer server = LogServer.start(LogServerConfig.at(dir).blockSize(BLOCK).readThreads(1));
             LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            client.append(block(1)).join();
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            server.readers().next().execute(() -> {
                held.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            CompletableFuture<byte[]> read;
            try {
                assertTrue(held.await(10, TimeUnit.SECONDS));
                read = client.read(1);
                waitFor(server::readTasksPending, 1);
                for (int i = 2; i <= 20; i++) {
                    assertEquals(i, client.append(block(i)).get(10, TimeUnit.SECONDS));
                }
                assertEquals(21, client.tail().get(10, TimeUnit.SECONDS));
                assertFalse(read.isDone(), "the READ was answered while the read thread was held up");
            } finally {
                release.countDown();
            }
            assertArrayEquals(block(1), read.get(10, TimeUnit.SECONDS));
            assertEquals(0, server.readTasksPending());
        }
    }

    /**
     * A client that pipelines READs of 4 MiB each but never takes the answers makes the server stop reading its
     * requests: what the server holds for it stays at a few answers, not one per request sent.
     */
    @Test
    void stopsReadingAClientThatDoesNotTakeItsReadAnswers() throws Exception {
        int readCount = LogProtocol.maxReadCount(BLOCK);
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            List<CompletableFuture<Long>> appends = new ArrayList<>();
            for (int i = 1; i <= readCount; i++) {
                appends.add(client.append(block(i)));
            }
            CompletableFuture.allOf(appends.toArray(new CompletableFuture[0])).join();
            assertEquals(readCount + 1, client.tail().join());
            try (Socket greedy = new Socket("127.0.0.1", server.port())) {
                greedy.setReceiveBufferSize(64 * 1024);
                EmbeddedChannel encoder = new EmbeddedChannel(LogFrameEncoder.INSTANCE);
                ByteBuf requests = Unpooled.buffer();
                int sent = 40;
                for (int i = 0; i < sent; i++) {
                    requests.writeBytes(TestFrames.encode(encoder, LogFrame.read(ByteBufAllocator.DEFAULT, i + 1, 1, readCount)));
                }
                encoder.finishAndReleaseAll();
                byte[] bytes = new byte[requests.readableBytes()];
                requests.readBytes(bytes).release();
                OutputStream out = greedy.getOutputStream();
                out.write(bytes);
                out.flush();
                long answerBytes = (long) readCount * BLOCK;
                long bound = server.config().writeBufferHighWaterMark()
                        + (LogServerHandler.MAX_READS_IN_FLIGHT + 1) * (answerBytes + 64);
                long max = 0;
                for (int i = 0; i < 100; i++) {
                    max = Math.max(max, server.pendingWriteBytes());
                    Thread.sleep(10);
                }
                assertTrue(max > 0, "the server answered some of the READs");
                assertTrue(max <= bound, "the server held " + max + " bytes of answers for a client that took none ("
                        + sent + " READs of " + answerBytes + " bytes sent), bound " + bound);
                assertEquals(readCount + 1, client.append(block(0)).join(), "other clients are served meanwhile");
            }
            assertEquals(0, waitFor(server::pendingWriteBytes, 0L));
        }
    }

    @Test
    void shouldEndASubscriptionWhoseNextPositionIsTrimmed() throws Exception {
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            for (int i = 1; i <= 9; i++) {
                client.append(block(i)).join();
            }
            client.append(TestCheckpoints.lastChunk(BLOCK, 3, 5, 0).get(0)).join();
            client.trim(5).join();
            AtomicReference<LogException> error = new AtomicReference<>();
            CountDownLatch ended = new CountDownLatch(1);
            LogSubscription s = client.subscribe(2, new BlockListener() {
                @Override
                public void onBlock(long position, ByteBuf block) {
                }

                @Override
                public void onError(LogException e) {
                    error.set(e);
                    ended.countDown();
                }
            });
            assertTrue(ended.await(10, TimeUnit.SECONDS));
            assertEquals(ErrorCode.TRIMMED, assertInstanceOf(LogErrorException.class, error.get()).code());
            assertTrue(s.isClosed());
        }
    }

    /**
     * A subscriber that stops reading while 50 MB are appended holds only about the write buffer high water mark in
     * server memory; when it reads again it catches up on everything, in order, from storage.
     */
    @Test
    void shouldThrottleASlowSubscriberWithBoundedMemoryAndLetItCatchUp() throws Exception {
        int blocks = 50 * 1024 * 1024 / BLOCK;
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            long[] crcs = new long[blocks + 1];
            AtomicLong received = new AtomicLong();
            AtomicReference<String> problem = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            LogSubscription s = client.subscribe(1, (position, block) -> {
                CRC32C crc = new CRC32C();
                crc.update(block.nioBuffer());
                if (position != received.get() + 1 || crcs[(int) position] != crc.getValue()) {
                    problem.compareAndSet(null, "block " + position + " after " + received.get() + " differs");
                }
                if (received.incrementAndGet() == blocks) {
                    done.countDown();
                }
            });
            try {
                waitFor(server::subscriberCount, 1);
                s.pause();
                long directBefore = usedDirectMemory();
                long maxPending = 0;
                long maxDirectGrowth = 0;
                Semaphore window = new Semaphore(64);
                byte[] b = new byte[BLOCK];
                for (int i = 1; i <= blocks; i++) {
                    new Random(i).nextBytes(b);
                    CRC32C crc = new CRC32C();
                    crc.update(b);
                    crcs[i] = crc.getValue();
                    window.acquire();
                    client.append(b.clone()).whenComplete((p, e) -> window.release());
                    if (i % 256 == 0) {
                        maxPending = Math.max(maxPending, server.subscriberPendingBytes());
                        maxDirectGrowth = Math.max(maxDirectGrowth, usedDirectMemory() - directBefore);
                    }
                }
                window.acquire(64);
                assertEquals(blocks + 1, client.tail().join());
                maxPending = Math.max(maxPending, server.subscriberPendingBytes());
                long lag = server.maxSubscriberLag();
                assertTrue(lag > blocks / 2, "the paused subscriber is far behind (lag " + lag + ")");
                int bound = server.config().writeBufferHighWaterMark() + 2 * (BLOCK + 64);
                assertTrue(maxPending <= bound, "server buffered " + maxPending + " bytes for the paused subscriber, bound " + bound);
                assertTrue(maxDirectGrowth < 24L << 20, "direct memory grew by " + maxDirectGrowth + " bytes while 50 MB were appended");

                s.resume();
                assertTrue(done.await(40, TimeUnit.SECONDS), "received " + received.get() + " of " + blocks);
                assertNull(problem.get(), problem.get());
                assertEquals(0, waitFor(server::maxSubscriberLag, 0L));
            } finally {
                s.close();
            }
        }
    }

    @Test
    void shouldCloseAConnectionSendingGarbageAndKeepServingOthers() throws Exception {
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            client.append(block(1)).join();
            try (Socket garbage = new Socket("127.0.0.1", server.port())) {
                garbage.setSoTimeout(10_000);
                OutputStream out = garbage.getOutputStream();
                out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertEquals(2, client.append(block(2)).join(), "another client is served meanwhile");
                InputStream in = garbage.getInputStream();
                byte[] answer = in.readAllBytes();
                EmbeddedChannel decoder = new EmbeddedChannel(new LogFrameDecoder(1 << 20));
                decoder.writeInbound(Unpooled.wrappedBuffer(answer));
                LogFrame error = decoder.readInbound();
                assertEquals(LogProtocol.ERROR, error.type());
                assertEquals(ErrorCode.BAD_MAGIC, error.errorCode());
                error.release();
                decoder.finishAndReleaseAll();
                // readAllBytes returned: the server closed that connection
            }
            assertEquals(3, client.append(block(3)).join());
            assertArrayEquals(block(2), client.read(2).join());
            assertTrue(server.metrics().errorCount(ErrorCode.BAD_MAGIC) >= 1);
        }
    }

    @Test
    void shouldServeHealthAndPrometheusMetrics() throws Exception {
        try (LogServer server = start(); LogClient client = client(server)) {
            client.create(BLOCK, CONFIG).join();
            client.append(block(1)).join();
            errorOf(client.read(99));
            String health = get(server.metricsPort(), "/health");
            assertTrue(health.contains("\"status\":\"UP\"") && health.contains("\"tail\":2"), health);
            assertTrue(health.contains("\"logId\":\"" + server.store().logId() + "\""), "which log it holds: " + health);
            String metrics = get(server.metricsPort(), "/metrics");
            assertTrue(metrics.contains("meldb_log_appends_total 1.0"), metrics);
            assertTrue(metrics.contains("meldb_log_append_bytes_total " + (double) BLOCK), metrics);
            assertTrue(metrics.contains("meldb_log_append_latency_seconds_bucket"), "latency histogram");
            assertTrue(metrics.contains("meldb_log_append_latency_seconds_count 1"), metrics);
            assertTrue(metrics.contains("meldb_log_errors_total{code=\"PAST_TAIL\"} 1.0"), metrics);
            assertTrue(metrics.contains("meldb_log_subscribers 0.0"), metrics);
            assertTrue(metrics.contains("meldb_log_subscriber_lag_max"), metrics);
            assertTrue(metrics.contains("meldb_log_read_pending 0.0"), metrics);
        }
    }

    @Test
    void shouldResumeASubscriptionAndReconnectTheClientAfterTheServerRestarts() throws Exception {
        LogServer server = start();
        int port = server.port();
        LogServer restarted = null;
        try (LogClient client = reconnectingClient(port)) {
            client.create(BLOCK, CONFIG).join();
            for (int i = 1; i <= 30; i++) {
                client.append(block(i)).join();
            }
            Collector collector = new Collector(60);
            try (LogSubscription s = client.subscribe(1, collector)) {
                waitFor(s::nextPosition, 31L);
                server.close();
                restarted = LogServer.start(LogServerConfig.at(dir).blockSize(BLOCK).port(port));
                for (int i = 31; i <= 60; i++) {
                    assertEquals(i, client.append(block(i)).join(), "the client reconnected");
                }
                assertTrue(collector.done.await(20, TimeUnit.SECONDS), "subscription resumed at " + s.nextPosition());
                assertNull(collector.failure.get());
                assertTrue(s.connectCount() >= 2);
            }
        } finally {
            server.close();
            if (restarted != null) {
                restarted.close();
            }
        }
    }

    /**
     * The server comes back on the same address with another log (its data directory wiped, then created again with
     * the same configuration): the client and its subscription notice before sending anything there, fail with a
     * clear error, and stay stopped. The other log receives none of their appends.
     */
    @Test
    void stopsRatherThanAppendToAnotherLogBehindTheSameAddress() throws Exception {
        LogServer server = start();
        int port = server.port();
        LogServer other = null;
        try (LogClient client = reconnectingClient(port)) {
            client.create(BLOCK, CONFIG).join();
            UUID first = client.logId();
            for (int i = 1; i <= 5; i++) {
                client.append(block(i)).join();
            }
            Collector collector = new Collector(1000);
            try (LogSubscription s = client.subscribe(1, collector)) {
                waitFor(s::nextPosition, 6L);
                server.close();
                try (ChronicleLogStore wiped = ChronicleLogStore.open(StoreOptions.at(dir.resolve("wiped")))) {
                    wiped.create(BLOCK, CONFIG); // created again before the server listens
                }
                other = LogServer.start(LogServerConfig.at(dir.resolve("wiped")).blockSize(BLOCK).port(port));
                assertNotEquals(first, other.store().logId(), "created alike, still another log");

                CompletionException e = assertThrows(CompletionException.class, () -> client.append(block(6)).join());
                LogConnectionException refused = assertInstanceOf(LogConnectionException.class, e.getCause());
                assertTrue(refused.getMessage().contains("another log (id " + other.store().logId() + ")")
                        && refused.getMessage().contains(first.toString()), refused.getMessage());
                assertEquals(1, other.store().tail(), "nothing was appended to the other log");
                assertInstanceOf(LogConnectionException.class,
                        assertThrows(CompletionException.class, () -> client.status().join()).getCause(),
                        "the client stays stopped");
                assertEquals(true, waitFor(() -> collector.failure.get() != null, true), "the subscription ended");
                assertInstanceOf(LogConnectionException.class, collector.failure.get());
                assertTrue(s.isClosed());
                assertEquals(5, collector.expected - 1, "it read nothing from the other log");
            }
        } finally {
            server.close();
            if (other != null) {
                other.close();
            }
        }
    }

    private static long usedDirectMemory() {
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p ? p.metric().usedDirectMemory() : 0;
    }

    private static String get(int port, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path).openConnection();
        try (InputStream in = c.getInputStream()) {
            assertEquals(200, c.getResponseCode());
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }

    static <T> T waitFor(java.util.function.Supplier<T> value, T expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        T v;
        while (!(v = value.get()).equals(expected)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("still " + v + ", expected " + expected);
            }
            Thread.sleep(5);
        }
        return v;
    }

    /** Checks that positions arrive in order and that each block is the one appended there. */
    static final class Collector implements BlockListener {
        final long last;
        final CountDownLatch done = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile long first = -1;
        long expected = -1;

        Collector(long last) {
            this.last = last;
        }

        @Override
        public void onBlock(long position, ByteBuf block) {
            if (first < 0) {
                first = position;
                expected = position;
            }
            byte[] b = new byte[block.readableBytes()];
            block.getBytes(block.readerIndex(), b);
            if (position != expected || (position > 0 && !java.util.Arrays.equals(b, block(position)))) {
                failure.compareAndSet(null, new AssertionError("position " + position + ", expected " + expected));
            }
            expected = position + 1;
            if (position == last) {
                done.countDown();
            }
        }

        @Override
        public void onError(LogException error) {
            failure.compareAndSet(null, error);
            done.countDown();
        }
    }
}
