package io.meldb.log.replication;

import io.meldb.log.LogReader;
import io.meldb.log.storage.ChronicleLogStore;
import io.meldb.log.storage.StoreOptions;
import io.meldb.testkit.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three replicas of the block store under Apache Ratis in this process on loopback: the same blocks at the same
 * dense positions on every replica, block 0 and the log id from the replicated CREATE, appends going on after the
 * leader stops, and a replica restarted on its directories catching up without storing a block twice.
 */
class BlockStoreStateMachineTest {
    private static final int BLOCK = 512;

    @TempDir
    Path dir;

    private final List<RaftPeer> peers = new ArrayList<>();
    private final Replica[] replicas = new Replica[3];
    private RaftGroup group;
    private RaftClient client;

    /** One replica: its Raft server and its block store. */
    private record Replica(RaftServer server, ChronicleLogStore store) {
        void close() throws Exception {
            server.close();
            store.close();
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        for (Replica r : replicas) {
            if (r != null) {
                r.close();
            }
        }
    }

    private static RaftProperties properties() {
        final RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        // generous on a loaded machine: a short election timeout makes leadership churn
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(1, TimeUnit.SECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2, TimeUnit.SECONDS));
        return p;
    }

    private Replica startReplica(final int i) throws Exception {
        return startReplica(i, RaftStorage.StartupOption.FORMAT);
    }

    private Replica startReplica(final int i, final RaftStorage.StartupOption option) throws Exception {
        final RaftPeer peer = peers.get(i);
        final RaftProperties p = properties();
        RaftServerConfigKeys.setStorageDir(p, List.of(dir.resolve("raft-" + i).toFile()));
        GrpcConfigKeys.Server.setPort(p, Integer.parseInt(peer.getAddress().split(":")[1]));
        final ChronicleLogStore store = ChronicleLogStore.open(StoreOptions.at(dir.resolve("store-" + i)));
        final RaftServer server = RaftServer.newBuilder().setGroup(group).setProperties(p).setServerId(peer.getId())
            .setStateMachine(new BlockStoreStateMachine(store, null)).setOption(option).build();
        server.start();
        return new Replica(server, store);
    }

