package io.meldb.log.replication;

import java.time.Duration;
import java.util.Objects;

/**
 * How a log server replicates its log (issue 22): the replication factor, this server's id among the peers, the
 * peers, how long an append may wait for a majority, and Raft's election timeout. Factor 1 means no replication:
 * the server keeps today's single-server path and none of this is used.
 */
public final class ReplicationOptions {
    /**
     * Raft's election timeout range: Ratis's default (150-300 ms) made leadership churn on a loaded 2-core machine
     * (25 elections in one benchmark run, docs/log-replication.md); 1-2 s costs that much more failover time.
     */
    public static final Duration DEFAULT_ELECTION_TIMEOUT_MIN = Duration.ofSeconds(1);
    public static final Duration DEFAULT_ELECTION_TIMEOUT_MAX = Duration.ofSeconds(2);
    /** Blocks at most in one Raft entry: one block per entry measured 5.5x slower than BookKeeper, 16 per entry 1.4x. */
    public static final int DEFAULT_MAX_BLOCKS_PER_ENTRY = 32;

    /** Raft entries between snapshots: up to 32 blocks each, so the Raft log keeps at most a few hundred MB. */
    public static final long DEFAULT_SNAPSHOT_EVERY = 1024;
    /** Ratis's default segment size: purging deletes whole closed segments. */
    public static final long DEFAULT_RAFT_SEGMENT_BYTES = 32L << 20;

    private final int factor;
    private long snapshotEvery = DEFAULT_SNAPSHOT_EVERY;
    private long raftSegmentBytes = DEFAULT_RAFT_SEGMENT_BYTES;
    private final String nodeId;
    private final RaftPeers peers;
    private Duration commitTimeout = Duration.ofSeconds(5);
    private Duration electionTimeoutMin = DEFAULT_ELECTION_TIMEOUT_MIN;
    private Duration electionTimeoutMax = DEFAULT_ELECTION_TIMEOUT_MAX;
    private int maxBlocksPerEntry = DEFAULT_MAX_BLOCKS_PER_ENTRY;
    private String raftHost;
    private RaftTls tls;

    /**
     * @throws IllegalArgumentException if the factor is not the number of peers, or {@code nodeId} is not one of them
     */
    public ReplicationOptions(final int factor, final String nodeId, final RaftPeers peers) {
        if (factor < 2) {
            throw new IllegalArgumentException("a replicated log needs --replication-factor of at least 2, got " + factor);
        }
        if (peers.size() != factor) {
            throw new IllegalArgumentException("--replication-factor " + factor + " but --peers lists " + peers.size()
                + " servers (" + peers + ")");
        }
        if (peers.peer(Objects.requireNonNull(nodeId, "--node-id")) == null) {
            throw new IllegalArgumentException("--node-id '" + nodeId + "' is not one of --peers (" + peers + ")");
        }
        this.factor = factor;
        this.nodeId = nodeId;
        this.peers = peers;
    }

    public int factor() {
        return factor;
    }

    public String nodeId() {
        return nodeId;
    }

    public RaftPeers peers() {
        return peers;
    }

    /** An append not committed by a majority within this long is answered OUTCOME_UNKNOWN (it may still commit). */
    public Duration commitTimeout() {
        return commitTimeout;
    }

    public ReplicationOptions commitTimeout(final Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the replication commit timeout must be positive, got " + timeout);
        }
        this.commitTimeout = timeout;
        return this;
    }

    public Duration electionTimeoutMin() {
        return electionTimeoutMin;
    }

    public Duration electionTimeoutMax() {
        return electionTimeoutMax;
    }

    public ReplicationOptions electionTimeout(final Duration min, final Duration max) {
        if (min.isNegative() || min.isZero() || max.compareTo(min) <= 0) {
            throw new IllegalArgumentException("election timeout range " + min + ".." + max + " must be positive and increasing");
        }
        this.electionTimeoutMin = min;
        this.electionTimeoutMax = max;
        return this;
    }

    /** The address the Raft port listens on; null (the default): the log server's own {@code --host}. */
    public String raftHost() {
        return raftHost;
    }

    public ReplicationOptions raftHost(final String host) {
        this.raftHost = host == null || host.isBlank() ? null : host;
        return this;
    }

    /** Mutual TLS on the Raft port, or null (the default): plain gRPC ({@link RaftPortGuard} says when that may start). */
    public RaftTls tls() {
        return tls;
    }

    public ReplicationOptions tls(final RaftTls raftTls) {
        this.tls = raftTls;
        return this;
    }

    public int maxBlocksPerEntry() {
        return maxBlocksPerEntry;
    }

    public ReplicationOptions maxBlocksPerEntry(final int n) {
        if (n < 1 || n > 256) {
            throw new IllegalArgumentException("blocks per Raft entry " + n + " must be in [1, 256]");
        }
        this.maxBlocksPerEntry = n;
        return this;
    }

    /** Applied Raft entries between two snapshots (each purges the Raft log below it). */
    public long snapshotEvery() {
        return snapshotEvery;
    }

    public ReplicationOptions snapshotEvery(final long entries) {
        if (entries < 1) {
            throw new IllegalArgumentException("--snapshot-every must be at least 1 entry, got " + entries);
        }
        this.snapshotEvery = entries;
        return this;
    }

    /** The largest Raft log segment file; purging releases whole closed segments. */
    public long raftSegmentBytes() {
        return raftSegmentBytes;
    }

    public ReplicationOptions raftSegmentBytes(final long bytes) {
        if (bytes < 64 * 1024) {
            throw new IllegalArgumentException("the Raft log segment size must be at least 64 KB, got " + bytes);
        }
        this.raftSegmentBytes = bytes;
        return this;
    }
}
