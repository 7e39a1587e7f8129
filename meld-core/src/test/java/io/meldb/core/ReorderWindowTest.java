package io.meldb.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reorder window in {@link MeldPipeline} and the {@link Reorderer}'s choices (seed 001 §3–4). */
class ReorderWindowTest {

    /** A blind write of x, then a transaction that read x and writes y: log order aborts the reader. */
    private static List<Long> blindWriteThenReader(final MeldHarness h, final List<Boolean> outcomes) {
        final List<Long> order = new ArrayList<>();
        final MeldPipeline.DecisionListener listener = (csn, committed) -> {
            order.add(csn);
            outcomes.add(committed);
        };
        final Transaction seed = h.begin(Isolation.SERIALIZABLE);
        seed.put(b("x"), b("0"));
        seed.put(b("y"), b("0"));
        h.pipeline.submit(h.adopter.adopt(seed, 1, 0, new Intention()), listener);
        h.pipeline.flush(listener);
        order.clear();
        outcomes.clear();
        final Transaction writer = h.begin(Isolation.SERIALIZABLE);
        writer.put(b("x"), b("1"));
        final Transaction reader = h.begin(Isolation.SERIALIZABLE);
        reader.get(b("x"));
        reader.put(b("y"), b("1"));
        h.pipeline.submit(h.adopter.adopt(writer, 2, 0, new Intention()), listener);
        h.pipeline.submit(h.adopter.adopt(reader, 3, 0, new Intention()), listener);
        h.pipeline.flush(listener);
        return order;
    }

    @Test
    void logOrderAbortsAReaderOfAKeyAnEarlierIntentionWrote() {
        try (MeldHarness h = new MeldHarness()) {
            final List<Boolean> outcomes = new ArrayList<>();
            assertEquals(List.of(2L, 3L), blindWriteThenReader(h, outcomes));
            assertEquals(List.of(true, false), outcomes);
        }
    }

    @Test
    void windowMeldsTheReaderFirstSoBothCommitAndDecisionsFollowMeldOrder() {
        try (MeldHarness h = new MeldHarness(MeldConfig.FINAL_ONLY.withReorder(ReorderConfig.of(4)))) {
            final List<Boolean> outcomes = new ArrayList<>();
            assertEquals(List.of(3L, 2L), blindWriteThenReader(h, outcomes));
            assertEquals(List.of(true, true), outcomes);
            assertEquals("1", h.read("x"));
            assertEquals("1", h.read("y"));
            assertEquals(MeldPipeline.NO_STATE, h.pipeline.stateRootAt(2), "no state inside a window");
            assertEquals(3, h.pipeline.lcsCsn());
        }
    }

