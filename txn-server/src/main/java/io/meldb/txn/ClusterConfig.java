package io.meldb.txn;

import io.meldb.core.BlockFormat;
import io.meldb.core.MeldConfig;
import io.meldb.core.ReorderConfig;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster-wide meld configuration, written once into the log's first block (docs/architecture.md "Rules that keep
 * replicas identical"): block size, premeld threads t and distance d, group meld, the reorder window (with its
 * algorithm and policy). Every server melds with the
 * configuration it finds in the log; one started with an explicit, different configuration refuses to join.
 * Stored as {@code key=value} lines so an operator can read it with any block dump. Without a reorder window the
 * text is exactly what earlier versions wrote (format 1); with one it is format 2, which an earlier server refuses
 * instead of melding in log order beside servers that reorder. A format-1 log reads as window 0.
 */
public record ClusterConfig(int blockSize, int premeldThreads, int premeldDistance, boolean groupMeld,
                            int maxSnapshotAge, ReorderConfig reorder) {
    static final String FORMAT = "meldb-cluster-config 1";
    static final String FORMAT_REORDER = "meldb-cluster-config 2";
    /**
     * Default limit on a transaction's conflict zone, in intentions: an intention whose snapshot is older is
     * aborted by every server alike. It bounds what a checkpoint must hold (every state a pending intention may
     * point into) and so the memory of every server.
     */
    public static final int DEFAULT_MAX_SNAPSHOT_AGE = 10_000;

    public static final ClusterConfig DEFAULT = new ClusterConfig(BlockFormat.DEFAULT_BLOCK_SIZE, 0, 0, false);

    public ClusterConfig(final int blockSize, final int premeldThreads, final int premeldDistance,
                         final boolean groupMeld) {
        this(blockSize, premeldThreads, premeldDistance, groupMeld, DEFAULT_MAX_SNAPSHOT_AGE);
    }

    public ClusterConfig(final int blockSize, final int premeldThreads, final int premeldDistance,
                         final boolean groupMeld, final int maxSnapshotAge) {
        this(blockSize, premeldThreads, premeldDistance, groupMeld, maxSnapshotAge, ReorderConfig.OFF);
    }

    /** This configuration with another reorder window. */
    public ClusterConfig withReorder(final ReorderConfig reorder) {
        return new ClusterConfig(blockSize, premeldThreads, premeldDistance, groupMeld, maxSnapshotAge, reorder);
    }

    public ClusterConfig {
        BlockFormat.checkBlockSize(blockSize);
        if (maxSnapshotAge < 1) {
            throw new IllegalArgumentException("max snapshot age " + maxSnapshotAge + " must be at least 1");
        }
        if (reorder == null) {
            throw new IllegalArgumentException("reorder config must be given (ReorderConfig.OFF for none)");
        }
        new MeldConfig(premeldThreads, premeldDistance, groupMeld, false, reorder);
    }

    public MeldConfig meldConfig() {
        return new MeldConfig(premeldThreads, premeldDistance, groupMeld, false, reorder);
    }

    public byte[] encode() {
        String text = (reorder.window() > 0 ? FORMAT_REORDER : FORMAT) + "\nblockSize=" + blockSize
            + "\npremeldThreads=" + premeldThreads + "\npremeldDistance=" + premeldDistance + "\ngroupMeld=" + groupMeld
            + "\nmaxSnapshotAge=" + maxSnapshotAge + "\n";
        if (reorder.window() > 0) {
            text += "reorderWindow=" + reorder.window() + "\nreorderAlgorithm="
                + reorder.algorithm().name().toLowerCase(java.util.Locale.ROOT) + "\nreorderPolicy="
                + reorder.policy().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') + "\n";
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Parses {@link #encode()}'s form; an unreadable configuration is an error, never a silent default. */
    public static ClusterConfig decode(final byte[] bytes) {
        final String text = new String(bytes, StandardCharsets.UTF_8);
        final String[] lines = text.split("\n");
        if (lines.length == 0 || !lines[0].equals(FORMAT) && !lines[0].equals(FORMAT_REORDER)) {
            throw new IllegalStateException("the log's first block does not hold a MeldDB cluster configuration");
        }
        final Map<String, String> values = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            final int eq = lines[i].indexOf('=');
            if (eq > 0) {
                values.put(lines[i].substring(0, eq), lines[i].substring(eq + 1));
            }
        }
        try {
            ReorderConfig reorder = ReorderConfig.OFF;
            if (lines[0].equals(FORMAT_REORDER)) {
                reorder = new ReorderConfig(Integer.parseInt(values.get("reorderWindow")),
                    ReorderConfig.algorithm(values.get("reorderAlgorithm")),
                    ReorderConfig.policy(values.get("reorderPolicy")));
            }
            return new ClusterConfig(Integer.parseInt(values.get("blockSize")),
                Integer.parseInt(values.get("premeldThreads")), Integer.parseInt(values.get("premeldDistance")),
                Boolean.parseBoolean(values.get("groupMeld")), Integer.parseInt(values.get("maxSnapshotAge")),
                reorder);
        } catch (RuntimeException e) {
            throw new IllegalStateException("the log's cluster configuration is unreadable: " + values, e);
        }
    }

    @Override
    public String toString() {
        return "blockSize=" + blockSize + " premeldThreads=" + premeldThreads + " premeldDistance="
            + premeldDistance + " groupMeld=" + groupMeld + " maxSnapshotAge=" + maxSnapshotAge
            + (reorder.window() > 0 ? " reorder " + reorder : "");
    }
}
