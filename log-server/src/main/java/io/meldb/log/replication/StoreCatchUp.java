package io.meldb.log.replication;

import io.meldb.wire.auth.ClusterSecret;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Catches a follower up from a peer's block store when its leader purged the Raft entries it needs (Raft §7: the
 * leader "sends a snapshot"; here, Ratis's install-snapshot notification, {@code installSnapshotEnabled = false}). The
 * block store is the state, so installing a snapshot means holding every block up to a peer's snapshot point:
 *
 * <ol>
 *   <li>wait until this replica's applier is idle (Ratis refuses new entries while a snapshot is being installed, so
 *   the store stays this task's alone from then on);</li>
 *   <li>ask a peer, the leader first, for its latest snapshot point (term-index, next position): a stale read of its
 *   state machine. The point must reach the entry before the leader's first Raft entry, or the leader could not go on
 *   from it;</li>
 *   <li>read the blocks this store lacks from that peer's log port (the LogClient READ), append them, force the store,
 *   record the point as this replica's snapshot, and complete with its term-index. Ratis then reloads the state
 *   machine from it and the leader sends the entries after it.</li>
 * </ol>
 *
 * <p>The blocks are copied by {@link PeerBlockFetcher}. A store that is already past the point (its Raft directory lost, its store kept) fetches nothing: the blocks
 * it holds beyond are the ones the later committed entries produce (every replica applies the same committed entries in
 * the same order), and re-applying them is counted, not stored. An attempt that reaches no peer fails its future after
 * trying each once, and the leader notifies again: a leader change is picked up by the next notification.
 */
