package io.meldb.log.storage;

import io.meldb.log.ConfigBlock;
import io.meldb.log.Durability;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChronicleLogStoreTest {
    static final int BLOCK = 512;
    static final byte[] CONFIG = "premeld.threads=2;premeld.distance=4".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    static byte[] block(long seed) {
        byte[] b = new byte[BLOCK];
        new Random(seed).nextBytes(b);
        return b;
    }

    static long append(LogStore store, byte[] block) {
        CompletableFuture<Long> f = new CompletableFuture<>();
        store.append(Unpooled.wrappedBuffer(block), new LogStore.AppendCallback() {
            @Override
            public void appended(long position) {
                f.complete(position);
            }

            @Override
            public void failed(LogErrorException error) {
                f.completeExceptionally(error);
            }
        });
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw (RuntimeException) e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static byte[] read(LogReader reader, long position) {
        ByteBuf out = Unpooled.buffer();
        reader.read(position, out);
        byte[] b = new byte[out.readableBytes()];
        out.readBytes(b);
        return b;
    }

    private ChronicleLogStore open(StoreOptions options) throws IOException {
        return ChronicleLogStore.open(options);
    }

    /** Records, in order, what the store told one append, and the block's reference count when it was handed back. */
    private static final class Outcome implements LogStore.AppendCallback {
        final List<String> events = new CopyOnWriteArrayList<>();
        final CountDownLatch done = new CountDownLatch(1);

        @Override
        public void appended(long position) {
            events.add("appended");
            done.countDown();
        }

        @Override
        public void failed(LogErrorException error) {
            events.add("failed " + error.code());
            done.countDown();
        }

        @Override
        public void blockDone(ByteBuf block) {
            events.add("blockDone refCnt " + block.refCnt());
            block.release();
        }

        List<String> await() throws InterruptedException {
            assertTrue(done.await(10, TimeUnit.SECONDS));
            return events;
        }
    }

    /**
     * The store hands every block back exactly once, still unreleased, and before the append's outcome, so that a
     * caller may release it on the thread that allocated it: stored, refused by the writer, refused at once.
     */
    @Test
    void handsEveryBlockBackOnceBeforeItsOutcome() throws Exception {
        ChronicleLogStore store = open(StoreOptions.at(dir));
        try {
            store.create(BLOCK, CONFIG);
            Outcome stored = new Outcome();
            store.append(Unpooled.wrappedBuffer(block(1)), stored);
            assertEquals(List.of("blockDone refCnt 1", "appended"), stored.await());

            Outcome undersized = new Outcome();
            store.append(Unpooled.wrappedBuffer(new byte[BLOCK - 1]), undersized);
            assertEquals(List.of("blockDone refCnt 1", "failed BLOCK_SIZE"), undersized.await());
        } finally {
            store.close();
        }
        Outcome closed = new Outcome();
        store.append(Unpooled.wrappedBuffer(block(2)), closed);
        assertEquals(List.of("blockDone refCnt 1", "failed SHUTTING_DOWN"), closed.await());
    }

    /**
     * Below its free-space reserve the store refuses appends with STORAGE_FULL before writing them (a write to a
     * mapped page of a full disk would be a SIGBUS), says so, and takes appends again at the next dense position as
     * soon as space is freed: no restart.
     */
    @Test
    void refusesAppendsBelowTheFreeSpaceReserveAndTakesThemAgainOnceSpaceIsFreed() throws Exception {
        AtomicLong free = new AtomicLong(1L << 30);
        ChronicleLogStore store = open(StoreOptions.at(dir).minFreeSpace(8L << 20));
        try {
            store.freeSpaceProbe(free::get);
            store.create(BLOCK, CONFIG);
            assertEquals(1, append(store, block(1)));
            free.set(4L << 20); // the disk fills up
            long position = 1;
            LogErrorException refused = null;
            int checkInterval = (1 << 20) / BLOCK + 1; // the most appends between two reads of the free space
            for (int i = 0; i <= checkInterval && refused == null; i++) {
                try {
                    position = append(store, block(position + 1));
                } catch (LogErrorException e) {
                    refused = e;
                }
            }
            assertNotNull(refused, "refused within one interval between reads of the free space");
            assertEquals(ErrorCode.STORAGE_FULL, refused.code());
            assertTrue(refused.getMessage().contains("4 MiB free, below the 8 MiB"), refused.getMessage());
            assertEquals(ErrorCode.STORAGE_FULL, store.diskFull().code());
            assertNull(store.failure(), "a full disk is not a failure: no restart needed");
            assertEquals(position + 1, store.tail(), "nothing was written for the refused append");
            assertEquals(ErrorCode.STORAGE_FULL, assertThrows(LogErrorException.class, () -> append(store, block(99))).code());

            free.set(1L << 30); // space is freed
            assertNull(store.diskFull(), "reported as soon as the space is there");
            assertEquals(position + 1, append(store, block(position + 1)));
            LogReader reader = store.openReader();
            try {
                for (long p = 1; p <= position + 1; p++) {
                    assertArrayEquals(block(p), read(reader, p), "position " + p);
                }
            } finally {
                reader.close();
            }
        } finally {
            store.close();
        }
    }

    /** The idle writer waits up to a second for work; close() must wake it rather than wait that out. */
    @Test
    void shouldCloseAnIdleStoreWithoutWaitingOutTheWritersIdlePoll() throws Exception {
        ChronicleLogStore store = open(StoreOptions.at(dir));
        store.create(BLOCK, CONFIG);
        assertEquals(1, append(store, block(1)));
        Thread.sleep(100); // the writer is back in its idle wait
        long start = System.nanoTime();
        store.close();
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMillis < 500, "close took " + tookMillis + " ms");
        try (ChronicleLogStore reopened = open(StoreOptions.at(dir))) {
            assertEquals(2, reopened.tail(), "the append before close is kept");
        }
    }

    @Test
    void shouldAssignDensePositionsFromOneAfterTheConfigBlock() throws IOException {
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            assertFalse(store.isCreated());
            store.create(BLOCK, CONFIG);
            assertEquals(1, store.tail());
            for (int i = 1; i <= 100; i++) {
                assertEquals(i, append(store, block(i)));
            }
            assertEquals(101, store.tail());
            try (LogReader reader = store.openReader()) {
                for (int i = 1; i <= 100; i++) {
                    assertArrayEquals(block(i), read(reader, i), "position " + i);
                }
                assertArrayEquals(block(7), read(reader, 7), "random read after sequential ones");
                byte[] config = read(reader, 0);
                assertEquals(BLOCK, config.length);
                assertArrayEquals(CONFIG, ConfigBlock.decodeConfig(config));
            }
        }
    }

    @Test
    void shouldStoreBlocksFromSlicedHeapAndDirectBuffers() throws IOException {
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            store.create(BLOCK, CONFIG);
            byte[] padded = new byte[BLOCK + 100];
            System.arraycopy(block(1), 0, padded, 37, BLOCK);
            ByteBuf heapSlice = Unpooled.wrappedBuffer(padded).slice(37, BLOCK);
            ByteBuf direct = Unpooled.directBuffer(BLOCK + 100).writeZero(11).writeBytes(block(2));
            direct.readerIndex(11);
            ByteBuf composite = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(block(3), 0, 100),
                    Unpooled.wrappedBuffer(block(3), 100, BLOCK - 100));
            for (ByteBuf b : new ByteBuf[]{heapSlice, direct, composite}) {
                CompletableFuture<Long> f = new CompletableFuture<>();
                store.append(b, new LogStore.AppendCallback() {
                    @Override
                    public void appended(long position) {
                        f.complete(position);
                    }

                    @Override
                    public void failed(LogErrorException error) {
                        f.completeExceptionally(error);
                    }
                });
                f.join();
            }
            try (LogReader reader = store.openReader()) {
                for (int i = 1; i <= 3; i++) {
                    assertArrayEquals(block(i), read(reader, i), "position " + i);
                }
            }
        }
    }

    @Test
    void shouldTreatTheSameCreateAsIdempotentAndRefuseADifferentOne() throws IOException {
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            store.create(BLOCK, CONFIG);
            append(store, block(1));
            store.create(BLOCK, CONFIG);
            assertEquals(2, store.tail());
            LogErrorException size = assertThrows(LogErrorException.class, () -> store.create(BLOCK * 2, CONFIG));
            assertEquals(ErrorCode.CREATE_MISMATCH, size.code());
            LogErrorException config = assertThrows(LogErrorException.class, () -> store.create(BLOCK, new byte[]{1}));
            assertEquals(ErrorCode.CREATE_MISMATCH, config.code());
        }
    }

    @Test
    void shouldRefuseAppendsBeforeCreateAndBlocksOfTheWrongSize() throws IOException {
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            assertEquals(ErrorCode.NOT_CREATED, assertThrows(LogErrorException.class, () -> append(store, block(1))).code());
            store.create(BLOCK, CONFIG);
            assertEquals(ErrorCode.BLOCK_SIZE, assertThrows(LogErrorException.class, () -> append(store, new byte[BLOCK - 1])).code());
            assertEquals(ErrorCode.BLOCK_SIZE, assertThrows(LogErrorException.class, () -> append(store, new byte[BLOCK + 1])).code());
            assertEquals(1, append(store, block(1)));
        }
    }

    @Test
    void shouldAnswerPastTailAndTrimmedReadsWithTheirErrors() throws IOException {
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            store.create(BLOCK, CONFIG);
            for (int i = 1; i <= 10; i++) {
                append(store, block(i));
            }
            assertEquals(6, store.trim(6));
            assertEquals(6, store.trim(3), "trimming below the trim point changes nothing");
            try (LogReader reader = store.openReader()) {
                assertEquals(ErrorCode.PAST_TAIL, assertThrows(LogErrorException.class, () -> read(reader, 11)).code());
                assertEquals(ErrorCode.TRIMMED, assertThrows(LogErrorException.class, () -> read(reader, 5)).code());
                assertEquals(ErrorCode.TRIMMED, assertThrows(LogErrorException.class, () -> read(reader, 1)).code());
                assertArrayEquals(block(6), read(reader, 6));
                assertArrayEquals(CONFIG, ConfigBlock.decodeConfig(read(reader, 0)), "position 0 is never trimmed");
            }
            assertEquals(ErrorCode.PAST_TAIL, assertThrows(LogErrorException.class, () -> store.trim(12)).code());
        }
    }

    @Test
    void shouldRecoverEveryBlockAndTheTrimPointAfterRestart() throws IOException {
        SetTimeProvider clock = new SetTimeProvider(1_700_000_000_000L * 1_000_000L);
        StoreOptions options = StoreOptions.at(dir).rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(clock);
        try (ChronicleLogStore store = open(options)) {
            store.create(BLOCK, CONFIG);
            for (int i = 1; i <= 300; i++) {
                append(store, block(i));
                if (i % 50 == 0) {
                    clock.advanceMillis(1000);
                }
            }
            store.trim(120);
        }
        try (ChronicleLogStore store = open(options)) {
            assertTrue(store.isCreated());
            assertEquals(BLOCK, store.blockSize());
            assertArrayEquals(CONFIG, store.config());
            assertEquals(301, store.tail());
            assertEquals(120, store.trimPoint());
            try (LogReader reader = store.openReader()) {
                for (int i = 120; i <= 300; i++) {
                    assertArrayEquals(block(i), read(reader, i), "position " + i);
                }
                assertEquals(ErrorCode.TRIMMED, assertThrows(LogErrorException.class, () -> read(reader, 119)).code());
            }
            assertEquals(301, append(store, block(301)), "positions continue after a restart, never reused");
        }
    }

    /**
     * The queue's roll cycle follows the wall clock, which NTP may step back. Positions stay dense and every block
     * stays readable, before and after a restart that itself runs on the stepped-back clock.
     */
    @Test
    void keepsPositionsDenseWhenTheWallClockStepsBack() throws IOException {
        AtomicLong millis = new AtomicLong(1_700_000_000_000L);
        StoreOptions options = StoreOptions.at(dir).rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(millis::get);
        try (ChronicleLogStore store = open(options)) {
            store.create(BLOCK, CONFIG);
            for (int i = 1; i <= 30; i++) {
                assertEquals(i, append(store, block(i)));
                if (i == 10) {
                    millis.addAndGet(3000);
                } else if (i == 20) {
                    millis.addAndGet(-2500); // stepped back into the second of the first file
                }
            }
        }
        millis.addAndGet(-5000); // and further back while the server restarts
        try (ChronicleLogStore store = open(options)) {
            assertEquals(31, store.tail());
            assertEquals(31, append(store, block(31)), "positions continue, never reused");
            try (LogReader reader = store.openReader()) {
                for (int i = 1; i <= 31; i++) {
                    assertArrayEquals(block(i), read(reader, i), "position " + i);
                }
            }
        }
        millis.addAndGet(20_000); // the wall clock is ahead again: a new file
        try (ChronicleLogStore store = open(options)) {
            assertEquals(32, append(store, block(32)));
            assertEquals(3, store.queueFileCount(), "the stepped-back appends went into the newest file, not a new one");
        }
        try (ChronicleLogStore store = open(options); LogReader reader = store.openReader()) {
            assertEquals(33, store.tail());
            for (int i = 1; i <= 32; i++) {
                assertArrayEquals(block(i), read(reader, i), "position " + i + " after the clock caught up");
            }
        }
    }

    /**
     * The log id is drawn at CREATE, kept by an idempotent CREATE and across restarts, and drawn once for a log whose
     * metadata was written before ids existed (version 1).
     */
    @Test
    void drawsALogIdAtCreateAndKeepsItAcrossRestartsAndOlderMetadata() throws IOException {
        UUID id;
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            assertNull(store.logId(), "no id before CREATE");
            store.create(BLOCK, CONFIG);
            id = store.logId();
            assertNotNull(id);
            store.create(BLOCK, CONFIG);
            assertEquals(id, store.logId(), "CREATE again changes nothing");
            assertEquals(1, append(store, block(1)));
        }
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            assertEquals(id, store.logId());
        }

        // log.meta as the version before log ids wrote it
        ByteBuffer v1 = ByteBuffer.allocate(24 + CONFIG.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        v1.putInt(0x4D4C4D54).putInt(1).putInt(BLOCK).putLong(1).putInt(CONFIG.length).put(CONFIG);
        CRC32C crc = new CRC32C();
        crc.update(v1.array(), 0, v1.position());
        v1.putInt((int) crc.getValue());
        Files.write(dir.resolve(LogMeta.FILE_NAME), v1.array());
        UUID drawn;
        try (ChronicleLogStore store = open(StoreOptions.at(dir)); LogReader reader = store.openReader()) {
            drawn = store.logId();
            assertNotNull(drawn, "a log from before ids gets one");
            assertArrayEquals(CONFIG, store.config());
            assertArrayEquals(block(1), read(reader, 1));
        }
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            assertEquals(drawn, store.logId(), "drawn once, then kept");
        }
    }

    /**
     * A process killed while Chronicle was creating the next queue file (the queue rolls every second here) leaves a
     * file without a complete header, which holds no block. Opening the log must not wait on it.
     */
    @Test
    void opensPromptlyAfterACrashWhileAQueueFileWasBeingCreated() throws IOException {
        for (int header : new int[]{0, 0xC0000000}) { // nothing written yet; a header being written
            SetTimeProvider clock = new SetTimeProvider(1_700_000_000_000L * 1_000_000L);
            StoreOptions options = StoreOptions.at(dir.resolve("header-" + Integer.toHexString(header)))
                    .rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(clock);
            java.io.File next;
            try (ChronicleLogStore store = open(options)) {
                store.create(BLOCK, CONFIG);
                for (int i = 1; i <= 10; i++) {
                    append(store, block(i));
                }
                next = store.fileOf(store.index.newestCycle() + 1);
            }
            clock.advanceMillis(1000);
            try (RandomAccessFile raf = new RandomAccessFile(next, "rw")) {
                raf.setLength(1 << 20);
                raf.writeInt(Integer.reverseBytes(header));
            }
            long start = System.nanoTime();
            try (ChronicleLogStore store = open(options)) {
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMillis < 5000, "opening took " + tookMillis + " ms (header " + Integer.toHexString(header) + ")");
                assertEquals(11, store.tail());
                assertEquals(11, append(store, block(11)));
                clock.advanceMillis(1000);
                assertEquals(12, append(store, block(12)));
            }
            try (ChronicleLogStore store = open(options); LogReader reader = store.openReader()) {
                for (int i = 1; i <= 12; i++) {
                    assertArrayEquals(block(i), read(reader, i), "position " + i);
                }
            }
        }
    }

    /** Restarted with another --roll-cycle, the log keeps the one its queue was created with, and every block. */
    @Test
    void keepsItsRollCycleWhenRestartedWithAnother() throws IOException {
        try (ChronicleLogStore store = open(StoreOptions.at(dir).rollCycle(TestRollCycles.TEST_SECONDLY))) {
            store.create(BLOCK, CONFIG);
            for (int i = 1; i <= 5; i++) {
                append(store, block(i));
            }
        }
        try (ChronicleLogStore store = open(StoreOptions.at(dir)); LogReader reader = store.openReader()) {
            assertEquals(6, store.tail());
            assertEquals(6, append(store, block(6)));
            for (int i = 1; i <= 6; i++) {
                assertArrayEquals(block(i), read(reader, i), "position " + i);
            }
        }
    }

    @Test
    void shouldDeleteQueueFilesEntirelyBelowTheTrimPoint() throws IOException {
        SetTimeProvider clock = new SetTimeProvider(1_700_000_000_000L * 1_000_000L);
        StoreOptions options = StoreOptions.at(dir).rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(clock);
        try (ChronicleLogStore store = open(options)) {
            store.create(BLOCK, CONFIG);
            for (int file = 0; file < 4; file++) {
                for (int i = 0; i < 10; i++) {
                    append(store, block(file * 10 + i));
                }
                clock.advanceMillis(1000);
            }
            // files: [0..10], [11..20], [21..30], [31..40]
            assertEquals(4, store.queueFileCount());
            assertEquals(4, queueFiles().size());
            store.trim(21);
            assertEquals(2, store.queueFileCount(), "the files holding [0, 20] are released");
            assertEquals(2, queueFiles().size());
            store.trim(41);
            assertEquals(1, store.queueFileCount(), "the newest file is kept for the appender");
            assertEquals(41, append(store, block(99)));
        }
        try (ChronicleLogStore store = open(options)) {
            assertEquals(42, store.tail());
            assertEquals(41, store.trimPoint());
            try (LogReader reader = store.openReader()) {
                assertArrayEquals(block(99), read(reader, 41));
                assertArrayEquals(CONFIG, ConfigBlock.decodeConfig(read(reader, 0)));
            }
        }
    }

    @Test
    void shouldReportACorruptStoredBlock() throws IOException {
        byte[] marked = new byte[BLOCK];
        Arrays.fill(marked, (byte) 0x5A);
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            store.create(BLOCK, CONFIG);
            append(store, block(1));
            append(store, marked);
            append(store, block(3));
        }
        Path file = queueFiles().get(0);
        byte[] bytes = Files.readAllBytes(file);
        int at = indexOf(bytes, marked);
        assertTrue(at > 0, "the marked block is in the queue file");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(at + 100);
            raf.write(0x00);
        }
        try (ChronicleLogStore store = open(StoreOptions.at(dir)); LogReader reader = store.openReader()) {
            assertArrayEquals(block(1), read(reader, 1));
            LogErrorException e = assertThrows(LogErrorException.class, () -> read(reader, 2));
            assertEquals(ErrorCode.CORRUPT_BLOCK, e.code());
            assertTrue(e.getMessage().contains("CRC32C"), e.getMessage());
            assertArrayEquals(block(3), read(reader, 3));
        }
    }

    @Test
    void shouldAcknowledgeAppendsInFsyncMode() throws IOException {
        try (ChronicleLogStore store = open(StoreOptions.at(dir).durability(Durability.FSYNC))) {
            store.create(BLOCK, CONFIG);
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 1; i <= 200; i++) {
                CompletableFuture<Long> f = new CompletableFuture<>();
                futures.add(f);
                store.append(Unpooled.wrappedBuffer(block(i)), new LogStore.AppendCallback() {
                    @Override
                    public void appended(long position) {
                        f.complete(position);
                    }

                    @Override
                    public void failed(LogErrorException error) {
                        f.completeExceptionally(error);
                    }
                });
            }
            for (int i = 0; i < futures.size(); i++) {
                assertEquals(i + 1, futures.get(i).join());
            }
        }
        try (ChronicleLogStore store = open(StoreOptions.at(dir)); LogReader reader = store.openReader()) {
            assertEquals(201, store.tail());
            assertArrayEquals(block(200), read(reader, 200));
        }
    }

    @Test
    void shouldRefuseASecondStoreOnTheSameDirectory() throws IOException {
        try (ChronicleLogStore store = open(StoreOptions.at(dir))) {
            IOException e = assertThrows(IOException.class, () -> open(StoreOptions.at(dir)));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
    }

    private List<Path> queueFiles() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve(ChronicleLogStore.QUEUE_DIR))) {
            return s.filter(p -> p.toString().endsWith(".cq4")).sorted().toList();
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