    @Test
    void windowClosesWhenFullAndHoldsUntilThen() {
        try (MeldHarness h = new MeldHarness(MeldConfig.FINAL_ONLY.withReorder(ReorderConfig.of(3)))) {
            final List<Long> decided = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                final Transaction t = h.begin(0, Isolation.SERIALIZABLE);
                t.put(b("k" + i), b("v"));
                h.pipeline.submit(h.adopter.adopt(t, i, 0, new Intention()), (c, ok) -> decided.add(c));
                assertEquals(i < 3, h.pipeline.holding(), "holding after " + i);
            }
            assertEquals(List.of(1L, 2L, 3L), decided, "no edges: log order");
            assertFalse(h.pipeline.holding());
        }
    }

    @Test
    void writeWriteCycleAbortsOneAndTheTailLatencyPolicyKeepsTheOftenRestarted() {
        for (final ReorderConfig.Policy policy : ReorderConfig.Policy.values()) {
            for (final ReorderConfig.Algorithm algorithm : ReorderConfig.Algorithm.values()) {
                try (MeldHarness h = new MeldHarness(MeldConfig.FINAL_ONLY.withReorder(
                    new ReorderConfig(4, algorithm, policy)))) {
                    final List<Boolean> outcomes = new ArrayList<>(List.of(false, false));
                    final Transaction a = h.begin(0, Isolation.SERIALIZABLE);
                    a.put(b("k"), b("a"));
                    final Transaction c = h.begin(0, Isolation.SERIALIZABLE);
                    c.put(b("k"), b("c"));
                    h.pipeline.submit(h.adopter.adopt(a, 1, 0, new Intention()), (csn, ok) -> outcomes.set((int) csn - 1, ok));
                    h.pipeline.submit(h.adopter.adopt(c, 2, Intention.restartFlags(5), new Intention()),
                        (csn, ok) -> outcomes.set((int) csn - 1, ok));
                    h.pipeline.flush((csn, ok) -> outcomes.set((int) csn - 1, ok));
                    if (policy == ReorderConfig.Policy.TAIL_LATENCY) {
                        assertEquals(List.of(false, true), outcomes, algorithm + ": the restarted one commits");
                        assertEquals("c", h.read("k"));
                    } else {
                        assertEquals(List.of(true, false), outcomes, algorithm + ": ties abort the later one");
                        assertEquals("a", h.read("k"));
                    }
                }
            }
        }
    }

    @Test
    void anIntentionWhoseSnapshotIsNotOlderThanTheWindowClosesIt() {
        try (MeldHarness h = new MeldHarness(MeldConfig.FINAL_ONLY.withReorder(ReorderConfig.of(8)))) {
            final List<Long> decided = new ArrayList<>();
            final Transaction t1 = h.begin(0, Isolation.SERIALIZABLE);
            t1.put(b("a"), b("1"));
            h.pipeline.submit(h.adopter.adopt(t1, 1, 0, new Intention()), (c, ok) -> decided.add(c));
            h.pipeline.flush((c, ok) -> decided.add(c));
            final Transaction t2 = h.begin(1, Isolation.SERIALIZABLE);
            t2.put(b("b"), b("1"));
            h.pipeline.submit(h.adopter.adopt(t2, 2, 0, new Intention()), (c, ok) -> decided.add(c));
            assertTrue(h.pipeline.holding());
            // snapshot 2 lies inside the open window [2, ...]: the record could only come from a broken writer
            h.pipeline.closeWindowBefore(2, 0, (c, ok) -> decided.add(c));
            assertEquals(List.of(1L, 2L), decided);
            assertFalse(h.pipeline.holding());
        }
    }

    @Test
    void aRejectedRecordClosesTheWindowAndAbortsAlone() {
        try (MeldHarness h = new MeldHarness(MeldConfig.FINAL_ONLY.withReorder(ReorderConfig.of(8)))) {
            final List<String> decided = new ArrayList<>();
            final Transaction t1 = h.begin(0, Isolation.SERIALIZABLE);
            t1.put(b("a"), b("1"));
            h.pipeline.submit(h.adopter.adopt(t1, 1, 0, new Intention()), (c, ok) -> decided.add(c + "=" + ok));
            h.pipeline.reject(2, (c, ok) -> decided.add(c + "=" + ok));
            assertEquals(List.of("1=true", "2=false"), decided);
            assertEquals(2, h.pipeline.lcsCsn());
        }
    }

    @Test
    void groupMeldAndAWindowAreExclusiveAndTheWindowIsBounded() {
        assertThrows(IllegalArgumentException.class,
            () -> new MeldConfig(0, 0, true, false, ReorderConfig.of(16)));
        assertThrows(IllegalArgumentException.class, () -> ReorderConfig.of(65));
        assertEquals(3 * 2 + 1 + 16, new MeldConfig(3, 2, false, false, ReorderConfig.of(16)).premeldLag());
    }

    @Test
    void sortAndSccAlgorithmsBreakEveryCycleOfADenseGraph() {
        // every member reads and writes the same two keys: a complete graph, so exactly one can commit
        for (final ReorderConfig.Algorithm algorithm : ReorderConfig.Algorithm.values()) {
            try (MeldHarness h = new MeldHarness(MeldConfig.FINAL_ONLY.withReorder(
                new ReorderConfig(16, algorithm, ReorderConfig.Policy.MIN_ABORTS)))) {
                final int[] commits = {0};
                for (int i = 1; i <= 16; i++) {
                    final Transaction t = h.begin(0, Isolation.SERIALIZABLE);
                    t.get(b("p"));
                    t.put(b(i % 2 == 0 ? "p" : "q"), b("v" + i));
                    t.get(b("q"));
                    h.pipeline.submit(h.adopter.adopt(t, i, 0, new Intention()), (c, ok) -> commits[0] += ok ? 1 : 0);
                }
                assertEquals(1, commits[0], algorithm.toString());
            }
        }
    }
}
