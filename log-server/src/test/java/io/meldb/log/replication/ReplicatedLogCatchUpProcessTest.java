package io.meldb.log.replication;

import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;
import io.meldb.testkit.Await;
import io.meldb.testkit.FreePorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Follower catch-up after the Raft log was purged (issue 22), with log-server processes at r = 3 (a snapshot every 8
 * entries, 256 KB Raft segments): a follower frozen with SIGSTOP, one killed with SIGKILL and restarted on its
 * directory, and one killed whose data directory is emptied before it restarts each miss entries the others have
 * purged since; each catches up through the install-snapshot notification (its output says it fetched blocks from a
 * peer) and then serves every acknowledged block, with the leader's bytes, at the leader's tail.
 */
@Tag("process")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ReplicatedLogCatchUpProcessTest {
    private static final int BLOCK = 4096;
    private static final Pattern READY = Pattern.compile("log-server listening on (\\S+):(\\d+)");
    private static final Pattern LEADER_LINE = Pattern.compile("replicated log: (\\S+) sees (\\S+) as the leader");
    private static final Pattern CAUGHT_UP = Pattern.compile("replicated log: \\S+ caught up to .* from (\\S+): (\\d+) blocks fetched");

    @TempDir
    Path dir;

    private final int[] logPorts = new int[3];
    private final int[] raftPorts = new int[3];
    private final ChildProcess[] servers = new ChildProcess[3];
    private final List<AutoCloseable> toClose = new ArrayList<>();
    /** Acknowledged blocks by position. */
    private final ConcurrentHashMap<Long, byte[]> acknowledged = new ConcurrentHashMap<>();
    private LogClient client;
    private int counter;
    private int restarts;

    @AfterEach
    void stopAll() throws Exception {
        for (ChildProcess s : servers) {
            if (s != null && s.alive()) {
                signal(s, "CONT");
            }
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        for (ChildProcess s : servers) {
            if (s != null) {
                s.close();
            }
        }
    }


    private static void signal(ChildProcess p, String signal) {
        ChildProcess.Finished k = ChildProcess.run("kill-" + signal,
            List.of("kill", "-" + signal, String.valueOf(p.pid())), Duration.ofSeconds(10));
        assertEquals(0, k.exitCode(), "kill -" + signal + ": " + k.output());
    }

    private Path dataDir(int i) {
        return dir.resolve("n" + (i + 1));
    }

    private ChildProcess start(int i) {
        StringBuilder peers = new StringBuilder();
        for (int n = 0; n < 3; n++) {
            peers.append(n == 0 ? "" : ",").append("n").append(n + 1).append("=127.0.0.1:").append(raftPorts[n]).append(':')
                .append(logPorts[n]);
        }
        ChildProcess p = ChildProcess.start("log-n" + (i + 1) + "-" + restarts, JavaCommand.main("io.meldb.log.server.LogServerMain")
            .args("--host", "127.0.0.1", "--port", String.valueOf(logPorts[i]), "--metrics-port", "-1",
                "--block-size", String.valueOf(BLOCK), "--data-dir", dataDir(i).toString(),
                "--replication-factor", "3", "--node-id", "n" + (i + 1), "--peers", peers.toString(),
                "--snapshot-every", "8", "--raft-segment-size", "256k").build(),
            dir, dir.resolve("n" + (i + 1) + "-" + restarts++ + ".out"), READY);
        servers[i] = p;
        return p;
    }

    /** The replica every running one last named as leader, or null while they disagree. */
    private Integer leader(int except) {
        String agreed = null;
        for (int i = 0; i < 3; i++) {
            if (i == except || servers[i] == null || !servers[i].alive()) {
                continue;
            }
            String latest = null;
            for (String line : servers[i].outputLines()) {
                Matcher m = LEADER_LINE.matcher(line);
                if (m.find()) {
                    latest = m.group(2);
                }
            }
            if (latest == null || !latest.startsWith("n") || (agreed != null && !agreed.equals(latest))) {
                return null;
            }
            agreed = latest;
        }
        return agreed == null ? null : Integer.parseInt(agreed.substring(1)) - 1;
    }

    private static byte[] block(int n) {
        byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) (n * 17));
        b[0] = (byte) (n >> 16);
        b[1] = (byte) (n >> 8);
        b[2] = (byte) n;
        return b;
    }

    /**
     * Appends {@code n} distinct blocks, 16 in flight; every acknowledged one is recorded at its position. An append
     * refused or left unknown by a leader change on this loaded machine is sent again as a new block (only
     * acknowledged positions are checked, each must hold its own bytes).
     */
    private void append(int n) throws Exception {
        ArrayDeque<CompletableFuture<Long>> inFlight = new ArrayDeque<>();
        ArrayDeque<byte[]> sent = new ArrayDeque<>();
        int done = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (done < n) {
            while (inFlight.size() < 16 && done + inFlight.size() < n) {
                byte[] b = block(++counter);
                inFlight.add(client.append(b));
                sent.add(b);
            }
            CompletableFuture<Long> f = inFlight.poll();
            byte[] b = sent.poll();
            try {
                long p = f.get(60, TimeUnit.SECONDS);
                byte[] before = acknowledged.putIfAbsent(p, b);
                assertTrue(before == null, "position " + p + " acknowledged twice");
                done++;
            } catch (java.util.concurrent.ExecutionException e) {
                assertTrue(System.nanoTime() < deadline, "appends kept failing: " + e.getCause());
                Thread.sleep(20);
            }
        }
    }

    /**
     * The first Raft index of each segment file in replica {@code i}'s Raft log ({@code <data-dir>/raft/<group>/current/}
     * {@code log_<start>-<end>}, {@code log_inprogress_<start>}). Names only: a file Ratis deletes meanwhile is fine.
     */
    private List<Long> segmentStarts(int i) {
        return RaftSnapshotCatchUpTest.segmentNames(dataDir(i).resolve("raft")).stream()
            .map(f -> Long.parseLong(f.startsWith("log_inprogress_") ? f.substring("log_inprogress_".length())
                : f.substring(4, f.indexOf('-')))).sorted().toList();
    }

    /** The lowest Raft index the running replicas other than {@code away} still hold on disk. */
    private long lowestHeld(int away) {
        long low = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            if (i != away) {
                List<Long> starts = segmentStarts(i);
                low = Math.min(low, starts.isEmpty() ? 0 : starts.get(0));
            }
        }
        return low;
    }

    /**
     * Appends until the running replicas purged every Raft entry the replica {@code away} logged before it went away:
     * its last segment starts at {@code lastStart}; the others delete the segment starting there (the same entries roll
     * segments at the same indexes on every replica), and then one more, for margin. Only then does the leader have to
     * notify it: a leader never moves a follower's next index below the entries it knows the follower logged.
     */
    private void appendPastPurge(int away, long lastStart) throws Exception {
        long passed = -1;
        for (int round = 0; round < 40; round++) {
            append(64);
            long low = lowestHeld(away);
            if (passed < 0 && low > lastStart) {
                passed = low;
            } else if (passed >= 0 && low > passed) {
                return;
            }
        }
        throw new AssertionError("the running replicas never purged their Raft logs past index " + lastStart
            + " (they hold from " + lowestHeld(away) + ")");
    }

    private long lastSegmentStart(int i) {
        List<Long> starts = segmentStarts(i);
        return starts.isEmpty() ? 0 : starts.get(starts.size() - 1);
    }

    /** The running replica {@code i} holds every acknowledged block at its position, read through its own log port. */
    private void servesEveryBlock(int i, ChildProcess p) throws Exception {
        long tail = acknowledged.keySet().stream().mapToLong(Long::longValue).max().orElse(0) + 1;
        try (LogClient direct = LogClient.connect(LogClientOptions.to("127.0.0.1", logPorts[i])
                .requestTimeout(Duration.ofSeconds(20)))) {
            Await.until(Duration.ofSeconds(90), "replica n" + (i + 1) + " reaches tail " + tail + " (" + p.tail(5) + ")",
                () -> direct.tail().join() >= tail);
            long next = 1;
            while (next < tail) {
                List<byte[]> blocks = direct.read(next, (int) Math.min(256, tail - next)).get(20, TimeUnit.SECONDS);
                for (byte[] b : blocks) {
                    byte[] expected = acknowledged.get(next);
                    if (expected != null) {
                        assertArrayEquals(expected, b, "replica n" + (i + 1) + " position " + next);
                    }
                    next++;
                }
            }
            assertEquals(client.logId(), direct.status().get(20, TimeUnit.SECONDS).logId(), "the same log id");
        }
    }

    /**
     * Waits until {@code p} says it caught up from a peer's store (the line follows the blocks becoming readable by a
     * moment), prints those lines and the time since {@code t0}, when it was resumed or restarted.
     */
    private void awaitCaughtUp(String what, ChildProcess p, long t0) {
        long servingMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        Await.until(Duration.ofSeconds(30), what + " follower caught up from a peer's store (" + p.tail(20) + ")",
            () -> p.outputLines().stream().anyMatch(l -> CAUGHT_UP.matcher(l).find()));
        for (String line : p.outputLines()) {
            if (CAUGHT_UP.matcher(line).find()) {
                System.out.println(what + ": " + line.substring(line.indexOf("replicated log:")));
            }
        }
        System.out.println(what + ": serving every block " + servingMillis + " ms after it was resumed or restarted");
    }

    private int follower() {
        int leader = Await.value(Duration.ofSeconds(60), "the replicas agree on a leader", () -> leader(-1));
        return (leader + 1) % 3;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    @Test
    void frozenKilledAndEmptiedFollowersCatchUpFromAPeersStoreAfterThePurge() throws Exception {
        StringBuilder all = new StringBuilder();
        final int[] ports = FreePorts.distinctBelowEphemeralRange(6);
        for (int i = 0; i < 3; i++) {
            logPorts[i] = ports[2 * i];
            raftPorts[i] = ports[2 * i + 1];
            all.append(i == 0 ? "" : ",").append("127.0.0.1:").append(logPorts[i]);
        }
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        for (ChildProcess s : servers) {
            s.awaitReady(Duration.ofSeconds(90));
        }
        client = LogClient.connect(LogClientOptions.toAll(all.toString()).requestTimeout(Duration.ofSeconds(20))
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)));
        toClose.add(client);
        client.create(BLOCK, new byte[] {9}).get(60, TimeUnit.SECONDS);
        append(64);

        // frozen: SIGSTOP, the others purge, SIGCONT
        int f = follower();
        ChildProcess frozen = servers[f];
        signal(frozen, "STOP");
        appendPastPurge(f, lastSegmentStart(f));
        long t0 = System.nanoTime();
        signal(frozen, "CONT");
        servesEveryBlock(f, frozen);
        awaitCaughtUp("frozen", frozen, t0);

        // killed: SIGKILL, the others purge, restart on the same directory
        f = follower();
        servers[f].kill();
        appendPastPurge(f, lastSegmentStart(f));
        t0 = System.nanoTime();
        ChildProcess killed = start(f);
        killed.awaitReady(Duration.ofSeconds(90));
        servesEveryBlock(f, killed);
        awaitCaughtUp("killed", killed, t0);

        // emptied: SIGKILL, its data directory deleted, the others purge, restart on an empty directory
        f = follower();
        servers[f].kill();
        long lastStart = lastSegmentStart(f);
        deleteTree(dataDir(f));
        appendPastPurge(f, lastStart);
        t0 = System.nanoTime();
        ChildProcess emptied = start(f);
        emptied.awaitReady(Duration.ofSeconds(90));
        servesEveryBlock(f, emptied);
        awaitCaughtUp("emptied", emptied, t0);

        // and all three go on together
        append(64);
        for (int i = 0; i < 3; i++) {
            servesEveryBlock(i, servers[i]);
        }
    }
}
