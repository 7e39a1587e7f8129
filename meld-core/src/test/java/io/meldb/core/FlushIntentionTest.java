package io.meldb.core;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlushIntentionTest {
    static int reachableEphemeral(final long n) {
        if (n == 0 || (Node.flags(n) & Node.EPHEMERAL_BELOW) == 0) {
            return 0;
        }
        final int self = Versions.kindOf(Node.vn(n)) != Versions.KIND_PERSISTED ? 1 : 0;
        return self + reachableEphemeral(Node.left(n)) + reachableEphemeral(Node.right(n));
    }

    private static void concurrentUpdates(final MeldHarness h, final SplittableRandom rnd, final int count) {
        for (int i = 0; i < count; i++) {
            final Transaction t = h.begin(Math.max(1, h.pipeline.lcsCsn() - 8), Isolation.SNAPSHOT);
            t.put(b(String.format("k%05d", rnd.nextInt(2000))), b("v" + i));
            h.commit(t);
        }
    }

    @Test
    void serialFlushMakesEveryEphemeralNodeUnreachableWithoutChangingContents() {
        try (MeldHarness h = new MeldHarness()) {
            final Transaction load = h.begin(Isolation.SNAPSHOT);
            for (int i = 0; i < 2000; i++) {
                load.put(b(String.format("k%05d", i)), b("0"));
            }
            assertTrue(h.commit(load));
            concurrentUpdates(h, new SplittableRandom(7), 500);
            final long before = h.pipeline.lcs().root();
            assertTrue(reachableEphemeral(before) > 0, "concurrent melds left ephemeral nodes");
            final long hashContents = contentsHash(before);

            final Transaction flush = h.begin(Isolation.SNAPSHOT);
            final int copied = flush.flushEphemeral();
            assertTrue(copied >= reachableEphemeral(before));
            assertTrue(h.commit(flush), "a flush intention has no dependencies and cannot conflict");
            final long after = h.pipeline.lcs().root();
            assertEquals(0, reachableEphemeral(after));
            assertEquals(hashContents, contentsHash(after));
            TreeInvariants.check(after);
        }
    }

    @Test
    void concurrentFlushesKeepReachableEphemeralStateBounded() {
        try (MeldHarness h = new MeldHarness()) {
            final Transaction load = h.begin(Isolation.SNAPSHOT);
            for (int i = 0; i < 2000; i++) {
                load.put(b(String.format("k%05d", i)), b("0"));
            }
            assertTrue(h.commit(load));
            final SplittableRandom rnd = new SplittableRandom(11);
            int unflushedPeak = 0;
            for (int round = 0; round < 10; round++) {
                concurrentUpdates(h, rnd, 300);
                unflushedPeak = Math.max(unflushedPeak, reachableEphemeral(h.pipeline.lcs().root()));
                final Transaction flush = h.begin(Math.max(1, h.pipeline.lcsCsn() - 4), Isolation.SNAPSHOT);
                flush.flushEphemeral();
                final long csn = h.append(flush);
                concurrentUpdates(h, rnd, 4);
                assertTrue(h.decided(csn));
                final int remaining = reachableEphemeral(h.pipeline.lcs().root());
                assertTrue(remaining < unflushedPeak / 2, "round " + round + ": " + remaining + " of " + unflushedPeak);
            }
        }
    }

    private static long contentsHash(final long root) {
        final java.util.List<byte[][]> rows = new java.util.ArrayList<>();
        TreeInvariants.inOrder(root, rows);
        long h = 1;
        for (final byte[][] r : rows) {
            h = 31 * h + java.util.Arrays.hashCode(r[0]);
            h = 31 * h + java.util.Arrays.hashCode(r[1]);
        }
        return h;
    }
}
