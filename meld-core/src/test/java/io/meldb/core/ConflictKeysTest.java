package io.meldb.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ConflictKeys}: a conflict abort counted by the key class it conflicted on and the key range it wrote. */
class ConflictKeysTest {
    @AfterEach
    void off() {
        ConflictKeys.disable();
        ConflictKeys.clear();
    }

    private static long classOf(final String key) {
        return NodeMemory.prefix(b(key)) & (-1L << 8 * 6); // the first two bytes
    }

    @Test
    void anAbortIsCountedByTheRowOrRangeItConflictedOnAndTheKeysItWrote() {
        ConflictKeys.enable(2);
        try (MeldHarness h = new MeldHarness()) {
            final Transaction seed = h.begin(Isolation.SERIALIZABLE);
            seed.put(b("wa1"), b("x"));
            assertTrue(h.commit(seed));
            final long s = h.pipeline.lcsCsn();
            // two readers of wa1 that write other keys, one writer of wa1 in between
            final Transaction reader = h.begin(s, Isolation.SERIALIZABLE);
            reader.get(b("wa1"));
            reader.put(b("nb1"), b("y"));
            reader.put(b("sc9"), b("y"));
            final Transaction scanner = h.begin(s, Isolation.SERIALIZABLE);
            scanner.scan(b("wa"), true, b("wz"), true, false, 0);
            scanner.put(b("hx1"), b("z"));
            final Transaction writer = h.begin(s, Isolation.SERIALIZABLE);
            writer.put(b("wa1"), b("w"));
            assertTrue(h.commit(writer));
            assertFalse(h.commit(reader));
            assertFalse(h.commit(scanner));
            final List<ConflictKeys.Row> rows = ConflictKeys.rows();
            assertEquals(2, rows.size(), rows.toString());
            assertTrue(rows.contains(new ConflictKeys.Row(ConflictKeys.POINT, classOf("wa"), classOf("nb"),
                classOf("sc"), 1)), rows.toString());
            assertTrue(rows.contains(new ConflictKeys.Row(ConflictKeys.RANGE, classOf("wa"), classOf("hx"),
                classOf("hx"), 1)), rows.toString());
            ConflictKeys.clear();
            assertTrue(ConflictKeys.rows().isEmpty());
            ConflictKeys.disable();
            final Transaction late = h.begin(s, Isolation.SERIALIZABLE);
            late.get(b("wa1"));
            late.put(b("nb2"), b("y"));
            assertFalse(h.commit(late));
            assertTrue(ConflictKeys.rows().isEmpty(), "nothing is counted while the meter is off");
        }
    }
}
