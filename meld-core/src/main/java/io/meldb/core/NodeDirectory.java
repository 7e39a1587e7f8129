package io.meldb.core;

import org.agrona.collections.Long2LongHashMap;

/**
 * Finds a resident node by its identity, the VN (see {@link Versions}). A pointer in the log names its target
 * by VN (meld paper §4.1: "a pointer ... is stored in the log as a [CSN(I), i] pair"); decoding an intention
 * resolves such cross-intention pointers here. Persisted nodes are registered when decoded and ephemeral nodes
 * when meld creates them, so a later intention that read an ephemeral node finds the same node on every replica.
 *
 * <p>Single-threaded, like the meld loop that owns it.
 */
public final class NodeDirectory {
    private final Long2LongHashMap handles = new Long2LongHashMap(1 << 16, 0.6f, 0L);

    public void register(final long vn, final long handle) {
        handles.put(vn, handle);
    }

    /** The handle of the node with this VN, or 0 if it is not resident. */
    public long lookup(final long vn) {
        return handles.get(vn);
    }

    public int size() {
        return handles.size();
    }

    public void clear() {
        handles.clear();
    }
}
