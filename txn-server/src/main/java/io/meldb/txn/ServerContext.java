package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.log.client.LogService;
import io.meldb.txn.checkpoint.CommittedState;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What the parts of one txn-server share, so that its sessions, pipeline stages and checkpoints depend on this and
 * not on each other: the configuration, the log, meters, the committed-state handle, outcomes, fences, commits
 * waiting for a decision, the incarnation, and the server's lifecycle (ready, failed, stopped). Built by
 * {@link TxnServer}; Hyder II §5.2-5.3 (docs/architecture.md "Data flow of one update transaction").
 */
public final class ServerContext {
    private static final Logger LOG = LoggerFactory.getLogger(ServerContext.class);

    private final TxnServerConfig config;
    private final ClusterConfig cluster;
    private final LogService log;
    private final MeterRegistry registry;
    private final TxnMetrics metrics;
    private final CommittedState state;
    private final OutcomeTable outcomes;
    private final FenceBook fences = new FenceBook();
    private final PendingCommits pending = new PendingCommits();
    private final OwnIntentions ownIntentions = new OwnIntentions();
    private final CommitPathProfile commitPath = new CommitPathProfile();
    /**
     * Transactions whose intention the reader has read and whose decision has not reached the outcome table yet
     * (held by group meld, or in the pipeline): in the log, so not NOT_COMMITTED, whatever fences follow.
     */
    private final ConcurrentHashMap<TxnId, Boolean> seen = new ConcurrentHashMap<>();
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    /** First log position this server has read: outcomes of transactions before it are unknown here. */
    private final long knowledgeStart;
    /** The current incarnation: new after every re-fence (see {@link StreamHealer}). */
    private volatile long incarnation;
    /** This process's first incarnation: every incarnation since is this process's, every one before is not. */
    private volatile long firstIncarnation;
    private volatile long processedPosition;
    private volatile boolean ready;
    private volatile boolean closed;
    private volatile String failure;
    // set once while the server is assembled, before any thread that reads them starts
    private StreamHealer healer;
    private Runnable wakeStages = () -> { };

    ServerContext(final TxnServerConfig config, final ClusterConfig cluster, final LogService log,
                  final MeterRegistry registry, final TxnMetrics metrics, final CommittedState state,
                  final long knowledgeStart) {
        this.config = config;
        this.cluster = cluster;
        this.log = log;
        this.registry = registry;
        this.metrics = metrics;
        this.state = state;
        this.outcomes = new OutcomeTable(config.outcomeWindow());
        this.knowledgeStart = knowledgeStart;
    }

    public TxnServerConfig config() {
        return config;
    }

    public int serverId() {
        return config.serverId();
    }

    public ClusterConfig cluster() {
        return cluster;
    }

    public LogService log() {
        return log;
    }

    public MeterRegistry registry() {
        return registry;
    }

    public TxnMetrics metrics() {
        return metrics;
    }

    /** The published LCS and the memory generation it lives in. */
    public CommittedState state() {
        return state;
    }

    public OutcomeTable outcomes() {
        return outcomes;
    }

    public FenceBook fences() {
        return fences;
    }

    /** Where this process's commits spend their round trip, per hand-off. */
    public CommitPathProfile commitPath() {
        return commitPath;
    }

    public PendingCommits pending() {
        return pending;
    }

    /** This server's appended intentions whose records the reader has yet to reach (meld paper App. E). */
    public OwnIntentions ownIntentions() {
        return ownIntentions;
    }

    public ConcurrentHashMap<TxnId, Boolean> seen() {
        return seen;
    }

    public long knowledgeStart() {
        return knowledgeStart;
    }

    public long incarnation() {
        return incarnation;
    }

    public long firstIncarnation() {
        return firstIncarnation;
    }

    /** Whether {@code (server, incarnation)} is this process: this server, this start or a re-fence since. */
    public boolean isThisProcess(final int server, final long incarnationOfIt) {
        return server == serverId() && incarnationOfIt >= firstIncarnation;
    }

    /** The append side, once its fence at {@code position} is in the log: every later record is of it. */
    public void incarnation(final long position) {
        if (firstIncarnation == 0) {
            firstIncarnation = position;
        }
        incarnation = position;
    }

    void healer(final StreamHealer healer) {
        this.healer = healer;
    }

    /** Null while the log stream is sound; otherwise why the server is re-fencing it. */
    public String refencing() {
        return healer == null ? null : healer.brokenBecause();
    }

    /** The stream of {@code ofIncarnation} broke: stop taking transactions and re-fence (see {@link StreamHealer}). */
    public void streamBroken(final long ofIncarnation, final String why) {
        healer.streamBroken(ofIncarnation, why);
    }

    void wakeStages(final Runnable wakeStages) {
        this.wakeStages = wakeStages;
    }

    public boolean ready() {
        return ready;
    }

    void ready(final boolean ready) {
        this.ready = ready;
    }

    public boolean closed() {
        return closed;
    }

    /** Null while healthy; otherwise why this server stopped melding. */
    public String failure() {
        return failure;
    }

    /** Stopped or failed: every stage loop ends. */
    public boolean stopped() {
        return closed || failure != null;
    }

    /** Log position up to which this server has read and melded. */
    public long processedPosition() {
        return processedPosition;
    }

    /** The meld stage, at a block boundary: everything up to {@code position} is melded. */
    public void processed(final long position) {
        processedPosition = position;
        if (!ready && position >= incarnation) {
            caughtUp.countDown();
        }
    }

    /** Waits until the server has caught up with the log up to its own fence; false on timeout. */
    boolean awaitCaughtUp(final long millis) throws InterruptedException {
        return caughtUp.await(millis, TimeUnit.MILLISECONDS);
    }

    /** Waits until this server has melded every block up to {@code position}; false on timeout or failure. */
    public boolean awaitPosition(final long position, final long timeoutMillis) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (processedPosition < position) {
            if (stopped() || System.nanoTime() > deadline) {
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

    /** A pipeline stage failed: the server stops melding and answers the commits in flight. */
    public void fail(final String why) {
        if (failure == null) {
            failure = why;
            LOG.error("server {} failed: {}", serverId(), why);
            pending.failAll(id -> new TxnException(TxnError.OUTCOME_UNKNOWN, "server " + serverId()
                + " failed before learning the outcome (" + why + "); ask outcome(" + id + ") of another server"));
            caughtUp.countDown();
            wakeStages.run();
        }
    }

    /** Marks the server stopped and wakes every stage to notice; answers the commits in flight. */
    void close() {
        closed = true;
        ready = false;
        wakeStages.run();
        pending.failAll(id -> new TxnException(TxnError.OUTCOME_UNKNOWN, "server " + serverId()
            + " stopped before learning the outcome; ask outcome(" + id + ")"));
    }

    /** After the pipeline threads stopped: anyone still waiting for the start goes on. */
    void released() {
        caughtUp.countDown();
    }
}
