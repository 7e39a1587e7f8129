package io.meldb.log.replication;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.testkit.Await;
import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;
import io.meldb.testkit.FreePorts;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No two leaders acknowledge appends (issue 22): three log-server processes at r = 3; the leader is frozen with
 * SIGSTOP (to the others, a leader cut off: it neither hears nor is heard) while a client pinned to it has appends
 * in flight, the other two elect a new leader and acknowledge appends, then the old leader is resumed with SIGCONT
 * still believing it leads and reads the pinned appends. None of them may be acknowledged at a position that holds
 * another block: every acknowledged append, from any client, is at its position with its bytes on every replica.
 */
@Tag("process")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReplicatedLogPauseTest {
    private static final int BLOCK = 128;
    private static final Pattern READY = Pattern.compile("log-server listening on (\\S+):(\\d+)");
    private static final Pattern LEADER_LINE = Pattern.compile("replicated log: (\\S+) sees (\\S+) as the leader");

    @TempDir
    Path dir;


    private static byte[] block(final String text) {
        return Arrays.copyOf(text.getBytes(StandardCharsets.US_ASCII), BLOCK);
    }

    private static void signal(final ChildProcess p, final String signal) throws Exception {
        final Process k = new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid())).inheritIO().start();
        assertEquals(0, k.waitFor(), "kill -" + signal);
    }

    /** The replica a majority of the running ones last named as leader, or -1. */
    private static int leader(final List<ChildProcess> servers, final int paused) {
        final int[] votes = new int[servers.size()];
        for (int i = 0; i < servers.size(); i++) {
            if (i == paused) {
                continue;
            }
            String latest = null;
            for (String line : servers.get(i).outputLines()) {
                final Matcher m = LEADER_LINE.matcher(line);
                if (m.find()) {
                    latest = m.group(2);
                }
            }
            if (latest != null && latest.startsWith("n")) {
                votes[Integer.parseInt(latest.substring(1)) - 1]++;
            }
        }
        for (int i = 0; i < votes.length; i++) {
            if (votes[i] >= 2) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Appends {@code b} until an append of it is acknowledged: a leader change on this loaded machine may refuse one
     * (NOT_LEADER) or leave it unknown; only acknowledged positions are checked.
     */
    private static long appendUntilAcknowledged(final LogClient client, final byte[] b) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return client.append(b).get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    @Test
    void aFrozenLeaderResumedAfterANewElectionAcknowledgesNothingThatIsNotInTheLog() throws Exception {
        final int[] log = new int[3];
        final int[] raft = new int[3];
        final StringBuilder peers = new StringBuilder();
        final int[] ports = FreePorts.distinctBelowEphemeralRange(6);
        for (int i = 0; i < 3; i++) {
            log[i] = ports[2 * i];
            raft[i] = ports[2 * i + 1];
            peers.append(i == 0 ? "" : ",").append("n").append(i + 1).append("=127.0.0.1:").append(raft[i]).append(':')
                .append(log[i]);
        }
        final List<ChildProcess> servers = new ArrayList<>();
        final List<LogClient> clients = new ArrayList<>();
        int paused = -1;
        try {
            for (int i = 0; i < 3; i++) {
                servers.add(ChildProcess.start("log-n" + (i + 1), JavaCommand.main("io.meldb.log.server.LogServerMain")
                    .args("--host", "127.0.0.1", "--port", String.valueOf(log[i]), "--metrics-port", "-1",
                        "--block-size", String.valueOf(BLOCK), "--data-dir", dir.resolve("n" + (i + 1)).toString(),
                        "--replication-factor", "3", "--node-id", "n" + (i + 1), "--peers", peers.toString(),
                        "--replication-commit-timeout", "3000").build(),
                    dir, dir.resolve("n" + (i + 1) + ".out"), READY));
            }
            for (ChildProcess s : servers) {
                s.awaitReady(Duration.ofSeconds(90));
            }
            final String all = "127.0.0.1:" + log[0] + ",127.0.0.1:" + log[1] + ",127.0.0.1:" + log[2];
            final LogClient client = LogClient.connect(LogClientOptions.toAll(all)
                .requestTimeout(Duration.ofSeconds(4)).reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)));
            clients.add(client);
            client.create(BLOCK, new byte[] {3}).get(30, TimeUnit.SECONDS);
            final Map<Long, byte[]> acknowledged = new ConcurrentHashMap<>();
            for (int n = 0; n < 20; n++) {
                final byte[] b = block("before-" + n);
                acknowledged.put(appendUntilAcknowledged(client, b), b);
            }

            final int old = Await.value(Duration.ofSeconds(30), "a leader", () -> {
                final int l = leader(servers, -1);
                return l < 0 ? null : l;
            });
            final LogClient pinned = LogClient.connect(LogClientOptions.to("127.0.0.1", log[old])
                .requestTimeout(Duration.ofSeconds(60)));
            clients.add(pinned);
            signal(servers.get(old), "STOP");
            paused = old;
            final List<CompletableFuture<Long>> pinnedAppends = new ArrayList<>();
            final Map<CompletableFuture<Long>, byte[]> pinnedBlocks = new HashMap<>();
            for (int n = 0; n < 5; n++) {
                final byte[] b = block("to-the-frozen-leader-" + n);
                final CompletableFuture<Long> f = pinned.append(b);
                pinnedAppends.add(f);
                pinnedBlocks.put(f, b);
            }

            // the other two elect a new leader, which acknowledges appends meanwhile
            int during = 0;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (during < 10 && System.nanoTime() < deadline) {
                final byte[] b = block("during-" + during);
                try {
                    acknowledged.put(client.append(b).join(), b);
                    during++;
                } catch (CompletionException e) {
                    Thread.sleep(50);
                }
            }
            assertEquals(10, during, "the majority acknowledged appends while the old leader was frozen");
            final int fresh = leader(servers, old);
            assertTrue(fresh >= 0 && fresh != old, "a new leader: " + fresh);

            signal(servers.get(old), "CONT");
            paused = -1;
            int refused = 0;
            for (CompletableFuture<Long> f : pinnedAppends) {
                try {
                    final long p = f.get(60, TimeUnit.SECONDS);
                    final byte[] before = acknowledged.putIfAbsent(p, pinnedBlocks.get(f));
                    assertNull(before, "position " + p + " acknowledged twice");
                } catch (java.util.concurrent.ExecutionException e) {
                    final LogErrorException le = (LogErrorException) e.getCause();
                    assertTrue(le.code() == ErrorCode.NOT_LEADER || le.code() == ErrorCode.OUTCOME_UNKNOWN, le.toString());
                    refused++;
                }
            }
            for (int n = 0; n < 10; n++) {
                final byte[] b = block("after-" + n);
                acknowledged.put(appendUntilAcknowledged(client, b), b);
            }

            // every acknowledged block, on every replica (the resumed one too), at its position
            final long top = acknowledged.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
            for (int i = 0; i < 3; i++) {
                final LogClient reader = LogClient.connect(LogClientOptions.to("127.0.0.1", log[i]));
                clients.add(reader);
                Await.until(Duration.ofSeconds(60), "replica n" + (i + 1) + " applied position " + top,
                    () -> reader.tail().join() > top);
                for (Map.Entry<Long, byte[]> e : acknowledged.entrySet()) {
                    assertArrayEquals(e.getValue(), reader.read(e.getKey()).get(10, TimeUnit.SECONDS),
                        "replica n" + (i + 1) + " position " + e.getKey());
                }
            }
            assertNotEquals(old, leader(servers, -1), "the resumed replica follows the new leader");
            System.out.println("ReplicatedLogPauseTest: leader n" + (old + 1) + " frozen, n" + (fresh + 1) + " elected; of "
                + pinnedAppends.size() + " appends sent to the frozen leader " + refused + " were refused after it "
                + "resumed, the rest acknowledged at positions no other block holds; " + acknowledged.size()
                + " acknowledged blocks identical on all three replicas");
        } finally {
            if (paused >= 0) {
                signal(servers.get(paused), "CONT");
            }
            for (LogClient c : clients) {
                c.close();
            }
            for (ChildProcess s : servers) {
                s.stop(Duration.ofSeconds(10));
            }
        }
    }
}
