package io.meldb.bench.replication;

import io.meldb.log.replication.BlockStoreStateMachine;
import io.meldb.log.replication.ReplicatedEntry;
import io.meldb.log.storage.ChronicleLogStore;
import io.meldb.log.storage.StoreOptions;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

import java.io.File;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Apache Ratis (Raft) with three servers in this process on loopback (gRPC transport: its log appender streams appendEntries; the Netty transport's sends one batch at a time and managed 174 appends/s here), each with its own storage
 * directory, and a state machine that gives every applied block the next dense position, as the log server's block
 * store would (Raft's own indexes also count leader no-ops and configuration entries, so they are not dense).
 */
final class RatisCandidate implements Candidate {
    private final RaftGroup group;
    private final boolean onStore;
    private final List<RaftServer> servers = new ArrayList<>();
    private final RaftProperties clientProperties;
    private RaftClient client;

    RatisCandidate(final Path dir) throws Exception {
        this(dir, false);
    }

    /**
     * {@code onStore}: the replicas apply to a {@link ChronicleLogStore} each through MeldDB's
     * {@link BlockStoreStateMachine} (entries in its format) instead of only numbering the blocks.
     */
    RatisCandidate(final Path dir, final boolean onStore) throws Exception {
        this.onStore = onStore;
        final List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peers.add(RaftPeer.newBuilder().setId("p" + i).setAddress("127.0.0.1:" + freePort()).build());
        }
        group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), peers);
        for (RaftPeer p : peers) {
            final RaftProperties props = properties();
            RaftServerConfigKeys.setStorageDir(props, List.of(new File(dir.toFile(), p.getId().toString())));
            GrpcConfigKeys.Server.setPort(props, Integer.parseInt(p.getAddress().split(":")[1]));
            final RaftServer s = RaftServer.newBuilder().setGroup(group).setProperties(props)
                .setServerId(p.getId()).setStateMachine(onStore
                    ? new BlockStoreStateMachine(ChronicleLogStore.open(StoreOptions.at(dir.resolve("store-" + p.getId()))), null)
                    : new BlockPositions()).build();
            s.start();
            servers.add(s);
        }
        clientProperties = properties();
        client = RaftClient.newBuilder().setProperties(clientProperties).setRaftGroup(group).build();
        if (onStore) {
            send(ReplicatedEntry.create(ReplicationBench.BLOCK, UUID.randomUUID(), new byte[] {1})).get();
        }
    }

    private static RaftProperties properties() {
        final RaftProperties props = new RaftProperties();
        RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
        // Ratis's default (150..300 ms) made leadership churn on this shared 2-core machine under load
        RaftServerConfigKeys.Rpc.setTimeoutMin(props, TimeDuration.valueOf(1, TimeUnit.SECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(props, TimeDuration.valueOf(2, TimeUnit.SECONDS));
        return props;
    }

    @Override
    public CompletableFuture<Void> append(final byte[] block) {
        return send(onStore ? ReplicatedEntry.append(block) : block);
    }

    private CompletableFuture<Void> send(final byte[] entry) {
        return client.async().send(Message.valueOf(ByteString.copyFrom(entry))).thenAccept(reply -> {
            if (!reply.isSuccess()) {
                throw new IllegalStateException("append failed: " + reply.getException());
            }
        });
    }

    @Override
    public void failLeaderAndAppend(final byte[] block) throws Exception {
        RaftServer leader = null;
        for (RaftServer s : servers) {
            if (s.getDivision(group.getGroupId()).getInfo().isLeader()) {
                leader = s;
            }
        }
        if (leader == null) {
            throw new IllegalStateException("no leader");
        }
        leader.close();
        servers.remove(leader);
        append(block).get(60, TimeUnit.SECONDS);
    }

    @Override
    public String describe() {
        final RaftProperties p = properties();
        return "Ratis " + RaftServer.class.getPackage().getImplementationVersion() + ", 3 servers in one JVM, gRPC "
            + "transport" + (onStore ? ", MeldDB's BlockStoreStateMachine over a ChronicleLogStore per replica" : "")
            + ", election timeout " + RaftServerConfigKeys.Rpc.timeoutMin(p) + ".."
            + RaftServerConfigKeys.Rpc.timeoutMax(p) + ", log flush (fsync) per batch: default";
    }

    @Override
    public void close() throws Exception {
        client.close();
        for (RaftServer s : servers) {
            s.close();
        }
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Applies blocks in log order, numbering them 1, 2, 3, … (the same on every replica). */
    static final class BlockPositions extends BaseStateMachine {
        private final AtomicLong position = new AtomicLong();

        @Override
        public CompletableFuture<Message> applyTransaction(final TransactionContext trx) {
            final var entry = trx.getLogEntry();
            final long p = position.incrementAndGet();
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            return CompletableFuture.completedFuture(
                Message.valueOf(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(p).array())));
        }
    }
}
