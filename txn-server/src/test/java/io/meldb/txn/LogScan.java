package io.meldb.txn;

import io.meldb.core.BlockFormat;
import io.meldb.core.BlockReader;
import io.meldb.log.client.LogClient;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a whole log the way a txn-server's reader does (each writer's block stream reassembled on its own, CSNs
 * counted over intention records in the order they complete) and lists what tests ask about: where each intention
 * landed, and each server's checkpoints (chunks, manifest, complete or not).
 */
public final class LogScan {
    /** One checkpoint record stream of one writer. */
    public static final class Checkpoint {
        public final int writer;
        public final long id;
        public final List<Long> chunkPositions = new ArrayList<>();
        private final ByteArrayOutputStream content = new ByteArrayOutputStream();
        /** Null while the last chunk (with the manifest) is missing. */
        public CheckpointManifest manifest;
        private byte[] manifestBytes;

        Checkpoint(final int writer, final long id) {
            this.writer = writer;
            this.id = id;
        }

        public boolean complete() {
            return manifest != null;
        }

        /** The chunks' node data and the manifest: what two servers checkpointing the same state must agree on. */
        public byte[] content() {
            final ByteArrayOutputStream all = new ByteArrayOutputStream();
            all.writeBytes(content.toByteArray());
            if (manifestBytes != null) {
                all.writeBytes(manifestBytes);
            }
            return all.toByteArray();
        }
    }

    /** Log position of each intention record's last block, by CSN (index 0 unused). */
    public final List<Long> intentionPositions = new ArrayList<>(List.of(0L));
    public final List<Checkpoint> checkpoints = new ArrayList<>();

    private LogScan() {
    }

    public static LogScan of(final String host, final int port, final int blockSize) {
        final LogScan scan = new LogScan();
        final Map<Integer, BlockReader> readers = new HashMap<>();
        final Map<Long, Checkpoint> open = new TreeMap<>();
        try (LogClient log = LogClient.connect(host, port)) {
            final long tail = log.tail().join();
            for (long from = 1; from < tail; ) {
                final List<byte[]> blocks = log.read(from, (int) Math.min(256, tail - from)).join();
                if (blocks.isEmpty()) {
                    break;
                }
                for (int i = 0; i < blocks.size(); i++) {
                    final long position = from + i;
                    final UnsafeBuffer b = new UnsafeBuffer(blocks.get(i));
                    final int writer = BlockFormat.writer(b, 0);
                    readers.computeIfAbsent(writer, w -> {
                        final BlockReader r = new BlockReader(blockSize, (buf, off, len, pos) ->
                            scan.onRecord(w, buf, off, len, pos, open));
                        r.resync();
                        return r;
                    }).onBlock(b, 0, blockSize, position);
                }
                from += blocks.size();
            }
        }
        return scan;
    }

    private void onRecord(final int writer, final DirectBuffer buf, final int off, final int len, final long position,
                          final Map<Long, Checkpoint> open) {
        if (len < 1) {
            return;
        }
        final byte type = buf.getByte(off);
        if (type == LogRecords.INTENTION) {
            intentionPositions.add(position);
        } else if (type == LogRecords.CHECKPOINT) {
            final long id = LogRecords.checkpointId(buf, off);
            final Checkpoint c = open.computeIfAbsent(id, k -> {
                final Checkpoint n = new Checkpoint(writer, k);
                checkpoints.add(n);
                return n;
            });
            final int chunkLength = LogRecords.checkpointChunkLength(buf, off);
            final byte[] chunk = new byte[chunkLength];
            buf.getBytes(off + LogRecords.CHECKPOINT_HEADER, chunk);
            c.content.writeBytes(chunk);
            c.chunkPositions.add(position);
            if (LogRecords.checkpointLast(buf, off)) {
                final int at = off + LogRecords.CHECKPOINT_HEADER + chunkLength;
                c.manifestBytes = new byte[off + len - at];
                buf.getBytes(at, c.manifestBytes);
                c.manifest = CheckpointManifest.decode(c.manifestBytes);
            }
        }
    }

    /** The newest CSN whose intention record ends at or before {@code position}. */
    public long csnAt(final long position) {
        long csn = 0;
        for (int c = 1; c < intentionPositions.size() && intentionPositions.get(c) <= position; c++) {
            csn = c;
        }
        return csn;
    }

    /** The checkpoints {@code writer} wrote, complete ones by their state's CSN. */
    public Map<Long, Checkpoint> completeCheckpointsOf(final int writer) {
        final Map<Long, Checkpoint> byCsn = new TreeMap<>();
        for (Checkpoint c : checkpoints) {
            if (c.writer == writer && c.complete()) {
                byCsn.put(c.manifest.lcsCsn(), c);
            }
        }
        return byCsn;
    }
}
