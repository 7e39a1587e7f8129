package io.meldb.txn.cluster;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.cluster.ProcessCluster.ServerProcess;
import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.client.TxnRpcClientOptions;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The transfer workload of {@link LogOutageTest}: accounts loaded on the first server, transfer threads on every
 * server (a commit whose answer is lost is resolved by asking the servers for its outcome), and the final checks
 * that the acknowledged and resolved-committed transfers, replayed, give exactly every server's balances.
 */
final class TransferWorkload {
    static final int ACCOUNTS = 200;
    static final long INITIAL_BALANCE = 1_000;
    static final long TOTAL = ACCOUNTS * INITIAL_BALANCE;
    static final int THREADS_PER_SERVER = 2;
    private static final byte[] LO = key(0);
    private static final byte[] HI = key(ACCOUNTS - 1);

    private final List<Node> nodes;

    TransferWorkload(final List<Node> nodes) {
        this.nodes = nodes;
    }

    void load() {
        long csn = 0;
        for (int from = 0; from < ACCOUNTS; from += 100) {
            try (TxnSession s = nodes.get(0).client.begin(IsolationLevel.SERIALIZABLE, false)) {
                for (int a = from; a < from + 100; a++) {
                    s.put(key(a), balance(INITIAL_BALANCE));
                }
                csn = s.commit();
            }
        }
        final long loaded = csn;
        for (Node n : nodes) {
            awaitNanos(Duration.ofSeconds(30), "server " + n.id + " reaches csn " + loaded,
                () -> n.client.status().csn() >= loaded);
        }
    }

