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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TxnRouter}: round-robin over txn-servers, never a snapshot older than what the gateway has seen. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TxnRouterTest {
    /** A txn-server whose last committed state is at {@link #csn}; counts begins and closed sessions. */
    private static final class FakeServer implements TxnService {
        final AtomicLong csn = new AtomicLong();
        final AtomicInteger begins = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();
        volatile TxnError refuse;

        @Override
        public TxnSession begin(final IsolationLevel isolation, final boolean readOnly) {
            begins.incrementAndGet();
            if (refuse != null) {
                throw new TxnException(refuse, "refused");
            }
            final long at = csn.get();
            return (TxnSession) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {TxnSession.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "snapshotCsn" -> at;
                        case "close", "abort" -> {
                            closed.incrementAndGet();
                            yield null;
                        }
                        case "readOnly" -> readOnly;
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        @Override
        public TxnOutcome outcome(final TxnId id) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ServerStatus status() {
            return new ServerStatus(1, 1, csn.get(), 0, 0);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void transactionsAreSpreadRoundRobin() {
        final FakeServer a = new FakeServer();
        final FakeServer b = new FakeServer();
        final TxnRouter router = new TxnRouter(List.of(a, b));
        for (int i = 0; i < 10; i++) {
            router.begin(IsolationLevel.SERIALIZABLE, i % 2 == 0);
        }
        assertEquals(5, a.begins.get());
        assertEquals(5, b.begins.get());
    }

    @Test
    void aServerThatHasNotMeldedTheLatestCommitIsPassedOverForOneThatHas() {
        final FakeServer ahead = new FakeServer();
        final FakeServer behind = new FakeServer();
        ahead.csn.set(10);
        behind.csn.set(7);
        final TxnRouter router = new TxnRouter(List.of(behind, ahead));
        router.observed(10);
        for (int i = 0; i < 6; i++) {
            assertEquals(10, router.begin(IsolationLevel.SNAPSHOT, true).snapshotCsn());
        }
        assertEquals(behind.begins.get(), behind.closed.get(), "every stale session is closed");
    }

    @Test
    void whenEveryServerLagsBeginWaitsUntilOneCatchesUp() throws Exception {
        final FakeServer a = new FakeServer();
        final FakeServer b = new FakeServer();
        a.csn.set(3);
        b.csn.set(3);
        final TxnRouter router = new TxnRouter(List.of(a, b));
        router.observed(4);
        final Thread meld = new Thread(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            b.csn.set(4);
        });
        meld.start();
        final long start = System.nanoTime();
        assertEquals(4, router.begin(IsolationLevel.SERIALIZABLE, false).snapshotCsn());
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(150));
        meld.join();
    }

    @Test
    void snapshotsReadNeverGoBackInTime() {
        final FakeServer a = new FakeServer();
        final FakeServer b = new FakeServer();
        a.csn.set(20);
        b.csn.set(25);
        final TxnRouter router = new TxnRouter(List.of(b, a));
        assertEquals(25, router.begin(IsolationLevel.SNAPSHOT, true).snapshotCsn());
        a.csn.set(25);
        assertEquals(25, router.begin(IsolationLevel.SNAPSHOT, true).snapshotCsn());
        assertEquals(25, router.seenCsn());
    }

    @Test
    void anUnavailableServerIsSkippedAndWhenAllAreTheErrorIsReported() {
        final FakeServer a = new FakeServer();
        final FakeServer b = new FakeServer();
        a.refuse = TxnError.UNAVAILABLE;
        final TxnRouter router = new TxnRouter(List.of(a, b));
        for (int i = 0; i < 4; i++) {
            router.begin(IsolationLevel.SERIALIZABLE, false);
        }
        assertEquals(4, b.begins.get());
        b.refuse = TxnError.OVERLOADED;
        final TxnException e = assertThrows(TxnException.class, () -> router.begin(IsolationLevel.SERIALIZABLE, false));
        assertTrue(e.error() == TxnError.UNAVAILABLE || e.error() == TxnError.OVERLOADED, e.toString());
    }
}
