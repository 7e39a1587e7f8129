package io.meldb.txn;

import io.meldb.core.CheckpointLoader;
import io.meldb.core.MeldPipeline;
import io.meldb.core.Node;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a recovering server needs besides the checkpointed nodes (meld paper App. A: the "restart CSN"): the
 * states it resumes from and where in the log to resume.
 *
 * @param baseCsn        CSN of {@code rootVns[0]}; the last root is the checkpointed LCS, CSN {@link #lcsCsn()}
 * @param rootVns        VN of each state's root (0 = empty tree, -1 = a state that only existed inside a group),
 *                       covering every state premeld may still ask for
 * @param lastPosition   every intention that ends at or before this log position is in the checkpointed state
 * @param resumePosition where reading resumes: no record in progress at {@code lastPosition} started before it
 * @param fences         each server's newest incarnation as of {@code lastPosition}
 */
public record CheckpointManifest(long baseCsn, long[] rootVns, long lastPosition, long resumePosition,
                          Map<Integer, Long> fences) {
    /** VN 0 stands for the empty tree, -1 for a state that was never materialized. */
    static final long NO_STATE_VN = -1;

    public long lcsCsn() {
        return baseCsn + rootVns.length - 1;
    }

    /** How a state root is named in the manifest: its VN, with the two special roots of {@link MeldPipeline}. */
    public static long vnOf(final long root) {
        return root == MeldPipeline.NO_STATE ? NO_STATE_VN : root == 0 ? 0 : Node.vn(root);
    }

    /** The state roots, as handles of the nodes {@code loader} has loaded. */
    public long[] roots(final CheckpointLoader loader) {
        final long[] roots = new long[rootVns.length];
        for (int i = 0; i < roots.length; i++) {
            roots[i] = rootVns[i] == NO_STATE_VN ? MeldPipeline.NO_STATE : loader.resolve(rootVns[i]);
        }
        return roots;
    }

    public byte[] encode() {
        try {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(1);
            out.writeLong(baseCsn);
            out.writeInt(rootVns.length);
            for (long v : rootVns) {
                out.writeLong(v);
            }
            out.writeLong(lastPosition);
            out.writeLong(resumePosition);
            out.writeInt(fences.size());
            for (Map.Entry<Integer, Long> e : new TreeMap<>(fences).entrySet()) {
                out.writeInt(e.getKey());
                out.writeLong(e.getValue());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static CheckpointManifest decode(final byte[] data) {
        try {
            final DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            final int version = in.readInt();
            if (version != 1) {
                throw new IllegalStateException("checkpoint manifest version " + version + " is not supported");
            }
            final long base = in.readLong();
            final int n = in.readInt();
            if (n < 1 || n > 1 << 20) {
                throw new IllegalStateException("checkpoint manifest with " + n + " states");
            }
            final long[] roots = new long[n];
            for (int i = 0; i < n; i++) {
                roots[i] = in.readLong();
            }
            final long last = in.readLong();
            final long resume = in.readLong();
            final int f = in.readInt();
            final Map<Integer, Long> fences = new TreeMap<>();
            for (int i = 0; i < f; i++) {
                fences.put(in.readInt(), in.readLong());
            }
            return new CheckpointManifest(base, roots, last, resume, fences);
        } catch (IOException e) {
            throw new IllegalStateException("checkpoint manifest is truncated", e);
        }
    }
}
