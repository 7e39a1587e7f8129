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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The bank workload on a real cluster: one log server and three txn-servers, each its own process. Clients on every
 * server move money between random accounts while readers check, in read-only snapshots, that the total never
 * changes; midway one txn-server is killed with SIGKILL and restarted with the same server id (recovering from a
 * checkpoint). Its clients learn the fate of the commits they lost from the other servers. At the end the
 * acknowledged (and outcome-reported) commits, replayed on a local map, must give exactly the balances every server
 * holds, and the three servers must agree on the state hash at the same CSN. Both isolation levels run on one
 * cluster (started once for the class, to keep the run short); each run reloads the accounts and kills a different
 * server.
 *
 * <p>Seed: {@code -Dmeldb.test.seed=N} repeats a run's choices of accounts and amounts (thread timing still
 * varies).
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterBankTest {
    static final int ACCOUNTS = 1_000;
    static final long INITIAL_BALANCE = 1_000;
    static final long TOTAL = ACCOUNTS * INITIAL_BALANCE;
    static final int SERVERS = 3;
    static final int TRANSFER_THREADS_PER_SERVER = 2;
    static final int CHECKPOINT_EVERY = 500;
    static final Duration MIN_BEFORE_KILL = Duration.ofSeconds(2);
    static final Duration MAX_BEFORE_KILL = Duration.ofSeconds(30);
    static final Duration DOWN_FOR = Duration.ofMillis(700);
    static final Duration AFTER_RESTART = Duration.ofSeconds(2);
    static final Duration RESTARTED_COMMITS_WITHIN = Duration.ofSeconds(30);
    static final Duration OUTCOME_WAIT = Duration.ofSeconds(60);
    static final Pattern CHECKPOINT_WRITTEN = Pattern.compile("checkpoint of csn (\\d+)");
    static final Pattern RECOVERED = Pattern.compile("recovered state csn (\\d+) \\((\\d+) nodes\\) from checkpoint");
    private static final byte[] LO = key(0);
    private static final byte[] HI = key(ACCOUNTS - 1);

    @TempDir
    static Path dir;

    private static ProcessCluster cluster;
    private static final List<Node> nodes = new ArrayList<>();
    private static long clusterStartMillis;

    /** One cluster for both isolation levels (each run reloads the accounts and kills a different server). */
    @BeforeAll
    static void startCluster() {
        final long t0 = System.nanoTime();
        cluster = new ProcessCluster(dir);
        try {
            // the first txn-server creates the log's meld configuration, then the other two join
            final ServerProcess logServer = cluster.startLogServer();
            final String log = logServer.address();
            final String[] flags = {"--checkpoint-every", String.valueOf(CHECKPOINT_EVERY), "--max-in-flight", "64",
                "--premeld-threads", "2", "--premeld-distance", "2", "--group-meld", "true"};
            final ServerProcess first = cluster.launchTxnServer(1, log, flags);
            first.awaitReady();
            final List<ServerProcess> procs = new ArrayList<>(List.of(first));
            for (int id = 2; id <= SERVERS; id++) {
                procs.add(cluster.launchTxnServer(id, log, flags));
            }
            for (int i = 0; i < SERVERS; i++) {
                procs.get(i).awaitReady();
                nodes.add(new Node(i + 1, procs.get(i)));
            }
        } catch (RuntimeException | Error e) {
            System.out.println("ClusterBankTest: the cluster did not start: " + e);
            cluster.printOutputs(System.out, 200);
            throw e;
        }
        clusterStartMillis = TimeUnit.NANOSECONDS.toMillis(elapsed(t0));
    }

    @AfterAll
    static void stopEverything() {
        for (Node n : nodes) {
            n.closeClient();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void keepsTotalAndLosesNoCommitWhenAServerIsKilledUnderSerializable() throws Exception {
        runBank(IsolationLevel.SERIALIZABLE, 2);
    }

    @Test
    void keepsTotalAndLosesNoCommitWhenAServerIsKilledUnderSnapshotIsolation() throws Exception {
        runBank(IsolationLevel.SNAPSHOT, 3);
    }

    // ------------------------------------------------------------------------------------------------ the run

    private void runBank(final IsolationLevel isolation, final int victimId) throws Exception {
        final long seed = Long.getLong("meldb.test.seed", System.nanoTime());
        final String tag = isolation + " seed " + seed;
        System.out.println("ClusterBankTest " + tag + " (repeat with -Dmeldb.test.seed=" + seed + ")");
        final long t0 = System.nanoTime();
        try {
            runBank(isolation, victimId, seed, tag, t0);
        } catch (Throwable t) {
            System.out.println("ClusterBankTest " + tag + " FAILED: " + t);
            cluster.printOutputs(System.out, 200);
            throw t;
        }
    }

    private void runBank(final IsolationLevel isolation, final int victimId, final long seed, final String tag,
                         final long t0) throws Exception {
        for (Node n : nodes) {
            assertTrue(n.process.alive() && !n.down, tag + ": server " + n.id + " is not running");
        }
        // --- 1,000 accounts, loaded on server 1 and seen by every server before anyone reads
        long loadCsn = 0;
        final TxnRpcClient loader = nodes.get(0).client();
        for (int from = 0; from < ACCOUNTS; from += 100) {
            try (TxnSession s = loader.begin(IsolationLevel.SERIALIZABLE, false)) {
                for (int a = from; a < from + 100; a++) {
                    s.put(key(a), balance(INITIAL_BALANCE));
                }
                loadCsn = s.commit();
            }
        }
        for (Node n : nodes) {
            awaitCsn(n, loadCsn, Duration.ofSeconds(30));
        }

        // --- the workload
        final long[] snapshotsBefore = new long[SERVERS];
        for (int i = 0; i < SERVERS; i++) {
            snapshotsBefore[i] = nodes.get(i).snapshotsChecked.get();
        }
        final Stats stats = new Stats();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Thread> threads = new ArrayList<>();
        int index = 0;
        for (Node n : nodes) {
            for (int t = 0; t < TRANSFER_THREADS_PER_SERVER; t++) {
                final Random rnd = new Random(seed * 31 + index++);
                threads.add(thread("transfer-" + n.id + "-" + t,
                    () -> transfers(n, isolation, rnd, stop, stats), stats));
            }
            threads.add(thread("reader-" + n.id, () -> reader(n, isolation, stop, stats), stats));
        }
        threads.forEach(Thread::start);

        // --- midway: once a checkpoint exists (so the restart recovers from one), kill -9 server 2 and restart it
        final Node victim = nodes.get(victimId - 1);
        final long victimCommitsBefore = victim.committed.get();
        final long workloadStart = System.nanoTime();
        while (elapsed(workloadStart) < MIN_BEFORE_KILL.toNanos() || !anyCheckpointAfter(loadCsn)
            || victim.committed.get() == victimCommitsBefore) {
            if (elapsed(workloadStart) > MAX_BEFORE_KILL.toNanos()) {
                fail(tag + ": no txn-server wrote a checkpoint within " + MAX_BEFORE_KILL + " (csn "
                    + nodes.get(0).client().status().csn() + ", " + stats + ")");
            }
            assertNoFailure(stats, tag);
            Thread.sleep(100);
        }
        final ServerProcess killed = victim.process;
        final long oldIncarnation = killed.incarnation();
        final long commitsBeforeKill = stats.committed.get();
        // aim the kill at a commit in flight, so that some client has to learn its outcome from the cluster
        final long aimUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (victim.committing.get() == 0 && System.nanoTime() < aimUntil) {
            Thread.onSpinWait();
        }
        killed.kill();
        victim.down = true;
        final long killedAt = System.nanoTime();
        Thread.sleep(DOWN_FOR.toMillis());
        final ServerProcess restarted = cluster.restart(killed);
        final long restartMillis = TimeUnit.NANOSECONDS.toMillis(elapsed(killedAt));
        assertNotEquals(oldIncarnation, restarted.incarnation(), tag + ": the restarted server kept its incarnation");
        final MatchResult recovered = restarted.find(RECOVERED);
        assertNotNull(recovered, tag + ": the restarted server did not recover from a checkpoint; its output:\n"
            + restarted.tail(30));
        assertTrue(Long.parseLong(recovered.group(1)) > 0, tag + ": recovered from an empty checkpoint");
        victim.replace(restarted);
        final long victimCommitsAtRestart = victim.committed.get();
        final long commitsAtRestart = stats.committed.get();

        final long restartedAt = System.nanoTime();
        // at least AFTER_RESTART, and on a slow machine until the restarted server's clients commit again (it
        // catches up on the log first), up to RESTARTED_COMMITS_WITHIN
        while (elapsed(restartedAt) < AFTER_RESTART.toNanos()
            || victim.committed.get() <= victimCommitsAtRestart
            && elapsed(restartedAt) < RESTARTED_COMMITS_WITHIN.toNanos()) {
            assertNoFailure(stats, tag);
            Thread.sleep(100);
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(90));
            assertTrue(!t.isAlive(), tag + ": " + t.getName() + " did not stop");
        }
        assertNoFailure(stats, tag);

        // --- the workload did what it should
        assertTrue(commitsBeforeKill > 0, tag + ": nothing committed before the kill");
        assertTrue(stats.committed.get() > commitsAtRestart, tag + ": nothing committed after the restart");
        assertTrue(victim.committed.get() > victimCommitsAtRestart,
            tag + ": the restarted server's clients committed nothing after the restart");
        assertTrue(stats.lostConnection.get() > 0, tag + ": no client of the killed server noticed the kill");
        for (int i = 0; i < SERVERS; i++) {
            assertTrue(nodes.get(i).snapshotsChecked.get() > snapshotsBefore[i],
                tag + ": no snapshot was checked on server " + nodes.get(i).id);
        }

        // --- every server reaches the same CSN (nothing is appended any more) and the same state hash
        final List<ServerStatus> converged = awaitSameCsn(tag);
        for (ServerStatus s : converged) {
            assertEquals(converged.get(0).stateHash(), s.stateHash(), tag + ": state hashes differ at csn "
                + s.csn() + ": " + converged);
        }

        // --- no acknowledged commit is lost, none is invented: replayed transfers == every server's balances
        final long[] expected = new long[ACCOUNTS];
        Arrays.fill(expected, INITIAL_BALANCE);
        for (Transfer t : stats.transfers) {
            expected[t.from] -= t.amount;
            expected[t.to] += t.amount;
        }
        for (Node n : nodes) {
            final long[] actual = new long[ACCOUNTS];
            try (TxnSession r = n.client().begin(isolation, true)) {
                final List<KeyValue> rows = r.scan(LO, true, HI, true, false, 0);
                assertEquals(ACCOUNTS, rows.size(), tag + ": accounts on server " + n.id);
                long sum = 0;
                for (KeyValue kv : rows) {
                    final int a = account(kv.key());
                    actual[a] = ByteBuffer.wrap(kv.value()).getLong();
                    sum += actual[a];
                }
                assertEquals(TOTAL, sum, tag + ": final total on server " + n.id);
            }
            for (int a = 0; a < ACCOUNTS; a++) {
                if (expected[a] != actual[a]) {
                    fail(tag + ": server " + n.id + " account " + a + " holds " + actual[a] + " but the "
                        + stats.transfers.size() + " known commits give " + expected[a] + " (" + stats + ")");
                }
            }
        }
        System.out.println("ClusterBankTest " + tag + ": " + stats + ", killed server " + victimId + " (incarnation "
            + oldIncarnation + " -> " + restarted.incarnation() + ", recovered from checkpoint csn "
            + recovered.group(1) + ", down " + restartMillis + " ms), final csn " + converged.get(0).csn()
            + ", hash " + Long.toHexString(converged.get(0).stateHash()) + ", cluster start " + clusterStartMillis
            + " ms, run " + TimeUnit.NANOSECONDS.toMillis(elapsed(t0)) + " ms");
    }

    // ------------------------------------------------------------------------------------------------ clients

    private void transfers(final Node node, final IsolationLevel isolation, final Random rnd, final AtomicBoolean stop,
                           final Stats stats) throws InterruptedException {
        while (!stop.get() && stats.failure.get() == null) {
            final int from = rnd.nextInt(ACCOUNTS);
            final int to = (from + 1 + rnd.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
            final long amount = 1 + rnd.nextInt(100);
            final TxnRpcClient client = node.client();
            TxnSession s = null;
            try {
                s = client.begin(isolation, false);
                final long a = value(s.get(key(from)));
                final long b = value(s.get(key(to)));
                s.put(key(from), balance(a - amount));
                s.put(key(to), balance(b + amount));
            } catch (TxnException e) {
                if (s != null) {
                    closeQuietly(s);
                }
                if (!transient_(e, node, stats)) {
                    throw e;
                }
                continue;
            }
            final TxnId id = s.id();
            node.committing.incrementAndGet();
            try {
                s.commit();
                stats.transfers.add(new Transfer(from, to, amount, id));
                stats.committed.incrementAndGet();
                node.committed.incrementAndGet();
            } catch (TxnException e) {
                switch (e.error()) {
                    case CONFLICT:
                        stats.conflicts.incrementAndGet();
                        break;
                    case SESSION_LOST:
                    case OUTCOME_UNKNOWN:
                    case TIMEOUT:
                    case UNAVAILABLE:
                        // the commit may or may not have reached the log: ask the cluster
                        stats.lostConnection.incrementAndGet();
                        final TxnOutcome o = resolve(node, id, stats);
                        stats.resolved.computeIfAbsent(o.state(), k -> new AtomicLong()).incrementAndGet();
                        if (o.state() == TxnOutcome.State.COMMITTED) {
                            stats.transfers.add(new Transfer(from, to, amount, id));
                            stats.committed.incrementAndGet();
                        }
                        node.awaitUp(stop);
                        break;
                    default:
                        throw e;
                }
            } finally {
                node.committing.decrementAndGet();
            }
        }
    }

    /** Whether {@code e} only says the server is (or was) away; then waits a little before the caller retries. */
    private static boolean transient_(final TxnException e, final Node node, final Stats stats)
        throws InterruptedException {
        switch (e.error()) {
            case SESSION_LOST:
            case UNAVAILABLE:
            case TIMEOUT:
                stats.lostConnection.incrementAndGet();
                Thread.sleep(20);
                return true;
            case OVERLOADED:
                Thread.sleep(5);
                return true;
            default:
                return false;
        }
    }

    /**
     * Asks live servers (the others first) for the outcome of {@code id} until it is final. PENDING lasts until the
     * transaction's server has restarted and fenced off its old incarnation.
     */
    private static TxnOutcome resolve(final Node own, final TxnId id, final Stats stats) throws InterruptedException {
        final long deadline = System.nanoTime() + OUTCOME_WAIT.toNanos();
        final List<Node> order = new ArrayList<>();
        for (Node n : nodes) {
            if (n != own) {
                order.add(n);
            }
        }
        order.add(own);
        TxnOutcome last = null;
        while (System.nanoTime() < deadline) {
            for (Node n : order) {
                if (n.down) {
                    continue;
                }
                try {
                    last = n.client().outcome(id);
                } catch (TxnException e) {
                    continue;
                }
                switch (last.state()) {
                    case COMMITTED:
                    case ABORTED:
                    case NOT_COMMITTED:
                        return last;
                    case UNKNOWN:
                        stats.fail(new AssertionError("server " + n.id + " does not know the outcome of " + id
                            + " (" + last + ")"));
                        return last;
                    default:
                        break;
                }
            }
            Thread.sleep(50);
        }
        final AssertionError e = new AssertionError("no final outcome of " + id + " within " + OUTCOME_WAIT
            + "; last answer " + last);
        stats.fail(e);
        throw e;
    }

    /** Reads all balances in one read-only snapshot, over and over; the sum must always be the initial total. */
    private static void reader(final Node node, final IsolationLevel isolation, final AtomicBoolean stop,
                               final Stats stats) throws InterruptedException {
        while (!stop.get() && stats.failure.get() == null) {
            final TxnRpcClient client = node.client();
            try (TxnSession r = client.begin(isolation, true)) {
                final List<KeyValue> rows = r.scan(LO, true, HI, true, false, 0);
                long sum = 0;
                for (KeyValue kv : rows) {
                    sum += value(kv.value());
                }
                if (rows.size() != ACCOUNTS || sum != TOTAL) {
                    stats.fail(new AssertionError("server " + node.id + " snapshot at csn " + r.snapshotCsn()
                        + " has " + rows.size() + " accounts summing to " + sum + ", expected " + ACCOUNTS
                        + " summing to " + TOTAL));
                    return;
                }
                r.commit();
                node.snapshotsChecked.incrementAndGet();
                stats.snapshots.incrementAndGet();
            } catch (TxnException e) {
                if (!transient_(e, node, stats) && e.error() != TxnError.UNKNOWN_TRANSACTION) {
                    throw e;
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static Thread thread(final String name, final Body body, final Stats stats) {
        final Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                stats.fail(new AssertionError(name + " failed: " + e, e));
            }
        }, name);
        t.setDaemon(true);
        return t;
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void assertNoFailure(final Stats stats, final String tag) {
        final Throwable f = stats.failure.get();
        if (f != null) {
            throw new AssertionError(tag + ": " + f.getMessage(), f);
        }
    }

    private static boolean anyCheckpointAfter(final long csn) {
        for (ProcessCluster.ServerProcess p : cluster.started()) {
            for (String line : p.outputLines()) {
                final var m = CHECKPOINT_WRITTEN.matcher(line);
                if (m.find() && Long.parseLong(m.group(1)) > csn) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void awaitCsn(final Node n, final long csn, final Duration timeout) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        long seen;
        while ((seen = n.client().status().csn()) < csn) {
            if (System.nanoTime() > deadline) {
                fail("server " + n.id + " is at csn " + seen + ", not " + csn + ", after " + timeout);
            }
            Thread.sleep(20);
        }
    }

    /** Polls every server until all report the same CSN (appending nothing meanwhile). */
    private static List<ServerStatus> awaitSameCsn(final String tag) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<ServerStatus> last = List.of();
        while (System.nanoTime() < deadline) {
            final List<ServerStatus> now = new ArrayList<>();
            for (Node n : nodes) {
                now.add(n.client().status());
            }
            last = now;
            if (now.stream().mapToLong(ServerStatus::csn).distinct().count() == 1) {
                return now;
            }
            Thread.sleep(50);
        }
        fail(tag + ": the servers did not reach the same csn within 60 s: " + last);
        return last;
    }

    private static void closeQuietly(final TxnSession s) {
        try {
            s.close();
        } catch (RuntimeException ignored) {
            // the session is gone with its connection
        }
    }

    private static long elapsed(final long since) {
        return System.nanoTime() - since;
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

    // ------------------------------------------------------------------------------------------------ state

    /** One committed transfer. */
    record Transfer(int from, int to, long amount, TxnId id) {
    }

    /** A txn-server process and the client its test threads share; both are replaced when it restarts. */
    static final class Node {
        final int id;
        final AtomicLong committed = new AtomicLong();
        final AtomicInteger committing = new AtomicInteger();
        final AtomicLong snapshotsChecked = new AtomicLong();
        volatile ServerProcess process;
        volatile TxnRpcClient client;
        volatile boolean down;

        Node(final int id, final ServerProcess process) {
            this.id = id;
            this.process = process;
            this.client = connect(process);
        }

        private static TxnRpcClient connect(final ServerProcess p) {
            return TxnRpcClient.connect(TxnRpcClientOptions.to(p.host(), p.port())
                .requestTimeout(Duration.ofSeconds(30)).connectTimeout(Duration.ofSeconds(2)));
        }

        TxnRpcClient client() {
            return client;
        }

        void replace(final ServerProcess restarted) {
            final TxnRpcClient old = client;
            process = restarted;
            client = connect(restarted);
            down = false;
            old.close();
        }

        /** After a lost commit: waits (a bounded time) for the server to be back before going on. */
        void awaitUp(final AtomicBoolean stop) throws InterruptedException {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (down && !stop.get() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }

        void closeClient() {
            final TxnRpcClient c = client;
            if (c != null) {
                c.close();
            }
        }
    }

    /** What the threads did, and the first failure of any of them. */
    static final class Stats {
        final Queue<Transfer> transfers = new ConcurrentLinkedQueue<>();
        final AtomicLong committed = new AtomicLong();
        final AtomicLong conflicts = new AtomicLong();
        final AtomicLong lostConnection = new AtomicLong();
        final AtomicLong snapshots = new AtomicLong();
        final Map<TxnOutcome.State, AtomicLong> resolved = new ConcurrentHashMap<>();
        final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
            new java.util.concurrent.atomic.AtomicReference<>();

        void fail(final Throwable t) {
            failure.compareAndSet(null, t);
        }

        @Override
        public String toString() {
            return committed + " transfers committed (" + transfers.size() + " recorded), " + conflicts
                + " conflicts, " + lostConnection + " lost-connection errors, lost commits resolved "
                + new TreeMap<>(resolved) + ", " + snapshots + " snapshots summed";
        }
    }
}
