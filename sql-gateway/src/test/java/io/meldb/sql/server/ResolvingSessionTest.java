package io.meldb.sql.server;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ResolvingSession}: a COMMIT whose answer was lost is answered with what the log decided, at once when a
 * server knows (a commit, or 40001 for ABORTED and NOT_COMMITTED), and 40003 only when no server can decide within
 * the outcome wait. The txn-servers are test doubles of the txn-api interfaces.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResolvingSessionTest {
    private static final TxnId ID = new TxnId(7, 42);
    /** What "at once" means here: far below the 15 s outcome wait the router has by default. */
    private static final long QUICK_NANOS = TimeUnit.MILLISECONDS.toNanos(900);

    /** A txn-server that answers {@link #awaitOutcome} with {@link #answer}, or fails with {@link #away}. */
    private static final class OutcomeServer implements TxnService {
        final AtomicInteger asked = new AtomicInteger();
        volatile TxnOutcome answer;
        volatile TxnError away;

        @Override
        public TxnSession begin(final IsolationLevel isolation, final boolean readOnly) {
            throw new UnsupportedOperationException();
        }

        @Override
        public TxnOutcome outcome(final TxnId id) {
            return awaitOutcome(id, 0);
        }

        @Override
        public TxnOutcome awaitOutcome(final TxnId id, final long waitMillis) {
            asked.incrementAndGet();
            if (away != null) {
                throw new TxnException(away, "server away");
            }
            return answer;
        }

        @Override
        public ServerStatus status() {
            return new ServerStatus(1, 1, 0, 0, 0);
        }

        @Override
        public void close() {
        }
    }

    /** A transaction {@link #ID} whose commit loses its answer. */
    private static TxnSession lostCommit() {
        return (TxnSession) Proxy.newProxyInstance(ResolvingSessionTest.class.getClassLoader(),
                new Class<?>[] {TxnSession.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "id" -> ID;
                    case "commit" -> throw new TxnException(TxnError.OUTCOME_UNKNOWN, "connection lost during commit");
                    case "commitAsync" -> java.util.concurrent.CompletableFuture.failedFuture(
                            new TxnException(TxnError.OUTCOME_UNKNOWN, "connection lost during commit"));
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** The origin (its server gone) and a peer answering {@code peer}; the router's default 15 s outcome wait. */
    private static ResolvingSession session(final TxnOutcome peer) {
        final OutcomeServer origin = new OutcomeServer();
        origin.away = TxnError.UNAVAILABLE;
        final OutcomeServer other = new OutcomeServer();
        other.answer = peer;
        return new ResolvingSession(lostCommit(), origin, new TxnRouter(List.of(origin, other)));
    }

    private static String sqlState(final Throwable t) {
        return SqlErrors.describe(t).sqlState();
    }

    @Test
    void aLostCommitThatTheLogCommittedAnswersItsCsnAtOnce() {
        final long start = System.nanoTime();
        assertEquals(99, session(new TxnOutcome(ID, TxnOutcome.State.COMMITTED, 99, null)).commit());
        assertTrue(System.nanoTime() - start < QUICK_NANOS, "took " + (System.nanoTime() - start) / 1_000_000 + " ms");
    }

    @Test
    void aLostCommitThatMeldAbortedIs40001AtOnce() {
        final long start = System.nanoTime();
        final TxnException e = assertThrows(TxnException.class,
                () -> session(new TxnOutcome(ID, TxnOutcome.State.ABORTED, 99, "write conflict")).commit());
        final long took = System.nanoTime() - start;
        assertEquals(TxnError.CONFLICT, e.error(), e.toString());
        assertEquals("40001", sqlState(e), e.toString());
        assertTrue(e.getMessage().contains("write conflict"), e.getMessage());
        assertTrue(took < QUICK_NANOS, "a known abort took " + took / 1_000_000 + " ms to answer");
    }

    @Test
    void aLostCommitThatNeverReachedTheLogIs40001AtOnce() {
        final long start = System.nanoTime();
        final TxnException e = assertThrows(TxnException.class,
                () -> session(new TxnOutcome(ID, TxnOutcome.State.NOT_COMMITTED, 0, null)).commit());
        final long took = System.nanoTime() - start;
        assertEquals("40001", sqlState(e), e.toString());
        assertTrue(e.getMessage().contains("NOT_COMMITTED"), e.getMessage());
        assertTrue(took < QUICK_NANOS, "a known NOT_COMMITTED took " + took / 1_000_000 + " ms to answer");
    }

    @Test
    void theAsyncCommitAnswersAKnownAbortAt40001AtOnceToo() {
        final long start = System.nanoTime();
        final CompletionException e = assertThrows(CompletionException.class,
                () -> session(new TxnOutcome(ID, TxnOutcome.State.ABORTED, 99, "write conflict")).commitAsync().join());
        final long took = System.nanoTime() - start;
        assertEquals("40001", sqlState(assertInstanceOf(TxnException.class, e.getCause())), e.toString());
        assertTrue(took < QUICK_NANOS, "a known abort took " + took / 1_000_000 + " ms to answer");
    }

    @Test
    void whenNoServerCanDecideTheAnswerIs40003AfterTheOutcomeWait() {
        final OutcomeServer origin = new OutcomeServer();
        origin.away = TxnError.UNAVAILABLE;
        final OutcomeServer pending = new OutcomeServer();
        pending.answer = new TxnOutcome(ID, TxnOutcome.State.PENDING, 0, "not in the log yet");
        final TxnRouter router = new TxnRouter(List.of(origin, pending)).outcomeWait(Duration.ofMillis(300));
        final long start = System.nanoTime();
        final TxnException e = assertThrows(TxnException.class,
                () -> new ResolvingSession(lostCommit(), origin, router).commit());
        final long took = System.nanoTime() - start;
        assertEquals(TxnError.OUTCOME_UNKNOWN, e.error(), e.toString());
        assertEquals("40003", sqlState(e), e.toString());
        assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(300), "gave up after " + took / 1_000_000 + " ms");
        assertTrue(origin.asked.get() > 1 && pending.asked.get() > 1, "every server is asked again until the wait ends");
        assertEquals(1, router.outcomesUnknown());
    }

    @Test
    void whenEveryServerIsAwayTheAnswerIs40003() {
        final OutcomeServer origin = new OutcomeServer();
        origin.away = TxnError.UNAVAILABLE;
        final OutcomeServer other = new OutcomeServer();
        other.away = TxnError.SESSION_LOST;
        final TxnRouter router = new TxnRouter(List.of(origin, other)).outcomeWait(Duration.ofMillis(200));
        final TxnException e = assertThrows(TxnException.class,
                () -> new ResolvingSession(lostCommit(), origin, router).commit());
        assertEquals("40003", sqlState(e), e.toString());
        assertTrue(e.getMessage().contains("server away"), e.getMessage());
    }
}
