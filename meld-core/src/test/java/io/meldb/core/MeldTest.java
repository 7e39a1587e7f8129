package io.meldb.core;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MeldTest {
    private static long seed(final MeldHarness h, final String... keys) {
        final Transaction t = h.begin(Isolation.SERIALIZABLE);
        for (final String k : keys) {
            t.put(b(k), b(k + "0"));
        }
        assertTrue(h.commit(t));
        return h.pipeline.lcsCsn();
    }

    /**
     * Meld paper Figures 4–6: T1 inserts B, C, D, E; T2 and T3 run on T1's output, T2 inserts A and T3 inserts
     * F. Both commit; T3 is concurrent, so meld stops at E (unchanged since T3's snapshot) and creates one
     * ephemeral D joining T2's left subtree with T3's right subtree.
     */
    @Test
    void reproducesThePapersWorkedExample() {
        try (MeldHarness h = new MeldHarness()) {
            final long s1 = seed(h, "D", "B", "E", "C");
            final Transaction t2 = h.begin(s1, Isolation.SERIALIZABLE);
            final Transaction t3 = h.begin(s1, Isolation.SERIALIZABLE);
            t2.put(b("A"), b("A2"));
            t3.put(b("F"), b("F3"));
            assertTrue(h.commit(t2), "T2 is serial");
            final long ephemeralsBefore = h.pipeline.ephemeralsCreated();
            assertTrue(h.commit(t3), "T3 does not conflict with T2");
            final long root = h.pipeline.lcs().root();
            assertEquals("D", MeldHarness.s(Node.keyBytes(root)));
            assertEquals(Versions.KIND_FINAL, Versions.kindOf(Node.vn(root)), "the new root is ephemeral");
            assertEquals(1, h.pipeline.ephemeralsCreated() - ephemeralsBefore, "only D is melded: one ephemeral node");
            assertEquals(3, Versions.csnOf(Node.vn(Node.right(root))), "E subtree grafted from T3's intention");
            assertEquals(2, Versions.csnOf(Node.vn(Node.left(root))), "B subtree kept from T2");
            assertEquals("A2", h.read("A"));
            assertEquals("F3", h.read("F"));
            TreeInvariants.check(root);
        }
    }

    @Test
    void abortsWriterWhenReadNodeChangedInConflictZone() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "a", "b", "c");
            final Transaction reader = h.begin(s, Isolation.SERIALIZABLE);
            reader.get(b("a"));
            reader.put(b("c"), b("from-reader"));
            final Transaction writer = h.begin(s, Isolation.SERIALIZABLE);
            writer.put(b("a"), b("changed"));
            assertTrue(h.commit(writer));
            assertFalse(h.commit(reader));
            assertEquals("c0", h.read("c"));
        }
    }

    @Test
    void commitsReaderUnderSnapshotIsolationWhenOnlyItsReadChanged() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "a", "b", "c");
            final Transaction reader = h.begin(s, Isolation.SNAPSHOT);
            reader.get(b("a"));
            reader.put(b("c"), b("from-reader"));
            final Transaction writer = h.begin(s, Isolation.SNAPSHOT);
            writer.put(b("a"), b("changed"));
            assertTrue(h.commit(writer));
            assertTrue(h.commit(reader));
            assertEquals("from-reader", h.read("c"));
            assertEquals("changed", h.read("a"));
        }
    }

    @Test
    void abortsSecondWriterOfTheSameKeyAtEveryIsolationLevel() {
        for (final Isolation iso : Isolation.values()) {
            try (MeldHarness h = new MeldHarness()) {
                final long s = seed(h, "a", "b");
                final Transaction first = h.begin(s, iso);
                final Transaction second = h.begin(s, iso);
                first.put(b("b"), b("1"));
                second.put(b("b"), b("2"));
                assertTrue(h.commit(first));
                assertFalse(h.commit(second), iso.name());
                assertEquals("1", h.read("b"));
            }
        }
    }

    @Test
    void abortsConcurrentInsertsOfTheSameNewKey() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "a", "m", "z");
            final Transaction first = h.begin(s, Isolation.SNAPSHOT);
            final Transaction second = h.begin(s, Isolation.SNAPSHOT);
            first.put(b("k"), b("1"));
            second.put(b("k"), b("2"));
            assertTrue(h.commit(first));
            assertFalse(h.commit(second));
        }
    }

    @Test
    void abortsScanWhenAConcurrentInsertLandsInTheScannedRange() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "a", "c", "e", "g", "i");
            final Transaction scanner = h.begin(s, Isolation.SERIALIZABLE);
            final List<byte[][]> rows = scanner.scan(b("b"), true, b("f"), true, false, 0);
            assertEquals(2, rows.size());
            scanner.put(b("z"), b("count=2"));
            final Transaction inserter = h.begin(s, Isolation.SERIALIZABLE);
            inserter.put(b("d"), b("new"));
            assertTrue(h.commit(inserter));
            assertFalse(h.commit(scanner), "phantom: d appeared inside [b, f]");
        }
    }

    @Test
    void commitsScanWhenTheConcurrentInsertIsOutsideTheScannedRange() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "a", "c", "e", "g", "i");
            final Transaction scanner = h.begin(s, Isolation.SERIALIZABLE);
            scanner.scan(b("b"), true, b("f"), true, false, 0);
            scanner.put(b("z"), b("count=2"));
            final Transaction inserter = h.begin(s, Isolation.SERIALIZABLE);
            inserter.put(b("h"), b("new"));
            assertTrue(h.commit(inserter));
            assertTrue(h.commit(scanner), "h is outside [b, f]: no phantom");
        }
    }

    @Test
    void abortsReaderOfAnAbsentKeyWhenItIsInsertedConcurrently() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "a", "z");
            final Transaction reader = h.begin(s, Isolation.SERIALIZABLE);
            assertNull(reader.get(b("k")));
            reader.put(b("a"), b("saw no k"));
            final Transaction inserter = h.begin(s, Isolation.SERIALIZABLE);
            inserter.put(b("k"), b("v"));
            assertTrue(h.commit(inserter));
            assertFalse(h.commit(reader));
        }
    }

    @Test
    void abortsReaderWhenTheKeyItReadWasDeletedConcurrently() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "a", "b", "c");
            final Transaction reader = h.begin(s, Isolation.SERIALIZABLE);
            assertEquals("b0", MeldHarness.s(reader.get(b("b"))));
            reader.put(b("c"), b("saw b"));
            final Transaction deleter = h.begin(s, Isolation.SERIALIZABLE);
            deleter.delete(b("b"));
            assertTrue(h.commit(deleter));
            assertNull(h.read("b"));
            assertFalse(h.commit(reader));
        }
    }

    @Test
    void abortsSecondDeleteOfTheSameKey() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "a", "b", "c");
            final Transaction first = h.begin(s, Isolation.SNAPSHOT);
            final Transaction second = h.begin(s, Isolation.SNAPSHOT);
            first.delete(b("b"));
            second.delete(b("b"));
            assertTrue(h.commit(first));
            assertFalse(h.commit(second));
        }
    }

    @Test
    void preventsWriteSkewUnderSerializableButAllowsItUnderSnapshotIsolation() {
        for (final Isolation iso : Isolation.values()) {
            try (MeldHarness h = new MeldHarness()) {
                final long s = seed(h, "x", "y");
                final Transaction t1 = h.begin(s, iso);
                final Transaction t2 = h.begin(s, iso);
                t1.get(b("x"));
                t1.get(b("y"));
                t2.get(b("x"));
                t2.get(b("y"));
                t1.put(b("x"), b("-1"));
                t2.put(b("y"), b("-1"));
                assertTrue(h.commit(t1));
                assertEquals(iso == Isolation.SNAPSHOT, h.commit(t2), iso.name());
            }
        }
    }

    @Test
    void meldsNonConflictingConcurrentWritesAcrossTheWholeTree() {
        try (MeldHarness h = new MeldHarness()) {
            final String[] keys = new String[200];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = String.format("k%04d", i * 10);
            }
            final long s = seed(h, keys);
            final Transaction[] txns = new Transaction[20];
            for (int i = 0; i < txns.length; i++) {
                txns[i] = h.begin(s, Isolation.SERIALIZABLE);
                txns[i].get(b(keys[i * 10]));
                txns[i].put(b(keys[i * 10 + 1]), b("u" + i));
                txns[i].put(b(String.format("k%04d", i * 100 + 5)), b("ins" + i));
            }
            for (final Transaction t : txns) {
                assertTrue(h.commit(t));
            }
            for (int i = 0; i < txns.length; i++) {
                assertEquals("u" + i, h.read(keys[i * 10 + 1]));
                assertEquals("ins" + i, h.read(String.format("k%04d", i * 100 + 5)));
            }
            TreeInvariants.check(h.pipeline.lcs().root());
        }
    }

    @Test
    void bruteForceVisitsMoreNodesButDecidesTheSame() {
        long optimized = 0;
        long brute = 0;
        for (final boolean bruteForce : new boolean[] {false, true}) {
            try (MeldHarness h = new MeldHarness(new MeldConfig(0, 0, false, bruteForce))) {
                final String[] keys = new String[500];
                for (int i = 0; i < keys.length; i++) {
                    keys[i] = String.format("k%04d", i);
                }
                final long s = seed(h, keys);
                for (int i = 0; i < 50; i++) {
                    final Transaction t = h.begin(Math.max(s, h.pipeline.lcsCsn() - 4), Isolation.SERIALIZABLE);
                    t.get(b(keys[(i * 37) % 500]));
                    t.put(b(keys[(i * 53) % 500]), b("v" + i));
                    h.commit(t);
                }
                if (bruteForce) {
                    brute = h.pipeline.finalNodesVisited();
                } else {
                    optimized = h.pipeline.finalNodesVisited();
                }
                assertEquals(51, h.decisions.size());
            }
        }
        assertTrue(brute > optimized, "brute force " + brute + " vs optimized " + optimized);
    }
}
