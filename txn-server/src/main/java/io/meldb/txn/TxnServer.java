package io.meldb.txn;

import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.StateHash;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogService;
import io.meldb.txn.checkpoint.CheckpointAppender;
import io.meldb.txn.checkpoint.Checkpointer;
import io.meldb.txn.checkpoint.CommittedState;
import io.meldb.txn.checkpoint.Generation;
import io.meldb.txn.checkpoint.MeldTotals;
import io.meldb.txn.pipeline.Pipeline;
import io.meldb.txn.session.IntentionAppender;
import io.meldb.txn.session.OutcomeService;
import io.meldb.txn.session.Sessions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transaction server (Hyder II §5.2-5.3; docs/architecture.md "Data flow of one update transaction"): it runs client
 * transactions on snapshots of its copy of the tree, appends their intentions to the shared log, and rolls its copy
 * forward by melding every intention in the log, its own and its peers', answering its own clients once final meld
 * has decided. All servers of a cluster read the same log with the same configuration and so reach the same
 * decisions and the same states.
 *
 * <p>This class assembles the parts and is the {@link TxnService} they offer: {@link Sessions},
 * {@link OutcomeService} and the {@link IntentionAppender} (the client side, package {@code session}), the
 * {@link Pipeline} of stage threads (package {@code pipeline}), {@link Checkpointer} and memory generations
 * (package {@code checkpoint}), and the {@link StreamHealer}; they share a {@link ServerContext}.
 *
 * <p>Each start is a new <em>incarnation</em>: the server appends a fence record and uses its log position as the
 * incarnation number. Meld rejects anything an older incarnation of the same server still gets into the log after
 * the fence, so a client whose server died can learn a definite outcome of its transaction from any server.
 */
public final class TxnServer implements TxnService {
    private static final Logger LOG = LoggerFactory.getLogger(TxnServer.class);

    private final ServerContext ctx;
    private final IntentionAppender appender;
    private final Sessions sessions;
    private final OutcomeService outcomes;
    private final StreamHealer healer;
    private final Checkpointer checkpointer;
    private final Pipeline pipeline;
    private final CommitExpiry expiry;
    /** State hash of a recent LCS, computed on demand (a hash walks the whole tree). */
    private volatile HashedState hashed;

    private record HashedState(long csn, long root, long hash) {
    }

    /**
     * Connects to the log, recovers from its newest checkpoint (or from the start), fences off any earlier
     * incarnation of this server, and returns once this server has melded the log up to its own fence.
     */
    public static TxnServer start(final TxnServerConfig config) {
        return start(config, LogClient.connect(LogClientOptions.toAll(config.logAddresses())
            .clusterSecret(config.clusterSecret())));
    }

