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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The log store a log server serves at replication factor r &gt; 1 (issue 22): the same {@link LogStore} the
 * request handler uses at r = 1, with writes going through Raft and reads coming from this replica's applied store.
 *
 * <ul>
 *   <li>APPEND: {@link ReplicatedAppender} (through the leader, batched into Raft entries).</li>
 *   <li>CREATE and TRIM are replicated entries too, proposed through any replica (they are idempotent), and answered
 *   once this replica applied them.</li>
 *   <li>READ, TAIL, SUBSCRIBE: the local store, which holds what this replica applied: committed blocks only.</li>
 * </ul>
 */
public final class ReplicatedLogStore implements LogStore {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedLogStore.class);

    private final ChronicleLogStore local;
    private final RaftReplica replica;
    private final ReplicationOptions options;
    private final ReplicatedAppender appender;
    private volatile boolean closed;

    private ReplicatedLogStore(final ChronicleLogStore local, final RaftReplica replica, final ReplicationOptions options) {
        this.local = local;
        this.replica = replica;
        this.options = options;
        this.appender = new ReplicatedAppender(local, replica, options);
    }

    /** Starts this server's Raft member over {@code local} (Raft log in {@code <data-dir>/raft}). */
    public static ReplicatedLogStore start(final ChronicleLogStore local, final ReplicationOptions options,
                                           final String bindHost, final int blockSize,
                                           final io.meldb.wire.auth.ClusterSecret secret) throws IOException {
        final RaftReplica replica = RaftReplica.start(options, local, local.dataDir().resolve("raft"), bindHost, blockSize,
            secret);
        LOG.info("replicated log: node {} of {} (Raft peers {}), election timeout {}..{} ms, commit timeout {} ms",
            options.nodeId(), options.factor(), options.peers(), options.electionTimeoutMin().toMillis(),
            options.electionTimeoutMax().toMillis(), options.commitTimeout().toMillis());
        return new ReplicatedLogStore(local, replica, options);
    }

    /** This server's Raft member. */
    public RaftReplica replica() {
        return replica;
    }

    /** The store this replica applies to. */
    public ChronicleLogStore local() {
        return local;
    }

    /** Registers the replicated append path's figures (per-entry commit time, blocks per entry) in {@code registry}. */
    public void bindMetrics(final io.micrometer.core.instrument.MeterRegistry registry) {
        appender.bindMetrics(registry);
    }

    @Override
    public void append(final ByteBuf block, final AppendCallback callback) {
        appender.append(block, callback);
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
                + "majority within " + options.commitTimeout().toMillis() + " ms; " + appender.leaderHint());
        } catch (java.util.concurrent.ExecutionException e) {
            throw new LogErrorException(ErrorCode.OUTCOME_UNKNOWN, "the replicated " + what + " failed: " + e.getCause()
                + "; " + appender.leaderHint());
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
        appender.addTailListener(listener);
    }

    @Override
    public void removeTailListener(final TailListener listener) {
        appender.removeTailListener(listener);
    }

    /** Stops proposing (waiting appends fail with SHUTTING_DOWN), leaves the Raft group, closes the store. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        appender.close();
        try {
            replica.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("stopping the Raft server failed: {}", e.toString());
        }
        appender.stopAcks();
        local.close();
    }
}
