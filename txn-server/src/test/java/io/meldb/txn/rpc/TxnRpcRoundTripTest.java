package io.meldb.txn.rpc;

import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every operation of {@link io.meldb.txn.api.TxnService} and {@link TxnSession} through the RPC, compared with the double. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class TxnRpcRoundTripTest extends RpcTestSupport {
    private TxnRpcClient client;

    @BeforeEach
    void start() {
        client = connect(startServer());
    }

    private void load(String... keys) {
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            for (String k : keys) {
                t.put(b(k), b("v" + k));
            }
            t.commit();
        }
    }

    private static List<String> keys(List<KeyValue> entries) {
        return entries.stream().map(kv -> s(kv.key())).toList();
    }

    @Test
    void shouldCarryBeginAttributesAndCommitCsn() {
        try (TxnSession t = client.begin(IsolationLevel.SERIALIZABLE, false)) {
            assertEquals(IsolationLevel.SERIALIZABLE, t.isolation());
            assertFalse(t.readOnly());
            assertEquals(InMemoryTxnService.INCARNATION, t.id().incarnation());
            assertEquals(0, t.snapshotCsn());
            t.put(b("k"), b("v"));
            assertEquals(1, t.commit());
        }
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertEquals(IsolationLevel.SNAPSHOT, t.isolation());
            assertTrue(t.readOnly());
            assertEquals(1, t.snapshotCsn());
            assertArrayEquals(b("v"), t.get(b("k")));
            assertEquals(1, t.commit(), "a read-only commit answers its snapshot CSN");
        }
    }

    @Test
    void shouldCarryTheRestartCountOfBeginAndZeroWhenTheClientOmitsIt() {
        try (TxnSession t = client.begin(IsolationLevel.SERIALIZABLE, false, 3)) {
            assertEquals(3, service.lastRestarts.get());
        }
        try (TxnSession t = client.begin(IsolationLevel.SERIALIZABLE, false, 1_000)) {
            assertEquals(255, service.lastRestarts.get(), "saturated on the wire");
        }
        try (TxnSession t = client.begin(IsolationLevel.SERIALIZABLE, false)) {
            assertEquals(0, service.lastRestarts.get(), "a first attempt sends no count: the server reads 0");
        }
        assertEquals(TxnError.BAD_REQUEST, org.junit.jupiter.api.Assertions.assertThrows(
            io.meldb.txn.api.TxnException.class, () -> client.begin(IsolationLevel.SERIALIZABLE, false, -1)).error());
    }

    @Test
    void shouldAnswerNullForAbsentKeysAndEmptyArrayForEmptyValues() {
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            assertNull(t.get(b("missing")));
            t.put(b("empty"), new byte[0]);
            assertArrayEquals(new byte[0], t.get(b("empty")));
            t.commit();
        }
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertArrayEquals(new byte[0], t.get(b("empty")));
            assertNull(t.get(b("missing")));
        }
    }

    @Test
    void shouldSeeOwnWritesAndDeletesBeforeCommit() {
        load("a", "b");
        try (TxnSession t = client.begin(IsolationLevel.SERIALIZABLE, false)) {
            t.put(b("c"), b("vc"));
            t.delete(b("a"));
            t.delete(b("never-there"));
            assertNull(t.get(b("a")));
            assertArrayEquals(b("vc"), t.get(b("c")));
            assertEquals(List.of("b", "c"), keys(t.scan(null, true, null, true, false, 0)));
            t.commit();
        }
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertEquals(List.of("b", "c"), keys(t.scan(null, true, null, true, false, 0)));
        }
    }

    @Test
    void shouldScanWithInclusiveExclusiveAndOpenBounds() {
        load("a", "b", "c", "d", "e");
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertEquals(List.of("b", "c", "d"), keys(t.scan(b("b"), true, b("d"), true, false, 0)));
            assertEquals(List.of("c"), keys(t.scan(b("b"), false, b("d"), false, false, 0)));
            assertEquals(List.of("a", "b", "c"), keys(t.scan(null, false, b("c"), true, false, 0)));
            assertEquals(List.of("d", "e"), keys(t.scan(b("c"), false, null, false, false, 0)));
            assertEquals(List.of("a", "b", "c", "d", "e"), keys(t.scan(null, true, null, true, false, 0)));
            assertEquals(List.of(), keys(t.scan(b("x"), true, b("z"), true, false, 0)));
            List<KeyValue> one = t.scan(b("c"), true, b("c"), true, false, 0);
            assertEquals(1, one.size());
            assertArrayEquals(b("vc"), one.get(0).value());
        }
    }

    @Test
    void shouldScanDescendingWithLimits() {
        load("a", "b", "c", "d", "e");
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertEquals(List.of("e", "d", "c", "b", "a"), keys(t.scan(null, true, null, true, true, 0)));
            assertEquals(List.of("e", "d"), keys(t.scan(null, true, null, true, true, 2)));
            assertEquals(List.of("d", "c"), keys(t.scan(b("b"), false, b("d"), true, true, 2)));
            assertEquals(List.of("a", "b", "c"), keys(t.scan(null, true, null, true, false, 3)));
            assertEquals(List.of("a", "b", "c", "d", "e"), keys(t.scan(null, true, null, true, false, 100)));
        }
    }

    @Test
    void shouldCarryBinaryKeysAndValuesUnchanged() {
        byte[] high = {(byte) 0xFF, 0x00, (byte) 0x80};
        byte[] low = {0x01};
        byte[] value = new byte[70_000];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 31);
        }
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            t.put(high, value);
            t.put(low, new byte[]{0});
            t.commit();
        }
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertArrayEquals(value, t.get(high));
            List<KeyValue> all = t.scan(null, true, null, true, false, 0);
            assertEquals(2, all.size());
            assertArrayEquals(low, all.get(0).key(), "unsigned order survives the wire");
            assertArrayEquals(high, all.get(1).key());
            assertArrayEquals(value, all.get(1).value());
        }
    }

    @Test
    void shouldCommitAsynchronously() throws Exception {
        TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
        t.put(b("k"), b("v"));
        assertEquals(1L, t.commitAsync().get(5, TimeUnit.SECONDS));
        assertEquals(TxnOutcome.State.COMMITTED, client.outcome(t.id()).state());
    }

    @Test
    void shouldAbortAndLeaveNothingBehind() {
        TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
        t.put(b("k"), b("v"));
        t.abort();
        t.abort();
        t.close();
        assertEquals(1, service.aborted.get());
        assertEquals(0, service.activeCount());
        try (TxnSession r = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertNull(r.get(b("k")));
        }
        assertTxnError(TxnError.UNKNOWN_TRANSACTION, () -> t.get(b("k")));
    }

    @Test
    void shouldAnswerOutcomesOfCommittedAbortedPendingAndUnknownTransactions() {
        TxnSession committed = client.begin(IsolationLevel.SNAPSHOT, false);
        committed.put(b("k"), b("v"));
        long csn = committed.commit();
        TxnSession aborted = client.begin(IsolationLevel.SNAPSHOT, false);
        aborted.abort();
        TxnSession open = client.begin(IsolationLevel.SNAPSHOT, false);

        TxnOutcome c = client.outcome(committed.id());
        assertEquals(new TxnOutcome(committed.id(), TxnOutcome.State.COMMITTED, csn, null), c);
        TxnOutcome a = client.outcome(aborted.id());
        assertEquals(TxnOutcome.State.NOT_COMMITTED, a.state());
        assertEquals("aborted", a.reason());
        assertEquals(TxnOutcome.State.PENDING, client.outcome(open.id()).state());
        assertEquals(TxnOutcome.State.UNKNOWN, client.outcome(new io.meldb.txn.api.TxnId(1, 999)).state());
        open.abort();
    }

    @Test
    void shouldAnswerStatus() {
        load("a");
        TxnSession open = client.begin(IsolationLevel.SNAPSHOT, true);
        ServerStatus remote = client.status();
        assertEquals(service.status(), remote);
        assertEquals(1, remote.csn());
        assertEquals(1, remote.inFlight());
        assertNotEquals(0, remote.stateHash());
        open.close();
    }

    @Test
    void shouldReadTheSnapshotPinnedAtBegin() {
        load("a");
        try (TxnSession reader = client.begin(IsolationLevel.SNAPSHOT, true)) {
            try (TxnSession writer = client.begin(IsolationLevel.SNAPSHOT, false)) {
                writer.put(b("a"), b("new"));
                writer.commit();
            }
            assertArrayEquals(b("va"), reader.get(b("a")));
        }
    }
}
