package io.meldb.txn.rpc;

import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Many clients, and many threads sharing one client, each with their own sessions. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TxnRpcConcurrencyTest extends RpcTestSupport {
    private static final int ACCOUNTS = 8;
    private static final long INITIAL = 1000;

    private static byte[] account(int i) {
        return b("acct" + i);
    }

    private static byte[] amount(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static long amount(byte[] v) {
        return ByteBuffer.wrap(v).getLong();
    }

    @Test
    void shouldKeepTheBankTotalUnderConcurrentTransfersFromManyClientsAndThreads() throws Exception {
        TxnRpcServer server = startServer();
        try (TxnSession t = connect(server).begin(IsolationLevel.SNAPSHOT, false)) {
            for (int i = 0; i < ACCOUNTS; i++) {
                t.put(account(i), amount(INITIAL));
            }
            t.commit();
        }
        List<TxnRpcClient> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            clients.add(connect(server));
        }
        int threads = 12;
        int transfersPerThread = 60;
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger conflicts = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < threads; th++) {
                TxnRpcClient client = clients.get(th % clients.size());
                int seed = th;
                futures.add(pool.submit(() -> {
                    java.util.Random random = new java.util.Random(seed);
                    for (int n = 0; n < transfersPerThread; n++) {
                        int from = random.nextInt(ACCOUNTS);
                        int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
                            long a = amount(t.get(account(from)));
                            long b = amount(t.get(account(to)));
                            t.put(account(from), amount(a - 7));
                            t.put(account(to), amount(b + 7));
                            t.commit();
                            committed.incrementAndGet();
                        } catch (TxnException e) {
                            if (e.error() != TxnError.CONFLICT) {
                                throw e;
                            }
                            conflicts.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(25, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * transfersPerThread, committed.get() + conflicts.get());
        assertTrue(committed.get() > 0);
        try (TxnSession t = clients.get(0).begin(IsolationLevel.SNAPSHOT, true)) {
            long total = 0;
            for (KeyValue kv : t.scan(b("acct"), true, null, true, false, 0)) {
                total += amount(kv.value());
            }
            assertEquals(ACCOUNTS * INITIAL, total);
        }
        assertEquals(1 + committed.get(), clients.get(0).status().csn());
        eventually("nothing left open", () -> server.openTransactions() == 0 && service.activeCount() == 0);
    }

    @Test
    void shouldPipelineCommitsOfManySessionsOnOneConnection() throws Exception {
        TxnRpcClient client = connect(startServer());
        List<TxnSession> sessions = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false);
            t.put(b("key" + i), b("v"));
            sessions.add(t);
        }
        List<java.util.concurrent.CompletableFuture<Long>> commits = new ArrayList<>();
        for (TxnSession t : sessions) {
            commits.add(t.commitAsync());
        }
        java.util.Set<Long> csns = new java.util.HashSet<>();
        for (var c : commits) {
            csns.add(c.get(10, TimeUnit.SECONDS));
        }
        assertEquals(200, csns.size(), "every commit got its own CSN");
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, true)) {
            assertEquals(200, t.scan(null, true, null, true, false, 0).size());
        }
    }
}
