package io.meldb.txn.cluster;

import io.meldb.core.Isolation;
import io.meldb.txn.KeyValue;
import io.meldb.txn.ServerStatus;
import io.meldb.txn.TxnError;
import io.meldb.txn.TxnException;
import io.meldb.txn.TxnId;
import io.meldb.txn.TxnOutcome;
import io.meldb.txn.TxnSession;
import io.meldb.txn.cluster.ProcessCluster.ServerProcess;
import io.meldb.txn.rpc.TxnRpcClient;
import io.meldb.txn.rpc.TxnRpcClientOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
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
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A log outage at r = 1 (issue 22's first design constraint): one log server and two txn-servers, each its own
 * process, under a transfer workload through the transaction RPC. The log server is killed with SIGKILL and
 * started again on the same data directory and port. Neither txn-server is restarted: each reconnects by itself,
 * re-fences its block stream (StreamHealer) so that an append whose answer was lost is either melded where it
 * landed or rejected after the fence on every server (never taken twice), and serves again. Clients whose commit
 * was in flight ask the cluster for its outcome. Every acknowledged or resolved-committed transfer, replayed, must
 * give exactly the balances both servers hold, and both must agree on the state hash at the same CSN.
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LogOutageTest {
    static final int ACCOUNTS = 200;
    static final long INITIAL_BALANCE = 1_000;
    static final long TOTAL = ACCOUNTS * INITIAL_BALANCE;
    static final int THREADS_PER_SERVER = 2;
    /** The txn-servers' own bound on a commit's wait ({@code TxnServerConfig.commitTimeout}, 10 s). */
    static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);
    private static final byte[] LO = key(0);
    private static final byte[] HI = key(ACCOUNTS - 1);

    @TempDir
    Path dir;

    private ProcessCluster cluster;
    private ServerProcess logServer;
    private final List<Node> nodes = new ArrayList<>();

    @BeforeEach
    void startCluster() {
        cluster = new ProcessCluster(dir);
        try {
            logServer = cluster.startLogServer();
            final String[] flags = {"--checkpoint-every", "0", "--max-in-flight", "64"};
            final ServerProcess first = cluster.launchTxnServer(1, logServer.address(), flags);
            first.awaitReady();
            final ServerProcess second = cluster.launchTxnServer(2, logServer.address(), flags);
            second.awaitReady();
            nodes.add(new Node(1, first));
            nodes.add(new Node(2, second));
        } catch (RuntimeException | Error e) {
            cluster.printOutputs(System.out, 100);
            throw e;
        }
    }

    @AfterEach
    void stopCluster() {
        nodes.forEach(Node::close);
        cluster.close();
    }

    @Test
    void bothTxnServersRideThroughAKilledLogServerAndLoseNoAcknowledgedCommit() throws Exception {
        try {
            load();
            final Stats stats = new Stats();
            final AtomicBoolean stop = new AtomicBoolean();
            final List<Thread> threads = startTransfers(stats, stop, 42);
            awaitCommits(stats, 200, Duration.ofSeconds(30));
            final String incarnationsBefore = nodes.get(0).client.status().incarnation() + ", "
                + nodes.get(1).client.status().incarnation();

            logServer.kill();
            final long killedAt = System.nanoTime();
            Thread.sleep(500);
            logServer = cluster.restartOnSamePort(logServer);
            final long restartedAt = System.nanoTime();
            final long committedAtRestart = stats.committed.get();
            final long[] perServerAtRestart = {nodes.get(0).committed.get(), nodes.get(1).committed.get()};
            // appends resume without restarting either txn-server: both of them commit again
            final long resumed = awaitNanos(Duration.ofSeconds(30), "both txn-servers commit again after the restart",
                () -> nodes.get(0).committed.get() > perServerAtRestart[0]
                    && nodes.get(1).committed.get() > perServerAtRestart[1]);
            awaitCommits(stats, committedAtRestart + 200, Duration.ofSeconds(30));
            stop.set(true);
            join(threads);
            stats.assertNoFailure();

            final List<ServerStatus> converged = awaitSameCsn();
            assertEquals(converged.get(0).stateHash(), converged.get(1).stateHash(), "state hashes: " + converged);
            assertBalances(stats);
            for (ServerProcess p : List.of(nodes.get(0).process, nodes.get(1).process)) {
                assertTrue(p.alive(), p + " is still the process started before the outage");
            }
            System.out.println("LogOutageTest: " + stats + "; log server down "
                + TimeUnit.NANOSECONDS.toMillis(restartedAt - killedAt) + " ms, both servers committing again "
                + TimeUnit.NANOSECONDS.toMillis(resumed - restartedAt) + " ms after its restart; final csn "
                + converged.get(0).csn() + " hash " + Long.toHexString(converged.get(0).stateHash())
                + ", incarnations " + incarnationsBefore + " -> " + converged.get(0).incarnation() + ", "
                + converged.get(1).incarnation() + " (a server re-fences when an append of its was lost)");
        } catch (Throwable t) {
            cluster.printOutputs(System.out, 60);
            throw t;
        }
    }

    @Test
    void aLogOutageLongerThanTheCommitTimeoutGivesClientsClearErrorsAndServingResumesWhenTheLogReturns()
        throws Exception {
        try {
            load();
            logServer.kill();
            // clients keep trying for longer than a commit may wait: every call answers, none hangs
            final Map<TxnError, Long> errors = new EnumMap<>(TxnError.class);
            final long outageEnds = System.nanoTime() + COMMIT_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(3);
            final TxnRpcClient client = nodes.get(0).client;
            long slowest = 0;
            while (System.nanoTime() < outageEnds) {
                final long t0 = System.nanoTime();
                try (TxnSession s = client.begin(Isolation.SERIALIZABLE, false)) {
                    s.put(key(0), balance(INITIAL_BALANCE));
                    s.commit();
                    fail("a commit was acknowledged while the log server was down");
                } catch (TxnException e) {
                    errors.merge(e.error(), 1L, Long::sum);
                    assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "an error without a message");
                    assertTrue(Arrays.asList(TxnError.UNAVAILABLE, TxnError.OUTCOME_UNKNOWN, TxnError.CONFLICT)
                        .contains(e.error()), "unexpected error during the outage: " + e);
                }
                slowest = Math.max(slowest, System.nanoTime() - t0);
                Thread.sleep(100);
            }
            assertTrue(errors.getOrDefault(TxnError.UNAVAILABLE, 0L) > 0, "no UNAVAILABLE while the log was down: "
                + errors);
            assertTrue(slowest < COMMIT_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(3),
                "a call took " + TimeUnit.NANOSECONDS.toMillis(slowest) + " ms during the outage");
            // the servers were never restarted; once the log is back both commit again
            logServer = cluster.restartOnSamePort(logServer);
            final long restartedAt = System.nanoTime();
            long csn = 0;
            for (Node n : nodes) {
                csn = Math.max(csn, commitWhenServing(n, Duration.ofSeconds(30)));
            }
            final long servingMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt);
            final List<ServerStatus> converged = awaitSameCsn();
            assertTrue(converged.get(0).csn() >= csn);
            assertEquals(converged.get(0).stateHash(), converged.get(1).stateHash(), "state hashes: " + converged);
            assertBalances(new Stats());
            System.out.println("LogOutageTest: errors during an outage of " + (COMMIT_TIMEOUT.toSeconds() + 3)
                + " s " + errors + ", slowest call " + TimeUnit.NANOSECONDS.toMillis(slowest)
                + " ms; both servers committing " + servingMillis + " ms after the log server's restart");
        } catch (Throwable t) {
            cluster.printOutputs(System.out, 60);
            throw t;
        }
    }

    // ------------------------------------------------------------------------------------------------ workload

    private void load() {
        long csn = 0;
        for (int from = 0; from < ACCOUNTS; from += 100) {
            try (TxnSession s = nodes.get(0).client.begin(Isolation.SERIALIZABLE, false)) {
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

    private List<Thread> startTransfers(final Stats stats, final AtomicBoolean stop, final long seed) {
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
                s = node.client.begin(Isolation.SERIALIZABLE, false);
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
    private TxnOutcome resolve(final TxnId id) throws InterruptedException {
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

    /** Commits a write on {@code n} as soon as it serves again; its CSN. */
    private static long commitWhenServing(final Node n, final Duration timeout) {
        return awaitValue(timeout, "server " + n.id + " commits again", () -> {
            try (TxnSession s = n.client.begin(Isolation.SERIALIZABLE, false)) {
                s.put(("after-outage-" + n.id).getBytes(StandardCharsets.US_ASCII), balance(n.id));
                return s.commit();
            } catch (TxnException e) {
                if (e.error() == TxnError.UNAVAILABLE || e.error() == TxnError.CONFLICT
                    || e.error() == TxnError.OUTCOME_UNKNOWN) {
                    return null;
                }
                throw e;
            }
        });
    }

    private void assertBalances(final Stats stats) {
        final long[] expected = new long[ACCOUNTS];
        Arrays.fill(expected, INITIAL_BALANCE);
        for (Transfer t : stats.transfers) {
            expected[t.from] -= t.amount;
            expected[t.to] += t.amount;
        }
        for (Node n : nodes) {
            try (TxnSession r = n.client.begin(Isolation.SNAPSHOT, true)) {
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

    private List<ServerStatus> awaitSameCsn() {
        final AtomicReference<List<ServerStatus>> last = new AtomicReference<>();
        return awaitValue(Duration.ofSeconds(60), "both servers at the same csn (last " + last + ")", () -> {
            final List<ServerStatus> now = List.of(nodes.get(0).client.status(), nodes.get(1).client.status());
            last.set(now);
            return now.get(0).csn() == now.get(1).csn() ? now : null;
        });
    }

    private static void awaitCommits(final Stats stats, final long atLeast, final Duration timeout) {
        awaitNanos(timeout, atLeast + " commits (" + stats + ")", () -> {
            stats.assertNoFailure();
            return stats.committed.get() >= atLeast;
        });
    }

    private static void join(final List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(90));
            assertFalse(t.isAlive(), t.getName() + " did not stop");
        }
    }

    /** Polls until {@code condition} holds; the System.nanoTime() at which it did. */
    private static long awaitNanos(final Duration timeout, final String what,
                                   final java.util.function.BooleanSupplier condition) {
        return awaitValue(timeout, what, () -> condition.getAsBoolean() ? System.nanoTime() : null);
    }

    private static <T> T awaitValue(final Duration timeout, final String what,
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
