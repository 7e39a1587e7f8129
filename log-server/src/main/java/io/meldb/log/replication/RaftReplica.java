package io.meldb.log.replication;

import io.meldb.log.LogStore;
import io.meldb.wire.auth.ClusterSecret;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This log server's member of the Raft group (issue 22, Apache Ratis): a {@link RaftServer} whose state machine is
 * the server's block store ({@link BlockStoreStateMachine}), its Raft log in {@code <data-dir>/raft}, its Raft port on
 * {@code --raft-host} (by default the log server's {@code --host}), under mutual TLS when {@link RaftTls} is given.
 *
 * <p>Two ways in. {@link #proposeHere} hands an entry to this server's own division only, never to another one:
 * the APPEND path uses it, so a block this server was asked to append is proposed by it or by no one, and once it
 * fails here it is never re-proposed elsewhere behind the client's back (docs/log-replication.md, "an append is
 * never at two positions"). {@link #proposeAnywhere} goes through a Ratis client that finds the leader and retries
 * (with Ratis's retry cache): for CREATE and TRIM, which are idempotent.
 */
public final class RaftReplica implements AutoCloseable {
    private final ReplicationOptions options;
    private final RaftGroup group;
    private final RaftServer server;
    private final BlockStoreStateMachine stateMachine;
    private final RaftClient client;
    private final ClientId selfClientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();

    private final StoreCatchUp catchUp;

    private RaftReplica(final ReplicationOptions options, final RaftGroup group, final RaftServer server,
                        final BlockStoreStateMachine stateMachine, final RaftClient client, final StoreCatchUp catchUp) {
        this.options = options;
        this.group = group;
        this.server = server;
        this.stateMachine = stateMachine;
        this.client = client;
        this.catchUp = catchUp;
    }

    /**
     * Starts this server's Raft member over {@code store}: formats {@code raftDir} on the first start, recovers it
     * (replaying its Raft log into the store) on later ones.
     */
    public static RaftReplica start(final ReplicationOptions options, final LogStore store, final Path raftDir,
                                    final String bindHost, final int blockSize, final ClusterSecret secret)
            throws IOException {
        final RaftGroup group = options.peers().group();
        final RaftPeers.Peer self = options.peers().peer(options.nodeId());
        final RaftProperties props = properties(options, blockSize);
        final boolean existing = Files.isDirectory(raftDir) && hasContent(raftDir);
        Files.createDirectories(raftDir);
        RaftServerConfigKeys.setStorageDir(props, List.of(raftDir.toFile()));
        GrpcConfigKeys.Server.setPort(props, self.raftPort());
        // the Raft port listens on --raft-host, by default where the log port does (--host)
        GrpcConfigKeys.Server.setHost(props, options.raftHost() != null ? options.raftHost() : bindHost);
        final Parameters tls = tlsParameters(options);
        final StoreCatchUp catchUp = new StoreCatchUp(options, group, properties(options, blockSize), secret);
        final BlockStoreStateMachine sm = new BlockStoreStateMachine(store, catchUp);
        final RaftServer server;
        try {
            server = RaftServer.newBuilder().setGroup(group).setProperties(props).setParameters(tls)
                .setServerId(RaftPeerId.valueOf(self.id())).setStateMachine(sm)
                .setOption(existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT).build();
            server.start();
        } catch (IOException | RuntimeException e) {
            catchUp.close();
            throw e;
        }
        final RaftClient client = RaftClient.newBuilder().setProperties(properties(options, blockSize)).setParameters(tls)
            .setRaftGroup(group).build();
        return new RaftReplica(options, group, server, sm, client, catchUp);
    }

    /** The Raft port's mutual TLS (--raft-tls-*), for this replica's server and every Ratis client it builds. */
    static Parameters tlsParameters(final ReplicationOptions options) {
        return options.tls() == null ? new Parameters() : options.tls().parameters();
    }

    private static boolean hasContent(final Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.findAny().isPresent();
        }
    }

    private static RaftProperties properties(final ReplicationOptions o, final int blockSize) {
        final RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(o.electionTimeoutMin().toMillis(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(o.electionTimeoutMax().toMillis(), TimeUnit.MILLISECONDS));
        // one entry holds up to maxBlocksPerEntry blocks: the Raft log's write buffer and the appender's batch must
        // take at least one whole entry
        final long entry = (long) o.maxBlocksPerEntry() * blockSize + 4096;
        final long buffer = Math.max(entry * 2, 4L << 20);
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(buffer + 4096));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf(buffer));
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(buffer + (1 << 20)));
        StoreSnapshots.configure(p, o.snapshotEvery(), SizeInBytes.valueOf(o.raftSegmentBytes()));
        // Everything else is Ratis's default, on purpose (docs/perf/replication.md, "where an entry's commit time
        // goes"): timestamps per entry put 85-95 % of the commit time between the leader's proposal and the
        // followers' Raft-log write, with the followers writing ~1 entry per ~10 ms, under 93 % CPU pressure, while a
        // 128 KB synced write takes 0.45 ms. The appender's wait-time.min at 1 ms instead of 10 ms (the followers'
        // write interval stayed ~10 ms), an 8 MB gRPC flow-control window and 16 entries in flight each measured
        // no better than the defaults in interleaved runs: the time is CPU queueing along the entry's thread hops
        // across three JVMs, which no Ratis setting removes.
        return p;
    }

    /** How this replica catches up from its peers' stores when its leader purged what it needs. */
    public StoreCatchUp catchUp() {
        return catchUp;
    }

    public BlockStoreStateMachine stateMachine() {
        return stateMachine;
    }

    private DivisionInfo info() throws IOException {
        return server.getDivision(group.getGroupId()).getInfo();
    }

    /** Whether this server leads and may take appends now (its term's first entry is committed). */
    public boolean isLeaderReady() {
        try {
            final DivisionInfo i = info();
            return i.isLeader() && i.isLeaderReady();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The log-protocol address of the leader as this server knows it, or null if it knows none (an election is
     * under way, or this server is cut off).
     */
    public String leaderClientAddress() {
        try {
            final RaftPeerId leader = info().getLeaderId();
            final RaftPeers.Peer p = leader == null ? null : options.peers().peer(leader.toString());
            return p == null ? null : p.clientAddress();
        } catch (IOException e) {
            return null;
        }
    }

    /** The first index this replica's Raft log still holds (entries below were purged after a snapshot), -1 if none. */
    public long raftLogStartIndex() {
        try {
            return server.getDivision(group.getGroupId()).getRaftLog().getStartIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The index the next entry of this replica's Raft log takes (its last entry's index + 1). */
    public long raftLogNextIndex() {
        try {
            return server.getDivision(group.getGroupId()).getRaftLog().getNextIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The Raft index of the last entry this replica applied to its store. */
    public long appliedIndex() {
        return stateMachine.getLastAppliedTermIndex().getIndex();
    }

    /** The Raft index of this replica's latest snapshot, -1 if it has none. */
    public long snapshotIndex() {
        final var s = stateMachine.getLatestSnapshot();
        return s == null ? -1 : s.getIndex();
    }

    /** This server's own Raft id. */
    public String id() {
        return options.nodeId();
    }

    /** The current Raft term (tests, metrics). */
    public long term() {
        try {
            return info().getCurrentTerm();
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * Proposes {@code entry} to this server's own division; completes with the reply once a majority committed it and
     * this replica applied it, or with the reason it did not (not the leader, stepped down, the state machine refused).
     * {@code entry} is handed over: the caller must not change it afterwards.
     */
    public CompletableFuture<RaftClientReply> proposeHere(final byte[] entry) {
        final RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(selfClientId)
            .setServerId(server.getId()).setGroupId(group.getGroupId()).setCallId(callIds.incrementAndGet())
            // wrapped, not copied: the caller built the entry for this proposal alone and never writes it again, and an
            // entry is up to maxBlocksPerEntry blocks (256 KB), copied once more for every follower anyway
            .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry))).setType(RaftClientRequest.writeRequestType())
            .build();
        try {
            return server.submitClientRequestAsync(request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Proposes an idempotent entry (CREATE, TRIM) through whichever server leads, retrying as Ratis's client does. */
    public CompletableFuture<RaftClientReply> proposeAnywhere(final byte[] entry) {
        return client.async().send(Message.valueOf(ByteString.copyFrom(entry)));
    }

    @Override
    public void close() throws IOException {
        try {
            client.close();
        } finally {
            try {
                server.close();
            } finally {
                catchUp.close();
            }
        }
    }
}
