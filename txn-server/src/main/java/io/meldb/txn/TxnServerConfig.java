package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.Objects;

/** Everything {@link TxnServer#start} needs; fluent setters, defaults for a local server. */
public final class TxnServerConfig {
    /** Largest key a transaction may write (keys live in every tree node on the path, and in intentions). */
    public static final int MAX_KEY_BYTES = 4096;
    /** Largest value (a row); large data belongs in many rows, and every value is copied into each intention. */
    public static final int MAX_VALUE_BYTES = 1 << 20;
    /**
     * Default of {@link #maxIntentionBytes()}: 256 MiB, room for a transaction that inserts about 1.6 million rows
     * of 100 bytes (a changed row costs its key, its value and at most
     * {@link io.meldb.core.Transaction#NODE_OVERHEAD_BOUND} bytes more, plus a range for each new key under
     * serializable isolation: about 164 bytes in all), while its commit needs about 1 GiB of direct memory at
     * most. {@code pgbench -i -s 10} (1,000,000 accounts, its primary-key step rewriting them all) fits.
     */
    public static final int DEFAULT_MAX_INTENTION_BYTES = 256 << 20;
    /**
     * A commit waits for its decision 1 ms longer per this many bytes of intention (10 MB/s, what a small machine
     * encodes, logs, decodes and melds with room to spare), beyond {@link #commitTimeout()} in process and the RPC
     * client's request timeout over the wire.
     */
    public static final int COMMIT_BYTES_PER_EXTRA_MILLI = io.meldb.txn.protocol.TxnRpcProtocol.COMMIT_BYTES_PER_EXTRA_MILLI;
    /** The flag that sets {@link #maxIntentionBytes()}, named in the error a transaction over it gets. */
    public static final String MAX_INTENTION_BYTES_FLAG = "--max-intention-bytes";

    private int serverId = 1;
    private String logHost = "127.0.0.1";
    private int logPort;
    /** A replicated log's servers, host:port,... (issue 22); null: just logHost:logPort. */
    private String logAddresses;
    private ClusterConfig cluster;
    private int maxInFlight = 256;
    private int maxIntentionBytes = DEFAULT_MAX_INTENTION_BYTES;
    private Duration admissionWait = Duration.ofMillis(100);
    private Duration commitTimeout = Duration.ofSeconds(10);
    private Duration startTimeout = Duration.ofSeconds(60);
    private long checkpointEvery = 20_000;
    private long checkpointBytes = 256L << 20;
    private long maxNodeMemory;
    private int checkpointChunkBytes = 256 * 1024;
    private boolean trim = true;
    private boolean adoptOwnIntentions = true;
    private boolean writeCheckpoints = true;
    /** Null: {@link ThreadingMode#forThisMachine()}. */
    private ThreadingMode threading;
    private int decodeThreads = 1;
    private int outcomeWindow = 1 << 20;
    private MeterRegistry registry;
    private io.meldb.wire.auth.ClusterSecret clusterSecret;

    public static TxnServerConfig log(final String host, final int port) {
        final TxnServerConfig c = new TxnServerConfig();
        c.logHost = Objects.requireNonNull(host);
        c.logPort = port;
        return c;
    }

    /** 1..65535, unique in the cluster: it names the server's block stream in the log. */
    public int serverId() {
        return serverId;
    }

    public TxnServerConfig serverId(final int serverId) {
        if (serverId < 1 || serverId > 0xFFFF) {
            throw new IllegalArgumentException("server id " + serverId + " outside 1..65535");
        }
        this.serverId = serverId;
        return this;
    }

    /** The cluster secret this server proves to the log server (and requires on its own RPC port); null for none. */
    public io.meldb.wire.auth.ClusterSecret clusterSecret() {
        return clusterSecret;
    }

    public TxnServerConfig clusterSecret(final io.meldb.wire.auth.ClusterSecret secret) {
        this.clusterSecret = secret;
        return this;
    }

