package io.meldb.log.replication;

import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore;
import io.netty.buffer.Unpooled;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;

import java.io.IOException;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The log server's block store as a Raft state machine (issue 22; Hyder II §5.1's shared log, replicated): every
 * replica applies the committed entries in log order and numbers their blocks 1, 2, 3, … itself, so positions are
 * dense and the same on every replica, and position 0 and the log id come from the replicated CREATE.
 *
 * <p>Snapshots (Raft §7; {@link StoreSnapshots}): the store is the state, so every so many entries the replica forces
 * its store and records the applied term-index with the next position, and Ratis purges its log below it. On restart
 * the state machine reports that snapshot and Ratis replays only later entries; blocks the store already holds are
 * counted, not stored twice, so applying an entry again is idempotent. A follower that needs entries its leader
 * purged is notified and fetches the blocks from a peer's log port ({@link StoreCatchUp}).
 *
 * <p>An entry's reply is the position of its first block (8 bytes), once the local store holds the whole entry.
 */
public final class BlockStoreStateMachine extends BaseStateMachine {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BlockStoreStateMachine.class);
    /** A read-only query: the latest snapshot's point ({@link StoreSnapshots.Point}), empty if none. */
    static final byte QUERY_SNAPSHOT_POINT = 1;

    private final LogStore store;
    private final StoreSnapshots snapshots = new StoreSnapshots();
    private final StoreCatchUp catchUp;
    /**
     * Applier thread (and {@link #reinitialize}, which Ratis runs on it): positions below it were in the store when
     * this replica started or installed a snapshot; an entry applied again below it is counted, not stored twice.
     */
    private long storedUpTo;
    /** Applier thread only: the position the next applied block takes. */
    private long nextPosition = 1;
    /** Written by the applier: completes once the latest APPEND entry is stored (a TRIM and catching up wait for it). */
    private volatile CompletableFuture<Message> lastAppend = CompletableFuture.completedFuture(null);
    /** Written by the applier thread in {@link #reinitialize} only. */
    private volatile long reloads;
    /** Carries out TRIMs, one at a time, in log order. */
    private final ExecutorService trimmer = Executors.newSingleThreadExecutor(r -> {
        final Thread t = new Thread(r, "raft-trim");
        t.setDaemon(true);
        return t;
    });

    /** {@code catchUp} is how this replica fetches blocks it lacks from a peer; null: it cannot (a test's group). */
    public BlockStoreStateMachine(final LogStore store, final StoreCatchUp catchUp) {
        this.store = store;
        this.catchUp = catchUp;
        this.storedUpTo = store.tail();
    }

    /**
     * Ratis calls this before it replays: the latest snapshot, if any, says where the store's applied prefix ends, and
     * Ratis replays only the entries after it.
     */
    @Override
    public void initialize(final RaftServer server, final RaftGroupId groupId, final RaftStorage raftStorage)
            throws IOException {
        super.initialize(server, groupId, raftStorage);
        snapshots.init(raftStorage);
        getLifeCycle().transition(LifeCycle.State.STARTING);
        load();
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    /** Takes the latest snapshot as the applied point: on start, and after a snapshot was installed. */
    private void load() throws IOException {
        storedUpTo = store.tail();
        final StoreSnapshots.Point p = snapshots.latest();
        if (p == null) {
            return;
        }
        if (storedUpTo < p.nextPosition()) {
            throw new IOException("the block store holds positions below " + storedUpTo + " but the Raft snapshot at "
                + p.termIndex() + " says every block below " + p.nextPosition() + " was stored: the store lost blocks"
                + " the Raft log no longer holds; empty this replica's data directory and restart it: it catches up"
                + " from its peers");
        }
        nextPosition = p.nextPosition();
        setLastAppliedTermIndex(p.termIndex());
        LOG.info("replicated log: applied up to the snapshot at {}, next position {}, store tail {}", p.termIndex(),
            p.nextPosition(), storedUpTo);
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return snapshots.storage();
    }

    /**
     * Ratis's applier thread, once every entry applied so far is stored (it waits for their futures): forces the store
     * and records the applied term-index, after which Ratis may purge its log up to it.
     */
    @Override
    public long takeSnapshot() throws IOException {
        final TermIndex at = getLastAppliedTermIndex();
        if (at == null || at.getIndex() < 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        final StoreSnapshots.Point current = snapshots.current();
        if (current != null && current.termIndex().getIndex() >= at.getIndex()) {
            // installed from a peer and not reloaded yet, or nothing applied since: nothing new to record
            return current.termIndex().getIndex() == at.getIndex() ? at.getIndex() : RaftLog.INVALID_LOG_INDEX;
        }
        if (store.tail() < nextPosition) {
            // an append this replica's store refused (STORAGE_FULL, a failure): recording the snapshot would let Ratis
            // purge the only other copy of those blocks
            throw new IOException("no snapshot at " + at + ": the store's tail " + store.tail()
                + " is below the applied position " + nextPosition);
        }
        record(new StoreSnapshots.Point(at, nextPosition));
        return at.getIndex();
    }

    /** Forces the store (even at page-cache durability: after the purge it is the only copy) and records {@code p}. */
    void record(final StoreSnapshots.Point p) throws IOException {
        if (store instanceof io.meldb.log.storage.ChronicleLogStore chronicle) {
            chronicle.force();
        }
        snapshots.write(p.termIndex(), p.nextPosition());
    }

    /** A peer catching up asks for this replica's latest snapshot point (a stale read, served by any replica). */
    @Override
    public CompletableFuture<Message> query(final Message request) {
        final ByteString q = request.getContent();
        if (q.size() != 1 || q.byteAt(0) != QUERY_SNAPSHOT_POINT) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("unknown query of " + q.size() + " bytes"));
        }
        final StoreSnapshots.Point p = snapshots.current();
        return CompletableFuture.completedFuture(p == null ? Message.EMPTY : Message.valueOf(ByteString.copyFrom(p.encode())));
    }

    /**
     * The leader no longer holds the entries this follower needs (purged below its snapshot): fetch the blocks from a
     * peer's store instead ({@link StoreCatchUp}). Ratis stops this follower taking entries until the future completes;
     * a failed future makes the leader notify it again.
     */
    @Override
    public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(final RaftProtos.RoleInfoProto roleInfo,
                                                                       final TermIndex firstTermIndexInLog) {
        final String leader = roleInfo.hasFollowerInfo() && roleInfo.getFollowerInfo().hasLeaderInfo()
            ? RaftPeerId.valueOf(roleInfo.getFollowerInfo().getLeaderInfo().getId().getId()).toString() : null;
        LOG.info("replicated log: {} applied up to {} but the leader {} holds Raft entries from {} on: catching up"
            + " from a peer's block store", getId(), getLastAppliedTermIndex(), leader, firstTermIndexInLog);
        if (catchUp == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("this replica cannot fetch blocks from its peers"));
        }
        return catchUp.install(this, leader, firstTermIndexInLog);
    }

    /**
     * Whether nothing is being applied: every committed entry applied and stored. While Ratis waits for a snapshot
     * installation it refuses new entries, so once idle the store stays this replica's alone until the install ends.
     */
    boolean applierIdle() {
        try {
            final long committed = getServer().join().getDivision(getGroupId()).getRaftLog().getLastCommittedIndex();
            return getLastAppliedTermIndex().getIndex() >= committed && lastAppend.isDone();
        } catch (IOException e) {
            return false;
        }
    }

    /** Ratis pauses the state machine before it reloads it from an installed snapshot. */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    /** On the applier thread, after a snapshot was installed: the store holds it, take its point as applied. */
    @Override
    public void reinitialize() throws IOException {
        getLifeCycle().transition(LifeCycle.State.STARTING);
        load();
        getLifeCycle().transition(LifeCycle.State.RUNNING);
        reloads++;
    }

    /** How many times Ratis reloaded this state machine from an installed snapshot. */
    long reloads() {
        return reloads;
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
        if (first + count <= storedUpTo) {
            done.complete(position(first));
            return done;
        }
        lastAppend = done;
        final long last = first + count - 1;
        for (int i = 0; i < count; i++) {
            final long p = first + i;
            if (p < storedUpTo) {
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
