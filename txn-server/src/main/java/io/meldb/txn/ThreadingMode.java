package io.meldb.txn;

/**
 * How a txn-server lays its meld pipeline (Hyder II §5.2-5.3) out on threads, in the manner of Aeron's threading
 * modes. Decisions and states are the same in every mode (ReplicaServersTest runs them side by side); only how
 * much of the pipeline overlaps differs.
 */
public enum ThreadingMode {
    /** The log reader decodes, premelds and melds in turn on one thread. */
    SHARED,
    /** Deserializer threads decode ahead of a meld thread, which premelds in line before it melds. */
    DEDICATED_DECODE,
    /** Deserializer threads, t premeld threads (the cluster's premeld thread count) and a meld thread. */
    DEDICATED;

    /** Whether intentions are decoded on threads of their own, apart from the reader and the meld thread. */
    public boolean separateDecoder() {
        return this != SHARED;
    }

    /** Whether premeld runs on threads of its own (with a cluster that premelds at all). */
    public boolean premeldOnThreads() {
        return this == DEDICATED;
    }

    /** The mode the two older boolean settings (still accepted as flags) stand for. */
    public static ThreadingMode of(final boolean separateDecoder, final boolean premeldOnThreads) {
        return !separateDecoder ? SHARED : premeldOnThreads ? DEDICATED : DEDICATED_DECODE;
    }
}
