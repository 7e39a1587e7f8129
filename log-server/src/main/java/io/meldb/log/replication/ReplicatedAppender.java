package io.meldb.log.replication;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore.AppendCallback;
import io.meldb.log.LogStore.TailListener;
import io.meldb.log.storage.ChronicleLogStore;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import org.apache.ratis.protocol.RaftClientReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The APPEND path of a replicated log (issue 22): what the request handler's appends turn into at r &gt; 1. The
 * appends waiting when the proposer thread comes round travel as one Raft entry (up to
 * {@link ReplicationOptions#maxBlocksPerEntry()} blocks, a few entries in flight), proposed to this server's own
 * Raft division only; each is acknowledged with its position once a majority committed the entry and this replica
 * applied it. A follower refuses with NOT_LEADER naming the leader; an entry proposed but not known to be committed
 * (the leader stepped down, no majority within the commit timeout) is answered OUTCOME_UNKNOWN.
 *
 * <p>Threads: callbacks and tail listeners run on one "raft-ack" thread (the server's acknowledgement dispatcher
 * needs its filing and its tail notifications on one thread, as the local store's writer thread gives it at r = 1).
 * This path allocates per entry (the entry's bytes, Ratis's request), not per block: the entry is handed to Ratis
 * without a copy, and the replicas apply its blocks as views of it.
 */
final class ReplicatedAppender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedAppender.class);
    /**
     * Raft entries proposed and not yet answered: a few, so that batches form while they are replicated. Bounded,
     * because on the 2-core machine the entries committed per second stay put whatever the depth (CPU queueing along
     * each entry's thread hops, docs/perf/replication.md): with 16 instead of 4 each entry waited proportionally longer
     * and carried fewer blocks (470-689 against 624-884 blocks/s, interleaved runs); 1 measured no better either.
     */
    private static final int ENTRIES_IN_FLIGHT = 4;

    private final ChronicleLogStore local;
    private final RaftReplica replica;
    private final ReplicationOptions options;
    private final LinkedBlockingQueue<PendingAppend> queue = new LinkedBlockingQueue<>();
    private final Semaphore entriesInFlight = new Semaphore(ENTRIES_IN_FLIGHT);
    private final CopyOnWriteArrayList<TailListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService acks = Executors.newSingleThreadExecutor(r -> daemon(r, "raft-ack"));
    private final AtomicBoolean tailNoticeScheduled = new AtomicBoolean();
    /** Followers see their tail advance only here: subscribers are woken on the ack thread too. */
    private final TailListener localTail = t -> {
        if (tailNoticeScheduled.compareAndSet(false, true)) {
            runOnAckThread(this::tellListeners);
        }
    };
    private final Thread proposer;
    private volatile boolean closed;
    /** Set once the server's registry is known; until then nothing is recorded. */
    private volatile Timer entryCommit;
    private volatile DistributionSummary entryBlocks;

    private record PendingAppend(ByteBuf block, AppendCallback callback) {
    }

    ReplicatedAppender(final ChronicleLogStore local, final RaftReplica replica, final ReplicationOptions options) {
        this.local = local;
        this.replica = replica;
        this.options = options;
        local.addTailListener(localTail);
        this.proposer = daemon(this::proposeLoop, "raft-propose");
        proposer.start();
    }

    private static Thread daemon(final Runnable r, final String name) {
        final Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Registers the per-entry figures that docs/perf/replication.md needed a probe for: how long a Raft entry takes from
     * its proposal to its answer (committed by a majority and applied here), and how many blocks it carried.
     */
    void bindMetrics(final MeterRegistry registry) {
        entryCommit = Timer.builder("meldb.log.replication.entry.commit")
            .description("a replicated APPEND entry from its proposal by this leader to its answer: committed by a "
                + "majority and applied to this replica's store")
            .publishPercentileHistogram().minimumExpectedValue(java.time.Duration.ofNanos(100_000))
            .maximumExpectedValue(options.commitTimeout()).register(registry);
        entryBlocks = DistributionSummary.builder("meldb.log.replication.entry.blocks")
            .description("blocks carried by one replicated APPEND entry this leader committed").register(registry);
    }

    void addTailListener(final TailListener listener) {
        listeners.add(listener);
    }

    void removeTailListener(final TailListener listener) {
        listeners.remove(listener);
    }

    /** Any thread: queues one block for the next entry, or refuses it at once. */
    void append(final ByteBuf block, final AppendCallback callback) {
        if (closed) {
            refuse(block, callback, new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log server is shutting down"));
        } else if (!local.isCreated()) {
            refuse(block, callback, new LogErrorException(ErrorCode.NOT_CREATED, "the log has not been created"));
        } else if (block.readableBytes() != local.blockSize()) {
            refuse(block, callback, new LogErrorException(ErrorCode.BLOCK_SIZE, "block of " + block.readableBytes()
                + " bytes, the log's block size is " + local.blockSize()));
        } else if (!replica.isLeaderReady()) {
            refuse(block, callback, notLeader());
        } else {
            queue.add(new PendingAppend(block, callback));
        }
    }

    private static void refuse(final ByteBuf block, final AppendCallback callback, final LogErrorException e) {
        callback.blockDone(block);
        callback.failed(e);
    }

    /** NOT_LEADER naming the leader's log address when this replica knows it. */
    private LogErrorException notLeader() {
        final boolean self = replica.isLeaderReady();
        return new LogErrorException(ErrorCode.NOT_LEADER, "log server " + replica.id() + " is not the leader of the "
            + "replicated log" + (self ? " yet" : "") + "; nothing was appended; " + leaderHint());
    }

    /** {@code leader at host:port} or {@code leader unknown}: what clients parse to find the leader. */
    String leaderHint() {
        final String leader = replica.leaderClientAddress();
        return leader == null ? "leader unknown" : "leader at " + leader;
    }

    /** Proposer thread: takes what waits, as one entry, while fewer than {@link #ENTRIES_IN_FLIGHT} are out. */
    private void proposeLoop() {
        final int max = options.maxBlocksPerEntry();
        final List<PendingAppend> batch = new ArrayList<>(max);
        while (!closed) {
            try {
                final PendingAppend first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                entriesInFlight.acquire();
                batch.add(first);
                queue.drainTo(batch, max - 1);
                propose(batch.toArray(new PendingAppend[0]));
                batch.clear();
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                LOG.error("proposing a replicated append failed", e);
            }
        }
        failWaiting();
    }

    private void propose(final PendingAppend[] batch) {
        if (!replica.isLeaderReady()) {
            // lost the leadership after these were queued: nothing was proposed
            final LogErrorException e = notLeader();
            for (final PendingAppend p : batch) {
                refuse(p.block(), p.callback(), e);
            }
            entriesInFlight.release();
            return;
        }
        final int bs = local.blockSize();
        final byte[] entry = new byte[1 + batch.length * bs];
        entry[0] = ReplicatedEntry.APPEND;
        for (int i = 0; i < batch.length; i++) {
            final ByteBuf b = batch[i].block();
            b.getBytes(b.readerIndex(), entry, 1 + i * bs, bs);
            batch[i].callback().blockDone(b);
        }
        final long proposed = System.nanoTime();
        replica.proposeHere(entry).orTimeout(options.commitTimeout().toMillis(), TimeUnit.MILLISECONDS)
            .whenComplete((reply, error) -> {
                entriesInFlight.release();
                final Timer commit = entryCommit;
                if (commit != null && error == null && reply.isSuccess()) {
                    commit.record(System.nanoTime() - proposed, TimeUnit.NANOSECONDS);
                    entryBlocks.record(batch.length);
                }
                runOnAckThread(() -> answer(batch, reply, error));
            });
    }

    /** Ack thread: acknowledges a committed entry's appends with their positions, or tells them the outcome is unknown. */
    private void answer(final PendingAppend[] batch, final RaftClientReply reply, final Throwable error) {
        if (error == null && reply.isSuccess()) {
            final ByteBuffer content = reply.getMessage().getContent().asReadOnlyByteBuffer();
            final long first = content.getLong(content.position());
            for (int i = 0; i < batch.length; i++) {
                batch[i].callback().appended(first + i);
            }
            tellListeners();
            return;
        }
        final String why = error instanceof java.util.concurrent.TimeoutException
            ? "not committed by a majority within " + options.commitTimeout().toMillis() + " ms"
            : String.valueOf(error != null ? error : reply.getException());
        final LogErrorException e = new LogErrorException(ErrorCode.OUTCOME_UNKNOWN, batch.length + " block(s) proposed "
            + "by log server " + replica.id() + " are not known to be committed (" + why + "); they may or may not be "
            + "in the log (at one position each); " + leaderHint());
        for (final PendingAppend p : batch) {
            p.callback().failed(e);
        }
    }

    private void tellListeners() {
        tailNoticeScheduled.set(false);
        final long tail = local.tail();
        for (final TailListener l : listeners) {
            l.tailAdvanced(tail);
        }
    }

    private void runOnAckThread(final Runnable r) {
        try {
            acks.execute(r);
        } catch (RejectedExecutionException e) {
            // closing: the connections close with the server
        }
    }

    private void failWaiting() {
        final LogErrorException e = new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log server is shutting down");
        for (PendingAppend p; (p = queue.poll()) != null; ) {
            refuse(p.block(), p.callback(), e);
        }
    }

    /** Stops proposing: appends still waiting fail with SHUTTING_DOWN; answers already under way are delivered. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        proposer.interrupt();
        try {
            proposer.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        failWaiting();
    }

    /** After the Raft member stopped: no answer comes any more. */
    void stopAcks() {
        acks.shutdown();
        try {
            acks.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        local.removeTailListener(localTail);
    }
}
