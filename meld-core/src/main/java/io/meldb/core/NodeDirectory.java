package io.meldb.core;

import org.agrona.collections.Long2LongHashMap;

/**
 * Finds a resident node by its identity, the VN (see {@link Versions}). A pointer in the log names its target
 * by VN (meld paper §4.1: "a pointer ... is stored in the log as a [CSN(I), i] pair"); decoding an intention
 * resolves such cross-intention pointers here, so a later intention that read an ephemeral node finds the same
 * node on every replica.
 *
 * <p>A decoded intention's persisted nodes are registered as one run too when its decoder allocated them one after
 * another (the usual case: one put per intention instead of one per node, which was most of a decode's time),
 * else one by one (an arena segment boundary among them; nodes a checkpoint loads). A meld call creates its ephemeral nodes one after
 * another in its own arena, so it registers them as one <em>run</em>: the first node's handle and the count,
 * keyed by (csn, stage); node {@code i} of the run lives at {@code base + i * Node.SIZE}. That is one map entry
 * per meld instead of one per ephemeral node, which kept the final meld thread waiting on cache misses into a
 * large map. Nodes allocated after an arena segment boundary break the run and are registered one by one.
 *
 * <p>Thread-safe: a txn-server's decode stage looks nodes up and registers decoded ones while its meld stage
 * registers ephemeral runs. Each call is one short critical section (one or two hash lookups); melding itself
 * never looks a node up.
 */
public final class NodeDirectory {
    /** A run packed in one map value: {@code base >>> 3} in the low bits, the length above. */
    private static final int RUN_LENGTH_SHIFT = 44;
    private static final long RUN_BASE_MASK = (1L << RUN_LENGTH_SHIFT) - 1;
    /** Longest run packed; longer ones (and bases beyond 47 bits) are registered node by node. */
    private static final int MAX_PACKED_RUN = (1 << (64 - RUN_LENGTH_SHIFT)) - 1;

    private final Long2LongHashMap handles;
    /** Stage (csn, kind) to packed run: one map entry, so registering a meld's run is a single put. */
    private final Long2LongHashMap runs;

    private static final float LOAD_FACTOR = 0.6f;

    public NodeDirectory() {
        this(1 << 16);
    }

    /** A directory sized for about {@code expectedNodes} entries, so it need not grow (and reallocate) soon. */
    public NodeDirectory(final int expectedNodes) {
        // capacity for that many at the load factor: sized by the count alone, it rehashes at 60% of it
        this.handles = new Long2LongHashMap(capacityFor(Math.max(1 << 16, expectedNodes)), LOAD_FACTOR, 0L);
        // one run per meld call that made ephemeral nodes: about one per intention, each with dozens of nodes
        this.runs = new Long2LongHashMap(capacityFor(Math.max(1 << 12, expectedNodes / 16)), LOAD_FACTOR, 0L);
    }

    private static int capacityFor(final int entries) {
        return (int) Math.min(1 << 30, (long) (entries / LOAD_FACTOR) + 1);
    }

    public synchronized void register(final long vn, final long handle) {
        handles.put(vn, handle);
    }

    /**
     * Registers {@code length} nodes with VNs {@code first, first + 1, ...} living contiguously from
     * {@code base}, {@link Node#SIZE} bytes apart.
     */
    public synchronized void registerRun(final long first, final long base, final int length) {
        if (Versions.indexOf(first) != 0) {
            throw new IllegalArgumentException("a run starts at index 0: " + Versions.toString(first));
        }
        final long stage = first >>> Versions.INDEX_BITS;
        if ((base & 7) == 0 && (base >>> (RUN_LENGTH_SHIFT + 3)) == 0 && length <= MAX_PACKED_RUN) {
            runs.put(stage, (base >>> 3) | (long) length << RUN_LENGTH_SHIFT);
        } else {
            runs.remove(stage);
            for (int i = 0; i < length; i++) {
                handles.put(first + i, base + (long) i * Node.SIZE);
            }
        }
    }

    /** The handle of the node with this VN, or 0 if it is not resident. */
    public synchronized long lookup(final long vn) {
        // runs of every kind: meld's ephemeral nodes, and a decoded intention's persisted nodes when its decoder
        // allocated them contiguously (the usual case)
        final long stage = vn >>> Versions.INDEX_BITS;
        final int index = Versions.indexOf(vn);
        final long run = runs.get(stage);
        if (index < run >>> RUN_LENGTH_SHIFT) {
            return ((run & RUN_BASE_MASK) << 3) + (long) index * Node.SIZE;
        }
        return handles.get(vn);
    }

    /** Number of entries (single nodes plus runs). */
    public synchronized int size() {
        return handles.size() + runs.size();
    }

    public synchronized void clear() {
        handles.clear();
        runs.clear();
    }
}
