package io.meldb.log.replication;

import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogStatus;
import io.meldb.log.storage.ChronicleLogStore;
import io.meldb.wire.auth.ClusterSecret;
import io.netty.buffer.Unpooled;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * <p>Positions the peer trimmed are filled with zero blocks and trimmed here too (they answer TRIMMED, as on the
 * peer). A store that is already past the point (its Raft directory lost, its store kept) fetches nothing: the blocks
 * it holds beyond are the ones the later committed entries produce (every replica applies the same committed entries in
 * the same order), and re-applying them is counted, not stored. An attempt that reaches no peer fails its future after
 * trying each once, and the leader notifies again: a leader change is picked up by the next notification.
 */
public final class StoreCatchUp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StoreCatchUp.class);
    /** Blocks per READ and per append batch. */
    private static final int CHUNK = 256;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** How long an attempt waits for the applier to go idle, and pauses before failing (no hot retry loop). */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(30);
    private static final Duration FAILED_PAUSE = Duration.ofMillis(500);

    private final ReplicationOptions options;
    private final RaftGroup group;
    private final ClusterSecret secret;
    /** Queries peers one attempt each (no retry: a peer that is down is skipped, the next one asked). */
    private final RaftClient queryClient;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
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
            .setRetryPolicy(RetryPolicies.noRetry()).build();
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
                final long fetched = fetch(sm.store(), peer, p.nextPosition());
                sm.record(p);
                blocksFetched.addAndGet(fetched);
                installs.incrementAndGet();
                LOG.info("replicated log: {} caught up to {} (next position {}) from {}: {} blocks fetched",
                    options.nodeId(), p.termIndex(), p.nextPosition(), peer.id(), fetched);
                return p.termIndex();
            } catch (IOException | RuntimeException e) {
                reasons.add(peer.id() + ": " + e);
            }
        }
        throw new IOException("no peer could catch this replica up past Raft index " + needed + " (" + reasons + ")");
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

    /**
     * Reads from {@code peer}'s log port every block below {@code upTo} that the store lacks and appends it; creates
     * the log first on an empty store. Returns the blocks fetched. Only this thread appends meanwhile.
     */
    private long fetch(final LogStore store, final RaftPeers.Peer peer, final long upTo) throws IOException {
        LogClientOptions o = LogClientOptions.to(peer.clientHost(), peer.clientPort()).requestTimeout(REQUEST_TIMEOUT)
            .connectTimeout(REQUEST_TIMEOUT).ioThreads(1);
        if (secret != null) {
            o = o.clusterSecret(secret);
        }
        try (LogClient client = LogClient.connect(o)) {
            final LogStatus status = join(client.status(), "the log status of " + peer.id());
            if (status.tail() < upTo) {
                throw new IOException("peer " + peer.id() + " holds positions below " + status.tail() + " only, not " + upTo);
            }
            createLike(store, client, status, peer);
            long fetched = 0;
            long next = store.tail();
            if (next < status.trimPoint() && next < upTo) {
                next = fillTrimmed(store, Math.min(status.trimPoint(), upTo));
            }
            while (next < upTo) {
                final int count = (int) Math.min(CHUNK, upTo - next);
                final List<byte[]> blocks = join(client.read(next, count), "blocks from " + next + " of " + peer.id());
                if (blocks.isEmpty()) {
                    throw new IOException("peer " + peer.id() + " answered no block at " + next);
                }
                next = appendAll(store, next, blocks);
                fetched += blocks.size();
            }
            return fetched;
        }
    }

    private static void createLike(final LogStore store, final LogClient client, final LogStatus status,
                                   final RaftPeers.Peer peer) throws IOException {
        if (store.isCreated()) {
            if (!store.logId().equals(status.logId()) || store.blockSize() != status.blockSize()) {
                throw new IOException("this replica's store holds log " + store.logId() + " (" + store.blockSize()
                    + "-byte blocks), peer " + peer.id() + " log " + status.logId() + " (" + status.blockSize()
                    + "-byte blocks): wrong data directory?");
            }
            return;
        }
        if (!(store instanceof ChronicleLogStore chronicle)) {
            throw new IOException("a replicated log needs a store that takes the log id");
        }
        final byte[] config = join(client.config(), "the configuration of " + peer.id());
        chronicle.create(status.blockSize(), config, status.logId());
        LOG.info("replicated log: empty store created as log {} from peer {}", status.logId(), peer.id());
    }

    /**
     * Positions the peer released: zero blocks in this store, trimmed as they go (a whole queue file at a time is
     * freed), so they answer TRIMMED here too and the disk holds no more than a file of them.
     */
    private static long fillTrimmed(final LogStore store, final long upTo) throws IOException {
        final byte[] zeros = new byte[store.blockSize()];
        long next = store.tail();
        final List<byte[]> chunk = new ArrayList<>(CHUNK);
        while (next < upTo) {
            chunk.clear();
            for (int i = 0; i < Math.min(CHUNK, upTo - next); i++) {
                chunk.add(zeros);
            }
            next = appendAll(store, next, chunk);
            store.trim(next);
        }
        LOG.info("replicated log: positions below {} are trimmed on the peer, trimmed here too", upTo);
        return next;
    }

    /** Appends {@code blocks} at {@code first}, {@code first + 1}, ...; waits until all are stored. */
    private static long appendAll(final LogStore store, final long first, final List<byte[]> blocks) throws IOException {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final int n = blocks.size();
        for (int i = 0; i < n; i++) {
            final long expected = first + i;
            final boolean last = i == n - 1;
            store.append(Unpooled.wrappedBuffer(blocks.get(i)), new LogStore.AppendCallback() {
                @Override
                public void appended(final long position) {
                    if (position != expected) {
                        done.completeExceptionally(new IllegalStateException("fetched block " + expected
                            + " was stored at " + position + ": the store is not this task's alone"));
                    } else if (last) {
                        done.complete(null);
                    }
                }

                @Override
                public void failed(final LogErrorException error) {
                    done.completeExceptionally(error);
                }
            });
        }
        join(done, "storing blocks " + first + ".." + (first + n - 1));
        // the tail moves once the writer's batch is done, just after its callbacks
        final long deadline = System.nanoTime() + REQUEST_TIMEOUT.toNanos();
        while (store.tail() < first + n) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the store's tail stayed at " + store.tail() + " after storing up to " + (first + n));
            }
            pause(Duration.ofMillis(1));
        }
        return first + n;
    }

    private static <T> T join(final CompletableFuture<T> f, final String what) throws IOException {
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