public final class StoreCatchUp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StoreCatchUp.class);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** How long an attempt waits for the applier to go idle, and pauses before failing (no hot retry loop). */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(30);
    private static final Duration FAILED_PAUSE = Duration.ofMillis(500);
    /** An installed point Ratis has not taken this long after is stuck (see {@link #watch}). */
    private static final Duration STUCK_AFTER = Duration.ofSeconds(60);

    private final ReplicationOptions options;
    private final RaftGroup group;
    private final ClusterSecret secret;
    /** Queries peers one attempt each (no retry: a peer that is down is skipped, the next one asked). */
    private final RaftClient queryClient;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "raft-catch-up");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong blocksFetched = new AtomicLong();
    private final AtomicLong installs = new AtomicLong();
    private volatile boolean closed;

    public StoreCatchUp(final ReplicationOptions options, final RaftGroup group, final RaftProperties clientProperties,
                        final ClusterSecret secret) {
        this.options = options;
        this.group = group;
        this.secret = secret;
        this.queryClient = RaftClient.newBuilder().setProperties(clientProperties).setRaftGroup(group)
            .setParameters(RaftReplica.tlsParameters(options)).setRetryPolicy(RetryPolicies.noRetry()).build();
    }

    /** Blocks fetched from peers so far (tests, the log line). */
    public long blocksFetched() {
        return blocksFetched.get();
    }

    /** Snapshots installed from peers so far. */
    public long installs() {
        return installs.get();
    }

    /** Starts one attempt on this replica's catch-up thread; completes with the term-index the store now holds. */
    CompletableFuture<TermIndex> install(final BlockStoreStateMachine sm, final String leaderId, final TermIndex firstInLog) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return attempt(sm, leaderId, firstInLog);
            } catch (IOException | RuntimeException e) {
                LOG.warn("replicated log: catching up failed, the leader will ask again: {}", e.toString());
                pause(FAILED_PAUSE);
                throw new IllegalStateException("catching up from a peer failed: " + e.getMessage(), e);
            }
        }, worker);
    }

    private TermIndex attempt(final BlockStoreStateMachine sm, final String leaderId, final TermIndex firstInLog)
            throws IOException {
        final long deadline = System.nanoTime() + IDLE_WAIT.toNanos();
        while (!sm.applierIdle()) {
            if (closed || System.nanoTime() - deadline > 0) {
                throw new IOException("the replica's applier did not go idle within " + IDLE_WAIT.toSeconds() + " s");
            }
            pause(Duration.ofMillis(20));
        }
        final long needed = firstInLog.getIndex() - 1;
        final List<String> reasons = new ArrayList<>();
        for (RaftPeers.Peer peer : candidates(leaderId)) {
            if (closed) {
                throw new IOException("the replica is closing");
            }
            try {
                final StoreSnapshots.Point p = snapshotPoint(peer);
                if (p == null || p.termIndex().getIndex() < needed) {
                    reasons.add(peer.id() + ": its snapshot " + (p == null ? "does not exist" : "is at " + p.termIndex()));
                    continue;
                }
                final long fetched = PeerBlockFetcher.fetch(sm.store(), peer.clientHost(), peer.clientPort(), peer.id(), secret,
                    p.nextPosition());
                sm.record(p);
                blocksFetched.addAndGet(fetched);
                installs.incrementAndGet();
                LOG.info("replicated log: {} caught up to {} (next position {}) from {}: {} blocks fetched",
                    options.nodeId(), p.termIndex(), p.nextPosition(), peer.id(), fetched);
                watch(sm, sm.reloads());
                return p.termIndex();
            } catch (IOException | RuntimeException e) {
                reasons.add(peer.id() + ": " + e);
            }
        }
        throw new IOException("no peer could catch this replica up past Raft index " + needed + " (" + reasons + ")");
    }

    /**
     * Ratis takes the installed point on the leader's next notification. If leadership moved meanwhile, Ratis 3.3 may
     * never send it (the new leader sends entries the follower keeps refusing, or notifies from a lower index, which
     * the follower rejects): say so loudly, with the way out (docs/log-replication.md, "Snapshots").
     */
    private void watch(final BlockStoreStateMachine sm, final long reloadsBefore) {
        worker.schedule(() -> {
            if (!closed && sm.reloads() == reloadsBefore) {
                LOG.error("replicated log: {} installed a snapshot from a peer's store {} s ago but Raft has not taken it"
                    + " (a leader change while it was installing); it refuses new entries until restarted: restart"
                    + " this log server", options.nodeId(), STUCK_AFTER.toSeconds());
            }
        }, STUCK_AFTER.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The leader first (it purged, so its snapshot reaches far enough), then the other peers; never this replica. */
    private List<RaftPeers.Peer> candidates(final String leaderId) {
        final List<RaftPeers.Peer> out = new ArrayList<>();
        final RaftPeers.Peer leader = leaderId == null ? null : options.peers().peer(leaderId);
        if (leader != null && !leader.id().equals(options.nodeId())) {
            out.add(leader);
        }
        for (RaftPeers.Peer p : options.peers().peers()) {
            if (!p.id().equals(options.nodeId()) && p != leader) {
                out.add(p);
            }
        }
        return out;
    }

    private StoreSnapshots.Point snapshotPoint(final RaftPeers.Peer peer) throws IOException {
        final Message q = Message.valueOf(ByteString.copyFrom(new byte[] {BlockStoreStateMachine.QUERY_SNAPSHOT_POINT}));
        final RaftClientReply reply = join(queryClient.async().sendStaleRead(q, 0, RaftPeerId.valueOf(peer.id())),
            "the snapshot point of " + peer.id());
        if (!reply.isSuccess()) {
            throw new IOException("peer " + peer.id() + " did not answer the snapshot query: " + reply.getException());
        }
        return StoreSnapshots.Point.decode(reply.getMessage().getContent().asReadOnlyByteBuffer());
    }

    static <T> T join(final CompletableFuture<T> f, final String what) throws IOException {
        try {
            return f.get(REQUEST_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for " + what, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(what + ": " + e.getCause(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException(what + ": no answer within " + REQUEST_TIMEOUT.toSeconds() * 2 + " s", e);
        }
    }

    private static void pause(final Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        worker.shutdownNow();
        queryClient.close();
    }
}
