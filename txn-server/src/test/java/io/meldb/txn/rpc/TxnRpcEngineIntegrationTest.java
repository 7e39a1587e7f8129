package io.meldb.txn.rpc;

import io.meldb.txn.client.TxnRpcClient;
import io.meldb.core.IntField;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.TxnServerConfig;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.meldb.txn.rpc.RpcTestSupport.assertTxnError;
import static io.meldb.txn.rpc.RpcTestSupport.b;
import static io.meldb.txn.rpc.RpcTestSupport.eventually;
import static io.meldb.txn.rpc.RpcTestSupport.s;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RPC against the real engine: an {@link EmbeddedNode} (log server + {@link io.meldb.txn.TxnServer}) served by
 * a {@link TxnRpcServer}, used through a {@link TxnRpcClient}. Proves the wire mapping carries the engine's
 * behaviour (meld's conflicts, its limits, admission) unchanged.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TxnRpcEngineIntegrationTest {
    @TempDir
    Path dataDir;

    private static final int INTENTION_LIMIT = 256 * 1024;

    private EmbeddedNode node;
    private TxnRpcServer server;
    private TxnRpcClient client;

    @BeforeEach
    void start() {
        node = EmbeddedNode.start(dataDir, c -> c.maxInFlight(4).admissionWait(Duration.ofMillis(50))
            .maxIntentionBytes(INTENTION_LIMIT));
        server = TxnRpcServer.start(node.txnService(), "127.0.0.1", 0);
        client = TxnRpcClient.connect("127.0.0.1", server.port());
    }

    @AfterEach
    void stop() {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            try {
                if (server != null) {
                    server.close();
                }
            } finally {
                if (node != null) {
                    node.close();
                }
            }
        }
    }

    @Test
    void aColumnReadOverTheWireStandsAgainstAnIncrementOfOtherBytes() {
        IntField counter = IntField.int64(0);
        TxnSession seed = client.begin(IsolationLevel.SERIALIZABLE, false);
        seed.put(b("row"), java.nio.ByteBuffer.allocate(12).putLong(5).putInt(7).array());
        seed.commit();
        long tail = io.meldb.core.ColumnReads.bytes(8, 12);
        long head = io.meldb.core.ColumnReads.bytes(0, 8);
        TxnSession other = client.begin(IsolationLevel.SERIALIZABLE, false);
        TxnSession same = client.begin(IsolationLevel.SERIALIZABLE, false);
        org.agrona.ExpandableArrayBuffer into = new org.agrona.ExpandableArrayBuffer(4);
        assertEquals(12, other.get(b("row"), into, tail));
        assertEquals(7, into.getInt(8, java.nio.ByteOrder.BIG_ENDIAN), "the whole value comes back");
        assertEquals(12, same.get(b("row"), into, head));
        assertEquals(-1, other.get(b("absent"), into, tail));
        other.put(b("o"), b("1"));
        same.put(b("s"), b("1"));
        TxnSession inc = client.begin(IsolationLevel.SERIALIZABLE, false);
        inc.add(b("row"), counter, 10);
        inc.commit();
        other.commit(); // read bytes 8..11; the increment wrote 0..7
        TxnException e = assertThrows(TxnException.class, same::commit);
        assertEquals(TxnError.CONFLICT, e.error(), "read the bytes the increment wrote");
    }

    @Test
    void shouldRunTransactionsOverTheWireAgainstTheEngine() {
        long base = client.status().csn();
        long csn;
        TxnSession writer = client.begin(IsolationLevel.SERIALIZABLE, false);
        for (String k : new String[]{"a", "b", "c", "d"}) {
            writer.put(b(k), b("v" + k));
        }
        writer.delete(b("b"));
        assertArrayEquals(b("va"), writer.get(b("a")));
        assertNull(writer.get(b("b")));
        csn = writer.commit();
        assertTrue(csn > base);
        assertEquals(TxnOutcome.State.COMMITTED, client.outcome(writer.id()).state());

        try (TxnSession r = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertTrue(r.snapshotCsn() >= csn);
            assertArrayEquals(b("vc"), r.get(b("c")));
            assertNull(r.get(b("b")));
            List<String> desc = new ArrayList<>();
            for (KeyValue kv : r.scan(b("a"), false, null, true, true, 2)) {
                desc.add(s(kv.key()));
            }
            assertEquals(List.of("d", "c"), desc);
            assertEquals(3, r.scan(null, true, null, true, false, 0).size());
        }
        ServerStatus remote = client.status();
        ServerStatus local = node.txnService().status();
        assertEquals(local.csn(), remote.csn());
        assertEquals(local.stateHash(), remote.stateHash());
        assertEquals(local.incarnation(), remote.incarnation());
    }

    @Test
    void shouldEndATransactionPastTheIntentionLimitAtTheWriteThatCrossesItOverTheWire() {
        final TxnSession t = client.begin(IsolationLevel.SERIALIZABLE, false);
        int written = 0;
        TxnException refused = null;
        while (refused == null && written < 5_000) {
            try {
                t.put(b("row" + written), new byte[200]);
                written++;
            } catch (TxnException e) {
                refused = e;
            }
        }
        assertTrue(refused != null && refused.error() == TxnError.TOO_LARGE, String.valueOf(refused));
        assertTrue(refused.getMessage().contains(String.valueOf(INTENTION_LIMIT))
            && refused.getMessage().contains("--max-intention-bytes"), refused.getMessage());
        assertTrue(written > INTENTION_LIMIT / 300, written + " rows before the refusal");
        assertTxnError(TxnError.UNKNOWN_TRANSACTION, () -> t.put(b("more"), b("v")));
        t.abort();
        t.close();
        final List<TxnSession> open = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            open.add(client.begin(IsolationLevel.SNAPSHOT, true)); // every admission slot is free again
        }
        try (TxnSession r = open.get(0)) {
            assertNull(r.get(b("row0")), "nothing of the refused transaction was committed");
        }
        open.forEach(TxnSession::close);
    }

    @Test
    void shouldCarryTheEnginesErrorsOverTheWire() {
        TxnSession first = client.begin(IsolationLevel.SNAPSHOT, false);
        TxnSession second = client.begin(IsolationLevel.SNAPSHOT, false);
        first.put(b("k"), b("1"));
        second.put(b("k"), b("2"));
        first.commit();
        TxnException conflict = assertTxnError(TxnError.CONFLICT, second::commit);
        assertTrue(!conflict.getMessage().isEmpty());
        assertEquals(TxnOutcome.State.ABORTED, client.outcome(second.id()).state());

        try (TxnSession ro = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertTxnError(TxnError.READ_ONLY, () -> ro.put(b("k"), b("v")));
        }
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            assertTxnError(TxnError.BAD_REQUEST, () -> t.get(null));
            assertTxnError(TxnError.TOO_LARGE, () -> t.put(new byte[TxnServerConfig.MAX_KEY_BYTES + 1], b("v")));
        }
        List<TxnSession> open = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            open.add(client.begin(IsolationLevel.SNAPSHOT, true));
        }
        assertTxnError(TxnError.OVERLOADED, () -> client.begin(IsolationLevel.SNAPSHOT, true));
        open.forEach(TxnSession::close);
        client.begin(IsolationLevel.SNAPSHOT, true).close();
    }

    @Test
    void concurrentIncrementsOverTheWireAllCommitAndOverflowIsOutOfRange() {
        IntField counter = IntField.int64(0);
        try (TxnSession setup = client.begin(IsolationLevel.SNAPSHOT, false)) {
            setup.put(b("ctr"), java.nio.ByteBuffer.allocate(9).putLong(100).put((byte) 7).array());
            setup.put(b("big"), java.nio.ByteBuffer.allocate(8).putLong(Long.MAX_VALUE - 3).array());
            setup.commit();
        }
        // four transactions on one snapshot, two serializable: each adds without reading, so none conflicts
        List<TxnSession> open = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            TxnSession t = client.begin(i % 2 == 0 ? IsolationLevel.SERIALIZABLE : IsolationLevel.SNAPSHOT, false);
            t.add(b("ctr"), counter, i + 1);
            open.add(t);
        }
        assertEquals(101, java.nio.ByteBuffer.wrap(open.get(0).get(b("ctr"))).getLong(), "a transaction sees its own add");
        open.remove(0).abort(); // the serializable read above became a read dependency: drop it
        for (TxnSession t : open) {
            assertTrue(t.commit() > 0);
        }
        try (TxnSession r = client.begin(IsolationLevel.SNAPSHOT, true)) {
            byte[] v = r.get(b("ctr"));
            assertEquals(100 + 2 + 3 + 4, java.nio.ByteBuffer.wrap(v).getLong());
            assertEquals(7, v[8], "bytes beyond the field are kept");
        }

        TxnSession a = client.begin(IsolationLevel.SNAPSHOT, false);
        TxnSession c = client.begin(IsolationLevel.SNAPSHOT, false);
        a.add(b("big"), counter, 2);
        c.add(b("big"), counter, 2);
        assertTxnError(TxnError.OUT_OF_RANGE, () -> c.add(b("big"), counter, 2));
        assertTrue(a.commit() > 0);
        TxnException overflow = assertTxnError(TxnError.OUT_OF_RANGE, c::commit);
        assertTrue(overflow.getMessage().contains("range"), overflow.getMessage());
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            assertTxnError(TxnError.NOT_APPLICABLE, () -> t.add(b("absent"), counter, 1));
            assertTxnError(TxnError.NOT_APPLICABLE, () -> t.add(b("ctr"), IntField.int64(4), 1));
        }
        try (TxnSession r = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertEquals(Long.MAX_VALUE - 1, java.nio.ByteBuffer.wrap(r.get(b("big"))).getLong(), "nothing wrapped");
        }
    }

    @Test
    void shouldAbortASnapshotTransactionWhoseDeclaredRangeAConcurrentCommitWroteOverTheWire() {
        try (TxnSession setup = client.begin(IsolationLevel.SNAPSHOT, false)) {
            setup.put(b("p1"), b("parent"));
            setup.commit();
        }
        // the foreign-key pattern: a child insert depends on its parent key, a parent delete on its child range
        TxnSession child = client.begin(IsolationLevel.SNAPSHOT, false);
        TxnSession parent = client.begin(IsolationLevel.SNAPSHOT, false);
        assertArrayEquals(b("parent"), child.get(b("p1")));
        child.dependOn(b("p1"), true, b("p1"), true);
        child.put(b("q1/c1"), b("child"));
        assertTrue(parent.scan(b("q1/"), true, b("q10"), false, false, 0).isEmpty());
        parent.dependOn(b("q1/"), true, b("q10"), false);
        parent.delete(b("p1"));
        parent.commit();
        TxnException conflict = assertTxnError(TxnError.CONFLICT, child::commit);
        assertTrue(!conflict.getMessage().isEmpty());

        // without a concurrent write to the range, a declared dependency commits; two dependents of one key too
        TxnSession a = client.begin(IsolationLevel.SNAPSHOT, false);
        TxnSession c = client.begin(IsolationLevel.SNAPSHOT, false);
        a.dependOn(b("p2"), true, b("p2"), true);
        a.put(b("q2/a"), b("x"));
        c.dependOn(b("p2"), true, b("p2"), true);
        c.put(b("q2/c"), b("x"));
        assertTrue(a.commit() > 0);
        assertTrue(c.commit() > 0);
        try (TxnSession r = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertNull(r.get(b("q1/c1")), "the aborted child left nothing");
            assertArrayEquals(b("x"), r.get(b("q2/c")));
        }
    }

    @Test
    void shouldReleaseTheEnginesSlotsWhenTheClientGoesAway() throws Exception {
        TxnRpcClient other = TxnRpcClient.connect("127.0.0.1", server.port());
        try {
            for (int i = 0; i < 3; i++) {
                other.begin(IsolationLevel.SERIALIZABLE, false).put(b("x" + i), b("v"));
            }
            assertEquals(3, node.txnService().status().inFlight());
        } finally {
            other.close();
        }
        eventually("the engine's in-flight transactions are aborted", () -> node.txnService().status().inFlight() == 0);
        try (TxnSession r = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertNull(r.get(b("x0")));
        }
    }
}
