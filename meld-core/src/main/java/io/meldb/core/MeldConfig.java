package io.meldb.core;

/**
 * The cluster-wide meld configuration (docs/architecture.md): every replica must run the same one, because premeld's
 * choice of state and group meld's pairing decide which ephemeral nodes exist.
 *
 * @param premeldThreads  t of Hyder II Algorithm 1; 0 turns premeld off
 * @param premeldDistance d of Hyder II Algorithm 1: intention v premelds against state v - t*d - 1
 * @param groupMeld       meld each odd/even pair of adjacent intentions into a group intention (Hyder II §4)
 * @param bruteForce      disable meld's grafting shortcuts (meld paper App. F), for comparison only
 */
public record MeldConfig(int premeldThreads, int premeldDistance, boolean groupMeld, boolean bruteForce) {
    public static final MeldConfig FINAL_ONLY = new MeldConfig(0, 0, false, false);

    public MeldConfig {
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
}