    List<Thread> startTransfers(final Stats stats, final AtomicBoolean stop, final long seed) {
        final List<Thread> threads = new ArrayList<>();
        int index = 0;
        for (Node n : nodes) {
            for (int i = 0; i < THREADS_PER_SERVER; i++) {
                final Random rnd = new Random(seed * 31 + index++);
                final Thread t = new Thread(() -> {
                    try {
                        transfers(n, rnd, stop, stats);
                    } catch (Throwable e) {
                        stats.fail(e);
                    }
                }, "transfer-" + n.id + "-" + i);
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
        }
        return threads;
    }

    private void transfers(final Node node, final Random rnd, final AtomicBoolean stop, final Stats stats)
        throws InterruptedException {
        while (!stop.get() && stats.failure.get() == null) {
            final int from = rnd.nextInt(ACCOUNTS);
            final int to = (from + 1 + rnd.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
            final long amount = 1 + rnd.nextInt(100);
            TxnSession s = null;
            try {
                s = node.client.begin(IsolationLevel.SERIALIZABLE, false);
                final long a = value(s.get(key(from)));
                final long b = value(s.get(key(to)));
                s.put(key(from), balance(a - amount));
                s.put(key(to), balance(b + amount));
            } catch (TxnException e) {
                closeQuietly(s);
                if (e.error() != TxnError.UNAVAILABLE && e.error() != TxnError.CONFLICT) {
                    throw e;
                }
                stats.interrupted.incrementAndGet();
                Thread.sleep(50);
                continue;
            }
            final TxnId id = s.id();
            try {
                s.commit();
                stats.record(node, new Transfer(from, to, amount));
            } catch (TxnException e) {
                switch (e.error()) {
                    case CONFLICT -> stats.conflicts.incrementAndGet();
                    case OUTCOME_UNKNOWN, UNAVAILABLE, TIMEOUT, SESSION_LOST -> {
                        // the commit may or may not be in the log: the cluster knows
                        stats.interrupted.incrementAndGet();
                        final TxnOutcome o = resolve(id);
                        stats.resolved.merge(o.state(), 1L, Long::sum);
                        if (o.state() == TxnOutcome.State.COMMITTED) {
                            stats.record(node, new Transfer(from, to, amount));
                        }
                    }
                    default -> throw e;
                }
            }
        }
    }

    /** Asks both servers, waiting on each, until the outcome of {@code id} is final. */
    TxnOutcome resolve(final TxnId id) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        TxnOutcome last = null;
        while (System.nanoTime() < deadline) {
            for (Node n : nodes) {
                try {
                    last = n.client.awaitOutcome(id, 2000);
                } catch (TxnException e) {
                    continue;
                }
                if (last.state() == TxnOutcome.State.COMMITTED || last.state() == TxnOutcome.State.ABORTED
                    || last.state() == TxnOutcome.State.NOT_COMMITTED) {
                    return last;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no final outcome of " + id + " within 60 s; last answer " + last);
    }


    void assertBalances(final Stats stats) {
        final long[] expected = new long[ACCOUNTS];
        Arrays.fill(expected, INITIAL_BALANCE);
        for (Transfer t : stats.transfers) {
            expected[t.from] -= t.amount;
            expected[t.to] += t.amount;
        }
        for (Node n : nodes) {
            try (TxnSession r = n.client.begin(IsolationLevel.SNAPSHOT, true)) {
                final List<KeyValue> rows = r.scan(LO, true, HI, true, false, 0);
                assertEquals(ACCOUNTS, rows.size(), "accounts on server " + n.id);
                long sum = 0;
                for (KeyValue kv : rows) {
                    final int a = account(kv.key());
                    final long v = value(kv.value());
                    sum += v;
                    if (v != expected[a]) {
                        fail("server " + n.id + " account " + a + " holds " + v + " but the " + stats.transfers.size()
                            + " known commits give " + expected[a] + " (" + stats + ")");
                    }
                }
                assertEquals(TOTAL, sum, "the bank total on server " + n.id);
            }
        }
    }

    List<ServerStatus> awaitSameCsn() {
        final AtomicReference<List<ServerStatus>> last = new AtomicReference<>();
        return awaitValue(Duration.ofSeconds(60), "both servers at the same csn (last " + last + ")", () -> {
            final List<ServerStatus> now = List.of(nodes.get(0).client.status(), nodes.get(1).client.status());
            last.set(now);
            return now.get(0).csn() == now.get(1).csn() ? now : null;
        });
    }

    /**
     * Stops the transfer threads and checks what every run must end with, whatever failed in between: no thread
     * failed, both servers reach the same CSN with the same state hash, the balances replay the acknowledged
     * transfers, and neither txn-server process was replaced. Returns the two servers' statuses at that CSN.
     */
    List<ServerStatus> stopAndVerify(final Stats stats, final AtomicBoolean stop, final List<Thread> threads)
        throws InterruptedException {
        stop.set(true);
        join(threads);
        stats.assertNoFailure();
        final List<ServerStatus> converged = awaitSameCsn();
        assertEquals(converged.get(0).stateHash(), converged.get(1).stateHash(), "state hashes: " + converged);
        assertBalances(stats);
        for (Node n : nodes) {
            org.junit.jupiter.api.Assertions.assertTrue(n.process.alive(),
                n.process + " is still the process started before the failures");
        }
        return converged;
    }

    static void awaitCommits(final Stats stats, final long atLeast, final Duration timeout) {
        awaitNanos(timeout, atLeast + " commits (" + stats + ")", () -> {
            stats.assertNoFailure();
            return stats.committed.get() >= atLeast;
        });
    }

    static void join(final List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(90));
            assertFalse(t.isAlive(), t.getName() + " did not stop");
        }
    }

    /** Polls until {@code condition} holds; the System.nanoTime() at which it did. */
    static long awaitNanos(final Duration timeout, final String what,
                                   final java.util.function.BooleanSupplier condition) {
        return awaitValue(timeout, what, () -> condition.getAsBoolean() ? System.nanoTime() : null);
    }

    static <T> T awaitValue(final Duration timeout, final String what,
                                    final java.util.function.Supplier<T> probe) {
        return io.meldb.testkit.Await.value(timeout, what, probe);
    }

    private static void closeQuietly(final TxnSession s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (RuntimeException ignored) {
            // already gone
        }
    }

    static byte[] key(final int account) {
        return String.format("acct:%04d", account).getBytes(StandardCharsets.US_ASCII);
    }

    static int account(final byte[] key) {
        return Integer.parseInt(new String(key, 5, key.length - 5, StandardCharsets.US_ASCII));
    }

    static byte[] balance(final long v) {
        return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
    }

    static long value(final byte[] v) {
        if (v == null || v.length != Long.BYTES) {
            throw new AssertionError("not a balance: " + (v == null ? "absent" : Arrays.toString(v)));
        }
        return ByteBuffer.wrap(v).getLong();
    }

    record Transfer(int from, int to, long amount) {
    }

    /** A txn-server process and the RPC client the test threads share (neither is replaced in this test). */
    static final class Node {
        final int id;
        final ServerProcess process;
        final TxnRpcClient client;
        final AtomicLong committed = new AtomicLong();

        Node(final int id, final ServerProcess process) {
            this.id = id;
            this.process = process;
            this.client = TxnRpcClient.connect(TxnRpcClientOptions.to(process.host(), process.port())
                .requestTimeout(Duration.ofSeconds(30)).connectTimeout(Duration.ofSeconds(2)));
        }

        void close() {
            client.close();
        }
    }

    /** What the transfer threads did, and the first failure of any of them. */
    static final class Stats {
        final Queue<Transfer> transfers = new ConcurrentLinkedQueue<>();
        final AtomicLong committed = new AtomicLong();
        final AtomicLong conflicts = new AtomicLong();
        final AtomicLong interrupted = new AtomicLong();
        final Map<TxnOutcome.State, Long> resolved = new java.util.concurrent.ConcurrentHashMap<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        void record(final Node node, final Transfer t) {
            transfers.add(t);
            committed.incrementAndGet();
            node.committed.incrementAndGet();
        }

        void fail(final Throwable t) {
            failure.compareAndSet(null, t);
        }

        void assertNoFailure() {
            final Throwable f = failure.get();
            if (f != null) {
                throw new AssertionError("a transfer thread failed: " + f, f);
            }
        }

        @Override
        public String toString() {
            return committed + " transfers committed, " + conflicts + " conflicts, " + interrupted
                + " calls interrupted by the outage, lost commits resolved " + new java.util.TreeMap<>(resolved);
        }
    }
}
