package io.meldb.txn;

import io.meldb.core.NodeMemory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A txn-server's meters (Micrometer; scraped as Prometheus text): commits and aborts by reason, melds and nodes
 * visited per final meld, conflict-zone length, ephemeral nodes, premeld and group-meld activity, pipeline stalls,
 * in-flight transactions, checkpoints, JVM memory and GC pauses. Counters the pipeline thread keeps in plain fields
 * are read through function meters, so the pipeline does no metric work per node.
 */
public final class TxnMetrics {
    private final MeterRegistry registry;
    private final Counter commits;
    private final Counter began;
    private final Counter localCommits;
    private final Counter clientAborts;
    private final Counter refused;
    private final Counter refusedMemory;
    private final Counter compactionsFailed;
    private final Counter tooLarge;
    private final Counter stalls;
    private final Counter droppedRecords;
    private final Counter checkpointChunks;
    private final Counter intentions;
    private final DistributionSummary intentionNodes;
    private final DistributionSummary visitedPerMeld;
    private final DistributionSummary conflictZone;
    private final DistributionSummary effectiveConflictZone;
    private final DistributionSummary committedRestarts;
    private final Timer checkpointTime;
    private final Counter checkpointNodes;
    private final Counter checkpointBytes;
    private final Counter adopted;
    private final ConcurrentHashMap<String, Counter> aborts = new ConcurrentHashMap<>();
    /** Held here: meters keep only weak references to what they read. */
    private final Supplier<TxnStats> stats;

