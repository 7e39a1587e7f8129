package io.meldb.txn.cluster;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.cluster.ProcessCluster.ServerProcess;
import io.meldb.txn.client.TxnRpcClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.meldb.txn.cluster.TransferWorkload.*;
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
    /** The txn-servers' own bound on a commit's wait ({@code TxnServerConfig.commitTimeout}, 10 s). */
    static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private ProcessCluster cluster;
    private ServerProcess logServer;
    private final List<Node> nodes = new ArrayList<>();
    private final TransferWorkload workload = new TransferWorkload(nodes);

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
            workload.load();
            final Stats stats = new Stats();
            final AtomicBoolean stop = new AtomicBoolean();
            final List<Thread> threads = workload.startTransfers(stats, stop, 42);
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
            final List<ServerStatus> converged = workload.stopAndVerify(stats, stop, threads);
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
            workload.load();
            logServer.kill();
            // clients keep trying for longer than a commit may wait: every call answers, none hangs
            final Map<TxnError, Long> errors = new EnumMap<>(TxnError.class);
            final long outageEnds = System.nanoTime() + COMMIT_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(3);
            final TxnRpcClient client = nodes.get(0).client;
            long slowest = 0;
            while (System.nanoTime() < outageEnds) {
                final long t0 = System.nanoTime();
                try (TxnSession s = client.begin(IsolationLevel.SERIALIZABLE, false)) {
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
            final List<ServerStatus> converged = workload.awaitSameCsn();
            assertTrue(converged.get(0).csn() >= csn);
            assertEquals(converged.get(0).stateHash(), converged.get(1).stateHash(), "state hashes: " + converged);
            workload.assertBalances(new Stats());
            System.out.println("LogOutageTest: errors during an outage of " + (COMMIT_TIMEOUT.toSeconds() + 3)
                + " s " + errors + ", slowest call " + TimeUnit.NANOSECONDS.toMillis(slowest)
                + " ms; both servers committing " + servingMillis + " ms after the log server's restart");
        } catch (Throwable t) {
            cluster.printOutputs(System.out, 60);
            throw t;
        }
    }

    /** Commits a write on {@code n} as soon as it serves again; its CSN. */
    private static long commitWhenServing(final Node n, final Duration timeout) {
        return awaitValue(timeout, "server " + n.id + " commits again", () -> {
            try (TxnSession s = n.client.begin(IsolationLevel.SERIALIZABLE, false)) {
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
}
