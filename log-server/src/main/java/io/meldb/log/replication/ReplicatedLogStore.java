package io.meldb.log.replication;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.LogStore;
import io.meldb.log.storage.ChronicleLogStore;
import io.netty.buffer.ByteBuf;
import org.apache.ratis.protocol.RaftClientReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The log store a log server serves at replication factor r &gt; 1 (issue 22): the same {@link LogStore} the
 * request handler uses at r = 1, with writes going through Raft and reads coming from this replica's applied store.
 *
 * <ul>
 *   <li>APPEND: only the leader takes appends. The appends waiting when the proposer thread comes round travel as one
 *   Raft entry (up to {@link ReplicationOptions#maxBlocksPerEntry()} blocks; a few entries in flight at once), and
 *   each is acknowledged with its position once a majority committed the entry and this replica applied it. A
 *   follower refuses with NOT_LEADER naming the leader; an entry proposed but not known to be committed (the leader
 *   stepped down, no majority within the commit timeout) is answered OUTCOME_UNKNOWN.</li>
 *   <li>CREATE and TRIM are replicated entries too, proposed through any replica (they are idempotent), and answered
 *   once this replica applied them.</li>
 *   <li>READ, TAIL, SUBSCRIBE: the local store, which holds what this replica applied: committed blocks only.</li>
 * </ul>
 *
 * <p>Threads: callbacks and tail listeners run on one "raft-ack" thread (the server's acknowledgement dispatcher
 * needs its filing and its tail notifications on one thread, as the local store's writer thread gives it at r = 1).
 * This path allocates per entry (the entry's bytes, Ratis's request): replication costs far more than that.
 */
public final class ReplicatedLogStore implements LogStore {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedLogStore.class);
    /**
     * Raft entries proposed and not yet answered: a few, so that batches form while they are replicated (1 and 16
     * measured no better on the 2-core machine, docs/log-replication.md).
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
    private final TailListener localTail = t -> {
        if (tailNoticeScheduled.compareAndSet(false, true)) {
            runOnAckThread(this::tellListeners);
        }
    };
    private final Thread proposer;
    private volatile boolean closed;

    private record PendingAppend(ByteBuf block, AppendCallback callback) {
    }

    private ReplicatedLogStore(final ChronicleLogStore local, final RaftReplica replica, final ReplicationOptions options) {
        this.local = local;
        this.replica = replica;
        this.options = options;
        local.addTailListener(localTail);
        this.proposer = daemon(this::proposeLoop, "raft-propose");
        proposer.start();
    }

    /** Starts this server's Raft member over {@code local} (Raft log in {@code <data-dir>/raft}). */
    public static ReplicatedLogStore start(final ChronicleLogStore local, final ReplicationOptions options,
                                           final String bindHost, final int blockSize) throws IOException {
        final RaftReplica replica = RaftReplica.start(options, local, local.dataDir().resolve("raft"), bindHost, blockSize);
        LOG.info("replicated log: node {} of {} (Raft peers {}), election timeout {}..{} ms, commit timeout {} ms",
            options.nodeId(), options.factor(), options.peers(), options.electionTimeoutMin().toMillis(),
            options.electionTimeoutMax().toMillis(), options.commitTimeout().toMillis());
        return new ReplicatedLogStore(local, replica, options);
    }

    private static Thread daemon(final Runnable r, final String name) {
        final Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** This server's Raft member. */
    public RaftReplica replica() {
        return replica;
    }

    /** The store this replica applies to. */
    public ChronicleLogStore local() {
        return local;
    }

    // ---------------------------------------------------------------------------------------------- appends

    @Override
    public void append(final ByteBuf block, final AppendCallback callback) {
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
    LogErrorException notLeader() {
        final String leader = replica.leaderClientAddress();
        final boolean self = replica.isLeaderReady();
        return new LogErrorException(ErrorCode.NOT_LEADER, "log server " + replica.id() + " is not the leader of the "
            + "replicated log" + (self ? " yet" : "") + "; nothing was appended; "
            + (leader == null ? "leader unknown" : "leader at " + leader));
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
        failWaiting(new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log server is shutting down"));
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
        final long timeoutMillis = options.commitTimeout().toMillis();
        replica.proposeHere(entry).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
            .whenComplete((reply, error) -> {
                entriesInFlight.release();
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

    private String leaderHint() {
        final String leader = replica.leaderClientAddress();
        return leader == null ? "leader unknown" : "leader at " + leader;
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
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing: the connections close with the server
        }
    }

    private void failWaiting(final LogErrorException e) {
        for (PendingAppend p; (p = queue.poll()) != null; ) {
            refuse(p.block(), p.callback(), e);
        }
    }

    // ---------------------------------------------------------------------------------------------- create, trim

    /**
     * Proposes CREATE (with a log id drawn here) through the leader and waits until this replica applied it; an
     * existing log is only checked (CREATE_MISMATCH). Blocks the calling thread up to the commit timeout.
     */
    @Override
    public void create(final int blockSize, final byte[] config) {
        if (!local.isCreated()) {
            final RaftClientReply reply = await(replica.proposeAnywhere(ReplicatedEntry.create(blockSize, UUID.randomUUID(),
                config)), "CREATE");
            if (!reply.isSuccess()) {
                // refused by the state machine: another CREATE came first; the check below names the difference
                LOG.info("the replicated CREATE was refused ({}); checking against the log created first", reply.getException());
            }
            awaitLocally(local::isCreated, "CREATE");
        }
        local.create(blockSize, config); // the same again changes nothing; another block size or config is refused
    }

    /**
     * Proposes TRIM through the leader (every replica releases the same prefix) and waits until this replica applied
     * it. The caller (the server's checkpoint rule) has checked the position against this replica's log.
     */
    @Override
    public long trim(final long position) {
        if (position <= local.trimPoint()) {
            return local.trimPoint();
        }
        if (position > local.tail()) {
            throw new LogErrorException(ErrorCode.PAST_TAIL, "trim position " + position + " is past the tail " + local.tail());
        }
        final RaftClientReply reply = await(replica.proposeAnywhere(ReplicatedEntry.trim(position)), "TRIM");
        if (!reply.isSuccess()) {
            throw new LogErrorException(ErrorCode.STORAGE_FAILURE, "the replicated TRIM failed: " + reply.getException());
        }
        awaitLocally(() -> local.trimPoint() >= position, "TRIM");
        return local.trimPoint();
    }

    private RaftClientReply await(final CompletableFuture<RaftClientReply> f, final String what) {
        try {
            return f.get(options.commitTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LogErrorException(ErrorCode.SHUTTING_DOWN, "interrupted waiting for the replicated " + what);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new LogErrorException(ErrorCode.OUTCOME_UNKNOWN, "the replicated " + what + " was not committed by a "
                + "majority within " + options.commitTimeout().toMillis() + " ms; " + leaderHint());
        } catch (java.util.concurrent.ExecutionException e) {
            throw new LogErrorException(ErrorCode.OUTCOME_UNKNOWN, "the replicated " + what + " failed: " + e.getCause()
                + "; " + leaderHint());
        }
    }

    private void awaitLocally(final java.util.function.BooleanSupplier applied, final String what) {
        final long deadline = System.nanoTime() + options.commitTimeout().toNanos();
        while (!applied.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new LogErrorException(ErrorCode.OUTCOME_UNKNOWN, "the replicated " + what + " is committed but this "
                    + "replica has not applied it within " + options.commitTimeout().toMillis() + " ms");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LogErrorException(ErrorCode.SHUTTING_DOWN, "interrupted waiting for the replicated " + what);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- reads: local

    @Override
    public boolean isCreated() {
        return local.isCreated();
    }

    @Override
    public UUID logId() {
        return local.logId();
    }

    @Override
    public int blockSize() {
        return local.blockSize();
    }

    @Override
    public byte[] config() {
        return local.config();
    }

    @Override
    public long tail() {
        return local.tail();
    }

    @Override
    public long trimPoint() {
        return local.trimPoint();
    }

    @Override
    public LogReader openReader() {
        return local.openReader();
    }

    @Override
    public LogErrorException failure() {
        return local.failure();
    }

    @Override
    public LogErrorException diskFull() {
        return local.diskFull();
    }

    @Override
    public long freeSpace() {
        return local.freeSpace();
    }

    @Override
    public void addTailListener(final TailListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeTailListener(final TailListener listener) {
        listeners.remove(listener);
    }

    /** Stops proposing (waiting appends fail with SHUTTING_DOWN), leaves the Raft group, closes the store. */
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
        failWaiting(new LogErrorException(ErrorCode.SHUTTING_DOWN, "the log server is shutting down"));
        try {
            replica.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("stopping the Raft server failed: {}", e.toString());
        }
        acks.shutdown();
        try {
            acks.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        local.removeTailListener(localTail);
        local.close();
    }
}
