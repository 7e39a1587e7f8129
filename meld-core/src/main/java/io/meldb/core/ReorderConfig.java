package io.meldb.core;

/**
 * The reorder window of the cluster meld configuration (batching paper, seed 001 §3.2, §4): how many consecutive
 * intentions meld decides together, which greedy feedback-vertex-set algorithm picks the ones to abort, and by
 * which policy. Every replica must run the same one: it decides which intentions commit.
 *
 * @param window    W, the most intentions in one window; 0 turns reordering off (meld decides in log order)
 * @param algorithm the FVS algorithm (§4.1)
 * @param policy    which vertex the greedy step removes first (§4.2)
 */
public record ReorderConfig(int window, Algorithm algorithm, Policy policy) {
    /** Largest window: the dependency graph is a 64 x 64 bit matrix, one {@code long} per intention. */
    public static final int MAX_WINDOW = 64;

    public static final ReorderConfig OFF = new ReorderConfig(0, Algorithm.HYBRID, Policy.MIN_ABORTS);

    /** Feedback-vertex-set algorithms of §4.1. */
    public enum Algorithm {
        /** Algorithm 1: trim, split into SCCs, remove the top-ranked vertex of each SCC, recurse. */
        SCC,
        /** Algorithm 2 with multi factor k = 1: trim, remove the top-ranked vertex of the whole graph, repeat. */
        SORT,
        /** SCC-based, with an exact (brute-force) search on SCCs of at most {@link Reorderer#EXACT_LIMIT} vertices. */
        HYBRID
    }

    /** Ranking policies of §4.2. */
    public enum Policy {
        /** Fewest aborts: remove the vertex with the largest product of in- and out-degree. */
        MIN_ABORTS,
        /** Tail latency: prod-degree divided by 2^restarts, so a transaction restarted often is kept. */
        TAIL_LATENCY
    }

    public ReorderConfig {
        if (window < 0 || window > MAX_WINDOW) {
            throw new IllegalArgumentException("reorder window " + window + " must be between 0 and " + MAX_WINDOW);
        }
        if (algorithm == null || policy == null) {
            throw new IllegalArgumentException("reorder algorithm and policy must be given");
        }
    }

    /** A window of {@code window} intentions with the hybrid algorithm and the fewest-aborts policy. */
    public static ReorderConfig of(final int window) {
        return new ReorderConfig(window, Algorithm.HYBRID, Policy.MIN_ABORTS);
    }

    public boolean enabled() {
        return window > 1;
    }

    /** Parses a lower-case name of an {@link Algorithm}. */
    public static Algorithm algorithm(final String name) {
        return Algorithm.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
    }

    /** Parses a lower-case name of a {@link Policy}, with '-' for '_'. */
    public static Policy policy(final String name) {
        return Policy.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }

    @Override
    public String toString() {
        return "window=" + window + " algorithm=" + algorithm.name().toLowerCase(java.util.Locale.ROOT) + " policy="
            + policy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