    public String logHost() {
        return logHost;
    }

    public int logPort() {
        return logPort;
    }

    /** Every log server to try, {@code host:port,...}: the replicas of a replicated log, or the one server. */
    public String logAddresses() {
        return logAddresses != null ? logAddresses : logHost + ":" + logPort;
    }

    /**
     * The replicas of a replicated log, {@code host:port,host:port,...}: the client finds the leader among them and
     * fails over by itself. The first is also {@link #logHost()}/{@link #logPort()}.
     */
    public TxnServerConfig logAddresses(final String hostPorts) {
        final io.meldb.log.client.LogClientOptions parsed = io.meldb.log.client.LogClientOptions.toAll(hostPorts);
        this.logHost = parsed.host();
        this.logPort = parsed.port();
        this.logAddresses = String.join(",", parsed.addresses());
        return this;
    }

    /**
     * The meld configuration this server insists on, or null to take whatever the log holds (and the default
     * when it creates the log).
     */
    public ClusterConfig cluster() {
        return cluster;
    }

    public TxnServerConfig cluster(final ClusterConfig cluster) {
        this.cluster = cluster;
        return this;
    }

    /** Transactions open at once; {@link TxnService#begin} waits {@link #admissionWait()} for a slot, then refuses. */
    public int maxInFlight() {
        return maxInFlight;
    }

