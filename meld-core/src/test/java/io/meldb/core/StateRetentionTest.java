package io.meldb.core;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A pipeline that keeps only its newest states decides and melds exactly like one that keeps them all. */
class StateRetentionTest {
    private static long run(final MeldHarness h, final long seed) {
        final Random random = new Random(seed);
        for (int i = 0; i < 2000; i++) {
            final long lag = random.nextInt(20);
            final long snapshot = Math.max(0, h.pipeline.lcsCsn() - lag);
            final Transaction t = h.begin(snapshot, random.nextBoolean() ? Isolation.SERIALIZABLE : Isolation.SNAPSHOT);
            t.get(b("k" + random.nextInt(200)));
            t.put(b("k" + random.nextInt(200)), b("v" + i));
            h.append(t);
        }
        h.pipeline.flush((c, committed) -> h.decisions.set((int) c - 1, committed));
        return StateHash.of(h.pipeline.lcs().root());
    }

    @Test
    void forgetsOldStatesButMeldsLikeAPipelineThatKeepsThemAll() {
        final MeldConfig config = new MeldConfig(2, 3, true, false);
        try (MeldHarness all = new MeldHarness(config); MeldHarness recent = new MeldHarness(config)) {
            recent.pipeline.retainStates(40);
            final long expected = run(all, 11);
            assertEquals(expected, run(recent, 11));
            assertEquals(all.decisions, recent.decisions);
            // the ring keeps at least 40 states, rounded up to its 1,024 slots
            assertEquals(recent.pipeline.lcsCsn() - 1023, recent.pipeline.baseCsn());
            assertEquals(MeldPipeline.NO_STATE, recent.pipeline.stateRootAt(10));
            assertThrows(IllegalArgumentException.class, () -> recent.pipeline.state(10));
            assertEquals(0, all.pipeline.baseCsn());
        }
    }
}
