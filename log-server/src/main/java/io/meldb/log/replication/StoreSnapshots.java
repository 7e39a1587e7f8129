package io.meldb.log.replication;

import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.AtomicFileOutputStream;
import org.apache.ratis.util.MD5FileUtil;
import org.apache.ratis.util.SizeInBytes;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;

/**
 * The replicated log's Raft snapshots (issue 22; Raft §7, log compaction). The block store is the state: it holds every
 * block up to the applied index, so a snapshot is only a marker, a small file {@code snapshot.<term>_<index>} in
 * Ratis's state-machine directory holding the position the next applied block takes. Ratis then replays only the
 * entries after it and purges its log below it. Written atomically (temporary file, fsync, rename) with an MD5 beside
 * it, which Ratis's retention counts.
 */
final class StoreSnapshots {
    private static final int MAGIC = 0x4d534e50; // "MSNP"
    private static final int LENGTH = 4 + 8 + 8 + 8;
    /** Snapshot files kept: the newest and the one before it, in case the newest is torn by a crash mid-write. */
    static final int RETAINED = 2;

    /**
     * A snapshot: Raft's term-index and the position the next block after it takes. Every replica applies the same
     * committed entries in the same order, so the pair is a fact about the log, true on every replica that applied
     * the entry: a follower may take it from any peer ({@link StoreCatchUp}).
     */
    record Point(TermIndex termIndex, long nextPosition) {
        static final int BYTES = 3 * Long.BYTES;

        byte[] encode() {
            return ByteBuffer.allocate(BYTES).putLong(termIndex.getTerm()).putLong(termIndex.getIndex())
                .putLong(nextPosition).array();
        }

        /** The point in a query answer, or null if the peer has no snapshot (an empty answer). */
        static Point decode(final ByteBuffer b) {
            if (b.remaining() < BYTES) {
                return null;
            }
            final long term = b.getLong(b.position());
            final long index = b.getLong(b.position() + 8);
            return new Point(TermIndex.valueOf(term, index), b.getLong(b.position() + 16));
        }
    }

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    /** The newest snapshot written or loaded, null if none: what a peer's query is answered with. */
    private volatile Point current;

    SimpleStateMachineStorage storage() {
        return storage;
    }

    void init(final RaftStorage raftStorage) throws IOException {
        storage.init(raftStorage);
    }

    /** The newest snapshot, or null if this replica has none. */
    synchronized Point latest() throws IOException {
        final SingleFileSnapshotInfo info = storage.loadLatestSnapshot();
        if (info == null) {
            return null;
        }
        final File file = info.getFile().getPath().toFile();
        if (info.getFile().getFileDigest() != null) {
            MD5FileUtil.verifySavedMD5(file, info.getFile().getFileDigest());
        }
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file.toPath()));
        if (b.remaining() != LENGTH || b.getInt() != MAGIC) {
            throw new IOException("Raft snapshot " + file + " is not a MeldDB block-store snapshot (" + b.capacity() + " bytes)");
        }
        final long index = b.getLong();
        final long term = b.getLong();
        final long next = b.getLong();
        if (index != info.getIndex() || term != info.getTerm()) {
            throw new IOException("Raft snapshot " + file + " records term " + term + " index " + index
                + ", its name says term " + info.getTerm() + " index " + info.getIndex());
        }
        current = new Point(info.getTermIndex(), next);
        return current;
    }

    /** The newest snapshot this replica wrote or loaded, without touching the disk; null if none. */
    Point current() {
        return current;
    }

    /** Writes a snapshot durably (the caller forced the store first) and makes it the latest. */
    synchronized void write(final TermIndex at, final long nextPosition) throws IOException {
        final File file = storage.getSnapshotFile(at.getTerm(), at.getIndex());
        final ByteBuffer b = ByteBuffer.allocate(LENGTH).putInt(MAGIC).putLong(at.getIndex()).putLong(at.getTerm())
            .putLong(nextPosition);
        try (OutputStream out = new AtomicFileOutputStream(file)) {
            out.write(b.array());
        }
        final var md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), at));
        current = new Point(at, nextPosition);
    }

    /**
     * Snapshot settings for a replica: a snapshot every {@code every} applied entries, the Raft log purged up to it
     * with {@code every} entries kept below it (a follower a little behind still gets entries, not a snapshot; whole
     * closed segments of {@code segmentSize} bytes are deleted), and no snapshot file ever shipped to a follower: the
     * file says "the store holds every block up to here", which is only true on the replica that wrote it. A follower
     * that needs purged entries is notified instead and fetches the blocks over the log port ({@link StoreCatchUp}).
     * Purging does not wait for a follower that is down: its store, not the leader's Raft log, is what it catches up
     * from, so the Raft log stays bounded while a replica is away.
     */
    static void configure(final RaftProperties p, final long every, final SizeInBytes segmentSize) {
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, every);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, RETAINED);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.max(1, Math.min(every, 1024)));
        RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, every);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, segmentSize);
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
    }
}