    /**
     * As {@link #start(TxnServerConfig)}, over a log this server then owns (closes): a {@link LogClient}, or an
     * {@link io.meldb.log.server.InProcessLog} when the log lives in this process (the embedded database). The
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
        final int serverId = config.serverId();
        final ClusterConfig cluster = joinCluster(config, log);
        final MeterRegistry registry = config.registry() != null ? config.registry()
            : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

        final Recovery.Result recovered = Recovery.run(log, cluster);
        final int decodeThreads = Pipeline.decodeThreads(config.threading(), config.decodeThreads());
        final CheckpointManifest m = recovered.manifest();
        final CommittedState state = new CommittedState(m == null
            ? Generation.empty(cluster, recovered.directory(), recovered.arena(), decodeThreads)
            : Generation.restored(cluster, recovered.directory(), recovered.arena(), m, recovered.roots(),
                decodeThreads));
        final long recoveredCsn = m == null ? 0 : m.lcsCsn();
        final long skipThrough = m == null ? 0 : m.lastPosition();
        final long knowledgeStart = m == null ? 1 : m.resumePosition();

        final TxnMetrics metrics = new TxnMetrics(registry, this::stats);
        this.ctx = new ServerContext(config, cluster, log, registry, metrics, state, knowledgeStart);
        if (cluster.reorder().enabled()) {
            ReorderMetrics.bind(registry, state);
        }
        if (m != null) {
            ctx.fences().restore(m.fences());
            LOG.info("server {}: recovered state csn {} ({} nodes) from checkpoint at {}, resuming at {}",
                serverId, m.lcsCsn(), recovered.nodes(), recovered.position(), m.resumePosition());
        }
        this.appender = new IntentionAppender(ctx);
        this.sessions = new Sessions(ctx, appender);
        this.outcomes = new OutcomeService(ctx, appender);
        this.checkpointer = new Checkpointer(ctx, new CheckpointAppender(ctx, appender));

        ctx.incarnation(LogCalls.join(appender.appendOwnFence()));
        this.healer = new StreamHealer(ctx, appender);
        ctx.healer(healer);
        this.pipeline = new Pipeline(ctx, checkpointer, appender, recoveredCsn, skipThrough);
        ctx.wakeStages(pipeline::wakeAll);
        pipeline.startReading(knowledgeStart);
        try {
            if (!ctx.awaitCaughtUp(config.startTimeout().toMillis())) {
                close();
                throw new TxnException(TxnError.UNAVAILABLE, "server " + serverId
                    + " did not catch up with the log within " + config.startTimeout());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new TxnException(TxnError.UNAVAILABLE, "interrupted while starting");
        }
        if (ctx.failure() != null) {
            close();
            throw new TxnException(TxnError.INTERNAL, "server " + serverId + " failed while starting: "
                + ctx.failure());
        }
        this.expiry = new CommitExpiry(ctx);
        ctx.ready(true);
        LOG.info("server {} incarnation {} ready at csn {} (cluster: {})", serverId, ctx.incarnation(),
            state.meldedCsn(), cluster);
        final String memoryWarning = config.directMemoryWarning();
        if (memoryWarning != null) {
            LOG.warn("server {}: {}", serverId, memoryWarning);
        }
    }

    /** Reads the cluster configuration from the log, creating the log with it if the log is empty. */
    private static ClusterConfig joinCluster(final TxnServerConfig config, final LogService log) {
        final long tail = LogCalls.join(log.status()).tail();
        if (tail == 0) {
            final ClusterConfig wanted = config.cluster() != null ? config.cluster() : ClusterConfig.DEFAULT;
            LogCalls.join(log.create(wanted.blockSize(), wanted.encode()));
        }
        final ClusterConfig found = ClusterConfig.decode(LogCalls.join(log.config()));
        if (config.cluster() != null && !config.cluster().equals(found)) {
            throw new TxnException(TxnError.BAD_REQUEST, "this server was started with cluster configuration ["
                + config.cluster() + "] but the log holds [" + found + "]; refusing to join");
        }
        return found;
    }

    // ------------------------------------------------------------------------------------------ TxnService

    @Override
    public boolean inProcess() {
        return true;
    }

    /** Without the state hash ({@link #status()} walks the whole state for it): cheap enough for every health check. */
    @Override
    public ServerStatus probe() {
        if (!ready()) {
            final String failure = failure();
            throw new TxnException(TxnError.UNAVAILABLE, failure != null ? failure : "not ready");
        }
        return new ServerStatus(serverId(), incarnation(), lcsCsn(), 0, inFlight());
    }

    @Override
    public TxnSession begin(final IsolationLevel isolation, final boolean readOnly) {
        return sessions.begin(isolation, readOnly, 0);
    }

    @Override
    public TxnSession begin(final IsolationLevel isolation, final boolean readOnly, final int restarts) {
        return sessions.begin(isolation, readOnly, restarts);
    }

    @Override
    public boolean beginsWithoutWaiting(final long requiredCsn) {
        return sessions.beginsWithoutWaiting(requiredCsn);
    }

    @Override
    public TxnOutcome outcome(final TxnId id) {
        return outcomes.outcome(id);
    }

    @Override
    public TxnOutcome awaitOutcome(final TxnId id, final long waitMillis) {
        return outcomes.awaitOutcome(id, waitMillis);
    }

    @Override
    public ServerStatus status() {
        final CommittedState.Pinned pinned = ctx.state().pin();
        try {
            final long root = pinned.snapshot().root();
            final long csn = pinned.snapshot().csn();
            HashedState h = hashed;
            if (h == null || h.csn() != csn || h.root() != root) {
                // the hash walks the whole state, which must not be freed meanwhile: pinned like a session
                h = new HashedState(csn, root, StateHash.of(root));
                hashed = h;
            }
            return new ServerStatus(ctx.serverId(), ctx.incarnation(), csn, h.hash(), inFlight());
        } finally {
            ctx.state().unpin(pinned.generation());
        }
    }

