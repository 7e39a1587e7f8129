package io.meldb.core;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

import java.util.Arrays;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Property tests of the tree the executor and meld build: after every transaction and every meld the tree is
 * ordered without duplicates, AVL-balanced with correct stored heights and summaries, and holds exactly the
 * model's contents; a key longer than the 8-byte prefix orders correctly against its own prefix.
 */
class TreePropertiesTest {
    @RepeatedTest(20)
    void everyStateIsAnOrderedBalancedTreeWithTheModelsContents(final RepetitionInfo info) {
        final SplittableRandom rnd = new SplittableRandom(info.getCurrentRepetition() * 7919L);
        final NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        try (MeldHarness h = new MeldHarness()) {
            for (int t = 0; t < 150; t++) {
                final Transaction txn = h.begin(Isolation.SNAPSHOT);
                final int ops = 1 + rnd.nextInt(40);
                for (int o = 0; o < ops; o++) {
                    final byte[] key = randomKey(rnd);
                    if (rnd.nextInt(5) == 0) {
                        txn.delete(key);
                        model.remove(key);
                    } else {
                        final byte[] value = new byte[rnd.nextInt(5)];
                        rnd.nextBytes(value);
                        txn.put(key, value);
                        model.put(key, value);
                    }
                }
                TreeInvariants.checkShape(txn.root());
                assertEquals(Boolean.TRUE, h.commit(txn));
                TreeInvariants.check(h.pipeline.lcs().root());
                MeldDifferentialTest.assertContents(model, h.pipeline.lcs().root());
            }
        }
    }

    /** Keys of 0 to 12 bytes from a small alphabet, so prefixes, zero bytes and shared 8-byte prefixes occur. */
    private static byte[] randomKey(final SplittableRandom rnd) {
        final byte[] key = new byte[rnd.nextInt(22)]; // across both 8-byte halves of the node's key prefix
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(3) == 0 ? 0xFF : 'a' + rnd.nextInt(3));
        }
        return key;
    }

    @RepeatedTest(1)
    void keyComparisonThroughThePrefixMatchesUnsignedLexicographicOrder() {
        final SplittableRandom rnd = new SplittableRandom(3);
        try (Arena arena = new Arena()) {
            for (int i = 0; i < 20_000; i++) {
                final byte[] a = randomKey(rnd);
                final byte[] b = rnd.nextInt(4) == 0 ? Arrays.copyOf(a, rnd.nextInt(23)) : randomKey(rnd);
                final long na = arena.allocate(Node.SIZE);
                final long nb = arena.allocate(Node.SIZE);
                Node.key(na, arena.copyOf(a), a.length);
                Node.key(nb, arena.copyOf(b), b.length);
                final int want = Integer.signum(Arrays.compareUnsigned(a, b));
                assertEquals(want, Integer.signum(Node.compareKeys(na, nb)), Arrays.toString(a) + " vs " + Arrays.toString(b));
                assertEquals(want, Integer.signum(Node.compareKey(a, NodeMemory.prefix(a), NodeMemory.prefix2(a), nb)));
                assertArrayEquals(a, Node.keyBytes(na));
            }
        }
    }
}
