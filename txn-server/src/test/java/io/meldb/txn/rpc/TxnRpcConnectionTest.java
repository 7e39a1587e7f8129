package io.meldb.txn.rpc;

import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.client.TxnRpcClientOptions;
import io.meldb.txn.protocol.TxnRpcProtocol;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Timeouts, lost connections on either side, and garbage on the wire. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class TxnRpcConnectionTest extends RpcTestSupport {

    @Test
    void shouldTimeOutACommitThatMeldDoesNotDecideAndPointToOutcome() throws Exception {
        TxnRpcServer server = startServer();
        // 1 s, not 200 ms: the BEGIN before the gated commit answers under the same timeout, and on a loaded
        // machine a fresh server's first BEGIN (begin pool start-up, cold code) took longer than 200 ms
        TxnRpcClient client = connect(server, Duration.ofSeconds(1));
        service.commitGate = new CompletableFuture<>();
        TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
        t.put(b("k"), b("v"));
        long start = System.nanoTime();
        TxnException e = assertTxnError(TxnError.TIMEOUT, t::commit);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
        assertContains(e.getMessage(), "outcome(" + t.id() + ")");
        assertEquals(TxnOutcome.State.PENDING, client.outcome(t.id()).state());
        service.commitGate.complete(null);
        eventually("the late commit is decided", () -> client.outcome(t.id()).state() == TxnOutcome.State.COMMITTED);
        assertEquals(0, client.inFlight());
    }

    @Test
    void shouldWaitLongerForTheCommitOfATransactionThatWroteMoreBytes() throws Exception {
        TxnRpcServer server = startServer();
        // 500 ms, not less: each 1 MiB PUT must get its answer within it on a loaded machine (200 ms did not)
        TxnRpcClient client = connect(server, Duration.ofMillis(500));
        service.commitGate = new CompletableFuture<>();
        TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
        for (int i = 0; i < 20; i++) {
            t.put(b("k" + i), new byte[1 << 20]); // 20 MiB: 2 s more than the 500 ms request timeout
        }
        CompletableFuture<Long> commit = t.commitAsync();
        Thread.sleep(1500);
        assertTrue(!commit.isDone(), "still waiting after three request timeouts");
        service.commitGate.complete(null);
        assertTrue(commit.get(5, TimeUnit.SECONDS) > 0, "committed");
    }

    @Test
    void shouldTimeOutABeginWaitingForAdmissionAndAbortItWhenItArrivesLate() throws Exception {
        TxnRpcServer server = startServer();
        TxnRpcClient client = connect(server, Duration.ofMillis(200));
        service.beginGate = new CountDownLatch(1);
        assertTxnError(TxnError.TIMEOUT, () -> client.begin(IsolationLevel.SNAPSHOT, false));
        assertEquals(1, server.openTransactions(), "still waiting for admission on the server");
        service.beginGate.countDown();
        service.beginGate = null;
        eventually("the orphaned transaction is aborted", () -> service.aborted.get() == 1 && server.openTransactions() == 0);
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            t.put(b("k"), b("v"));
            t.commit();
        }
    }

    @Test
    void shouldNotBlockOtherConnectionsWhileABeginWaitsForAdmission() throws Exception {
        TxnRpcServer server = startServer(new TxnRpcServerOptions().beginThreads(1));
        TxnRpcClient waiting = connect(server, Duration.ofSeconds(5));
        TxnRpcClient other = connect(server, Duration.ofSeconds(5));
        TxnSession open = other.begin(IsolationLevel.SNAPSHOT, false);
        service.beginGate = new CountDownLatch(1);
        CompletableFuture<TxnSession> blocked = CompletableFuture.supplyAsync(() -> waiting.begin(IsolationLevel.SNAPSHOT, false));
        eventually("the BEGIN waits on the server", () -> server.openTransactions() == 2);
        open.put(b("k"), b("v"));
        assertEquals(1, open.commit());
        assertEquals(1, other.status().csn());
        service.beginGate.countDown();
        blocked.get(5, TimeUnit.SECONDS).close();
    }

    @Test
    void shouldFailAPendingCommitAsUnknownAndLaterCallsWithSessionLostWhenTheServerCloses() throws Exception {
        TxnRpcServer server = TxnRpcServer.start(service, TxnRpcServerOptions.on("127.0.0.1", 0));
        try {
            TxnRpcClient client = connect(server);
            service.commitGate = new CompletableFuture<>();
            TxnSession committing = client.begin(IsolationLevel.SNAPSHOT, false);
            TxnSession open = client.begin(IsolationLevel.SNAPSHOT, false);
            committing.put(b("k"), b("v"));
            CompletableFuture<Long> commit = committing.commitAsync();
            eventually("the commit reached the service", () -> service.commitsStarted.get() == 1);
            server.close();

            Throwable lost = commit.handle((v, t) -> t).get(5, TimeUnit.SECONDS);
            TxnException e = assertInstanceOf(TxnException.class, lost);
            assertEquals(TxnError.OUTCOME_UNKNOWN, e.error());
            assertContains(e.getMessage(), "outcome(" + committing.id() + ")");
            TxnException later = assertTxnError(TxnError.SESSION_LOST, () -> open.get(b("k")));
            assertContains(later.getMessage(), open.id().toString());
            open.close();
            assertEquals(1, service.aborted.get(), "the server aborted the open transaction, not the committing one");
            service.commitGate.complete(null);
            assertEquals(TxnOutcome.State.COMMITTED, service.outcome(committing.id()).state());
            assertTxnError(TxnError.UNAVAILABLE, client::status);
        } finally {
            server.close();
        }
    }

    @Test
    void shouldLoseSessionsButConnectAgainForNewTransactionsWhenTheNetworkCutsTheConnection() throws Exception {
        TxnRpcServer server = startServer();
        CuttableProxy proxy = closeAfter(new CuttableProxy(server.port()));
        TxnRpcClient client = closeAfter(TxnRpcClient.connect(TxnRpcClientOptions.to("127.0.0.1", proxy.port())));
        TxnSession before = client.begin(IsolationLevel.SNAPSHOT, false);
        before.put(b("k"), b("v"));
        proxy.cut();
        eventually("the server saw the connection close", () -> server.connectionCount() == 0);
        eventually("the server aborted the transaction", () -> service.aborted.get() == 1);
        TxnException e = assertTxnError(TxnError.SESSION_LOST, () -> before.put(b("k2"), b("v")));
        assertContains(e.getMessage(), before.id().toString());
        assertTxnError(TxnError.SESSION_LOST, before::commit);
        before.close();
        try (TxnSession after = client.begin(IsolationLevel.SNAPSHOT, false)) {
            after.put(b("k"), b("v"));
            assertEquals(1, after.commit());
        }
        assertEquals(1, server.connectionCount());
    }

    @Test
    void shouldAbortOpenTransactionsButFinishCommitsInFlightWhenTheClientDisconnects() throws Exception {
        TxnRpcServer server = startServer();
        TxnRpcClient client = TxnRpcClient.connect(TxnRpcClientOptions.to("127.0.0.1", server.port()));
        TxnSession committing;
        CompletableFuture<Long> commit;
        try {
            service.commitGate = new CompletableFuture<>();
            client.begin(IsolationLevel.SNAPSHOT, false).put(b("a"), b("1"));
            client.begin(IsolationLevel.SERIALIZABLE, true);
            committing = client.begin(IsolationLevel.SNAPSHOT, false);
            committing.put(b("c"), b("3"));
            commit = committing.commitAsync();
            eventually("three transactions on the server", () -> service.activeCount() == 3 && service.begun.get() == 3);
        } finally {
            client.close();
        }
        TxnException e = (TxnException) commit.handle((v, t) -> t).get(5, TimeUnit.SECONDS);
        assertEquals(TxnError.OUTCOME_UNKNOWN, e.error());
        eventually("the two open transactions are aborted", () -> service.aborted.get() == 2);
        eventually("the connection is gone", () -> server.connectionCount() == 0);
        assertEquals(1, server.openTransactions(), "the commit is still in flight");

        service.commitGate.complete(null);
        TxnRpcClient again = connect(server);
        eventually("the commit finished", () -> server.openTransactions() == 0);
        TxnOutcome outcome = again.outcome(committing.id());
        assertEquals(TxnOutcome.State.COMMITTED, outcome.state());
        try (TxnSession r = again.begin(IsolationLevel.SNAPSHOT, true)) {
            assertArrayEquals(b("3"), r.get(b("c")));
            assertEquals(null, r.get(b("a")));
        }
    }

    @Test
    void shouldCloseOnlyTheConnectionThatSentGarbage() throws Exception {
        TxnRpcServer server = startServer();
        TxnRpcClient client = connect(server);
        TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
        t.put(b("k"), b("v"));

        RawConnection garbage = raw(server);
        garbage.writeFrame(TxnRpcProtocol.BEGIN, 1, new byte[]{0, 0});
        assertEquals(TxnRpcProtocol.BEGUN, garbage.readFrame().type());
        garbage.writeRaw("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
        RawFrame error = garbage.readFrame();
        assertEquals(0, error.requestId());
        assertEquals(TxnError.BAD_REQUEST, error.errorCode());
        assertContains(error.errorMessage(), "closing the connection");
        garbage.assertClosedByServer();
        eventually("the garbage connection's transaction is aborted", () -> service.aborted.get() == 1);

        RawConnection badVersion = raw(server);
        ByteBuffer header = ByteBuffer.allocate(20).putInt(16).putInt(TxnRpcProtocol.MAGIC).put((byte) 99);
        badVersion.writeRaw(header.array());
        assertContains(badVersion.readFrame().errorMessage(), "protocol version 99");
        badVersion.assertClosedByServer();

        assertArrayEquals(b("v"), t.get(b("k")));
        assertEquals(1, t.commit());
        assertEquals(1, server.connectionCount());
    }

    @Test
    void shouldRefuseABlockingCallOnTheClientsIoThreadInsteadOfDeadlocking() throws Exception {
        TxnRpcClient client = connect(startServer());
        TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
        t.put(b("k"), b("v"));
        service.commitGate = new CompletableFuture<>();
        CompletableFuture<Long> commit = t.commitAsync();
        // chained before the answer can arrive, so the callback runs on the client's I/O thread
        CompletableFuture<TxnException> inCallback = commit.thenApply(csn -> {
            try {
                client.status();
                return null;
            } catch (TxnException e) {
                return e;
            }
        });
        service.commitGate.complete(null);
        TxnException e = assertInstanceOf(TxnException.class, inCallback.get(5, TimeUnit.SECONDS));
        assertContains(e.getMessage(), "I/O thread");
    }

    @Test
    void shouldFailToConnectClearlyWhenNobodyListens() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        TxnException e = assertTxnError(TxnError.UNAVAILABLE, () -> TxnRpcClient.connect("127.0.0.1", port));
        assertContains(e.getMessage(), "127.0.0.1:" + port);
    }
}
