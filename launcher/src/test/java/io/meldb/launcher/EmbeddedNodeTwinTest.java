package io.meldb.launcher;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded database the tests start (txn-server's test fixture {@code io.meldb.txn.EmbeddedNode}) is the one
 * users run (this module's {@link EmbeddedNode}): the two classes are the same code below their declarations, so a
 * change to one that is not made to the other fails here.
 */
class EmbeddedNodeTwinTest {
    private static String body(final Path file) throws IOException {
        final String source = Files.readString(file);
        final int start = source.indexOf("public final class EmbeddedNode");
        assertTrue(start >= 0, file + " declares no EmbeddedNode");
        return source.substring(start);
    }

    @Test
    void shouldKeepTheTestsEmbeddedNodeTheSameCodeAsTheLaunchers() throws IOException {
        final Path module = Path.of("").toAbsolutePath();
        assertEquals(body(module.resolve("src/main/java/io/meldb/launcher/EmbeddedNode.java")),
                body(module.resolve("../txn-server/src/test/java/io/meldb/txn/EmbeddedNode.java").normalize()),
                "txn-server's test EmbeddedNode differs from the launcher's: make the same change to both");
    }
}
