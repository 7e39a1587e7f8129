package io.meldb.txn.session;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.meldb.core.NodeMemory;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;

import java.lang.management.ManagementFactory;

/**
 * Admission by node memory (Hyder II §5.3's memory pools have a size): once the off-heap node memory handed out
 * reaches the limit, new update transactions are refused with {@link TxnError#OUT_OF_MEMORY} instead of letting the
 * meld pipeline run into the JVM's direct-memory limit, which would stop the server. The headroom above the limit
 * is for the intentions already admitted and for the next compaction's copy of the live states; a checkpoint (or
 * the end of the sessions that pin an old generation) brings memory back under it and admission resumes by itself.
 * Read-only transactions are still admitted: they add no versions.
 */
final class MemoryGuard {
    /** Share of the JVM's direct-memory limit node memory may reach when no limit is configured. */
    static final double DEFAULT_SHARE = 0.7;

    private final long limit;

    MemoryGuard(final long configuredLimit) {
        this.limit = configuredLimit > 0 ? configuredLimit : (long) (maxDirectMemory() * DEFAULT_SHARE);
    }

    long limit() {
        return limit;
    }

    /** Throws {@link TxnError#OUT_OF_MEMORY} when node memory is at the limit. */
    void admit(final int serverId) {
        final long used = NodeMemory.bytesInUse();
        if (used >= limit) {
            throw new TxnException(TxnError.OUT_OF_MEMORY, "server " + serverId + " holds " + (used >> 20)
                + " MiB of node memory, its limit is " + (limit >> 20) + " MiB (the versions of the last "
                + "max-snapshot-age states, snapshots still open, and what was melded since the last checkpoint); "
                + "retry when a checkpoint has freed memory, end long-running transactions, or give the server more "
                + "direct memory (--max-node-memory, -XX:MaxDirectMemorySize)");
        }
    }

    /** The JVM's direct-memory limit: -XX:MaxDirectMemorySize, or the heap's maximum when it is not set. */
    static long maxDirectMemory() {
        try {
            final HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            final long configured = Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
            if (configured > 0) {
                return configured;
            }
        } catch (RuntimeException e) {
            // not a HotSpot JVM: its default is the heap's maximum too
        }
        return Runtime.getRuntime().maxMemory();
    }
}
