package io.meldb.txn;

/**
 * How a txn-server lays its meld pipeline (Hyder II §5.2-5.3) out on threads, in the manner of Aeron's threading
 * modes. Decisions and states are the same in every mode (ReplicaServersTest runs them side by side); only how
 * much of the pipeline overlaps, and how many thread hand-offs a commit crosses, differs.
 *
 * <p>The pipeline's parallel stages pay on many cores; on a small machine each stage thread is one more wake-up per
 * commit that waits for a core, so the default ({@link #forThisMachine()}) chains the stages on few cores.
 */
public enum ThreadingMode {
    /** The log reader decodes, premelds and melds in turn on one thread; a reply thread answers clients. */
    SHARED,
    /**
     * One thread reads, decodes, premelds, melds and answers clients, as a chain of calls: the in-process log's
     * subscription thread itself when the log lives in this process and the cluster never holds an intention
     * (no group meld, no reorder window), otherwise a reader thread.
     */
    CHAINED,
    /** Deserializer threads decode ahead of a meld thread, which premelds in line before it melds. */
    DEDICATED_DECODE,
    /** Deserializer threads, t premeld threads (the cluster's premeld thread count) and a meld thread. */
    DEDICATED;

    /** Processors up to which {@link #forProcessors} chains the stages. */
    public static final int CHAINED_UP_TO_PROCESSORS = 4;

    private static final ThreadingMode THIS_MACHINE = forProcessors(Runtime.getRuntime().availableProcessors());

    /** Whether intentions are decoded on threads of their own, apart from the reader and the meld thread. */
    public boolean separateDecoder() {
        return this == DEDICATED_DECODE || this == DEDICATED;
    }

    /** Whether premeld runs on threads of its own (with a cluster that premelds at all). */
    public boolean premeldOnThreads() {
        return this == DEDICATED;
    }

    /** Whether the thread that melds also answers clients (no reply thread). */
    public boolean replyInline() {
        return this == CHAINED;
    }

    /** The mode the two older boolean settings (still accepted as flags) stand for. */
    public static ThreadingMode of(final boolean separateDecoder, final boolean premeldOnThreads) {
        return !separateDecoder ? SHARED : premeldOnThreads ? DEDICATED : DEDICATED_DECODE;
    }

    /** The default on a machine with {@code processors} processors: chained up to 4, dedicated threads above. */
    public static ThreadingMode forProcessors(final int processors) {
        return processors <= CHAINED_UP_TO_PROCESSORS ? CHAINED : DEDICATED;
    }

    /** {@link #forProcessors} of this JVM's available processors, read once. */
    public static ThreadingMode forThisMachine() {
        return THIS_MACHINE;
    }
}
