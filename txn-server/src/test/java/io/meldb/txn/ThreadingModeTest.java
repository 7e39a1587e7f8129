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
    void theDefaultRunsEveryStageOnThreadsOfItsOwn() {
        final TxnServerConfig c = new TxnServerConfig();
        assertEquals(ThreadingMode.DEDICATED, c.threading());
        assertTrue(c.separateDecoder());
        assertTrue(c.premeldOnThreads());
    }

    @Test
    void theOldBooleansSetTheModeTheyStandFor() {
        assertEquals(ThreadingMode.SHARED, new TxnServerConfig().separateDecoder(false).threading());
        assertEquals(ThreadingMode.DEDICATED_DECODE, new TxnServerConfig().premeldOnThreads(false).threading());
        assertEquals(ThreadingMode.SHARED,
            new TxnServerConfig().separateDecoder(false).premeldOnThreads(true).threading());
        assertEquals(ThreadingMode.DEDICATED_DECODE,
            new TxnServerConfig().separateDecoder(true).premeldOnThreads(false).threading());
        final TxnServerConfig shared = new TxnServerConfig().threading(ThreadingMode.SHARED);
        assertFalse(shared.separateDecoder());
        assertFalse(shared.premeldOnThreads());
        for (ThreadingMode m : ThreadingMode.values()) {
            assertEquals(m, ThreadingMode.of(m.separateDecoder(), m.premeldOnThreads()));
        }
    }

    @Test
    void theThreadingFlagOverridesTheOldFlagsAndRefusesAnUnknownMode() {
        assertEquals(ThreadingMode.DEDICATED_DECODE, TxnServerMain.configure(flags("--threading",
            "dedicated-decode", "--separate-decoder", "false")).threading());
        assertEquals(ThreadingMode.SHARED, TxnServerMain.configure(flags("--separate-decoder", "false")).threading());
        assertEquals(ThreadingMode.DEDICATED_DECODE,
            TxnServerMain.configure(flags("--premeld-on-threads", "false")).threading());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> TxnServerMain.configure(flags("--threading", "many")));
        assertTrue(e.getMessage().contains("--threading"), e.getMessage());
    }

    private static Map<String, String> flags(final String... args) {
        return CommandFlags.parse(TxnServerMain.flags(), args);
    }
}
