package io.meldb.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ports and directories of a local cluster's log replicas: chosen once, kept, and one layout per data directory. */
class LocalLogReplicasTest {
    @TempDir
    Path dir;

    @Test
    void portsAreChosenOnceDistinctAndKeptForTheNextStart() throws Exception {
        final LocalLogReplicas first = LocalLogReplicas.plan(dir, 3);
        final Set<String> ports = new HashSet<>();
        for (String peer : first.peers().split(",")) {
            final String[] p = peer.split(":");
            ports.add(p[1]);
            ports.add(p[2]);
        }
        assertEquals(6, ports.size(), "six distinct ports: " + first.peers());
        assertTrue(first.peers().startsWith("l1=127.0.0.1:"), first.peers());
        assertEquals(first.peers(), LocalLogReplicas.plan(dir, 3).peers(), "a restart finds the replicas where they were");
    }

    @Test
    void aDataDirectoryKeepsItsLayout() throws Exception {
        assertNull(LocalLogReplicas.plan(dir, 1), "one log server needs no plan");
        LocalLogReplicas.plan(dir, 3);
        final IllegalArgumentException fewer = assertThrows(IllegalArgumentException.class, () -> LocalLogReplicas.plan(dir, 5));
        assertTrue(fewer.getMessage().contains("--log-replicas 3"), fewer.getMessage());
        final IllegalArgumentException single = assertThrows(IllegalArgumentException.class, () -> LocalLogReplicas.plan(dir, 1));
        assertTrue(single.getMessage().contains("--log-replicas 3"), single.getMessage());
        final Path other = Files.createDirectories(dir.resolve("other").resolve("log"));
        final IllegalArgumentException replicated = assertThrows(IllegalArgumentException.class,
            () -> LocalLogReplicas.plan(other.getParent(), 3));
        assertTrue(replicated.getMessage().contains("single log server"), replicated.getMessage());
    }
}
