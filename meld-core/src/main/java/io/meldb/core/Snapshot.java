package io.meldb.core;

/**
 * A committed database state: the root of the tree and the CSN of the last intention that contributed to it
 * (meld paper §3: "the last committed state", LCS). States are immutable; many snapshots share nodes.
 */
public final class Snapshot {
    private final long root;
    private final long csn;

    public Snapshot(final long root, final long csn) {
        this.root = root;
        this.csn = csn;
    }

    /** Handle of the root node (0 for an empty database). */
    public long root() {
        return root;
    }

    /** CSN of the last intention melded into this state (0 for the initial empty state). */
    public long csn() {
        return csn;
    }

    @Override
    public String toString() {
        return "Snapshot{csn=" + csn + "}";
    }
}
