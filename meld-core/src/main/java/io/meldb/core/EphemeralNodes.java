package io.meldb.core;

import java.util.Arrays;

/**
 * The nodes one meld call creates: each gets VN {@code (csn, stage, counter)} so every replica names it identically
 * (Hyder II §3.4), and on success they are published to the node directory, the contiguous run as one entry and the
 * nodes allocated after a segment boundary broke it one by one. Only output that exists is ever looked up, so a
 * conflicting call publishes nothing. Allocates only in the arena; not thread-safe (one per {@link Meld}).
 */
final class EphemeralNodes {
    private final Arena arena;
    private final NodeDirectory directory;
    private long csn;
    private int kind;
    private int nextIndex;
    /** {@code vn >>> INDEX_BITS} of every node of the current call. */
    private long prefix;
    /** The run of nodes this call allocated contiguously. */
    private long runBase;
    private int runLength;
    /** Nodes allocated after the run broke at a segment boundary. */
    private long[] stragglers = new long[16];
    private int stragglerCount;
    private long created;

    EphemeralNodes(final Arena arena, final NodeDirectory directory) {
        this.arena = arena;
        this.directory = directory;
    }

    /** Starts a meld call whose nodes are named {@code (csn, kind, 0..)}. */
    void begin(final long csn, final int kind) {
        this.csn = csn;
        this.kind = kind;
        this.nextIndex = 0;
        this.prefix = Versions.vn(csn, kind, 0) >>> Versions.INDEX_BITS;
        this.runBase = 0;
        this.runLength = 0;
        this.stragglerCount = 0;
    }

    /** Created by the current call, so not yet visible to anyone and safe to modify. */
    boolean fresh(final long n) {
        return Node.vn(n) >>> Versions.INDEX_BITS == prefix;
    }

    /** A new node with the next VN of this call and {@code keySource}'s key; every other field is the caller's. */
    long allocate(final long keySource) {
        if (nextIndex > Versions.MAX_INDEX) {
            throw new IllegalStateException("more than " + Versions.MAX_INDEX + " nodes created melding csn " + csn);
        }
        final long e = arena.allocate(Node.SIZE);
        Node.vn(e, Versions.vn(csn, kind, nextIndex++));
        Node.copyKey(e, keySource);
        if (runLength == 0 && stragglerCount == 0) {
            runBase = e;
            runLength = 1;
        } else if (stragglerCount == 0 && e == runBase + (long) runLength * Node.SIZE) {
            runLength++;
        } else {
            if (stragglerCount == stragglers.length) {
                stragglers = Arrays.copyOf(stragglers, stragglerCount * 2);
            }
            stragglers[stragglerCount++] = e;
        }
        created++;
        return e;
    }

    /** Registers the current call's nodes in the directory (its output exists). */
    void publish() {
        if (runLength > 0) {
            directory.registerRun(Versions.vn(csn, kind, 0), runBase, runLength);
        }
        for (int i = 0; i < stragglerCount; i++) {
            final long n = stragglers[i];
            directory.register(Node.vn(n), n);
        }
    }

    /** Nodes created since construction. */
    long created() {
        return created;
    }
}
