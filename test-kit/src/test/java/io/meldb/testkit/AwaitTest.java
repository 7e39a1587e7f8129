package io.meldb.testkit;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AwaitTest {
    @Test
    void awaitFailsNamingWhatItWaitedFor() {
        final AssertionError e = assertThrows(AssertionError.class,
                () -> Await.until(Duration.ofMillis(50), "the moon to turn blue", () -> false));
        assertTrue(e.getMessage().contains("the moon to turn blue"), e.getMessage());
        assertEquals("x", Await.value(Duration.ofSeconds(1), "a value", () -> "x"));
    }
}