    /** {@code stats} takes a snapshot of the server's counters (each meter reads one when scraped). */
    TxnMetrics(final MeterRegistry registry, final Supplier<TxnStats> stats) {
        this.registry = registry;
        this.stats = stats;
        commits = Counter.builder("meldb.txn.commits").description("transactions committed by final meld")
            .register(registry);
        began = Counter.builder("meldb.txn.begun").description("transactions begun on this server").register(registry);
        localCommits = Counter.builder("meldb.txn.local.commits")
            .description("read-only transactions finished on their snapshot, without the log").register(registry);
        clientAborts = Counter.builder("meldb.txn.client.aborts").description("transactions the client abandoned")
            .register(registry);
        tooLarge = Counter.builder("meldb.txn.too.large")
            .description("transactions ended because they would write more than --max-intention-bytes")
            .register(registry);
        adopted = Counter.builder("meldb.txn.intentions.adopted").description("this server's own intentions melded "
            + "from the trees their sessions built instead of decoded from the log (meld paper App. E)")
            .register(registry);
        refused = Counter.builder("meldb.txn.refused").description("begins refused: in-flight limit reached")
            .register(registry);
        refusedMemory = Counter.builder("meldb.txn.refused.memory")
            .description("update transactions refused: node memory at --max-node-memory").register(registry);
        compactionsFailed = Counter.builder("meldb.memory.compactions.failed")
            .description("compactions skipped because the copy of the live states did not fit in memory")
            .register(registry);
        stalls = Counter.builder("meldb.pipeline.stalls")
            .description("times the log reader paused because the meld pipeline was behind").register(registry);
        droppedRecords = Counter.builder("meldb.log.records.dropped")
            .description("log records that were not MeldDB records").register(registry);
        checkpointChunks = Counter.builder("meldb.checkpoint.chunks.read").register(registry);
        intentions = Counter.builder("meldb.pipeline.intentions").description("intentions decoded")
            .register(registry);
        intentionNodes = DistributionSummary.builder("meldb.pipeline.intention.nodes")
            .description("nodes per decoded intention").register(registry);
        visitedPerMeld = DistributionSummary.builder("meldb.meld.final.nodes.visited")
            .description("nodes visited per final meld").register(registry);
        conflictZone = DistributionSummary.builder("meldb.meld.final.conflict.zone")
            .description("conflict-zone length (intentions): LCS CSN minus the transaction's snapshot CSN")
            .register(registry);
        effectiveConflictZone = DistributionSummary.builder("meldb.meld.final.conflict.zone.effective")
            .description("intentions final meld itself still had to meld across: LCS CSN minus the state premeld"
                + " (or the snapshot) already covered").register(registry);
        committedRestarts = DistributionSummary.builder("meldb.txn.committed.restarts")
            .description("restarts before commit, per committed intention in the log (the count its client passed to"
                + " begin; the reorder window's tail-latency policy keeps often restarted ones)")
            .publishPercentiles(0.5, 0.99).register(registry);
        checkpointTime = Timer.builder("meldb.checkpoint.duration").register(registry);
        checkpointNodes = Counter.builder("meldb.checkpoint.nodes").register(registry);
        checkpointBytes = Counter.builder("meldb.checkpoint.bytes")
            .description("bytes of checkpoints serialized (on the heap, before compaction and the log append)")
            .baseUnit("bytes").register(registry);

        FunctionCounter.builder("meldb.meld.final.melds", stats, s -> s.get().meld().finalMelds())
            .description("final melds run (a group counts once)").register(registry);
        FunctionCounter.builder("meldb.meld.ephemerals", stats, s -> s.get().meld().ephemeralsCreated())
            .description("ephemeral nodes created by all meld stages").register(registry);
        FunctionCounter.builder("meldb.meld.premeld.melds", stats, s -> s.get().meld().premelds())
            .description("premelds run (Hyder II Algorithm 1)").register(registry);
        FunctionCounter.builder("meldb.meld.premeld.nodes.visited", stats, s -> s.get().meld().premeldNodesVisited())
            .register(registry);
        FunctionCounter.builder("meldb.meld.group.nodes.visited", stats, s -> s.get().meld().groupNodesVisited())
            .register(registry);
        FunctionCounter.builder("meldb.meld.group.formed", stats, s -> s.get().meld().groupsFormed())
            .register(registry);
        FunctionCounter.builder("meldb.meld.group.fallbacks", stats, s -> s.get().meld().groupsFallenBack())
            .register(registry);
        FunctionCounter.builder("meldb.memory.generations", stats, s -> s.get().generations())
            .description("node-memory generations started (one per checkpoint)").register(registry);
        Gauge.builder("meldb.memory.offheap.segments", NodeMemory::segmentsInUse)
            .description("4 MiB node-memory segments in use").register(registry);
        Gauge.builder("meldb.memory.offheap.bytes", NodeMemory::bytesInUse)
            .description("node memory handed out (segments in use and large segments)").baseUnit("bytes")
            .register(registry);
        Gauge.builder("meldb.memory.offheap.large.bytes", NodeMemory::largeBytesInUse)
            .description("node memory in dedicated segments of allocations over 4 MiB (large intentions)")
            .baseUnit("bytes").register(registry);
        FunctionCounter.builder("meldb.pipeline.meld.allocated.bytes", stats, s -> s.get().meldThreadAllocatedBytes())
            .description("heap bytes allocated by the meld stage's thread").register(registry);
        FunctionCounter.builder("meldb.log.blocks.dropped", stats, s -> s.get().blocksDropped()).register(registry);
        FunctionCounter.builder("meldb.txn.snapshot.too.old", stats, s -> s.get().snapshotsTooOld())
            .description("intentions aborted because their snapshot was older than the cluster's limit")
            .register(registry);
        Gauge.builder("meldb.txn.inflight", stats, s -> s.get().inFlight()).register(registry);
        Gauge.builder("meldb.lcs.csn", stats, s -> s.get().lcsCsn()).register(registry);
        Gauge.builder("meldb.log.position", stats, s -> s.get().processedPosition()).register(registry);
        Gauge.builder("meldb.pipeline.queue", stats, s -> s.get().inboxSize()).register(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
    }

    public void began() {
        began.increment();
    }

    public void committedLocally() {
        localCommits.increment();
    }

    public void abortedTooLarge() {
        tooLarge.increment();
    }

    public void abortedByClient() {
        clientAborts.increment();
    }

    public void refused() {
        refused.increment();
    }

    public void refusedMemory() {
        refusedMemory.increment();
    }

    public void compactionFailed() {
        compactionsFailed.increment();
    }

    public void stalled() {
        stalls.increment();
    }

    public void recordDropped() {
        droppedRecords.increment();
    }

    public void checkpointChunkSeen() {
        checkpointChunks.increment();
    }

    public void intentionRead(final int nodes) {
        intentions.increment();
        intentionNodes.record(nodes);
    }

    /** One of {@link #intentionRead} was this server's own, melded from its tree ({@link OwnIntentions}). */
    public void intentionAdopted() {
        adopted.increment();
    }

    /** Intentions adopted so far (see {@link #intentionAdopted}). */
    public long intentionsAdopted() {
        return (long) adopted.count();
    }

    public void finalMelds(final long melds, final long visited, final long zone, final long effectiveZone) {
        for (long i = 0; i < melds; i++) {
            visitedPerMeld.record((double) visited / melds);
            conflictZone.record((double) zone / melds);
            effectiveConflictZone.record((double) effectiveZone / melds);
        }
    }

    /** A commit meld decided, of a transaction that had restarted {@code restarts} times before it. */
    public void committed(final int restarts) {
        commits.increment();
        committedRestarts.record(restarts);
    }

    public void aborted(final String reason) {
        aborts.computeIfAbsent(reason, r -> Counter.builder("meldb.txn.aborts").tag("reason", r)
            .description("transactions aborted, by reason").register(registry)).increment();
    }

    public void checkpointWritten(final long nodes, final long bytes, final long nanos) {
        checkpointNodes.increment(nodes);
        checkpointBytes.increment(bytes);
        checkpointTime.record(nanos, TimeUnit.NANOSECONDS);
    }
}
