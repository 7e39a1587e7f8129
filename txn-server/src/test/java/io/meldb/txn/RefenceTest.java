package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Definite outcomes without restarts: a server asked for the outcome of another server's transaction fences that
 * server off when it must, and a server whose stream broke (fenced off, or the log went away and came back)
 * re-fences itself and goes on serving (issue 18).
 */
class RefenceTest {
    @TempDir
    Path dir;

    private static byte[] b(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long put(final TxnService db, final String key, final String value) {
        try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false)) {
            t.put(b(key), b(value));
            return t.commit();
        }
    }

    private static byte[] get(final TxnService db, final String key) {
        try (TxnSession t = db.begin(IsolationLevel.SNAPSHOT, true)) {
            return t.get(b(key));
        }
    }

    private static void eventually(final String what, final BooleanSupplier condition) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void aTransactionThatNeverReachedTheLogIsNotCommittedOnceAPeerFencesItsServerWhichThenGoesOn() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1));
             TxnServer s1 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(1));
             TxnServer s2 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(2))) {
            final TxnSession committed = s1.begin(IsolationLevel.SERIALIZABLE, false);
            committed.put(b("a"), b("1"));
            committed.commit();
            assertEquals(TxnOutcome.State.COMMITTED, s2.awaitOutcome(committed.id(), 5000).state());

            final long before = s1.incarnation();
            final TxnSession open = s1.begin(IsolationLevel.SERIALIZABLE, false);
            open.put(b("b"), b("2"));
            // a sequence s1 has not used: s2 cannot find it in the log, so it fences s1's incarnation off
            final TxnOutcome never = s2.awaitOutcome(new TxnId(before, 1_000_000), 5000);
            assertEquals(TxnOutcome.State.NOT_COMMITTED, never.state(), never.reason());
            eventually("s1 re-fenced itself", () -> s1.incarnation() != before && s1.ready());
            assertEquals(TxnError.CONFLICT, assertInstanceOf(TxnException.class, thrown(open::commit)).error(),
                "a transaction begun under the fenced incarnation cannot commit");
            assertNull(get(s2, "b"));
            final long csn = put(s1, "c", "3");
            assertTrue(s2.awaitPosition(s1.processedPosition(), 5000));
            // having read past the block is not having decided it: wait for s2's committed state to reach csn
            eventually("s2 decided csn " + csn, () -> s2.status().csn() >= csn);
            assertArrayEquals(b("3"), get(s2, "c"), "s1 serves again, as its new incarnation, csn " + csn);
            assertEquals(s1.status().stateHash(), s2.status().stateHash());
        }
    }

    @Test
    void aServerRidesThroughALogServerRestartAndAnswersTheCommitInFlightDefinitely() throws Exception {
        final Path logDir = dir.resolve("log");
        LogServer log = LogServer.start(LogServerConfig.at(logDir).port(0).metricsPort(-1));
        final int port = log.port();
        try (TxnServer s1 = TxnServer.start(TxnServerConfig.log("127.0.0.1", port).serverId(1)
                .commitTimeout(java.time.Duration.ofSeconds(30)))) {
            put(s1, "a", "1");
            final long before = s1.incarnation();
            log.close();
            final TxnSession t = s1.begin(IsolationLevel.SERIALIZABLE, false);
            t.put(b("b"), b("2"));
            final CompletableFuture<Long> inFlight = t.commitAsync();
            Thread.sleep(300);
            log = LogServer.start(LogServerConfig.at(logDir).port(port).metricsPort(-1));
            Long csn = null;
            try {
                csn = inFlight.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertEquals(TxnError.CONFLICT, assertInstanceOf(TxnException.class, e.getCause()).error(),
                    "the commit in flight gets a definite answer: " + e.getCause());
            }
            eventually("s1 serves again", s1::ready);
            put(s1, "c", "3");
            assertArrayEquals(b("3"), get(s1, "c"));
            if (csn != null) {
                assertArrayEquals(b("2"), get(s1, "b"), "acknowledged at csn " + csn);
            } else {
                assertNull(get(s1, "b"), "told it did not commit");
                assertNotEquals(before, s1.incarnation(), "re-fenced after the lost append");
            }
            assertArrayEquals(b("1"), get(s1, "a"));
        } finally {
            log.close();
        }
    }

    @Test
    void aServerWhoseAppendsWereRefusedWithStorageFullRecoversOnItsOwnOnceTheLogTakesAppendsAgain() throws Exception {
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1))) {
            final RefusingLog refusing = new RefusingLog(io.meldb.log.client.LogClient.connect("127.0.0.1", log.port()));
            try (TxnServer s1 = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).serverId(1), refusing)) {
                put(s1, "a", "1");
                final long before = s1.incarnation();
                refusing.refuse = true;
                final TxnSession t = s1.begin(IsolationLevel.SERIALIZABLE, false);
                t.put(b("b"), b("2"));
                final CompletableFuture<Long> inFlight = t.commitAsync();
                eventually("s1 noticed", () -> !s1.ready());
                assertEquals(TxnError.UNAVAILABLE, assertInstanceOf(TxnException.class,
                    thrown(() -> s1.begin(IsolationLevel.SERIALIZABLE, false))).error(), "no new work while broken");
                assertTrue(!inFlight.isDone(), "the refused commit waits for a definite answer");
                refusing.refuse = false;
                final ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> inFlight.get(20, TimeUnit.SECONDS));
                assertEquals(TxnError.CONFLICT, assertInstanceOf(TxnException.class, e.getCause()).error(),
                    "refused, so not in the log: " + e.getCause());
                eventually("s1 serves again", s1::ready);
                assertNotEquals(before, s1.incarnation());
                put(s1, "c", "3");
                assertArrayEquals(b("3"), get(s1, "c"));
                assertNull(get(s1, "b"));
                assertEquals(null, s1.failure());
            }
        }
    }

    /** A log whose appends can be refused, as a full log server refuses them. */
    private static final class RefusingLog implements io.meldb.log.client.LogService {
        private final io.meldb.log.client.LogService log;
        volatile boolean refuse;

        RefusingLog(final io.meldb.log.client.LogService log) {
            this.log = log;
        }

        @Override
        public CompletableFuture<Void> create(final int blockSize, final byte[] config) {
            return log.create(blockSize, config);
        }

        @Override
        public CompletableFuture<Long> append(final byte[] block) {
            return refuse ? CompletableFuture.failedFuture(new io.meldb.log.LogErrorException(
                io.meldb.log.ErrorCode.STORAGE_FULL, "the log's disk is full")) : log.append(block);
        }

        @Override
        public CompletableFuture<Long> append(final io.netty.buffer.ByteBuf block) {
            if (refuse) {
                block.release(); // the log owns the buffer, refused or not
                return CompletableFuture.failedFuture(new io.meldb.log.LogErrorException(
                    io.meldb.log.ErrorCode.STORAGE_FULL, "the log's disk is full"));
            }
            return log.append(block);
        }

        @Override
        public CompletableFuture<java.util.List<byte[]>> read(final long position, final int count) {
            return log.read(position, count);
        }

        @Override
        public CompletableFuture<byte[]> config() {
            return log.config();
        }

        @Override
        public CompletableFuture<io.meldb.log.client.LogStatus> status() {
            return log.status();
        }

        @Override
        public CompletableFuture<Long> trim(final long position) {
            return log.trim(position);
        }

        @Override
        public Subscription subscribe(final long from, final io.meldb.log.client.BlockListener listener) {
            return log.subscribe(from, listener);
        }

        @Override
        public java.util.UUID logId() {
            return log.logId();
        }

        @Override
        public void close() {
            log.close();
        }
    }

    private static Throwable thrown(final Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            return e;
        }
        return null;
    }
}
