package io.meldb.txn.checkpoint;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.ManagementFactory;

/**
 * The node-memory limit (Hyder II §5.3's memory pools have a size): {@code --max-node-memory}, or by default a
 * share of the JVM's direct-memory limit. Admission refuses updates at it and compaction plans its copy below it,
 * so both read it from here.
 */
public final class NodeMemoryLimit {
    /** Share of the JVM's direct-memory limit node memory may reach when no limit is configured. */
    static final double DEFAULT_SHARE = 0.7;

    private NodeMemoryLimit() {
    }

    /** The limit in bytes for a configured {@code --max-node-memory} (0 = the default share). */
    public static long resolve(final long configured) {
        return configured > 0 ? configured : (long) (maxDirectMemory() * DEFAULT_SHARE);
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
