package io.meldb.log.replication;

import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore;
import io.netty.buffer.Unpooled;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The log server's block store as a Raft state machine (issue 22; Hyder II §5.1's shared log, replicated): every
 * replica applies the committed entries in log order and numbers their blocks 1, 2, 3, … itself, so positions are
 * dense and the same on every replica, and position 0 and the log id come from the replicated CREATE.
 *
 * <p>Restart: the state machine takes no snapshots yet, so Ratis applies the replica's whole Raft log again; the
 * blocks below the store's tail at start-up are already stored and are counted, not stored twice. Trim, snapshots
 * and purging the Raft log are not built (docs/log-replication.md).
 *
 * <p>An entry's reply is the position of its first block (8 bytes), once the local store holds the whole entry.
 */
public final class BlockStoreStateMachine extends BaseStateMachine {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BlockStoreStateMachine.class);
    private final LogStore store;
    /** Blocks the store already held when this replica started: replayed entries below it are skipped. */
    private final long storedAtStart;
    /** Applier thread only: the position the next applied block takes. */
    private long nextPosition = 1;
    /** Applier thread: completes once the latest APPEND entry is stored (a TRIM waits for it). */
    private CompletableFuture<Message> lastAppend = CompletableFuture.completedFuture(null);
    /** Carries out TRIMs, one at a time, in log order. */
    private final ExecutorService trimmer = Executors.newSingleThreadExecutor(r -> {
        final Thread t = new Thread(r, "raft-trim");
        t.setDaemon(true);
        return t;
    });

    public BlockStoreStateMachine(final LogStore store) {
        this.store = store;
        this.storedAtStart = store.tail();
    }

    /** The store this replica applies to. */
    public LogStore store() {
        return store;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(final TransactionContext trx) {
        final var entry = trx.getLogEntry();
        final ByteBuffer data = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
        CompletableFuture<Message> reply;
        try {
            reply = switch (ReplicatedEntry.type(data)) {
                case ReplicatedEntry.CREATE -> create(ReplicatedEntry.Create.decode(data));
                case ReplicatedEntry.APPEND -> append(data);
                case ReplicatedEntry.TRIM -> trim(data.getLong(data.position() + 1));
                default -> CompletableFuture.failedFuture(new IllegalArgumentException(
                    "unknown replicated entry type " + ReplicatedEntry.type(data) + " at index " + entry.getIndex()));
            };
        } catch (RuntimeException e) {
            // refused alike on every replica (CREATE_MISMATCH, a log id that differs): the entry takes no position
            reply = CompletableFuture.failedFuture(e);
        }
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return reply;
    }

    private CompletableFuture<Message> create(final ReplicatedEntry.Create c) {
        if (store.isCreated()) {
            // a replayed CREATE, or a second one: the store answers CREATE_MISMATCH if it differs
            // the same block size and configuration again is the same log whatever id its proposer drew (two servers
            // asked to create it at once): the first CREATE's id stands, on every replica alike
            store.create(c.blockSize(), c.config());
        } else if (store instanceof io.meldb.log.storage.ChronicleLogStore chronicle) {
            chronicle.create(c.blockSize(), c.config(), c.logId());
        } else {
            throw new IllegalStateException("a replicated log needs a store that takes the log id");
        }
        return CompletableFuture.completedFuture(position(LogStore.CONFIG_POSITION));
    }

    /**
     * Applier thread: trims once every block before this entry is stored (the store appends asynchronously, so its
     * tail may still lag behind the entries applied before this one), to at most that point: the same prefix on
     * every replica.
     */
    private CompletableFuture<Message> trim(final long position) {
        final long upTo = Math.min(position, nextPosition);
        // on a thread of its own: not on the store's writer thread, whose callback completes lastAppend
        return lastAppend.handleAsync((ignored, error) -> position(store.trim(Math.max(1, upTo))), trimmer);
    }

    private CompletableFuture<Message> append(final ByteBuffer data) {
        final int blockSize = store.blockSize();
        final int length = data.remaining() - 1;
        if (blockSize == 0 || length <= 0 || length % blockSize != 0) {
            // the same on every replica, so all of them skip it alike: no position is taken
            return CompletableFuture.failedFuture(new IllegalArgumentException("an APPEND entry of " + length
                + " bytes is not whole blocks of " + blockSize + " bytes" + (blockSize == 0 ? " (log not created)" : "")));
        }
        final int count = length / blockSize;
        final long first = nextPosition;
        nextPosition += count;
        final CompletableFuture<Message> done = new CompletableFuture<>();
        if (first + count <= storedAtStart) {
            done.complete(position(first));
            return done;
        }
        lastAppend = done;
        final long last = first + count - 1;
        for (int i = 0; i < count; i++) {
            final long p = first + i;
            if (p < storedAtStart) {
                continue;
            }
            // a read-only view of the entry's bytes, not a copy: the log entry is immutable and stays reachable from
            // this buffer until the store's writer thread has written the block (a heap ByteString on every replica:
            // Ratis 3.3's gRPC parses appendEntries into heap copies, it has no zero-copy marshaller in use)
            final int at = data.position() + 1 + i * blockSize;
            final ByteBuffer block = data.duplicate().limit(at + blockSize).position(at);
            store.append(Unpooled.wrappedBuffer(block), new LogStore.AppendCallback() {
                @Override
                public void appended(final long position) {
                    if (position != p) {
                        done.completeExceptionally(new IllegalStateException("replica stored block " + p
                            + " at position " + position + ": its store diverged from the replicated log"));
                    } else if (p == last) {
                        done.complete(position(first));
                    }
                }

                @Override
                public void failed(final LogErrorException error) {
                    done.completeExceptionally(error);
                }
            });
        }
        return done;
    }

    private static Message position(final long p) {
        return Message.valueOf(ByteString.copyFrom(ByteBuffer.allocate(Long.BYTES).putLong(0, p).array()));
    }

    /** One line per leader change, the operator's (and the failover tests') view of who takes appends. */
    @Override
    public void notifyLeaderChanged(final org.apache.ratis.protocol.RaftGroupMemberId member,
                                    final org.apache.ratis.protocol.RaftPeerId newLeader) {
        LOG.info("replicated log: {} sees {} as the leader", member.getPeerId(), newLeader);
    }

    @Override
    public void close() throws java.io.IOException {
        trimmer.shutdown();
        super.close();
    }
}
