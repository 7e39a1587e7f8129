package io.meldb.txn;

import io.meldb.wire.CommandFlags;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one threading setting, and the two older boolean settings and flags that remain as its aliases. */
class ThreadingModeTest {

    @Test
    void theDefaultChainsTheStagesOnUpToFourProcessorsAndGivesThemThreadsAbove() {
        assertEquals(ThreadingMode.CHAINED, ThreadingMode.forProcessors(1));
        assertEquals(ThreadingMode.CHAINED, ThreadingMode.forProcessors(2));
        assertEquals(ThreadingMode.CHAINED, ThreadingMode.forProcessors(4));
        assertEquals(ThreadingMode.DEDICATED, ThreadingMode.forProcessors(5));
        assertEquals(ThreadingMode.DEDICATED, ThreadingMode.forProcessors(64));
        final TxnServerConfig c = new TxnServerConfig();
        assertEquals(ThreadingMode.forProcessors(Runtime.getRuntime().availableProcessors()), c.threading());
        assertEquals(c.threading(), TxnServerMain.configure(flags()).threading());
        final TxnServerConfig chained = new TxnServerConfig().threading(ThreadingMode.CHAINED);
        assertFalse(chained.separateDecoder());
        assertFalse(chained.premeldOnThreads());
        assertTrue(ThreadingMode.CHAINED.replyInline());
        assertFalse(ThreadingMode.SHARED.replyInline());
        assertFalse(ThreadingMode.DEDICATED.replyInline());
    }

    @Test
    void theOldBooleansSetTheModeTheyStandFor() {
        assertEquals(ThreadingMode.SHARED, new TxnServerConfig().separateDecoder(false).threading());
        assertEquals(ThreadingMode.DEDICATED_DECODE,
            new TxnServerConfig().threading(ThreadingMode.DEDICATED).premeldOnThreads(false).threading());
        assertEquals(ThreadingMode.SHARED,
            new TxnServerConfig().separateDecoder(false).premeldOnThreads(true).threading());
        assertEquals(ThreadingMode.DEDICATED_DECODE,
            new TxnServerConfig().separateDecoder(true).premeldOnThreads(false).threading());
        final TxnServerConfig shared = new TxnServerConfig().threading(ThreadingMode.SHARED);
        assertFalse(shared.separateDecoder());
        assertFalse(shared.premeldOnThreads());
        for (ThreadingMode m : ThreadingMode.values()) {
            if (m != ThreadingMode.CHAINED) { // no older flag stands for it
                assertEquals(m, ThreadingMode.of(m.separateDecoder(), m.premeldOnThreads()));
            }
        }
        // asking for a separate decoder leaves the chained shape for the dedicated one, as it leaves SHARED
        assertEquals(ThreadingMode.DEDICATED,
            new TxnServerConfig().threading(ThreadingMode.CHAINED).separateDecoder(true).threading());
        assertEquals(ThreadingMode.CHAINED,
            new TxnServerConfig().threading(ThreadingMode.CHAINED).premeldOnThreads(false).threading());
    }

    @Test
    void theThreadingFlagOverridesTheOldFlagsAndRefusesAnUnknownMode() {
        assertEquals(ThreadingMode.DEDICATED_DECODE, TxnServerMain.configure(flags("--threading",
            "dedicated-decode", "--separate-decoder", "false")).threading());
        assertEquals(ThreadingMode.SHARED, TxnServerMain.configure(flags("--separate-decoder", "false")).threading());
        assertEquals(ThreadingMode.CHAINED, TxnServerMain.configure(flags("--threading", "chained")).threading());
        assertEquals(ThreadingMode.DEDICATED,
            TxnServerMain.configure(flags("--threading", "dedicated", "--separate-decoder", "true")).threading());
        assertEquals(ThreadingMode.DEDICATED_DECODE, TxnServerMain.configure(flags("--separate-decoder", "true",
            "--premeld-on-threads", "false")).threading());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> TxnServerMain.configure(flags("--threading", "many")));
        assertTrue(e.getMessage().contains("--threading"), e.getMessage());
    }

    private static Map<String, String> flags(final String... args) {
        return CommandFlags.parse(TxnServerMain.flags(), args);
    }
}
