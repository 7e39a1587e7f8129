package io.meldb.txn;

import io.meldb.core.Arena;
import io.meldb.core.BlockWriter;
import io.meldb.core.CheckpointLoader;
import io.meldb.core.CheckpointWriter;
import io.meldb.core.Intention;
import io.meldb.core.IntentionDecoder;
import io.meldb.core.IntentionEncoder;
import io.meldb.core.IntentionFormatException;
import io.meldb.core.Isolation;
import io.meldb.core.MeldPipeline;
import io.meldb.core.Node;
import io.meldb.core.NodeDirectory;
import io.meldb.core.NodeMemory;
import io.meldb.core.Snapshot;
import io.meldb.core.StateHash;
import io.meldb.core.RangeDependency;
import io.meldb.core.Transaction;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogException;
import io.meldb.log.client.BlockListener;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogService;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A transaction server (Hyder II §5.2-5.3; DESIGN.md "Data flow of one update transaction"): it runs client
 * transactions on snapshots of its copy of the tree, appends their intentions to the shared log, and rolls its copy
 * forward by melding every intention in the log, its own and its peers', answering its own clients once final meld
 * has decided. All servers of a cluster read the same log with the same configuration and so reach the same
 * decisions and the same states.
 *
 * <p>Threads: client threads run transactions (reads walk an immutable committed state; writes build the
 * intention in an arena of the session's own); the log client's I/O thread queues blocks; one pipeline thread
 * reassembles records, decodes intentions and runs {@link MeldPipeline} (premeld, group meld, final meld); a
 * checkpoint thread serializes states for checkpoint intentions (meld paper App. A) and trims the log (App. B).
 *
 * <p>Each start is a new <em>incarnation</em>: the server appends a fence record and uses its log position as the
 * incarnation number. Meld rejects anything an older incarnation of the same server still gets into the log after
 * the fence, so a client whose server died can learn a definite outcome of its transaction from any server.
 */
public final class TxnServer implements TxnService {
    private static final Logger LOG = LoggerFactory.getLogger(TxnServer.class);

    /** Blocks queued between the log client's I/O thread and the pipeline thread before reading pauses. */
    private static final int INBOX_CAPACITY = 8192;
    /** Reject reason of an empty intention: it only completes a group-meld pair. */
    private static final String NUDGE = "nudge";
    /** How long the log must be quiet before a held group-meld intention is nudged. */
    private static final long NUDGE_AFTER_NANOS = 2_000_000;

    private final TxnServerConfig config;
    private final int serverId;
    private final LogService log;
    private final ClusterConfig cluster;
    private final TxnMetrics metrics;
    private final MeterRegistry registry;
    private final Semaphore admission;
    private final AtomicLong sequence = new AtomicLong();
    /** Commits of this process waiting for their decision, by sequence (unique within the process). */
    private final ConcurrentHashMap<Long, PendingCommit> pendingCommits = new ConcurrentHashMap<>();
    private final OutcomeTable outcomes;
    /**
     * Transactions whose intention the reader has read and whose decision has not reached {@link #outcomes} yet
     * (held by group meld, or in the pipeline): in the log, so not NOT_COMMITTED, whatever fences follow.
     */
    private final ConcurrentHashMap<TxnId, Boolean> seen = new ConcurrentHashMap<>();
    /** Fences this server is appending for other servers' incarnations (see {@link #awaitOutcome}), by incarnation. */
    private final ConcurrentHashMap<Long, CompletableFuture<Long>> fencing = new ConcurrentHashMap<>();
    /** Re-fences this server's stream after an append failed or another server fenced it. */
    private final StreamHealer healer;
    private final ConcurrentLinkedQueue<Workspace> workspaces = new ConcurrentLinkedQueue<>();
    private final ExecutorService checkpointExecutor;
    /** Serializes and reloads checkpoints (while the meld thread waits), apart from appending them. */
    private final ExecutorService compactionExecutor;

    // ---- the append side (guarded by writeLock)
    private final Object writeLock = new Object();
    private BlockWriter writer;
    private final List<CompletableFuture<Long>> blockAppends = new ArrayList<>();

    // ---- the pipeline side (pipeline thread only, unless volatile)
    /** The memory melding works in now; replaced at every checkpoint (see {@link #compact}). */
    private Generation generation;
    /** Used by the decode stage; replaced by {@link #compact} while the decode stage waits for it. */
    private volatile IntentionDecoder decoder;
    private MeldPipeline pipeline;
    /**
     * Guards the pairing of {@link #generation} and the published LCS ({@link #lcsRoot}, {@link #lcsCsn}) that
     * sessions pin, and session counts. Publishing takes this lock instead of allocating a snapshot object per
     * commit on the meld thread; readers build their own.
     */
    private final Object generationLock = new Object();
    private long retiredFinalMelds;
    private long retiredEphemerals;
    private long retiredGroupsFormed;
    private long retiredGroupsFallenBack;
    private long retiredPremelds;
    private long retiredPremeldNodes;
    private long retiredGroupNodes;
    private long retiredFinalNodes;
    private long generations;
    private long snapshotsTooOld;
    private final BlockDemux demux;
    private final Thread readerThread;
    private final Thread meldThread;
    private final boolean separateDecoder;
    /** Premeld threads (Hyder II §3: slot csn mod t on thread csn mod t), or none when premeld runs in line. */
    private final Thread[] premeldThreads;
    private final OneToOneConcurrentArrayQueue<Job>[] premeldQueues;
    /** The pipeline premeld threads use; replaced with {@link #pipeline} at every compaction. */
    private volatile MeldPipeline premeldPipeline;
    /** Deserializer threads (csn mod N decodes on thread csn mod N), or none when the reader decodes. */
    private final Thread[] decodeThreads;
    private final OneToOneConcurrentArrayQueue<Job>[] decodeQueues;
    /** The generation deserializer threads decode into; replaced at every compaction. */
    private volatile Generation decodeGeneration;
    /**
     * How each pipeline thread waits for work (see {@link StageIdler}): it parks when idle, and the thread that
     * makes work for it wakes it. The reader's idler also serves the meld stage when there is no separate decoder.
     */
    private final StageIdler readerIdler = new StageIdler();
    private final StageIdler meldIdler;
    private final StageIdler replyIdler = new StageIdler();
    private final StageIdler[] decodeIdlers;
    private final StageIdler[] premeldIdlers;
    /** Decode stage to meld stage: one producer, one consumer, no allocation per hand-over. */
    private final OneToOneConcurrentArrayQueue<Job> jobs = new OneToOneConcurrentArrayQueue<>(4096);
    /** CSN of the newest state the meld stage has published; the decode stage waits on it. */
    private volatile long meldedCsn;
    private final ArrayBlockingQueue<Block> inbox = new ArrayBlockingQueue<>(INBOX_CAPACITY);
    private final ArrayBlockingQueue<Block> freeBlocks = new ArrayBlockingQueue<>(INBOX_CAPACITY + 1);
    private final UnsafeBuffer blockView = new UnsafeBuffer(new byte[0]);
    /** Jobs of intentions handed to the pipeline and not yet decided (meld thread only). */
    private final Long2ObjectHashMap<Job> undecided = new Long2ObjectHashMap<>();
    /** Decided jobs on their way to the reply thread, which records outcomes and answers clients. */
    private final OneToOneConcurrentArrayQueue<Job> replies = new OneToOneConcurrentArrayQueue<>(8192);
    private Thread replyThread;
    private final MeldPipeline.DecisionListener decisionListener = this::onDecision;
    private final LongArrayList decidedCsns = new LongArrayList();
    /** CSN of the held group-meld intention this server last nudged (see {@link #nudgeIfHolding}). */
    private long nudgedCsn;
    /** When the meld thread last found no work (0 while busy). */
    private long meldIdleSince;
    private final LongArrayList decidedCommitted = new LongArrayList();
    /** Newest incarnation of each server, from the fences read so far. */
    private final ConcurrentHashMap<Integer, Long> fences = new ConcurrentHashMap<>();
    /** Server of each incarnation seen (fences since the recovery point). */
    private final ConcurrentHashMap<Long, Integer> incarnations = new ConcurrentHashMap<>();
    private long csn;
    /** Records ending at or before this position are already in the recovered state. */
    private final long skipThrough;
    /** First log position this server has read: outcomes of transactions before it are unknown here. */
    private final long knowledgeStart;
    private long lastCheckpointCsn;
    private String rejectReason;
    private long lcsRoot;
    private long lcsCsn;
    /** State hash of a recent LCS, computed on demand (a hash walks the whole tree). */
    private volatile HashedState hashed;
    private volatile long processedPosition;
    private volatile boolean ready;
    private volatile String failure;
    private volatile boolean closed;

    /** The current incarnation: new after every re-fence (see {@link StreamHealer}). */
    private volatile long incarnation;
    /** This process's first incarnation: every incarnation since is this process's, every one before is not. */
    private final long firstIncarnation;
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    private LogService.Subscription subscription;
    private volatile boolean paused;
    /** Resume position of the newest checkpoint this server wrote, and of the one before it (for trim). */
    private long previousCheckpointResume;
    private volatile boolean checkpointRunning;

    private record HashedState(long csn, long root, long hash) {
    }

    /** A commit waiting for its decision, with the incarnation its intention was appended under. */
    private record PendingCommit(long incarnation, CompletableFuture<Long> future) {
    }

    /** Who appended the intention at a CSN, kept until its decision. */
    private record Origin(int serverId, long incarnation, long sequence, String rejectReason) {
    }

    /**
     * All node memory of one span of the server's life: the nodes loaded from a checkpoint and everything decoded
     * and melded since. A checkpoint starts a new generation holding only the live states; the old one is freed
     * once no session reads a snapshot in it any more. This is how memory stays bounded: the same mechanism as
     * recovery (meld paper App. A), run in memory.
     */
    private static final class Generation {
        final NodeDirectory directory;
        final Arena loadArena;
        final Arena decodeArena = new Arena();
        final MeldPipeline pipeline;
        /** One arena and decoder per deserializer thread (per-thread pools, Hyder II §5.3). */
        final Arena[] workerArenas;
        final IntentionDecoder[] workerDecoders;
        int sessions;
        boolean retired;

        Generation(final NodeDirectory directory, final Arena loadArena, final MeldPipeline pipeline,
                   final int decodeThreads) {
            this.directory = directory;
            this.loadArena = loadArena;
            this.pipeline = pipeline;
            this.workerArenas = new Arena[decodeThreads];
            this.workerDecoders = new IntentionDecoder[decodeThreads];
            for (int i = 0; i < decodeThreads; i++) {
                workerArenas[i] = new Arena();
                workerDecoders[i] = new IntentionDecoder(workerArenas[i], directory);
            }
        }

        void free() {
            pipeline.close();
            decodeArena.close();
            for (Arena a : workerArenas) {
                a.close();
            }
            if (loadArena != null) {
                loadArena.close();
            }
        }
    }

    /** One block between the I/O thread and the pipeline thread. */
    private static final class Block {
        final byte[] bytes;
        long position;

        Block(final int size) {
            bytes = new byte[size];
        }
    }

    /** A session's reusable memory: the arena its intention is built in and the buffer it is encoded into. */
    private static final class Workspace {
        /** Past this the record buffer is dropped after its commit, so a rare huge transaction pins no memory. */
        static final int KEEP_RECORD_BYTES = 8 << 20;
        /** Past this the arena's segments go back to the shared pool instead of staying with this workspace. */
        static final long KEEP_ARENA_BYTES = 16L << 20;
        /** Past this many nodes the encoder's work arrays (16 bytes a node) are dropped too. */
        static final int KEEP_ENCODER_NODES = 1 << 16;
        Arena arena = new Arena();
        ExpandableDirectByteBuffer record = new ExpandableDirectByteBuffer(4096);
        IntentionEncoder encoder = new IntentionEncoder();

        /** After a transaction ended (nothing points into the arena any more). */
        void trim() {
            if (record.capacity() > KEEP_RECORD_BYTES) {
                record = new ExpandableDirectByteBuffer(4096);
            }
            if (encoder.capacity() > KEEP_ENCODER_NODES) {
                encoder = new IntentionEncoder();
            }
            if (arena.reservedBytes() > KEEP_ARENA_BYTES) {
                arena.close();
                arena = new Arena();
            }
        }
    }

    /**
     * Connects to the log, recovers from its newest checkpoint (or from the start), fences off any earlier
     * incarnation of this server, and returns once this server has melded the log up to its own fence.
     */
    public static TxnServer start(final TxnServerConfig config) {
        return start(config, LogClient.connect(LogClientOptions.to(config.logHost(), config.logPort())
            .clusterSecret(config.clusterSecret())));
    }

    /**
     * As {@link #start(TxnServerConfig)}, over a log this server then owns (closes): a {@link LogClient}, or an
     * {@link io.meldb.log.client.InProcessLog} when the log lives in this process (the embedded database). The
     * configuration's log address is not used.
     */
    public static TxnServer start(final TxnServerConfig config, final LogService log) {
        try {
            return new TxnServer(config, log);
        } catch (RuntimeException | Error e) {
            log.close();
            throw e;
        }
    }

    private TxnServer(final TxnServerConfig config, final LogService log) {
        this.config = config;
        this.serverId = config.serverId();
        this.log = log;
        this.cluster = joinCluster(config, log);
        this.registry = config.registry() != null ? config.registry()
            : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.admission = new Semaphore(config.maxInFlight());
        this.outcomes = new OutcomeTable(config.outcomeWindow());
        this.writer = new BlockWriter(cluster.blockSize(), serverId, this::appendBlock);
        for (int i = 0; i < INBOX_CAPACITY; i++) {
            freeBlocks.add(new Block(cluster.blockSize()));
        }

        final Recovery.Result recovered = Recovery.run(log, cluster);
        final NodeDirectory directory = recovered.directory();
        if (recovered.manifest() == null) {
            this.generation = new Generation(directory, recovered.arena(),
                new MeldPipeline(cluster.meldConfig(), directory).retainStates(cluster.maxSnapshotAge() + 1L),
                decodeThreadCount(config));
            this.pipeline = generation.pipeline;
            this.decoder = new IntentionDecoder(generation.decodeArena, directory);
            this.csn = 0;
            this.skipThrough = 0;
            this.knowledgeStart = 1;
        } else {
            final CheckpointManifest m = recovered.manifest();
            this.generation = new Generation(directory, recovered.arena(),
                restoredPipeline(directory, m, recovered.roots()), decodeThreadCount(config));
            this.pipeline = generation.pipeline;
            this.decoder = new IntentionDecoder(generation.decodeArena, directory);
            this.csn = m.lcsCsn();
            this.skipThrough = m.lastPosition();
            this.knowledgeStart = m.resumePosition();
            for (Map.Entry<Integer, Long> e : m.fences().entrySet()) {
                fences.put(e.getKey(), e.getValue());
                incarnations.put(e.getValue(), e.getKey());
            }
            LOG.info("server {}: recovered state csn {} ({} nodes) from checkpoint at {}, resuming at {}",
                serverId, m.lcsCsn(), recovered.nodes(), recovered.position(), m.resumePosition());
        }
        this.lastCheckpointCsn = csn;
        this.lcsRoot = pipeline.lcs().root();
        this.lcsCsn = pipeline.lcsCsn();
        this.demux = new BlockDemux(cluster.blockSize(), this::onRecord);
        this.metrics = new TxnMetrics(registry, this);
        this.checkpointExecutor = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "meldb-checkpoint-" + serverId);
            t.setDaemon(true);
            return t;
        });
        this.compactionExecutor = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "meldb-compaction-" + serverId);
            t.setDaemon(true);
            return t;
        });

        this.incarnation = join(appendFence(serverId, 0));
        this.firstIncarnation = incarnation;
        this.healer = new StreamHealer(this);
        this.separateDecoder = config.separateDecoder();
        this.premeldPipeline = pipeline;
        this.decodeGeneration = generation;
        final int n = decodeThreadCount(config);
        final int t = separateDecoder && config.premeldOnThreads() ? cluster.premeldThreads() : 0;
        // every idler exists before any pipeline thread starts: each wakes the others
        this.meldIdler = separateDecoder ? new StageIdler() : readerIdler;
        this.decodeIdlers = newIdlers(n);
        this.premeldIdlers = newIdlers(t);
        this.decodeThreads = new Thread[n];
        @SuppressWarnings("unchecked")
        final OneToOneConcurrentArrayQueue<Job>[] dq = new OneToOneConcurrentArrayQueue[n];
        this.decodeQueues = dq;
        for (int i = 0; i < n; i++) {
            final int worker = i;
            decodeQueues[i] = new OneToOneConcurrentArrayQueue<>(4096);
            decodeThreads[i] = new Thread(() -> runDecoder(worker), "meldb-decode-" + serverId + "-" + i);
            decodeThreads[i].setDaemon(true);
            decodeThreads[i].start();
        }
        this.premeldThreads = new Thread[t];
        @SuppressWarnings("unchecked")
        final OneToOneConcurrentArrayQueue<Job>[] queues = new OneToOneConcurrentArrayQueue[t];
        this.premeldQueues = queues;
        for (int i = 0; i < t; i++) {
            final int slot = i;
            premeldQueues[i] = new OneToOneConcurrentArrayQueue<>(4096);
            premeldThreads[i] = new Thread(() -> runPremeld(slot), "meldb-premeld-" + serverId + "-" + i);
            premeldThreads[i].setDaemon(true);
            premeldThreads[i].start();
        }
        this.meldedCsn = lcsCsn;
        this.readerThread = new Thread(this::runReader, "meldb-reader-" + serverId);
        this.readerThread.setDaemon(true);
        this.meldThread = separateDecoder ? new Thread(this::runMeld, "meldb-meld-" + serverId) : null;
        if (meldThread != null) {
            meldThread.setDaemon(true);
            meldThread.start();
        }
        this.replyThread = new Thread(this::runReplies, "meldb-reply-" + serverId);
        this.replyThread.setDaemon(true);
        this.replyThread.start();
        this.readerThread.start();
        this.subscription = log.subscribe(knowledgeStart, new Listener());
        try {
            if (!caughtUp.await(config.startTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                throw new TxnException(TxnError.UNAVAILABLE, "server " + serverId
                    + " did not catch up with the log within " + config.startTimeout());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new TxnException(TxnError.UNAVAILABLE, "interrupted while starting");
        }
        if (failure != null) {
            close();
            throw new TxnException(TxnError.INTERNAL, "server " + serverId + " failed while starting: " + failure);
        }
        ready = true;
        LOG.info("server {} incarnation {} ready at csn {} (cluster: {})", serverId, incarnation, meldedCsn, cluster);
        final String memoryWarning = config.directMemoryWarning();
        if (memoryWarning != null) {
            LOG.warn("server {}: {}", serverId, memoryWarning);
        }
    }

    /** Reads the cluster configuration from the log, creating the log with it if the log is empty. */
    private static ClusterConfig joinCluster(final TxnServerConfig config, final LogService log) {
        final long tail = join(log.status()).tail();
        if (tail == 0) {
            final ClusterConfig wanted = config.cluster() != null ? config.cluster() : ClusterConfig.DEFAULT;
            join(log.create(wanted.blockSize(), wanted.encode()));
        }
        final ClusterConfig found = ClusterConfig.decode(join(log.config()));
        if (config.cluster() != null && !config.cluster().equals(found)) {
            throw new TxnException(TxnError.BAD_REQUEST, "this server was started with cluster configuration ["
                + config.cluster() + "] but the log holds [" + found + "]; refusing to join");
        }
        return found;
    }

    static <T> T join(final CompletableFuture<T> future) {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TxnException(TxnError.UNAVAILABLE, "interrupted while talking to the log");
        } catch (ExecutionException e) {
            throw new TxnException(TxnError.UNAVAILABLE, "log request failed: " + e.getCause().getMessage(),
                e.getCause());
        } catch (TimeoutException e) {
            throw new TxnException(TxnError.UNAVAILABLE, "the log did not answer within 30 s");
        }
    }

    /**
     * Appends a fence for {@code server}, alone in one block of the control stream; its position names the
     * server's next incarnation. {@code fencer} is 0 for a server's own fence, else the incarnation of the server
     * that fences another one off (see {@link #awaitOutcome}).
     */
    private CompletableFuture<Long> appendFence(final int server, final long fencer) {
        final List<CompletableFuture<Long>> appends = new ArrayList<>();
        final BlockWriter control = new BlockWriter(cluster.blockSize(), LogRecords.CONTROL_WRITER,
            (b, o, l) -> appends.add(log.append(copy(b, o, l))));
        final int length = fencer == 0 ? LogRecords.FENCE_LENGTH : LogRecords.FOREIGN_FENCE_LENGTH;
        final UnsafeBuffer fence = new UnsafeBuffer(new byte[length]);
        fence.putByte(0, LogRecords.FENCE);
        fence.putInt(1, server, LogRecords.ORDER);
        if (fencer != 0) {
            fence.putLong(LogRecords.FENCE_LENGTH, fencer, LogRecords.ORDER);
        }
        control.append(fence, 0, length);
        control.flush();
        return appends.get(0);
    }

    private static byte[] copy(final DirectBuffer b, final int offset, final int length) {
        final byte[] bytes = new byte[length];
        b.getBytes(offset, bytes);
        return bytes;
    }

    // ------------------------------------------------------------------------------------------ client side

    @Override
    public boolean inProcess() {
        return true;
    }

    @Override
    public TxnSession begin(final Isolation isolation, final boolean readOnly) {
        if (isolation == null) {
            throw new TxnException(TxnError.BAD_REQUEST, "isolation level is required");
        }
        checkAvailable();
        try {
            if (!admission.tryAcquire(config.admissionWait().toNanos(), TimeUnit.NANOSECONDS)) {
                metrics.refused();
                throw new TxnException(TxnError.OVERLOADED, "server " + serverId + " has "
                    + config.maxInFlight() + " transactions in flight; try again later");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TxnException(TxnError.UNAVAILABLE, "interrupted while waiting for admission");
        }
        Workspace w = workspaces.poll();
        if (w == null) {
            w = new Workspace();
        }
        final Snapshot snapshot;
        final Generation pinned;
        synchronized (generationLock) {
            snapshot = new Snapshot(lcsRoot, lcsCsn);
            pinned = generation;
            pinned.sessions++;
        }
        final TxnId id = new TxnId(incarnation, sequence.incrementAndGet());
        return new LocalSession(id, isolation, readOnly, snapshot, w, pinned);
    }

    @Override
    public boolean beginsWithoutWaiting(final long requiredCsn) {
        return ready && failure == null && !closed && meldedCsn >= requiredCsn && admission.availablePermits() > 0;
    }

    private void checkAvailable() {
        if (closed) {
            throw new TxnException(TxnError.UNAVAILABLE, "server " + serverId + " is stopped");
        }
        if (failure != null) {
            throw new TxnException(TxnError.UNAVAILABLE, "server " + serverId + " has failed: " + failure);
        }
        if (!ready) {
            throw new TxnException(TxnError.UNAVAILABLE, "server " + serverId + " is starting");
        }
        final String broken = healer.brokenBecause();
        if (broken != null) {
            throw new TxnException(TxnError.UNAVAILABLE, "server " + serverId + " is re-fencing its log stream ("
                + broken + ")");
        }
    }

    @Override
    public TxnOutcome outcome(final TxnId id) {
        // the fence first: once the reader has read a newer fence, every earlier intention of that incarnation is
        // in seen or in outcomes (reply records an outcome before it forgets the id), so checking them after it
        // cannot miss one that is in the log
        final Integer server = incarnations.get(id.incarnation());
        final long newest = server == null ? 0 : fences.getOrDefault(server, id.incarnation());
        if (seen.containsKey(id)) {
            final TxnOutcome known = outcomes.get(id);
            return known != null ? known : new TxnOutcome(id, TxnOutcome.State.PENDING, 0, "in the log, not decided yet");
        }
        final TxnOutcome known = outcomes.get(id);
        if (known != null) {
            return known;
        }
        if (server == null) {
            final String why = id.incarnation() < knowledgeStart
                ? "older than this server's recovery point " + knowledgeStart
                : "no server incarnation " + id.incarnation() + " is known here";
            return new TxnOutcome(id, TxnOutcome.State.UNKNOWN, 0, why);
        }
        if (newest > id.incarnation()) {
            return new TxnOutcome(id, TxnOutcome.State.NOT_COMMITTED, 0, "its server (" + server
                + ") was fenced off as of log position " + newest + " before the transaction reached the log");
        }
        return new TxnOutcome(id, TxnOutcome.State.PENDING, 0, "not in the log yet");
    }

    /**
     * The definite outcome of {@code id}, waiting up to {@code waitMillis} for it. A transaction not in the log
     * yet is given a short while to arrive; then, unless its server has restarted since, this server appends a
     * fence for that server's incarnation: everything of it before the fence is melded and decided as usual, and
     * meld rejects anything of it after, on every replica alike, so once this server has melded up to the fence
     * the outcome is COMMITTED, ABORTED or NOT_COMMITTED. PENDING only when the log did not take the fence, or
     * meld did not get there, in time; UNKNOWN when the transaction is older than what this server remembers.
     * A server fenced off this way re-fences itself and goes on (see {@link StreamHealer}).
     */
    @Override
    public TxnOutcome awaitOutcome(final TxnId id, final long waitMillis) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
        final long fenceAfter = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(300, waitMillis / 4));
        TxnOutcome o = outcome(id);
        CompletableFuture<Long> fence = null;
        while (o.state() == TxnOutcome.State.PENDING && !closed && failure == null) {
            final long now = System.nanoTime();
            if (now - deadline > 0) {
                break;
            }
            final Integer server = incarnations.get(id.incarnation());
            final boolean own = server != null && server == serverId && id.incarnation() >= firstIncarnation;
            if (fence == null && server != null && !own && now - fenceAfter > 0 && !seen.containsKey(id)
                    && fences.getOrDefault(server, id.incarnation()) <= id.incarnation()) {
                fence = fencing.computeIfAbsent(id.incarnation(), inc -> {
                    LOG.info("server {}: fencing off incarnation {} of server {} to decide transaction {}", serverId,
                        inc, server, id);
                    return appendFence(server, incarnation);
                });
            }
            if (fence != null && fence.isCompletedExceptionally()) {
                fencing.remove(id.incarnation(), fence);
                fence = null;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            o = outcome(id);
        }
        if (fence != null && fence.isDone()) {
            fencing.remove(id.incarnation(), fence);
        }
        return o;
    }

    @Override
    public ServerStatus status() {
        final Snapshot s;
        final Generation pinned;
        synchronized (generationLock) {
            s = new Snapshot(lcsRoot, lcsCsn);
            pinned = generation;
            pinned.sessions++;
        }
        try {
            HashedState h = hashed;
            if (h == null || h.csn() != s.csn() || h.root() != s.root()) {
                // the hash walks the whole state, which must not be freed meanwhile: pinned like a session
                h = new HashedState(s.csn(), s.root(), StateHash.of(s.root()));
                hashed = h;
            }
            return new ServerStatus(serverId, incarnation, s.csn(), h.hash(), inFlight());
        } finally {
            unpin(pinned);
        }
    }

    /**
     * Heap bytes the meld stage's thread has allocated so far (the decode thread's when there is no separate
     * decoder), from the JVM's per-thread allocation counter; -1 where the JVM does not offer it.
     */
    public long meldThreadAllocatedBytes() {
        final Thread t = meldThread != null ? meldThread : readerThread;
        if (t == null || !(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx)) {
            return -1;
        }
        return mx.getThreadAllocatedBytes(t.getId());
    }

    /** CSN of the last committed state (cheap, unlike {@link #status()}, which hashes the state). */
    public long lcsCsn() {
        return meldedCsn;
    }

    /** Transactions open on this server now. */
    public int inFlight() {
        return config.maxInFlight() - admission.availablePermits();
    }

    public int serverId() {
        return serverId;
    }

    public long incarnation() {
        return incarnation;
    }

    public ClusterConfig cluster() {
        return cluster;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Null while healthy; otherwise why this server stopped melding. */
    public String failure() {
        return failure;
    }

    /** Whether the server takes transactions: started, not failed or stopped, and its log stream sound. */
    public boolean ready() {
        return ready && failure == null && !closed && healer.brokenBecause() == null;
    }

    /** Null while the log stream is sound; otherwise why the server is re-fencing it (see {@link StreamHealer}). */
    public String refencing() {
        return healer.brokenBecause();
    }

    /** Log position up to which this server has read and melded. */
    public long processedPosition() {
        return processedPosition;
    }

    /** Waits until this server has melded every block up to {@code position}; false on timeout or failure. */
    public boolean awaitPosition(final long position, final long timeoutMillis) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (processedPosition < position) {
            if (failure != null || closed || System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The log's tail, for callers that want to wait until this server has seen everything appended so far. */
    public long logTail() {
        return join(log.tail());
    }

    long finalMelds() {
        return retiredFinalMelds + pipeline.finalMelds();
    }

    long ephemeralsCreated() {
        return retiredEphemerals + pipeline.ephemeralsCreated();
    }

    long groupsFormed() {
        return retiredGroupsFormed + pipeline.groupsFormed();
    }

    long premelds() {
        return retiredPremelds + premeldPipeline.premelds();
    }

    long premeldNodesVisited() {
        return retiredPremeldNodes + premeldPipeline.premeldNodesVisited();
    }

    long groupNodesVisited() {
        return retiredGroupNodes + pipeline.groupNodesVisited();
    }

    long finalNodesVisited() {
        return retiredFinalNodes + pipeline.finalNodesVisited();
    }

    long groupsFallenBack() {
        return retiredGroupsFallenBack + pipeline.groupsFallenBack();
    }

    /** Node-memory generations this server has started (1 + checkpoints taken). */
    public long generations() {
        return generations + 1;
    }

    int inboxSize() {
        return inbox.size();
    }

    long blocksDropped() {
        return demux.blocksDropped();
    }

    long snapshotsTooOld() {
        return snapshotsTooOld;
    }

    /**
     * Appends one framed record from a session. The record's blocks go out in order on the log connection; the
     * future completes with the position of its last block.
     */
    private CompletableFuture<Long> appendRecord(final DirectBuffer record, final int length) {
        synchronized (writeLock) {
            blockAppends.clear();
            writer.append(record, 0, length);
            writer.flush();
            return blockAppends.get(blockAppends.size() - 1).thenCombine(allOf(blockAppends), (p, ignored) -> p);
        }
    }

    private static CompletableFuture<Void> allOf(final List<CompletableFuture<Long>> futures) {
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture[0]));
    }

    private void appendBlock(final DirectBuffer block, final int offset, final int length) {
        blockAppends.add(log.append(copy(block, offset, length)));
    }

    private final class LocalSession implements TxnSession {
        private final TxnId id;
        private final Isolation isolation;
        private final boolean readOnly;
        private final Snapshot snapshot;
        private final Generation pinned;
        private Workspace workspace;
        private Transaction txn;
        /** Size of the intention record this session appended, which lengthens the wait for its decision. */
        private int recordBytes;

        LocalSession(final TxnId id, final Isolation isolation, final boolean readOnly, final Snapshot snapshot,
                     final Workspace workspace, final Generation pinned) {
            this.pinned = pinned;
            this.id = id;
            this.isolation = isolation;
            this.readOnly = readOnly;
            this.snapshot = snapshot;
            this.workspace = workspace;
            // a read-only transaction logs nothing, so it needs no readset
            this.txn = new Transaction(workspace.arena, snapshot, readOnly ? Isolation.SNAPSHOT : isolation);
            metrics.began();
        }

        @Override
        public TxnId id() {
            return id;
        }

        @Override
        public Isolation isolation() {
            return isolation;
        }

        @Override
        public boolean readOnly() {
            return readOnly;
        }

        @Override
        public long snapshotCsn() {
            return snapshot.csn();
        }

        private Transaction active() {
            if (txn == null) {
                throw new TxnException(TxnError.UNKNOWN_TRANSACTION, "transaction " + id + " has ended");
            }
            return txn;
        }

        private void checkKey(final byte[] key) {
            if (key == null || key.length == 0) {
                throw new TxnException(TxnError.BAD_REQUEST, "a key must have at least one byte");
            }
            if (key.length > TxnServerConfig.MAX_KEY_BYTES) {
                throw new TxnException(TxnError.TOO_LARGE, "key of " + key.length + " bytes exceeds the limit of "
                    + TxnServerConfig.MAX_KEY_BYTES);
            }
        }

        private void checkWritable() {
            if (readOnly) {
                throw new TxnException(TxnError.READ_ONLY, "transaction " + id + " is read-only");
            }
        }

        @Override
        public byte[] get(final byte[] key) {
            final Transaction t = active();
            checkKey(key);
            final byte[] value = t.get(key);
            checkSize(t);
            return value;
        }

        /**
         * Ends the transaction with TOO_LARGE as soon as its intention could exceed the server's limit, so the
         * statement that crossed it fails at once instead of the commit after all the work.
         */
        private void checkSize(final Transaction t) {
            final long bound = t.intentionBytesBound();
            if (bound > config.maxIntentionBytes()) {
                end();
                metrics.abortedTooLarge();
                throw new TxnException(TxnError.TOO_LARGE, "transaction " + id + " exceeds the limit of "
                    + config.maxIntentionBytes() + " bytes one transaction may write (" + t.ownedNodes()
                    + " changed or read rows and tree nodes, up to " + bound + " bytes); it is rolled back."
                    + " Split it, or raise the txn-server's " + TxnServerConfig.MAX_INTENTION_BYTES_FLAG);
            }
        }

        @Override
        public List<KeyValue> scan(final byte[] lo, final boolean loInclusive, final byte[] hi,
                                   final boolean hiInclusive, final boolean descending, final int limit) {
            final Transaction t = active();
            if (limit < 0) {
                throw new TxnException(TxnError.BAD_REQUEST, "scan limit " + limit + " is negative");
            }
            final List<byte[][]> rows = t.scan(lo, loInclusive, hi, hiInclusive, descending, limit);
            checkSize(t);
            final List<KeyValue> out = new ArrayList<>(rows.size());
            for (byte[][] r : rows) {
                out.add(new KeyValue(r[0], r[1]));
            }
            return out;
        }

        @Override
        public void dependOn(final byte[] lo, final boolean loInclusive, final byte[] hi,
                             final boolean hiInclusive) {
            final Transaction t = active();
            if (!readOnly) {
                t.dependOn(new RangeDependency(lo, loInclusive, hi, hiInclusive));
                checkSize(t);
            }
        }

        @Override
        public void put(final byte[] key, final byte[] value) {
            final Transaction t = active();
            checkWritable();
            checkKey(key);
            if (value == null) {
                throw new TxnException(TxnError.BAD_REQUEST, "a value is required (delete removes a key)");
            }
            if (value.length > TxnServerConfig.MAX_VALUE_BYTES) {
                throw new TxnException(TxnError.TOO_LARGE, "value of " + value.length
                    + " bytes exceeds the limit of " + TxnServerConfig.MAX_VALUE_BYTES);
            }
            t.put(key, value);
            checkSize(t);
        }

        @Override
        public void delete(final byte[] key) {
            final Transaction t = active();
            checkWritable();
            checkKey(key);
            t.delete(key);
            checkSize(t);
        }

        @Override
        public long commit() {
            final CompletableFuture<Long> f = commitAsync();
            // a large intention takes its time through the log and meld (about 10 MB/s on a small machine)
            final long waitMillis = config.commitTimeout().toMillis() + recordBytes / TxnServerConfig.COMMIT_BYTES_PER_EXTRA_MILLI;
            try {
                return f.get(waitMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TxnException(TxnError.OUTCOME_UNKNOWN, "interrupted while waiting for the outcome of "
                    + id + "; ask outcome(" + id + ")");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TxnException te) {
                    throw new TxnException(te.error(), te.getMessage(), te);
                }
                throw new TxnException(TxnError.INTERNAL, "commit of " + id + " failed: " + e.getCause(), e);
            } catch (TimeoutException e) {
                throw new TxnException(TxnError.OUTCOME_UNKNOWN, "no decision on " + id + " within "
                    + waitMillis + " ms; ask outcome(" + id + ")");
            }
        }

        @Override
        public CompletableFuture<Long> commitAsync() {
            final Transaction t;
            try {
                t = active();
            } catch (TxnException e) {
                return CompletableFuture.failedFuture(e);
            }
            if (!t.hasWrites()) {
                end();
                metrics.committedLocally();
                return CompletableFuture.completedFuture(snapshot.csn());
            }
            try {
                checkAvailable();
            } catch (TxnException e) {
                end();
                return CompletableFuture.failedFuture(e.error() == TxnError.UNAVAILABLE && !closed && failure == null
                    ? new TxnException(TxnError.CONFLICT, "transaction " + id + " was not committed: "
                        + e.getMessage() + "; retry it") : e);
            }
            final long appendAs = incarnation;
            if (id.incarnation() != appendAs) {
                end();
                return CompletableFuture.failedFuture(new TxnException(TxnError.CONFLICT, "transaction " + id
                    + " was not committed: server " + serverId + " re-fenced its log stream as incarnation "
                    + appendAs + " while it ran; retry it"));
            }
            final ExpandableDirectByteBuffer record = workspace.record;
            final int length;
            try {
                // encoded in place behind the log header: a large intention is not copied once more
                final int bodyLength = workspace.encoder.encode(t, 0, record, LogRecords.INTENTION_HEADER,
                    config.maxIntentionBytes());
                length = LogRecords.INTENTION_HEADER + bodyLength;
                recordBytes = length;
                LogRecords.putIntentionHeader(record, serverId, appendAs, id.sequence());
            } catch (RuntimeException e) {
                end();
                return CompletableFuture.failedFuture(new TxnException(TxnError.TOO_LARGE,
                    "transaction " + id + " cannot be serialized: " + e.getMessage(), e));
            }
            final CompletableFuture<Long> decided = new CompletableFuture<>();
            pendingCommits.put(id.sequence(), new PendingCommit(appendAs, decided));
            final CompletableFuture<Long> appended = appendRecord(record, length);
            end();
            appended.whenComplete((position, error) -> {
                if (error != null) {
                    onAppendFailure(appendAs, error);
                }
            });
            return decided;
        }

        @Override
        public void abort() {
            if (txn != null) {
                metrics.abortedByClient();
                end();
            }
        }

        @Override
        public void close() {
            abort();
        }

        private void end() {
            if (txn != null) {
                txn = null;
                workspace.arena.reset();
                workspace.trim();
                workspaces.add(workspace);
                workspace = null;
                unpin(pinned);
                admission.release();
            }
        }
    }

    private void unpin(final Generation g) {
        synchronized (generationLock) {
            g.sessions--;
            if (g.retired && g.sessions == 0) {
                g.free();
            }
        }
    }

    /**
     * An append of this server's failed: blocks of the record may or may not be in the log, and any later record
     * of this stream could be misframed after a half-written one. The server stops taking transactions and
     * re-fences its stream once the log takes appends again ({@link StreamHealer}); the commits in flight are
     * answered then, from the log.
     */
    private void onAppendFailure(final long appendedAs, final Throwable error) {
        final Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
            ? error.getCause() : error;
        final String why = cause instanceof LogException ? cause.getMessage() : String.valueOf(cause);
        healer.streamBroken(appendedAs, "a log append failed: " + why);
    }

    // ------------------------------------------------------------------------------------------ re-fencing

    /** Healer: appends a new fence for this server (see {@link #appendFence}). */
    CompletableFuture<Long> appendOwnFence() {
        return appendFence(serverId, 0);
    }

    /**
     * Healer: the fence at {@code position} is this server's new incarnation. Later records go out on a fresh
     * block stream (every server resynchronizes this server's stream at the fence).
     */
    void switchIncarnation(final long position) {
        synchronized (writeLock) {
            writer = new BlockWriter(cluster.blockSize(), serverId, this::appendBlock);
            incarnation = position;
        }
    }

    /**
     * Healer, once this server has melded up to its new fence: a commit of an older incarnation of this process
     * whose intention the reader never saw is not in the log before the fence, and meld rejects it after; it did
     * not commit. (Those that were seen are answered by meld as usual.)
     */
    void resolveSuperseded(final long newIncarnation) {
        for (Map.Entry<Long, PendingCommit> e : pendingCommits.entrySet()) {
            final PendingCommit p = e.getValue();
            final TxnId id = new TxnId(p.incarnation(), e.getKey());
            if (p.incarnation() < newIncarnation && !seen.containsKey(id) && outcomes.get(id) == null
                    && pendingCommits.remove(e.getKey(), p)) {
                metrics.aborted("origin_restarted");
                p.future().completeExceptionally(new TxnException(TxnError.CONFLICT, "transaction " + id
                    + " did not reach the log before server " + serverId + " re-fenced its stream as incarnation "
                    + newIncarnation + "; it was not committed; retry it"));
            }
        }
    }

    /** The newest fence of this server read so far (its own, or another server's fencing it off). */
    long newestFence() {
        return fences.getOrDefault(serverId, 0L);
    }

    boolean stopped() {
        return closed || failure != null;
    }

    private void fail(final String why) {
        if (failure == null) {
            failure = why;
            LOG.error("server {} failed: {}", serverId, why);
            for (Long seq : pendingCommits.keySet()) {
                final PendingCommit p = pendingCommits.remove(seq);
                if (p != null) {
                    p.future().completeExceptionally(new TxnException(TxnError.OUTCOME_UNKNOWN, "server " + serverId
                        + " failed before learning the outcome (" + why + "); ask outcome(" + p.incarnation() + "-"
                        + seq + ") of another server"));
                }
            }
            caughtUp.countDown();
            wakeAllStages();
        }
    }

    /** Wakes every pipeline thread, to notice that the server stopped or failed. */
    private void wakeAllStages() {
        if (decodeIdlers == null || premeldIdlers == null) {
            return; // still starting: no pipeline thread runs yet
        }
        readerIdler.wake();
        meldIdler.wake();
        replyIdler.wake();
        StageIdler.wakeAll(decodeIdlers);
        StageIdler.wakeAll(premeldIdlers);
    }

    // ------------------------------------------------------------------------------------------ log reader

    private final class Listener implements BlockListener {
        @Override
        public void onBlock(final long position, final ByteBuf block) {
            Block b = freeBlocks.poll();
            if (b == null) {
                b = new Block(cluster.blockSize());
            }
            if (block.readableBytes() != cluster.blockSize()) {
                LOG.warn("log block {} has {} bytes, not the block size {}; skipped", position,
                    block.readableBytes(), cluster.blockSize());
                Arrays.fill(b.bytes, (byte) 0);
            } else {
                block.getBytes(block.readerIndex(), b.bytes);
            }
            b.position = position;
            if (!inbox.offer(b)) {
                // the pipeline is behind: stop reading the connection, then wait for room
                pause();
                try {
                    inbox.put(b);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else if (inbox.remainingCapacity() < INBOX_CAPACITY / 8) {
                pause();
            }
        }

        @Override
        public void onError(final LogException error) {
            if (!closed) {
                fail("the log subscription ended: " + error.getMessage()
                    + (error instanceof LogErrorException ? " (restart the server to recover from a checkpoint)" : ""));
            }
        }
    }

    private void pause() {
        if (!paused) {
            paused = true;
            metrics.stalled();
            subscription.pause();
        }
    }

    // ------------------------------------------------------------------------------------------ decode stage

    /**
     * The deserializer stage (Hyder II §5.2): takes blocks in log order, reassembles records, counts CSNs,
     * decodes intentions and hands them to the meld stage in order. With a separate decoder it runs on a thread
     * of its own, decoding intention k while meld works on earlier ones; it only waits when k's snapshot is a
     * state meld has not produced yet.
     */
    private void runReader() {
        try {
            while (!closed && failure == null) {
                final Block b = inbox.poll(!separateDecoder && pipeline.holding() ? 2 : 100, TimeUnit.MILLISECONDS);
                if (b == null) {
                    if (!separateDecoder) {
                        nudgeIfHolding();
                    }
                    continue;
                }
                processBlock(b);
                freeBlocks.offer(b);
                if (paused && inbox.size() < INBOX_CAPACITY / 4) {
                    paused = false;
                    subscription.resume();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            if (!closed) {
                LOG.error("server {}: the log reader stopped", serverId, e);
                fail("log reader error: " + e);
            }
        }
    }

    private void processBlock(final Block b) {
        if (b.position == 0) {
            return;
        }
        blockView.wrap(b.bytes);
        demux.onBlock(blockView, 0, b.position);
        emit(Job.blockEnd(b.position));
        if (config.checkpointEvery() > 0 && csn - lastCheckpointCsn >= config.checkpointEvery()) {
            // a checkpoint needs a block boundary and an empty meld stage: the reader waits for it, then decodes
            // on into the new generation
            final Job marker = Job.checkpoint(b.position, demux.resumePosition(b.position + 1),
                new TreeMap<>(fences), csn);
            emit(marker);
            if (awaitCheckpoint(marker)) {
                lastCheckpointCsn = csn;
            }
        }
    }

    private boolean awaitCheckpoint(final Job marker) {
        while (!marker.result.isDone()) {
            if (closed || failure != null) {
                return false;
            }
            try {
                marker.result.get(10, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // check for shutdown and wait on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                return false;
            }
        }
        return marker.result.getNow(false);
    }

    private void onRecord(final DirectBuffer buffer, final int offset, final int length, final long position) {
        if (position <= skipThrough || length < 1) {
            return;
        }
        final byte type = buffer.getByte(offset);
        if (type == LogRecords.INTENTION) {
            onIntention(buffer, offset, length, position);
        } else if (type == LogRecords.FENCE
                && (length == LogRecords.FENCE_LENGTH || length == LogRecords.FOREIGN_FENCE_LENGTH)) {
            final int server = buffer.getInt(offset + 1, LogRecords.ORDER);
            fences.put(server, position);
            incarnations.put(position, server);
            demux.resync(server);
            if (server == serverId && position > incarnation && ready) {
                // another server fenced this one off to decide one of its transactions (or a fence append of this
                // server timed out and landed late): every later record of this incarnation is rejected, so start
                // a new one (ignored while a re-fence is under way; the healer checks again when done)
                healer.streamBroken(incarnation, length == LogRecords.FOREIGN_FENCE_LENGTH
                    ? "fenced off at log position " + position + " by incarnation "
                        + buffer.getLong(offset + LogRecords.FENCE_LENGTH, LogRecords.ORDER)
                    : "a fence of this server at log position " + position + " that it did not adopt");
            }
        } else if (type == LogRecords.CHECKPOINT) {
            metrics.checkpointChunkSeen();
        } else {
            metrics.recordDropped();
            LOG.warn("log record at {} of type {} and {} bytes is not a MeldDB record; skipped", position, type,
                length);
        }
    }

    private void onIntention(final DirectBuffer buffer, final int offset, final int length, final long position) {
        final long c = ++csn;
        if (length == LogRecords.INTENTION_HEADER) {
            emit(Job.reject(c, new Origin(0, 0, 0, NUDGE)));
            return;
        }
        if (length < LogRecords.INTENTION_HEADER) {
            emit(Job.reject(c, new Origin(0, 0, 0, "malformed")));
            return;
        }
        final int server = LogRecords.serverId(buffer, offset);
        final long inc = LogRecords.incarnation(buffer, offset);
        final long seq = LogRecords.sequence(buffer, offset);
        seen.put(new TxnId(inc, seq), Boolean.TRUE);
        final Long newest = fences.get(server);
        if (newest != null && newest > inc) {
            emit(Job.reject(c, new Origin(server, inc, seq, "origin_restarted")));
            return;
        }
        final long snapshotCsn = IntentionDecoder.snapshotCsnOf(buffer, offset + LogRecords.INTENTION_HEADER);
        if (c - snapshotCsn > cluster.maxSnapshotAge()) {
            // its snapshot may be older than every state a checkpoint keeps: every server aborts it alike
            snapshotsTooOld++;
            emit(Job.reject(c, new Origin(server, inc, seq, "snapshot_too_old")));
            return;
        }
        if (decodeQueues.length > 0) {
            final Job job = Job.intention(c, null, new Origin(server, inc, seq, null));
            job.record = new byte[length - LogRecords.INTENTION_HEADER];
            buffer.getBytes(offset + LogRecords.INTENTION_HEADER, job.record);
            job.snapshotCsn = snapshotCsn;
            job.position = position;
            final int worker = (int) (c % decodeQueues.length);
            handOff(decodeQueues[worker], decodeIdlers[worker], job);
            if (premeldQueues.length > 0) {
                final int slot = (int) (c % premeldQueues.length);
                handOff(premeldQueues[slot], premeldIdlers[slot], job);
            }
            emit(job);
            return;
        }
        // its pointers name nodes of its snapshot, which exist once meld has produced that state
        awaitMelded(snapshotCsn, readerIdler);
        final Intention intention;
        try {
            intention = decoder.decode(buffer, offset + LogRecords.INTENTION_HEADER,
                length - LogRecords.INTENTION_HEADER, c, new Intention());
        } catch (IntentionFormatException e) {
            LOG.warn("intention csn {} at log position {} is malformed: {}", c, position, e.getMessage());
            emit(Job.reject(c, new Origin(server, inc, seq, "malformed")));
            return;
        }
        metrics.intentionRead(intention.nodeCount());
        final Job job = Job.intention(c, intention, new Origin(server, inc, seq, null));
        job.decoded = true;
        if (premeldQueues.length > 0) {
            final int slot = (int) (c % premeldQueues.length);
            handOff(premeldQueues[slot], premeldIdlers[slot], job);
        }
        emit(job);
    }

    /** Reader thread: queues a job for a stage thread and wakes it; waits (woken by it) while its queue is full. */
    private void handOff(final OneToOneConcurrentArrayQueue<Job> queue, final StageIdler consumer, final Job job) {
        while (!queue.offer(job)) {
            if (closed || failure != null) {
                throw new IllegalStateException("a pipeline stage stopped");
            }
            readerIdler.idle();
        }
        readerIdler.reset();
        consumer.wake();
    }

    /**
     * A deserializer thread (Hyder II §5.2): decodes its share of the intentions (csn mod N) into its own arena
     * of the current generation, each once meld has produced the state its snapshot names.
     */
    private void runDecoder(final int worker) {
        runStage("deserializer thread " + worker, decodeQueues[worker], decodeIdlers[worker], readerIdler,
            job -> decode(worker, job), null);
    }

    private void decode(final int worker, final Job job) {
        awaitMelded(job.snapshotCsn, decodeIdlers[worker]);
        final IntentionDecoder d = decodeGeneration.workerDecoders[worker];
        try {
            job.intention = d.decode(new UnsafeBuffer(job.record), 0, job.record.length, job.csn, new Intention());
            metrics.intentionRead(job.intention.nodeCount());
        } catch (IntentionFormatException e) {
            LOG.warn("intention csn {} at log position {} is malformed: {}", job.csn, job.position, e.getMessage());
            job.malformed = true;
        }
        job.record = null;
        job.decoded = true;
        // the meld thread, and the premeld thread of the job's slot, may wait for it
        meldIdler.wake();
        if (premeldIdlers.length > 0) {
            premeldIdlers[(int) (job.csn % premeldIdlers.length)].wake();
        }
    }

    /**
     * The loop of every stage thread: takes the stage's jobs in order, idling on its {@link StageIdler} (spin,
     * yield, then park until the producer wakes it) when there are none, and waking the producer, which may wait
     * for room in the queue, after each job it takes. {@code whenIdle}, if any, runs at every idle step and returns
     * how long the thread may park. An error stops the server, as any pipeline error does.
     */
    private void runStage(final String stage, final OneToOneConcurrentArrayQueue<Job> queue, final StageIdler idler,
                          final StageIdler producer, final Consumer<Job> step, final LongSupplier whenIdle) {
        try {
            while (!closed && failure == null) {
                final Job job = queue.poll();
                if (job == null) {
                    idler.idle(whenIdle == null ? StageIdler.MAX_PARK_NANOS : whenIdle.getAsLong());
                    continue;
                }
                idler.reset();
                producer.wake();
                step.accept(job);
            }
        } catch (RuntimeException | Error e) {
            if (!closed) {
                LOG.error("server {}: {} stopped", serverId, stage, e);
                fail(stage + " error: " + e);
            }
        }
    }

    /** Meld or premeld thread: waits for a deserializer thread, which wakes both when it has decoded the job. */
    private void awaitDecoded(final Job job, final StageIdler idler) {
        while (!job.decoded) {
            if (closed || failure != null) {
                throw new IllegalStateException("the decode stage stopped");
            }
            idler.idle();
        }
        idler.reset();
    }

    private static int decodeThreadCount(final TxnServerConfig config) {
        return config.separateDecoder() ? config.decodeThreads() : 0;
    }

    /** Waits until meld has published the state at {@code csn}; {@link #publishLcs} wakes the waiting threads. */
    private void awaitMelded(final long csn, final StageIdler idler) {
        while (meldedCsn < csn) {
            if (closed || failure != null) {
                throw new IllegalStateException("the meld stage stopped");
            }
            idler.idle();
        }
        idler.reset();
    }

    private static StageIdler[] newIdlers(final int count) {
        final StageIdler[] idlers = new StageIdler[count];
        for (int i = 0; i < count; i++) {
            idlers[i] = new StageIdler();
        }
        return idlers;
    }

    /** Hands a job to the meld stage: queued for its thread, or run right here without a separate decoder. */
    private void emit(final Job job) {
        if (!separateDecoder) {
            handle(job);
            return;
        }
        while (!jobs.offer(job)) {
            if (closed || failure != null) {
                throw new IllegalStateException("the meld stage stopped");
            }
            readerIdler.idle();
        }
        readerIdler.reset();
        meldIdler.wake();
    }

    // ------------------------------------------------------------------------------------------ meld stage

    /** One step for the meld stage, in log order. */
    private static final class Job {
        static final int INTENTION = 0;
        static final int REJECT = 1;
        static final int BLOCK_END = 2;
        static final int CHECKPOINT = 3;

        final int kind;
        long csn;
        Intention intention;
        Origin origin;
        long position;
        long resumePosition;
        Map<Integer, Long> fences;
        final CompletableFuture<Boolean> result;
        /** Set by the meld stage when the pipeline decides this intention. */
        boolean committed;
        /** For a deserializer thread: the intention's bytes and snapshot; then the result, then done. */
        byte[] record;
        long snapshotCsn;
        boolean malformed;
        volatile boolean decoded;
        /** Set by a premeld thread: the intention final meld takes (null if premeld aborted it), then done. */
        Intention premelded;
        volatile boolean premeldDone;
        /** Final-meld work done while this intention was submitted, for the reply thread's metrics. */
        long finalMelds;
        long nodesVisited;
        long conflictZone;
        long effectiveConflictZone;

        private Job(final int kind) {
            this.kind = kind;
            this.result = kind == CHECKPOINT ? new CompletableFuture<>() : null;
        }

        static Job intention(final long csn, final Intention intention, final Origin origin) {
            final Job j = new Job(INTENTION);
            j.csn = csn;
            j.intention = intention;
            j.origin = origin;
            return j;
        }

        static Job reject(final long csn, final Origin origin) {
            final Job j = new Job(REJECT);
            j.csn = csn;
            j.origin = origin;
            return j;
        }

        static Job blockEnd(final long position) {
            final Job j = new Job(BLOCK_END);
            j.position = position;
            return j;
        }

        static Job checkpoint(final long position, final long resumePosition, final Map<Integer, Long> fences,
                              final long csn) {
            final Job j = new Job(CHECKPOINT);
            j.position = position;
            j.resumePosition = resumePosition;
            j.fences = fences;
            j.csn = csn;
            return j;
        }
    }

    /** The meld stage's thread (only with a separate decoder): premeld, group meld and final meld in log order. */
    private void runMeld() {
        runStage("the meld pipeline", jobs, meldIdler, readerIdler, job -> {
            meldIdleSince = 0;
            handle(job);
        }, this::meldIdle);
    }

    /**
     * Idle meld thread: once the log has been quiet a while, nudges a held group-meld intention. Returns how long
     * the thread may park: until the nudge is due while one is, else the idler's safety bound.
     */
    private long meldIdle() {
        final long now = System.nanoTime();
        if (meldIdleSince == 0) {
            meldIdleSince = now;
        }
        if (!pipeline.holding()) {
            return StageIdler.MAX_PARK_NANOS;
        }
        final long quiet = now - meldIdleSince;
        if (quiet <= NUDGE_AFTER_NANOS) {
            return NUDGE_AFTER_NANOS - quiet + 1;
        }
        nudgeIfHolding();
        return StageIdler.MAX_PARK_NANOS;
    }

    private void handle(final Job job) {
        switch (job.kind) {
            case Job.INTENTION -> {
                awaitDecoded(job, meldIdler);
                if (job.malformed) {
                    job.origin = new Origin(job.origin.serverId(), job.origin.incarnation(), job.origin.sequence(),
                        "malformed");
                    undecided.put(job.csn, job);
                    pipeline.reject(job.csn, decisionListener);
                    settle();
                    return;
                }
                undecided.put(job.csn, job);
                final long visitedBefore = pipeline.finalNodesVisited();
                final long zoneBefore = pipeline.conflictZoneTotal();
                final long effectiveBefore = pipeline.effectiveConflictZoneTotal();
                final long meldsBefore = pipeline.finalMelds();
                if (premeldQueues.length > 0) {
                    awaitPremeld(job);
                    pipeline.submitPremelded(job.intention, job.premelded, decisionListener);
                } else {
                    pipeline.submit(job.intention, decisionListener);
                }
                job.finalMelds = pipeline.finalMelds() - meldsBefore;
                job.nodesVisited = pipeline.finalNodesVisited() - visitedBefore;
                job.conflictZone = pipeline.conflictZoneTotal() - zoneBefore;
                job.effectiveConflictZone = pipeline.effectiveConflictZoneTotal() - effectiveBefore;
                settle();
            }
            case Job.REJECT -> {
                undecided.put(job.csn, job);
                pipeline.reject(job.csn, decisionListener);
                settle();
            }
            case Job.BLOCK_END -> {
                publishLcs();
                processedPosition = job.position;
                if (!ready && job.position >= incarnation) {
                    caughtUp.countDown();
                }
            }
            case Job.CHECKPOINT -> {
                if (pipeline.holding() || pipeline.lcsCsn() != job.csn) {
                    job.result.complete(false);
                } else {
                    // serialized and reloaded on the checkpoint thread, so its allocations stay off the meld
                    // thread; meld waits, since the new generation must start from exactly this state
                    CompletableFuture.runAsync(() -> checkpoint(job), compactionExecutor).join();
                    job.result.complete(true);
                }
            }
            default -> throw new IllegalStateException("unknown job kind " + job.kind);
        }
    }

    /** Meld thread: waits for the premeld thread of the job's slot, which wakes it when done. */
    private void awaitPremeld(final Job job) {
        while (!job.premeldDone) {
            if (closed || failure != null) {
                throw new IllegalStateException("the premeld stage stopped");
            }
            meldIdler.idle();
        }
        meldIdler.reset();
    }

    /**
     * A premeld thread (Hyder II §3, Algorithm 1): premelds its slot's intentions in log order against state
     * csn - t*d - 1, as soon as meld has decided that far, while final meld works on earlier intentions.
     */
    private void runPremeld(final int slot) {
        final long reach = (long) cluster.premeldThreads() * cluster.premeldDistance() + 1;
        final StageIdler idler = premeldIdlers[slot];
        runStage("premeld thread " + slot, premeldQueues[slot], idler, readerIdler, job -> {
            awaitMelded(job.csn - reach, idler);
            awaitDecoded(job, idler);
            job.premelded = job.malformed ? null : premeldPipeline.premeldAhead(job.intention);
            job.premeldDone = true;
            meldIdler.wake();
        }, null);
    }

    /**
     * Group meld holds an odd intention until its even partner arrives (Hyder II §4). When the log goes quiet the
     * server that appended the held intention appends an empty one, which every replica rejects the same way and
     * which lets the held one be decided alone; its client is not kept waiting for unrelated traffic.
     */
    private void nudgeIfHolding() {
        if (!pipeline.holding()) {
            return;
        }
        final long held = pipeline.lcsCsn() + 1;
        final Job heldJob = undecided.get(held);
        final Origin o = heldJob == null ? null : heldJob.origin;
        if (held == nudgedCsn || o == null || healer.brokenBecause() != null) {
            return;
        }
        final boolean mine = o.serverId() == serverId && o.incarnation() >= firstIncarnation;
        // a fenced-off server cannot nudge its own held intention: whoever asks its outcome's server does
        if (!mine && fences.getOrDefault(o.serverId(), o.incarnation()) <= o.incarnation()) {
            return;
        }
        nudgedCsn = held;
        final UnsafeBuffer nudge = new UnsafeBuffer(new byte[LogRecords.INTENTION_HEADER]);
        final long appendAs = incarnation;
        LogRecords.putIntentionHeader(nudge, serverId, appendAs, 0);
        appendRecord(nudge, LogRecords.INTENTION_HEADER).whenComplete((p, e) -> {
            if (e != null) {
                onAppendFailure(appendAs, e);
            }
        });
    }

    /** The pipeline of a generation that starts from a checkpoint (after recovery, or after a compaction). */
    private MeldPipeline restoredPipeline(final NodeDirectory directory, final CheckpointManifest manifest,
                                          final long[] roots) {
        return new MeldPipeline(cluster.meldConfig(), directory, manifest.baseCsn(), roots)
            .retainStates(cluster.maxSnapshotAge() + 1L);
    }

    /** Makes the pipeline's LCS the snapshot new transactions begin on. */
    private void publishLcs() {
        long c = pipeline.lcsCsn();
        if (c == meldedCsn) {
            return;
        }
        long root = pipeline.stateRootAt(c);
        while (root == MeldPipeline.NO_STATE) {
            // inside a group meld the first member's state is not materialized: publish the one before
            root = pipeline.stateRootAt(--c);
        }
        if (c != meldedCsn) {
            synchronized (generationLock) {
                lcsRoot = root;
                lcsCsn = c;
            }
            meldedCsn = c;
            // deserializer and premeld threads may wait for this state
            StageIdler.wakeAll(decodeIdlers);
            StageIdler.wakeAll(premeldIdlers);
        }
    }

    /** Pipeline callback: decisions are acted on once the submit that made them returns (see {@link #settle}). */
    private void onDecision(final long decided, final boolean committed) {
        decidedCsns.addLong(decided);
        decidedCommitted.addLong(committed ? 1 : 0);
    }

    /**
     * Publishes the new LCS, then answers clients: a client told of its commit must see it in its next
     * transaction. Within a group meld the first member's state is not materialized until the second's decision,
     * so nothing is published or answered in between.
     */
    private void settle() {
        if (decidedCsns.isEmpty()) {
            return;
        }
        publishLcs();
        for (int i = 0; i < decidedCsns.size(); i++) {
            decide(decidedCsns.getLong(i), decidedCommitted.getLong(i) == 1);
        }
        decidedCsns.clear();
        decidedCommitted.clear();
    }

    /**
     * Hands a decision to the reply thread: the meld thread stays free of outcome bookkeeping, client futures and
     * their allocations (Hyder II §5.3). The LCS is already published, so a client that hears of its commit sees
     * it in its next transaction.
     */
    private void decide(final long decided, final boolean committed) {
        final Job job = undecided.remove(decided);
        if (job == null || job.origin.rejectReason() == NUDGE) {
            return;
        }
        job.committed = committed;
        while (!replies.offer(job)) {
            if (closed) {
                return;
            }
            meldIdler.idle();
        }
        meldIdler.reset();
        replyIdler.wake();
    }

    private void runReplies() {
        runStage("the reply thread", replies, replyIdler, meldIdler, this::reply, null);
    }

    private void reply(final Job job) {
        if (job.finalMelds > 0) {
            metrics.finalMelds(job.finalMelds, job.nodesVisited, job.conflictZone, job.effectiveConflictZone);
        }
        final Origin o = job.origin;
        final boolean committed = job.committed;
        final long decided = job.csn;
        final String reason = committed ? null : (o.rejectReason() != null ? o.rejectReason() : "conflict");
        if (committed) {
            metrics.committed();
        } else {
            metrics.aborted(reason);
        }
        final TxnId id = new TxnId(o.incarnation(), o.sequence());
        outcomes.put(new TxnOutcome(id, committed ? TxnOutcome.State.COMMITTED : TxnOutcome.State.ABORTED, decided,
            reason));
        seen.remove(id);
        if (o.incarnation() >= firstIncarnation && o.serverId() == serverId) {
            final PendingCommit p = pendingCommits.get(o.sequence());
            final CompletableFuture<Long> f = p != null && p.incarnation() == o.incarnation()
                && pendingCommits.remove(o.sequence(), p) ? p.future() : null;
            if (f != null) {
                if (committed) {
                    f.complete(decided);
                } else {
                    f.completeExceptionally(new TxnException(TxnError.CONFLICT, "transaction " + id
                        + " aborted by meld at csn " + decided + " (" + reason + "); retry it"));
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------ checkpoints

    /**
     * At a block boundary with nothing held by group meld: serializes the states a recovering server needs
     * (meld paper App. A), starts a new memory generation from them (see {@link Generation}), and hands the
     * checkpoint intention to the checkpoint thread for appending.
     */
    private void checkpoint(final Job marker) {
        final long started = System.nanoTime();
        // every state a later intention may have as its snapshot, and every state premeld may still need
        final long base = Math.min(pipeline.oldestStateNeeded(),
            Math.max(pipeline.baseCsn(), pipeline.lcsCsn() + 1 - cluster.maxSnapshotAge()));
        final int count = (int) (pipeline.lcsCsn() - base + 1);
        final List<byte[]> chunks = new ArrayList<>();
        final CheckpointWriter cw = new CheckpointWriter(config.checkpointChunkBytes(),
            (b, o, l) -> chunks.add(copy(b, o, l)));
        final long[] rootVns = new long[count];
        for (int i = 0; i < count; i++) {
            final long root = pipeline.stateRootAt(base + i);
            if (root != MeldPipeline.NO_STATE) {
                cw.writeState(root);
            }
            rootVns[i] = CheckpointManifest.vnOf(root);
        }
        cw.finish();
        if (chunks.isEmpty()) {
            chunks.add(new byte[Integer.BYTES]);
        }
        final CheckpointManifest manifest = new CheckpointManifest(base, rootVns, marker.position,
            marker.resumePosition, marker.fences);
        compact(manifest, chunks);
        metrics.checkpointWritten(cw.nodesWritten(), cw.bytesWritten(), System.nanoTime() - started);
        if (config.writeCheckpoints() && !checkpointRunning && healer.brokenBecause() == null) {
            checkpointRunning = true;
            final long checkpointIncarnation = incarnation;
            checkpointExecutor.execute(() -> {
                try {
                    appendCheckpoint(manifest, chunks);
                } catch (RuntimeException ex) {
                    LOG.warn("server {}: appending the checkpoint of csn {} failed: {}", serverId, manifest.lcsCsn(),
                        ex.toString());
                    healer.streamBroken(checkpointIncarnation, "appending a checkpoint failed: " + ex.getMessage());
                } finally {
                    checkpointRunning = false;
                }
            });
        }
    }

    /**
     * Loads the checkpoint just serialized into fresh memory and continues melding there; the old generation is
     * freed when its last session ends. The checkpoint holds every state from the cluster's snapshot-age limit on,
     * so every intention not rejected as too old points only at nodes the new generation holds, with the same
     * identities: melding goes on exactly as on a server that never compacted.
     */
    private void compact(final CheckpointManifest manifest, final List<byte[]> chunks) {
        // sized like the generation it replaces, so it does not rehash (and allocate) while it fills up again
        final NodeDirectory directory = new NodeDirectory(generation.directory.size());
        final Arena loadArena = new Arena();
        final CheckpointLoader loader = new CheckpointLoader(loadArena, directory);
        for (byte[] chunk : chunks) {
            loader.load(new UnsafeBuffer(chunk), 0, chunk.length);
        }
        final Generation next = new Generation(directory, loadArena,
            restoredPipeline(directory, manifest, manifest.roots(loader)), decodeQueues.length);
        final Snapshot nextLcs = next.pipeline.lcs();
        if (NodeMemory.CHECKS && StateHash.of(nextLcs.root()) != StateHash.of(pipeline.lcs().root())) {
            throw new IllegalStateException("compaction changed the state at csn " + nextLcs.csn());
        }
        retiredFinalMelds += pipeline.finalMelds();
        retiredEphemerals += pipeline.ephemeralsCreated();
        retiredGroupsFormed += pipeline.groupsFormed();
        retiredGroupsFallenBack += pipeline.groupsFallenBack();
        retiredPremelds += pipeline.premelds();
        retiredPremeldNodes += pipeline.premeldNodesVisited();
        retiredGroupNodes += pipeline.groupNodesVisited();
        retiredFinalNodes += pipeline.finalNodesVisited();
        final Generation old;
        synchronized (generationLock) {
            old = generation;
            generation = next;
            pipeline = next.pipeline;
            premeldPipeline = next.pipeline;
            decodeGeneration = next;
            decoder = new IntentionDecoder(next.decodeArena, directory);
            lcsRoot = nextLcs.root();
            lcsCsn = nextLcs.csn();
            old.retired = true;
            if (old.sessions == 0) {
                old.free();
            }
        }
        generations++;
    }

    private void appendCheckpoint(final CheckpointManifest manifest, final List<byte[]> chunks) {
        final byte[] manifestBytes = manifest.encode();
        final long checkpointId = incarnation * 1_000_000L + manifest.lcsCsn() % 1_000_000L;
        long firstPosition = 0;
        CompletableFuture<Long> last = null;
        for (int i = 0; i < chunks.size(); i++) {
            final boolean isLast = i == chunks.size() - 1;
            final byte[] chunk = chunks.get(i);
            final int length = LogRecords.CHECKPOINT_HEADER + chunk.length + (isLast ? manifestBytes.length : 0);
            final UnsafeBuffer record = new UnsafeBuffer(new byte[length]);
            LogRecords.putCheckpointHeader(record, checkpointId, i, isLast, firstPosition, chunk.length);
            record.putBytes(LogRecords.CHECKPOINT_HEADER, chunk);
            if (isLast) {
                record.putBytes(LogRecords.CHECKPOINT_HEADER + chunk.length, manifestBytes);
            }
            final CompletableFuture<Long> firstBlock;
            synchronized (writeLock) {
                blockAppends.clear();
                writer.append(record, 0, length);
                writer.flush();
                firstBlock = blockAppends.get(0);
                last = blockAppends.get(blockAppends.size() - 1);
            }
            if (i == 0) {
                firstPosition = join(firstBlock);
            }
        }
        join(last);
        LOG.info("server {}: checkpoint of csn {} ({} chunks) written from log position {}", serverId,
            manifest.lcsCsn(), chunks.size(), firstPosition);
        if (config.trim() && previousCheckpointResume > 1) {
            final long trimmed = join(log.trim(previousCheckpointResume));
            LOG.info("server {}: trimmed the log below {}", serverId, trimmed);
        }
        previousCheckpointResume = manifest.resumePosition();
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ready = false;
        wakeAllStages();
        for (Long seq : pendingCommits.keySet()) {
            final PendingCommit p = pendingCommits.remove(seq);
            if (p != null) {
                p.future().completeExceptionally(new TxnException(TxnError.OUTCOME_UNKNOWN, "server " + serverId
                    + " stopped before learning the outcome; ask outcome(" + p.incarnation() + "-" + seq + ")"));
            }
        }
        healer.close();
        if (subscription != null) {
            subscription.close();
        }
        checkpointExecutor.shutdownNow();
        compactionExecutor.shutdownNow();
        final List<Thread> threads = new ArrayList<>(List.of(premeldThreads));
        threads.addAll(List.of(decodeThreads));
        threads.add(readerThread);
        threads.add(meldThread);
        threads.add(replyThread);
        for (Thread t : threads) {
            if (t != null) {
                try {
                    t.join(5000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        log.close();
        caughtUp.countDown();
        if ((readerThread == null || !readerThread.isAlive()) && (meldThread == null || !meldThread.isAlive())) {
            synchronized (generationLock) {
                if (generation != null && !generation.retired) {
                    generation.retired = true;
                    if (generation.sessions == 0) {
                        generation.free();
                    }
                }
            }
        }
        LOG.info("server {} stopped", serverId);
    }
}