    private void startGroup() throws Exception {
        for (int i = 0; i < 3; i++) {
            try (ServerSocket s = new ServerSocket(0)) {
                peers.add(RaftPeer.newBuilder().setId("r" + i).setAddress("127.0.0.1:" + s.getLocalPort()).build());
            }
        }
        group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), peers);
        for (int i = 0; i < 3; i++) {
            replicas[i] = startReplica(i);
        }
        client = RaftClient.newBuilder().setProperties(properties()).setRaftGroup(group).build();
    }

    private long send(final byte[] entry) throws Exception {
        final RaftClientReply reply = client.io().send(Message.valueOf(ByteString.copyFrom(entry)));
        assertTrue(reply.isSuccess(), "refused: " + reply.getException());
        return reply.getMessage().getContent().asReadOnlyByteBuffer().getLong();
    }

    /** {@code count} blocks whose bytes name their sequence number {@code from}, {@code from + 1}, … */
    private static byte[] blocks(final int from, final int count) {
        final ByteBuffer b = ByteBuffer.allocate(count * BLOCK);
        for (int i = 0; i < count; i++) {
            final int n = from + i;
            for (int j = 0; j < BLOCK / 4; j++) {
                b.putInt(n);
            }
        }
        return b.array();
    }

    private static byte[] read(final ChronicleLogStore store, final long position) {
        final ByteBuf out = Unpooled.buffer(store.blockSize());
        final LogReader r = store.openReader();
        try {
            r.read(position, out);
            final byte[] bytes = new byte[store.blockSize()];
            out.getBytes(0, bytes);
            return bytes;
        } finally {
            r.close();
            out.release();
        }
    }

    @Test
    void everyReplicaHoldsTheSameBlocksAtTheSameDensePositionsAcrossALeaderLossAndARestart() throws Exception {
        startGroup();
        final UUID logId = UUID.randomUUID();
        final byte[] config = "cluster meld configuration".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(0, send(ReplicatedEntry.create(BLOCK, logId, config)));
        assertEquals(0, send(ReplicatedEntry.create(BLOCK, logId, config)), "CREATE again, alike, changes nothing");

        // 40 entries of 1 to 3 blocks: positions are dense, numbered by the replicas in log order
        int blocks = 0;
        long expectedFirst = 1;
        for (int e = 0; e < 40; e++) {
            final int n = 1 + e % 3;
            assertEquals(expectedFirst, send(ReplicatedEntry.append(blocks(blocks, n))), "entry " + e);
            blocks += n;
            expectedFirst += n;
        }

        // the leader stops without a word; the other two elect a new one and appends go on
        int stopped = -1;
        for (int i = 0; i < 3; i++) {
            if (replicas[i].server().getDivision(group.getGroupId()).getInfo().isLeader()) {
                stopped = i;
            }
        }
        assertTrue(stopped >= 0, "no leader");
        replicas[stopped].close();
        replicas[stopped] = null;
        for (int e = 0; e < 10; e++) {
            assertEquals(expectedFirst, send(ReplicatedEntry.append(blocks(blocks, 2))), "after the leader stopped");
            blocks += 2;
            expectedFirst += 2;
        }

        // restarted on its directories, it replays its Raft log without storing a block twice, then catches up
        replicas[stopped] = startReplica(stopped, RaftStorage.StartupOption.RECOVER);
        final long tail = 1 + blocks;
        final ChronicleLogStore restarted = replicas[stopped].store();
        Await.until(Duration.ofSeconds(60), "the restarted replica catches up to " + tail,
            () -> restarted.tail() == tail);
        assertEquals(tail, send(ReplicatedEntry.append(blocks(blocks, 1))), "appends after the restart");
        blocks += 1;

        final long finalTail = 1 + blocks;
        for (Replica r : replicas) {
            Await.until(Duration.ofSeconds(30), "every replica at tail " + finalTail, () -> r.store().tail() == finalTail);
            assertEquals(logId, r.store().logId());
            assertArrayEquals(config, r.store().config());
            for (int p = 1; p < finalTail; p++) {
                final int n = ByteBuffer.wrap(read(r.store(), p)).getInt();
                assertEquals(p - 1, n, "block at position " + p);
                assertArrayEquals(blocks(p - 1, 1), read(r.store(), p));
            }
        }
    }

    @Test
    void anotherCreateAndAnAppendThatIsNotWholeBlocksAreRefusedOnEveryReplicaAndTakeNoPosition() throws Exception {
        startGroup();
        final UUID logId = UUID.randomUUID();
        send(ReplicatedEntry.create(BLOCK, logId, new byte[] {7}));
        final StateMachineException other = assertThrows(StateMachineException.class, () -> send(
            ReplicatedEntry.create(BLOCK, logId, new byte[] {8})));
        assertTrue(other.getMessage().contains("CREATE_MISMATCH") || other.getMessage().contains("configuration"),
            other.getMessage());
        assertEquals(1, send(ReplicatedEntry.append(blocks(0, 1))));
        final StateMachineException bad = assertThrows(StateMachineException.class, () -> client.io().send(
            Message.valueOf(ByteString.copyFrom(ReplicatedEntry.append(Arrays.copyOf(blocks(1, 1), BLOCK - 1))))));
        assertTrue(bad.getMessage().contains("not whole blocks of 512 bytes"), bad.getMessage());
        assertEquals(2, send(ReplicatedEntry.append(blocks(1, 1))), "the next block takes the next position");
        for (Replica r : replicas) {
            Await.until(Duration.ofSeconds(30), "replica at tail 3", () -> r.store().tail() == 3);
            assertArrayEquals(new byte[] {7}, r.store().config(), "the first CREATE's configuration");
        }
    }

    @Test
    void aReplicatedTrimReleasesTheSamePrefixOnEveryReplicaAndASecondCreateWithAnotherIdKeepsTheFirst() throws Exception {
        startGroup();
        final UUID logId = UUID.randomUUID();
        send(ReplicatedEntry.create(BLOCK, logId, new byte[] {5}));
        assertEquals(0, send(ReplicatedEntry.create(BLOCK, UUID.randomUUID(), new byte[] {5})),
            "two servers creating the same log at once: the second CREATE changes nothing");
        for (int e = 0; e < 10; e++) {
            send(ReplicatedEntry.append(blocks(e * 2, 2)));
        }
        assertEquals(8, send(ReplicatedEntry.trim(8)), "the trim point in force");
        assertEquals(8, send(ReplicatedEntry.trim(5)), "an older trim point changes nothing");
        assertEquals(21, send(ReplicatedEntry.append(blocks(20, 1))), "appends go on after the trim");
        for (Replica r : replicas) {
            Await.until(Duration.ofSeconds(30), "replica trimmed to 8 at tail 22",
                () -> r.store().trimPoint() == 8 && r.store().tail() == 22);
            assertEquals(logId, r.store().logId(), "the first CREATE's id on every replica");
            assertArrayEquals(blocks(7, 1), read(r.store(), 8));
        }
    }
}
