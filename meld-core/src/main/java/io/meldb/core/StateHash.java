package io.meldb.core;

/**
 * A 64-bit hash of a state: its structure, keys, payloads, tombstones and node identities (VNs), so two
 * replicas that melded the same log with the same pipeline configuration must report the same value
 * (docs/architecture.md "Rules that keep replicas identical"). Not on a hot path.
 */
public final class StateHash {
    private StateHash() {
    }

    public static long of(final long root) {
        return hash(root, 0x9E3779B97F4A7C15L);
    }

    private static long hash(final long n, long h) {
        if (n == 0) {
            return mix(h ^ 0x5bd1e995L);
        }
        h = mix(h ^ Node.vn(n));
        h = mix(h ^ (Node.flags(n) & (Node.TOMBSTONE | Node.ALTERED)));
        h = mix(h ^ Node.scv(n));
        h = bytes(h, Node.key(n), Node.keyLength(n));
        h = bytes(h, Node.payload(n), Node.payloadLength(n));
        h = hash(Node.left(n), h);
        return hash(Node.right(n), h);
    }

    private static long bytes(long h, final long handle, final int length) {
        h = mix(h ^ length);
        for (int i = 0; i < length; i++) {
            h = (h ^ (NodeMemory.getByte(handle, i) & 0xFF)) * 0x100000001B3L;
        }
        return h;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
