package io.meldb.log.replication;

import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.server.LogServer;
import io.meldb.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Raft snapshots of the replicated log (issue 22): three log servers at r = 3 in this process, a snapshot every 8
 * entries, 256 KB Raft segments. A snapshot purges the Raft log; a restarted replica comes back from its snapshot; a
 * follower that missed entries its leader purged, or whose data directory was emptied, or whose Raft directory alone
 * was lost (its store ahead of the leader's snapshot), catches up through the install-snapshot notification, fetching
 * blocks from a peer's log port, and then serves every block, the same as the leader.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RaftSnapshotCatchUpTest {
    private static final int BLOCK = 4096;
    private static final long SNAPSHOT_EVERY = 8;

    @TempDir
    Path dir;

    private ReplicaGroup group;
    private LogServer[] servers;
    private LogClient client;
    private int appended;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (group != null) {
            group.close();
        }
    }

    private static ReplicationOptions options(ReplicationOptions r) {
        return r.commitTimeout(Duration.ofSeconds(10)).snapshotEvery(SNAPSHOT_EVERY).raftSegmentBytes(256 * 1024);
    }

    private LogServer startServer(int i) throws IOException {
        return group.start(i, RaftSnapshotCatchUpTest::options);
    }

    private void startAll() throws Exception {
        group = new ReplicaGroup(dir, BLOCK);
        servers = group.servers;
        group.startAll(RaftSnapshotCatchUpTest::options);
        client = LogClient.connect(LogClientOptions.toAll(group.addresses()).requestTimeout(Duration.ofSeconds(20))
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)));
        client.create(BLOCK, new byte[] {5}).get(30, TimeUnit.SECONDS);
    }

    private int leader() {
        return group.leader();
    }

    private static byte[] block(int n) {
        byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) (n * 31));
        b[0] = (byte) (n >> 8);
        b[1] = (byte) n;
        return b;
    }

    /** Appends {@code n} more blocks, 16 in flight (entries of a few blocks each), each at the next position. */
    private void append(int n) throws Exception {
        ArrayDeque<CompletableFuture<Long>> inFlight = new ArrayDeque<>();
        ArrayDeque<Integer> expected = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            appended++;
            inFlight.add(client.append(block(appended)));
            expected.add(appended);
            if (inFlight.size() >= 16) {
                assertEquals((long) expected.poll(), inFlight.poll().get(30, TimeUnit.SECONDS), "dense positions");
            }
        }
        while (!inFlight.isEmpty()) {
            assertEquals((long) expected.poll(), inFlight.poll().get(30, TimeUnit.SECONDS), "dense positions");
        }
    }

    /**
     * The names of the Raft log segment files under {@code raftDir} ({@code <group>/current/log_*}), listed without
     * opening or statting them: Ratis deletes purged segments and old snapshots while a test looks.
     */
    static List<String> segmentNames(Path raftDir) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> groups = Files.newDirectoryStream(raftDir)) {
            for (Path group : groups) {
                try (DirectoryStream<Path> files = Files.newDirectoryStream(group.resolve("current"), "log_*")) {
                    for (Path f : files) {
                        names.add(f.getFileName().toString());
                    }
                } catch (NoSuchFileException | NotDirectoryException notAGroup) {
                    // not a group directory (Ratis keeps none other there today), or removed meanwhile
                }
            }
        } catch (NoSuchFileException none) {
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    /** Bytes of the Raft log segments of replica {@code i} (a segment deleted meanwhile counts 0). */
    private long raftLogBytes(int i) {
        Path raft = dir.resolve("log-" + i).resolve("raft");
        long bytes = 0;
        for (String name : segmentNames(raft)) {
            try (DirectoryStream<Path> groups = Files.newDirectoryStream(raft)) {
                for (Path group : groups) {
                    bytes += group.resolve("current").resolve(name).toFile().length();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return bytes;
    }

    private RaftReplica replica(int i) {
        return servers[i].replicated().replica();
    }

    /** Every replica that runs holds blocks 1..appended, read back through its own log port, as appended. */
    private void everyReplicaServesEveryBlock() throws Exception {
        final long tail = appended + 1L;
        for (int i = 0; i < 3; i++) {
            LogServer s = servers[i];
            Await.until(Duration.ofSeconds(60), "replica " + i + " at tail " + tail, () -> s.store().tail() == tail);
            assertEquals(servers[leader()].store().logId(), s.store().logId(), "one log id");
            try (LogClient direct = LogClient.connect(LogClientOptions.to("127.0.0.1", group.logPorts[i]))) {
                List<byte[]> all = new ArrayList<>();
                while (all.size() < appended) {
                    all.addAll(direct.read(all.size() + 1, appended - all.size()).get(20, TimeUnit.SECONDS));
                }
                for (int n = 1; n <= appended; n++) {
                    assertArrayEquals(block(n), all.get(n - 1), "replica " + i + " position " + n);
                }
                assertArrayEquals(servers[leader()].store().config(), direct.config().get(20, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * Stops a follower, appends until the others purged every Raft entry up to where its Raft log ended, and returns it.
     * Past its log's end, not its applied index: the leader never moves a follower's next index below the entries it
     * knows the follower logged (its match index), so only a purge past those makes the leader notify it.
     */
    private int stopAFollowerAndAppendPastItsLog(boolean wipeData, boolean wipeRaftOnly) throws Exception {
        return stopAndAppendPastItsLog((leader() + 1) % 3, wipeData, wipeRaftOnly);
    }

    private int stopAndAppendPastItsLog(int f, boolean wipeData, boolean wipeRaftOnly) throws Exception {
        long stoppedAt = replica(f).raftLogNextIndex();
        servers[f].close();
        servers[f] = null;
        if (wipeData) {
            deleteTree(dir.resolve("log-" + f));
        } else if (wipeRaftOnly) {
            deleteTree(dir.resolve("log-" + f).resolve("raft"));
        }
        for (int round = 0; round < 20; round++) {
            append(64);
            boolean purged = true;
            for (int i = 0; i < 3; i++) {
                purged &= servers[i] == null || replica(i).raftLogStartIndex() > stoppedAt;
            }
            if (purged) {
                return f;
            }
        }
        throw new AssertionError("the replicas never purged their Raft logs past index " + stoppedAt);
    }

    /**
     * The follower caught up through the install-snapshot notification. Awaited, not asserted at once: the fetched
     * blocks are readable (the tail moves) a moment before the catch-up records its snapshot point and counts it.
     */
    private void awaitInstalled(int f) {
        RaftReplica r = replica(f);
        Await.until(Duration.ofSeconds(30), "replica " + f + " caught up through the install-snapshot notification",
            () -> r.catchUp().installs() >= 1);
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void snapshotsPurgeTheRaftLogAndARestartedReplicaComesBackFromItsSnapshot() throws Exception {
        startAll();
        append(640);
        final long appendedBytes = (long) appended * BLOCK;
        for (int i = 0; i < 3; i++) {
            final int r = i;
            Await.until(Duration.ofSeconds(60), "replica " + i + " snapshotted and purged its Raft log", () ->
                replica(r).snapshotIndex() >= 2 * SNAPSHOT_EVERY && raftLogBytes(r) < appendedBytes / 2);
            assertTrue(replica(i).raftLogStartIndex() > 0, "replica " + i + " purged its first entries");
        }
        everyReplicaServesEveryBlock();

        int f = (leader() + 2) % 3;
        servers[f].close();
        servers[f] = startServer(f);
        assertTrue(replica(f).snapshotIndex() > 0, "the restarted replica starts from its snapshot");
        append(40);
        everyReplicaServesEveryBlock();
    }

    @Test
    void aFollowerThatMissedPurgedEntriesCatchesUpFromAPeersStore() throws Exception {
        startAll();
        append(64);
        int f = stopAFollowerAndAppendPastItsLog(false, false);
        servers[f] = startServer(f);
        append(20);
        everyReplicaServesEveryBlock();
        awaitInstalled(f);
        assertTrue(replica(f).catchUp().blocksFetched() > 0, "blocks fetched from a peer");
        append(20);
        everyReplicaServesEveryBlock();
    }

    @Test
    void aFollowerWhoseDataDirectoryWasEmptiedCatchesUpFromAPeersStore() throws Exception {
        startAll();
        append(64);
        int f = stopAFollowerAndAppendPastItsLog(true, false);
        servers[f] = startServer(f);
        everyReplicaServesEveryBlock();
        awaitInstalled(f);
        assertTrue(replica(f).catchUp().blocksFetched() > 0, "blocks fetched from a peer");
        append(20);
        everyReplicaServesEveryBlock();
    }

    @Test
    void aFollowerThatLostOnlyItsRaftDirectoryFetchesOnlyTheBlocksItsStoreLacks() throws Exception {
        startAll();
        append(64);
        int f = (leader() + 1) % 3;
        Await.until(Duration.ofSeconds(30), "the follower stored every block", () -> servers[f].store().tail() == appended + 1L);
        long kept = servers[f].store().tail();
        stopAndAppendPastItsLog(f, false, true);
        servers[f] = startServer(f);
        append(20);
        everyReplicaServesEveryBlock();
        awaitInstalled(f);
        assertTrue(replica(f).catchUp().blocksFetched() <= appended + 1L - kept,
            "fetched " + replica(f).catchUp().blocksFetched() + " blocks, none of the " + (kept - 1) + " its store kept");
    }
}
