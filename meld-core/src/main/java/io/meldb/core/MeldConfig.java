package io.meldb.core;

/**
 * The cluster-wide meld configuration (docs/architecture.md): every replica must run the same one, because premeld's
 * choice of state and group meld's pairing decide which ephemeral nodes exist.
 *
 * @param premeldThreads  t of Hyder II Algorithm 1; 0 turns premeld off
 * @param premeldDistance d of Hyder II Algorithm 1: intention v premelds against state v - t*d - 1
 * @param groupMeld       meld each odd/even pair of adjacent intentions into a group intention (Hyder II §4)
 * @param bruteForce      disable meld's grafting shortcuts (meld paper App. F), for comparison only
 * @param reorder         the reorder window (batching paper §3–4); {@link ReorderConfig#OFF} melds in log order
 */
public record MeldConfig(int premeldThreads, int premeldDistance, boolean groupMeld, boolean bruteForce,
                         ReorderConfig reorder) {
    public static final MeldConfig FINAL_ONLY = new MeldConfig(0, 0, false, false);

    public MeldConfig(final int premeldThreads, final int premeldDistance, final boolean groupMeld,
                      final boolean bruteForce) {
        this(premeldThreads, premeldDistance, groupMeld, bruteForce, ReorderConfig.OFF);
    }

    public MeldConfig {
        if (reorder == null) {
            throw new IllegalArgumentException("reorder config must be given (ReorderConfig.OFF for none)");
        }
        if (groupMeld && reorder.enabled()) {
            // a group intention fuses two neighbours in log order, which is exactly what a window reorders
            throw new IllegalArgumentException("group meld and a reorder window cannot both be on");
        }
        if (premeldThreads < 0 || premeldDistance < 0) {
            throw new IllegalArgumentException("premeld threads and distance must be >= 0");
        }
        if (premeldThreads > 0 && premeldDistance < 1) {
            throw new IllegalArgumentException("premeld distance must be >= 1 when premeld is on");
        }
    }

    public boolean premeld() {
        return premeldThreads > 0;
    }

    /** This configuration with another reorder window. */
    public MeldConfig withReorder(final ReorderConfig reorder) {
        return new MeldConfig(premeldThreads, premeldDistance, groupMeld, bruteForce, reorder);
    }

    /**
     * How far behind intention v premeld's state lies: state v - lag. Hyder II's t*d + 1, plus the window, so the
     * state is always outside v's window and decided before v's window can close (no wait on itself).
     */
    public long premeldLag() {
        return (long) premeldThreads * premeldDistance + 1 + (reorder.enabled() ? reorder.window() : 0);
    }
}
