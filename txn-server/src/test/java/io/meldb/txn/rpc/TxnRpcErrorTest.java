package io.meldb.txn.rpc;

import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.protocol.TxnRpcProtocol;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Errors travel with their {@link TxnError} code and message, and a bad request never costs the connection. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class TxnRpcErrorTest extends RpcTestSupport {

    @Test
    void shouldPropagateConflictFromCommit() throws Exception {
        TxnRpcClient client = connect(startServer());
        TxnSession first = client.begin(IsolationLevel.SNAPSHOT, false);
        TxnSession second = client.begin(IsolationLevel.SNAPSHOT, false);
        first.put(b("k"), b("1"));
        second.put(b("k"), b("2"));
        first.commit();
        TxnException e = assertTxnError(TxnError.CONFLICT, second::commit);
        assertContains(e.getMessage(), second.id().toString());
        assertTxnError(TxnError.UNKNOWN_TRANSACTION, () -> second.get(b("k")));
        // and through commitAsync
        TxnSession third = client.begin(IsolationLevel.SNAPSHOT, false);
        TxnSession fourth = client.begin(IsolationLevel.SNAPSHOT, false);
        third.put(b("k"), b("3"));
        fourth.put(b("k"), b("4"));
        third.commit();
        Throwable cause = fourth.commitAsync().handle((v, t) -> t).get(5, TimeUnit.SECONDS);
        assertEquals(TxnError.CONFLICT, ((TxnException) cause).error());
    }

    @Test
    void shouldPropagateEveryInjectedErrorCodeFromEveryOperation() {
        TxnRpcClient client = connect(startServer());
        for (TxnError error : TxnError.values()) {
            service.failNext("begin", error);
            assertTxnError(error, () -> client.begin(IsolationLevel.SNAPSHOT, false));
        }
        TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
        service.failNext("get", TxnError.TOO_LARGE);
        TxnException e = assertTxnError(TxnError.TOO_LARGE, () -> t.get(b("k")));
        assertEquals("injected TOO_LARGE on get", e.getMessage());
        service.failNext("scan", TxnError.INTERNAL);
        assertTxnError(TxnError.INTERNAL, () -> t.scan(null, true, null, true, false, 0));
        service.failNext("put", TxnError.UNAVAILABLE);
        assertTxnError(TxnError.UNAVAILABLE, () -> t.put(b("k"), b("v")));
        service.failNext("delete", TxnError.OUTCOME_UNKNOWN);
        assertTxnError(TxnError.OUTCOME_UNKNOWN, () -> t.delete(b("k")));
        service.failNext("outcome", TxnError.UNAVAILABLE);
        assertTxnError(TxnError.UNAVAILABLE, () -> client.outcome(t.id()));
        service.failNext("status", TxnError.OVERLOADED);
        assertTxnError(TxnError.OVERLOADED, client::status);
        t.put(b("k"), b("v"));
        service.failNext("commit", TxnError.OUTCOME_UNKNOWN);
        assertTxnError(TxnError.OUTCOME_UNKNOWN, t::commit);
        // the connection survived all of it
        try (TxnSession u = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertEquals(0, u.snapshotCsn());
        }
    }

    @Test
    void shouldRejectWritesInReadOnlyTransactions() {
        TxnRpcClient client = connect(startServer());
        try (TxnSession t = client.begin(IsolationLevel.SERIALIZABLE, true)) {
            assertTxnError(TxnError.READ_ONLY, () -> t.put(b("k"), b("v")));
            assertTxnError(TxnError.READ_ONLY, () -> t.delete(b("k")));
            t.get(b("k"));
        }
    }

    @Test
    void shouldLeaveArgumentValidationToTheServiceAndAnswerBadRequest() {
        TxnRpcClient client = connect(startServer());
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            assertTxnError(TxnError.BAD_REQUEST, () -> t.get(null));
            assertTxnError(TxnError.BAD_REQUEST, () -> t.put(new byte[0], b("v")));
            assertTxnError(TxnError.BAD_REQUEST, () -> t.put(b("k"), null));
            assertTxnError(TxnError.BAD_REQUEST, () -> t.scan(null, true, null, true, false, -1));
            t.put(b("k"), b("v"));
            assertArrayEquals(b("v"), t.get(b("k")));
        }
        assertTxnError(TxnError.BAD_REQUEST, () -> client.begin(null, false));
    }

    @Test
    void shouldAnswerUnknownTransactionAfterCommitOrAbort() {
        TxnRpcClient client = connect(startServer());
        TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
        t.commit();
        assertTxnError(TxnError.UNKNOWN_TRANSACTION, () -> t.get(b("k")));
        assertTxnError(TxnError.UNKNOWN_TRANSACTION, t::commit);
        t.abort();
    }

    @Test
    void shouldAnswerUnknownTransactionForAHandleNeverBegunOnThisConnection() throws Exception {
        TxnRpcServer server = startServer();
        TxnRpcClient client = connect(server);
        TxnSession other = client.begin(IsolationLevel.SNAPSHOT, false);
        RawConnection raw = raw(server);
        // handle 1 exists on the client's connection, not on this one: handles are per connection
        raw.writeFrame(TxnRpcProtocol.GET, 5, ByteBuffer.allocate(13).putLong(1).putInt(1).put((byte) 'k').array());
        RawFrame answer = raw.readFrame();
        assertEquals(5, answer.requestId());
        assertEquals(TxnError.UNKNOWN_TRANSACTION, answer.errorCode());
        assertContains(answer.errorMessage(), "handle 1");
        // ABORT of an unknown handle is not an error
        raw.writeFrame(TxnRpcProtocol.ABORT, 6, ByteBuffer.allocate(8).putLong(77).array());
        assertEquals(TxnRpcProtocol.DONE, raw.readFrame().type());
        other.get(b("k"));
        other.abort();
    }

    @Test
    void shouldAnswerBadRequestToMalformedBodiesAndKeepTheConnection() throws Exception {
        TxnRpcServer server = startServer();
        RawConnection raw = raw(server);
        raw.writeFrame(TxnRpcProtocol.BEGIN, 1, new byte[]{9, 0});
        RawFrame badIsolation = raw.readFrame();
        assertEquals(TxnError.BAD_REQUEST, badIsolation.errorCode());
        assertContains(badIsolation.errorMessage(), "isolation");

        raw.writeFrame(TxnRpcProtocol.BEGIN, 2, new byte[]{0, 0});
        RawFrame begun = raw.readFrame();
        assertEquals(TxnRpcProtocol.BEGUN, begun.type());
        long handle = ByteBuffer.wrap(begun.body()).getLong();

        raw.writeFrame(TxnRpcProtocol.GET, 3, ByteBuffer.allocate(12).putLong(handle).putInt(1000).array());
        RawFrame shortKey = raw.readFrame();
        assertEquals(3, shortKey.requestId());
        assertEquals(TxnError.BAD_REQUEST, shortKey.errorCode());
        assertContains(shortKey.errorMessage(), "key length of 1000");

        raw.writeFrame(TxnRpcProtocol.COMMIT, 4, new byte[3]);
        assertEquals(TxnError.BAD_REQUEST, raw.readFrame().errorCode());
        raw.writeFrame(TxnRpcProtocol.STATUS, 5, new byte[1]);
        assertContains(raw.readFrame().errorMessage(), "unexpected bytes");
        raw.writeFrame(TxnRpcProtocol.COMMITTED, 6, new byte[8]);
        assertContains(raw.readFrame().errorMessage(), "not a request");
        raw.writeFrame((byte) 0x42, 7, new byte[0]);
        assertEquals(TxnError.BAD_REQUEST, raw.readFrame().errorCode());

        raw.writeFrame(TxnRpcProtocol.STATUS, 8, new byte[0]);
        RawFrame status = raw.readFrame();
        assertEquals(TxnRpcProtocol.STATUS_IS, status.type());
        assertEquals(8, status.requestId());
        assertEquals(1, service.activeCount(), "the transaction begun on this connection is still open");
    }

    @Test
    void shouldAnswerTooLargeToAnOversizedRequestAndKeepTheConnection() {
        TxnRpcServer server = startServer(new TxnRpcServerOptions().maxFrameLength(4096));
        TxnRpcClient client = connect(server);
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            TxnException e = assertTxnError(TxnError.TOO_LARGE, () -> t.put(b("k"), new byte[10_000]));
            assertContains(e.getMessage(), "limit of 4096");
            t.put(b("k"), new byte[1000]);
            assertEquals(1000, t.get(b("k")).length);
        }
    }

    @Test
    void shouldAnswerTooLargeToAScanWhoseAnswerExceedsTheFrameLimit() {
        TxnRpcServer server = startServer(new TxnRpcServerOptions().maxFrameLength(4096));
        TxnRpcClient client = connect(server);
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            for (int i = 0; i < 10; i++) {
                t.put(b("k" + i), new byte[1000]);
            }
            TxnException e = assertTxnError(TxnError.TOO_LARGE, () -> t.scan(null, true, null, true, false, 0));
            assertContains(e.getMessage(), "scan with a limit");
            assertEquals(3, t.scan(null, true, null, true, false, 3).size());
        }
    }

    @Test
    void shouldAnswerInternalWithoutAStackTraceForAnUnexpectedServiceFailure() {
        TxnRpcClient client = connect(startServer());
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            service.nextGetFailure = new IllegalStateException("node pool exhausted");
            TxnException e = assertTxnError(TxnError.INTERNAL, () -> t.get(b("k")));
            assertContains(e.getMessage(), "node pool exhausted");
            assertFalse(e.getMessage().contains("\tat "), "no stack trace in the answer");
            t.get(b("k"));
        }
    }

    @Test
    void shouldLimitOpenTransactionsPerConnection() {
        TxnRpcServer server = startServer(new TxnRpcServerOptions().maxTransactionsPerConnection(3));
        TxnRpcClient client = connect(server);
        List<TxnSession> open = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            open.add(client.begin(IsolationLevel.SNAPSHOT, false));
        }
        TxnException e = assertTxnError(TxnError.OVERLOADED, () -> client.begin(IsolationLevel.SNAPSHOT, false));
        assertContains(e.getMessage(), "limit 3");
        assertEquals(3, server.openTransactions());
        TxnRpcClient other = connect(server);
        other.begin(IsolationLevel.SNAPSHOT, true).close();
        open.remove(0).abort();
        open.add(client.begin(IsolationLevel.SNAPSHOT, false));
        open.forEach(TxnSession::close);
    }

    @Test
    void shouldCountRequestsByOpAndOutcome() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TxnRpcServer server = startServer(new TxnRpcServerOptions().meterRegistry(registry));
        TxnRpcClient client = connect(server);
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            t.get(b("a"));
            t.get(b("b"));
            assertTxnError(TxnError.BAD_REQUEST, () -> t.get(null));
            t.put(b("a"), b("1"));
            t.commit();
        }
        assertEquals(2, count(registry, "GET", "OK"));
        assertEquals(1, count(registry, "GET", "BAD_REQUEST"));
        assertEquals(1, count(registry, "BEGIN", "OK"));
        assertEquals(1, count(registry, "COMMIT", "OK"));
        assertNotNull(registry.find("meldb.txn.rpc.connections").gauge());
        assertEquals(1.0, registry.find("meldb.txn.rpc.connections").gauge().value());
    }

    private static long count(SimpleMeterRegistry registry, String op, String outcome) {
        Timer t = registry.find(TxnRpcMetrics.REQUESTS).tag("op", op).tag("outcome", outcome).timer();
        return t == null ? 0 : t.count();
    }
}
