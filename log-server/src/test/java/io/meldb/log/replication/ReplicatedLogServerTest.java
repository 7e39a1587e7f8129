package io.meldb.log.replication;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogSubscription;
import io.meldb.log.server.LogServer;
import io.meldb.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three log servers at replication factor 3 in this process on loopback (issue 22): appends through the leader at
 * dense positions, the same blocks and log id on every replica, a follower refusing an APPEND with NOT_LEADER naming
 * the leader, reads and subscriptions served by a follower, and a multi-address client going on through a new leader
 * after the old one stops, with no block at two positions.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicatedLogServerTest {
    private static final int BLOCK = 256;

    @TempDir
    Path dir;

    private ReplicaGroup group;
    private LogServer[] servers;

    @AfterEach
    void stop() throws Exception {
        if (group != null) {
            group.close();
        }
    }

    private void startAll() throws Exception {
        group = new ReplicaGroup(dir, BLOCK);
        servers = group.servers;
        group.startAll(r -> r.commitTimeout(Duration.ofSeconds(5)));
    }

    private int leader() {
        return group.leader();
    }

    private String addresses() {
        return group.addresses();
    }

    private static byte[] block(int n) {
        byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) n);
        b[0] = (byte) (n >> 8);
        return b;
    }

    private LogClient client(String addresses) {
        LogClient c = LogClient.connect(LogClientOptions.toAll(addresses).requestTimeout(Duration.ofSeconds(10))
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)));
        group.closeLater(c);
        return c;
    }

    /** Appends {@code b} until one append is acknowledged; a refused or unknown one is retried (blocks are distinct). */
    private static long appendUntilAcknowledged(LogClient c, byte[] b, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            try {
                return c.append(b).join();
            } catch (CompletionException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    throw new RuntimeException(ie);
                }
            }
        }
    }

    @Test
    void replicatesAppendsToEveryReplicaAndFailsOverToANewLeader() throws Exception {
        startAll();
        int leader = leader();
        // listed last, so that the client has to find the leader by itself when it is not the first
        LogClient client = client(addresses());
        client.create(BLOCK, new byte[] {7, 7}).get(20, TimeUnit.SECONDS);
        List<CompletableFuture<Long>> appends = new ArrayList<>();
        for (int n = 1; n <= 60; n++) {
            appends.add(client.append(block(n)));
        }
        for (int n = 1; n <= 60; n++) {
            assertEquals(n, appends.get(n - 1).get(20, TimeUnit.SECONDS), "positions are dense, in order");
        }
        for (LogServer s : servers) {
            Await.until(Duration.ofSeconds(20), "every replica applied 60 blocks", () -> s.store().tail() == 61);
            assertEquals(servers[leader].store().logId(), s.store().logId(), "one log id on every replica");
        }
        // the leader's per-entry figures: every acknowledged block rode in an entry it timed
        io.micrometer.core.instrument.DistributionSummary blocksPerEntry = servers[leader].metrics().registry()
            .get("meldb.log.replication.entry.blocks").summary();
        assertEquals(60, (long) blocksPerEntry.totalAmount(), "blocks in the leader's committed entries");
        assertEquals(blocksPerEntry.count(), servers[leader].metrics().registry()
            .get("meldb.log.replication.entry.commit").timer().count(), "one commit time per committed entry");

        // TRIM keeps the checkpoint rule at r = 3: with no checkpoint in the log, nothing may be trimmed
        LogErrorException trimRefused = assertInstanceOf(LogErrorException.class,
                assertThrows(CompletionException.class, () -> client.trim(10).join()).getCause());
        assertEquals(ErrorCode.TRIM_REFUSED, trimRefused.code(), trimRefused.getMessage());
        for (LogServer s : servers) {
            assertEquals(1, s.store().trimPoint());
        }

        int follower = (leader + 1) % 3;
        try (LogClient direct = LogClient.connect(LogClientOptions.to("127.0.0.1", group.logPorts[follower]))) {
            LogErrorException refused = assertInstanceOf(LogErrorException.class,
                    assertThrows(CompletionException.class, () -> direct.append(block(999)).join()).getCause());
            assertEquals(ErrorCode.NOT_LEADER, refused.code());
            assertTrue(refused.getMessage().contains("leader at 127.0.0.1:" + group.logPorts[leader]), refused.getMessage());
            assertArrayEquals(block(42), direct.read(42).get(10, TimeUnit.SECONDS), "a follower serves what it applied");
        }

        ConcurrentSkipListMap<Long, byte[]> seen = new ConcurrentSkipListMap<>();
        LogClient reader = client("127.0.0.1:" + group.logPorts[follower]);
        LogSubscription sub = reader.subscribe(1, (p, b) -> {
            byte[] copy = new byte[b.readableBytes()];
            b.getBytes(b.readerIndex(), copy);
            seen.put(p, copy);
        });
        group.closeLater(sub::close);
        Await.until(Duration.ofSeconds(20), "the follower's subscription delivered 60 blocks", () -> seen.size() == 60);

        servers[leader].close();
        servers[leader] = null;
        long t0 = System.nanoTime();
        long p = appendUntilAcknowledged(client, block(61), Duration.ofSeconds(30));
        long failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(61, p, "the first block after the failover takes the next position");
        for (int n = 62; n <= 70; n++) {
            assertEquals(n, client.append(block(n)).get(20, TimeUnit.SECONDS));
        }
        int newLeader = leader();
        assertTrue(newLeader != leader);
        for (int i = 0; i < 3; i++) {
            LogServer s = servers[i];
            if (s == null) {
                continue;
            }
            Await.until(Duration.ofSeconds(20), "replica " + i + " applied 70 blocks", () -> s.store().tail() == 71);
        }
        try (LogClient check = LogClient.connect(LogClientOptions.to("127.0.0.1", group.logPorts[(newLeader + 1) % 3 == leader
                ? (newLeader + 2) % 3 : (newLeader + 1) % 3]))) {
            List<byte[]> all = new ArrayList<>();
            while (all.size() < 70) {
                all.addAll(check.read(all.size() + 1, 70 - all.size()).get(10, TimeUnit.SECONDS));
            }
            for (int n = 1; n <= 70; n++) {
                assertArrayEquals(block(n), all.get(n - 1), "position " + n);
            }
        }
        System.out.println("failover after closing the leader: first acknowledged append after " + failoverMillis + " ms");

        // the old leader comes back as a follower and catches up from the others
        group.start(leader, r -> r.commitTimeout(Duration.ofSeconds(5)));
        LogServer back = servers[leader];
        Await.until(Duration.ofSeconds(30), "the restarted replica caught up", () -> back.store().tail() == 71);
        assertNotNull(back.store().logId());
        Await.until(Duration.ofSeconds(20), "the follower's subscription delivered 70 blocks", () -> seen.size() == 70);
        for (int n = 1; n <= 70; n++) {
            assertArrayEquals(block(n), seen.get((long) n), "subscribed position " + n);
        }
    }
}