    public TxnServerConfig maxInFlight(final int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("max in-flight " + maxInFlight + " must be at least 1");
        }
        this.maxInFlight = maxInFlight;
        return this;
    }

    /**
     * Most bytes one transaction's intention may take ({@value #MAX_INTENTION_BYTES_FLAG}): the write, or the
     * serializable read, that takes a transaction's size bound past it fails at once with TOO_LARGE and ends the
     * transaction. Memory while such a transaction commits is a few times this (its tree, the encoded record, the
     * log's reassembly and the decoded copy), so it is a memory setting as much as a limit.
     */
    public int maxIntentionBytes() {
        return maxIntentionBytes;
    }

    public TxnServerConfig maxIntentionBytes(final int maxIntentionBytes) {
        if (maxIntentionBytes < 4096 || maxIntentionBytes > io.meldb.core.IntentionFormat.MAX_RECORD_LENGTH
            - LogRecords.INTENTION_HEADER) {
            throw new IllegalArgumentException("max intention bytes " + maxIntentionBytes + " outside 4096.."
                + (io.meldb.core.IntentionFormat.MAX_RECORD_LENGTH - LogRecords.INTENTION_HEADER));
        }
        this.maxIntentionBytes = maxIntentionBytes;
        return this;
    }

    /**
     * A warning when this JVM's direct-memory limit is below 4x {@link #maxIntentionBytes()}, what committing a
     * transaction near the limit can take at once (its tree, the encoded record, the log's reassembled copy and
     * the decoded copy); null when it is not.
     */
    public String directMemoryWarning() {
        long max = Runtime.getRuntime().maxMemory(); // the JVM's default for MaxDirectMemorySize
        try {
            final String option = java.lang.management.ManagementFactory
                .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                .getVMOption("MaxDirectMemorySize").getValue();
            if (Long.parseLong(option) > 0) {
                max = Long.parseLong(option);
            }
        } catch (RuntimeException e) {
            // not HotSpot: the heap size is the best guess
        }
        final long needed = 4L * maxIntentionBytes;
        return max >= needed ? null : "the JVM's direct memory limit (" + (max >> 20) + " MiB) is below 4x "
            + MAX_INTENTION_BYTES_FLAG + " (" + (needed >> 20) + " MiB): a transaction near the limit may exhaust it"
            + " while it commits; raise -XX:MaxDirectMemorySize (or -Xmx) or lower " + MAX_INTENTION_BYTES_FLAG;
    }

    public Duration admissionWait() {
        return admissionWait;
    }

    public TxnServerConfig admissionWait(final Duration admissionWait) {
        this.admissionWait = Objects.requireNonNull(admissionWait);
        return this;
    }

    /**
     * How long {@link TxnSession#commit()} waits for meld's decision before answering OUTCOME_UNKNOWN, plus 1 ms per
     * 10 KB of the transaction's intention (a 100 MB one gets 10 s more).
     */
    public Duration commitTimeout() {
        return commitTimeout;
    }

    public TxnServerConfig commitTimeout(final Duration commitTimeout) {
        this.commitTimeout = Objects.requireNonNull(commitTimeout);
        return this;
    }

    /** How long start-up (recovery and catching up with the log) may take. */
    public Duration startTimeout() {
        return startTimeout;
    }

    public TxnServerConfig startTimeout(final Duration startTimeout) {
        this.startTimeout = Objects.requireNonNull(startTimeout);
        return this;
    }

    /**
     * Take a checkpoint every this many intentions (0 = never; meld paper App. A): it bounds memory (see
     * {@link TxnServer}) and, if {@link #writeCheckpoints()}, is appended to the log for recovery.
     */
    public long checkpointEvery() {
        return checkpointEvery;
    }

    public TxnServerConfig checkpointEvery(final long checkpointEvery) {
        if (checkpointEvery < 0) {
            throw new IllegalArgumentException("checkpoint interval " + checkpointEvery + " is negative");
        }
        this.checkpointEvery = checkpointEvery;
        return this;
    }

    /**
     * Also take a checkpoint (and so start a new memory generation) once the node memory decoded and melded since
     * the last one reaches this many bytes, or the size of the checkpoint the generation was loaded from if that is
     * larger (so compaction's cost stays proportional to what it frees); 0 = by {@link #checkpointEvery()} only.
     * Intentions differ in size by orders of magnitude (TPC-C's new-order decodes to ~70 KB), so a count alone does
     * not bound memory.
     */
    public long checkpointBytes() {
        return checkpointBytes;
    }

    public TxnServerConfig checkpointBytes(final long checkpointBytes) {
        if (checkpointBytes < 0) {
            throw new IllegalArgumentException("checkpoint byte threshold " + checkpointBytes + " is negative");
        }
        this.checkpointBytes = checkpointBytes;
        return this;
    }

    /**
     * Node memory (off-heap versions) past which new update transactions are refused with
     * {@link TxnError#OUT_OF_MEMORY}; 0 (the default) = 70% of the JVM's direct-memory limit.
     */
    public long maxNodeMemory() {
        return maxNodeMemory;
    }

    public TxnServerConfig maxNodeMemory(final long maxNodeMemory) {
        if (maxNodeMemory < 0) {
            throw new IllegalArgumentException("node memory limit " + maxNodeMemory + " is negative");
        }
        this.maxNodeMemory = maxNodeMemory;
        return this;
    }

    public int checkpointChunkBytes() {
        return checkpointChunkBytes;
    }

    public TxnServerConfig checkpointChunkBytes(final int checkpointChunkBytes) {
        this.checkpointChunkBytes = checkpointChunkBytes;
        return this;
    }

    /**
     * How the meld pipeline is laid out on threads; by default {@link ThreadingMode#forThisMachine()}
     * ({@link ThreadingMode#CHAINED} on up to 4 processors, else {@link ThreadingMode#DEDICATED}).
     */
    public ThreadingMode threading() {
        return threading != null ? threading : ThreadingMode.forThisMachine();
    }

    public TxnServerConfig threading(final ThreadingMode threading) {
        this.threading = Objects.requireNonNull(threading);
        return this;
    }

    /**
     * Whether decoding intentions (the deserializer stage, Hyder II §5.2) runs on threads of its own, ahead of
     * the meld stage, or in turn with melding on one thread: {@link #threading()} is not {@link ThreadingMode#SHARED}.
     */
    public boolean separateDecoder() {
        return threading().separateDecoder();
    }

    /**
     * The older setting, an alias of {@link #threading(ThreadingMode)}: false is {@link ThreadingMode#SHARED};
     * true keeps a mode that already decodes apart, and turns SHARED or CHAINED into {@link ThreadingMode#DEDICATED}.
     */
    public TxnServerConfig separateDecoder(final boolean separateDecoder) {
        if (!separateDecoder) {
            threading = ThreadingMode.SHARED;
        } else if (!threading().separateDecoder()) {
            threading = ThreadingMode.DEDICATED;
        }
        return this;
    }

    /**
     * Deserializer threads (Hyder II §5.2) with {@link #separateDecoder()}: intention csn goes to thread
     * csn mod N; a reader thread reassembles records in log order and hands them out.
     */
    public int decodeThreads() {
        return decodeThreads;
    }

    public TxnServerConfig decodeThreads(final int decodeThreads) {
        if (decodeThreads < 1) {
            throw new IllegalArgumentException("decode threads " + decodeThreads + " must be at least 1");
        }
        this.decodeThreads = decodeThreads;
        return this;
    }

    /**
     * Whether premeld runs on t threads of its own (the cluster's premeld thread count), ahead of final meld, or in
     * line on the meld thread: {@link #threading()} is {@link ThreadingMode#DEDICATED}. Decisions and states are
     * the same either way.
     */
    public boolean premeldOnThreads() {
        return threading.premeldOnThreads();
    }

    /**
     * The older setting, an alias of {@link #threading(ThreadingMode)} that only applies with a separate decoder:
     * there false is {@link ThreadingMode#DEDICATED_DECODE} and true {@link ThreadingMode#DEDICATED}; under
     * {@link ThreadingMode#SHARED} and {@link ThreadingMode#CHAINED} (no premeld threads possible) it changes nothing.
     */
    public TxnServerConfig premeldOnThreads(final boolean premeldOnThreads) {
        if (threading().separateDecoder()) {
            threading = premeldOnThreads ? ThreadingMode.DEDICATED : ThreadingMode.DEDICATED_DECODE;
        }
        return this;
    }

    /**
     * Whether this server appends its checkpoints to the log (every server checkpoints in memory to bound its
     * memory; one writer per cluster is enough for recovery).
     */
    public boolean writeCheckpoints() {
        return writeCheckpoints;
    }

    public TxnServerConfig writeCheckpoints(final boolean writeCheckpoints) {
        this.writeCheckpoints = writeCheckpoints;
        return this;
    }

    /**
     * Whether this server trims the log after writing a checkpoint (meld paper App. B), keeping everything from
     * the previous checkpoint's resume position on, so the log always holds two complete checkpoints.
     */
    public boolean trim() {
        return trim;
    }

    public TxnServerConfig trim(final boolean trim) {
        this.trim = trim;
        return this;
    }

    /**
     * Whether the log reader melds this server's own intentions from the trees their sessions built (copied for
     * their CSN, {@link OwnIntentions}) instead of decoding the records it reads back; the result is the same
     * either way (meld paper App. E), this only saves the decode.
     */
    public boolean adoptOwnIntentions() {
        return adoptOwnIntentions;
    }

    public TxnServerConfig adoptOwnIntentions(final boolean adoptOwnIntentions) {
        this.adoptOwnIntentions = adoptOwnIntentions;
        return this;
    }

    /** How many recent transaction outcomes are kept for {@link TxnService#outcome}. */
    public int outcomeWindow() {
        return outcomeWindow;
    }

    public TxnServerConfig outcomeWindow(final int outcomeWindow) {
        this.outcomeWindow = outcomeWindow;
        return this;
    }

    /** Where metrics go; null for a private registry (see {@link TxnServer#registry()}). */
    public MeterRegistry registry() {
        return registry;
    }

    public TxnServerConfig registry(final MeterRegistry registry) {
        this.registry = registry;
        return this;
    }
}
