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

    /** A snapshot: Raft's term-index and the position the next block after it takes. */
    record Point(TermIndex termIndex, long nextPosition) { }

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();

    SimpleStateMachineStorage storage() {
        return storage;
    }

    void init(final RaftStorage raftStorage) throws IOException {
        storage.init(raftStorage);
    }

    /** The newest snapshot, or null if this replica has none. */
    Point latest() throws IOException {
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
        return new Point(info.getTermIndex(), next);
    }

    /** Writes a snapshot durably (the caller forced the store first) and makes it the latest. */
    void write(final TermIndex at, final long nextPosition) throws IOException {
        final File file = storage.getSnapshotFile(at.getTerm(), at.getIndex());
        final ByteBuffer b = ByteBuffer.allocate(LENGTH).putInt(MAGIC).putLong(at.getIndex()).putLong(at.getTerm())
            .putLong(nextPosition);
        try (OutputStream out = new AtomicFileOutputStream(file)) {
            out.write(b.array());
        }
        final var md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), at));
    }

    /**
     * Snapshot settings for a replica: a snapshot every {@code every} applied entries, the Raft log purged up to it or
     * to the lowest commit index among the peers, whichever is lower (whole closed segments of {@code segmentSize}
     * bytes deleted), and no snapshot ever shipped to a follower: the file
     * says "the store holds every block up to here", which is only true on the replica that wrote it. A follower
     * that needs purged entries is told instead ({@link BlockStoreStateMachine#notifyInstallSnapshotFromLeader}).
     */
    static void configure(final RaftProperties p, final long every, final SizeInBytes segmentSize) {
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, every);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, RETAINED);
        // purge only what every peer has committed, as far as this server knows: a follower that is down or behind
        // keeps the entries it needs in the others' logs (the log grows meanwhile), instead of being stranded
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, false);
        RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.max(1, Math.min(every, 1024)));
        // and keep a snapshot's worth of entries below the newest: a leader that resets a follower's next index after a
        // broken stream (seen once under load in BlockStoreStateMachineTest) still holds what it resends
        RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, every);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, segmentSize);
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
    }
}