    // ------------------------------------------------------------------------------------------ observation

    /** The counters and gauges the meters read, as of now (zeros while the server is still being assembled). */
    public TxnStats stats() {
        final ServerContext c = ctx;
        final Sessions s = sessions;
        final Pipeline p = pipeline;
        if (c == null || s == null || p == null) {
            return new TxnStats(new MeldTotals(), 1, -1, 0, 0, 0, 0, 0, 0);
        }
        return new TxnStats(c.state().totals(), c.state().generations(), p.meldThreadAllocatedBytes(),
            p.blocksDropped(), p.snapshotsTooOld(), s.inFlight(), c.state().meldedCsn(), c.processedPosition(),
            p.inboxSize());
    }

    /**
     * Heap bytes the meld stage's thread has allocated so far (the reader's in threading mode SHARED), from the
     * JVM's per-thread allocation counter; -1 where the JVM does not offer it.
     */
    public long meldThreadAllocatedBytes() {
        return pipeline.meldThreadAllocatedBytes();
    }

    /** The block buffers this server's appends reuse (tests: whether they do). */
    public io.meldb.log.client.BlockBufferPool blockBuffers() {
        return appender.blockBuffers();
    }

    /** Where this process's commits spend their round trip, per hand-off (benchmarks read and reset it). */
    public CommitPathProfile commitPath() {
        return ctx.commitPath();
    }

    /** CSN of the last committed state (cheap, unlike {@link #status()}, which hashes the state). */
    public long lcsCsn() {
        return ctx.state().meldedCsn();
    }

    /** Transactions open on this server now. */
    public int inFlight() {
        return sessions.inFlight();
    }

    public int serverId() {
        return ctx.serverId();
    }

    public long incarnation() {
        return ctx.incarnation();
    }

    public ClusterConfig cluster() {
        return ctx.cluster();
    }

    public MeterRegistry registry() {
        return ctx.registry();
    }

    /** Null while healthy; otherwise why this server stopped melding. */
    public String failure() {
        return ctx.failure();
    }

    /** Whether the server takes transactions: started, not failed or stopped, and its log stream sound. */
    public boolean ready() {
        return ctx.ready() && !ctx.stopped() && healer.brokenBecause() == null;
    }

    /** Null while the log stream is sound; otherwise why the server is re-fencing it (see {@link StreamHealer}). */
    public String refencing() {
        return healer.brokenBecause();
    }

    /** Log position up to which this server has read and melded. */
    public long processedPosition() {
        return ctx.processedPosition();
    }

    /** Waits until this server has melded every block up to {@code position}; false on timeout or failure. */
    public boolean awaitPosition(final long position, final long timeoutMillis) {
        return ctx.awaitPosition(position, timeoutMillis);
    }

    /** The log's tail, for callers that want to wait until this server has seen everything appended so far. */
    public long logTail() {
        return LogCalls.join(ctx.log().tail());
    }

    /** Node-memory generations this server has started (1 + checkpoints taken). */
    /** This server's own intentions melded from their trees rather than decoded (see {@link OwnIntentions}). */
    public long intentionsAdopted() {
        return ctx.metrics().intentionsAdopted();
    }

    /** Own intentions appended whose records the log reader has not reached yet (see {@link OwnIntentions}). */
    public int ownIntentionsHeld() {
        return ctx.ownIntentions().size();
    }

    public long generations() {
        return ctx.state().generations();
    }

    /** Generations whose node memory is still held (see {@code CommittedState.liveGenerations}). */
    public int liveGenerations() {
        return ctx.state().liveGenerations();
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    @Override
    public void close() {
        if (ctx.closed()) {
            return;
        }
        ctx.close();
        if (healer != null) {
            healer.close();
        }
        if (expiry != null) {
            expiry.close();
        }
        checkpointer.close();
        if (pipeline != null) {
            pipeline.close();
        }
        ctx.log().close();
        ctx.released();
        if (pipeline == null || pipeline.meldStopped()) {
            ctx.state().close();
        }
        LOG.info("server {} stopped", ctx.serverId());
    }
}
