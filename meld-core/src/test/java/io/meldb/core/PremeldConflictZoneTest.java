package io.meldb.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Premeld (Hyder II §3) leaves final meld a conflict zone of at most t·d + 1 intentions, whatever the snapshot. */
class PremeldConflictZoneTest {
    private static long[] zones(final MeldConfig config) {
        try (MeldHarness h = new MeldHarness(config)) {
            final Transaction load = h.begin(Isolation.SERIALIZABLE);
            for (int i = 0; i < 64; i++) {
                load.put(b("k" + i), b("0"));
            }
            h.commit(load);
            // 40 transactions on the same snapshot, each writing its own key: a conflict zone of up to 39
            final List<Transaction> txns = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                final Transaction t = h.begin(Isolation.SERIALIZABLE);
                t.put(b("k" + i), b("1"));
                txns.add(t);
            }
            for (Transaction t : txns) {
                h.append(t);
            }
            h.pipeline.flush((c, committed) -> { });
            assertEquals(41, h.pipeline.commits());
            return new long[] {h.pipeline.conflictZoneTotal(), h.pipeline.effectiveConflictZoneTotal()};
        }
    }

    @Test
    void premeldShrinksTheConflictZoneFinalMeldCovers() {
        final long[] finalOnly = zones(MeldConfig.FINAL_ONLY);
        assertEquals(finalOnly[0], finalOnly[1], "without premeld final meld covers the whole zone");
        assertEquals(39 * 40 / 2, finalOnly[0]);
        final long[] premeld = zones(new MeldConfig(2, 2, false, false));
        assertEquals(finalOnly[0], premeld[0], "the transactions' own zones do not change");
        // intentions 6..41 are premelded against state v - 5, leaving final meld at most 5 intentions each
        assertTrue(premeld[1] <= 5L * 41, "effective zone total " + premeld[1]);
        assertTrue(premeld[1] * 3 < premeld[0], "premeld should shrink the zone: " + premeld[1] + " vs " + premeld[0]);
    }
}
