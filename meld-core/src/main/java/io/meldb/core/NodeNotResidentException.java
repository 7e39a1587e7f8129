package io.meldb.core;

/**
 * An intention points to a node this replica does not hold in memory. Unlike a malformed record this says
 * nothing about the log's bytes: the caller must fetch the node (or the state holding it) and retry, never skip
 * the intention, because skipping would shift every later CSN.
 */
public final class NodeNotResidentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long vn;

    public NodeNotResidentException(final long csn, final long vn) {
        super("intention csn " + csn + " points to node " + Versions.toString(vn) + " which is not resident");
        this.vn = vn;
    }

    /** The missing node's VN. */
    public long vn() {
        return vn;
    }
}
