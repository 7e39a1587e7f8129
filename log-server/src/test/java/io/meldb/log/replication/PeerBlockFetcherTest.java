package io.meldb.log.replication;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogReader;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.meldb.log.storage.ChronicleLogStore;
import io.meldb.log.storage.StoreOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Copying a peer's blocks into a replica's store (issue 22, catching a follower up): against a single log server whose
 * store was trimmed, an empty store becomes the same log (id, block size, configuration) with the trimmed positions
 * trimmed and every other block equal; a store holding a prefix fetches only the rest; a store of another log is
 * refused and left as it was.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeerBlockFetcherTest {
    private static final int BLOCK = 512;
    private static final byte[] CONFIG = {4, 2};

    @TempDir
    Path dir;

    private LogServer peer;
    private final List<ChronicleLogStore> stores = new ArrayList<>();

    @BeforeEach
    void startPeer() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        peer = LogServer.start(LogServerConfig.at(dir.resolve("peer")).port(port).metricsPort(-1).blockSize(BLOCK));
        try (LogClient c = LogClient.connect(LogClientOptions.to("127.0.0.1", port))) {
            c.create(BLOCK, CONFIG).get(10, TimeUnit.SECONDS);
            List<CompletableFuture<Long>> appends = new ArrayList<>();
            for (int n = 1; n <= 600; n++) {
                appends.add(c.append(block(n)));
            }
            for (CompletableFuture<Long> f : appends) {
                f.get(10, TimeUnit.SECONDS);
            }
        }
        assertEquals(300, peer.store().trim(300));
    }

    @AfterEach
    void stop() {
        stores.forEach(ChronicleLogStore::close);
        if (peer != null) {
            peer.close();
        }
    }

    private ChronicleLogStore store(String name) throws IOException {
        ChronicleLogStore s = ChronicleLogStore.open(StoreOptions.at(dir.resolve(name)));
        stores.add(s);
        return s;
    }

    private long fetch(ChronicleLogStore into, long upTo) throws IOException {
        return PeerBlockFetcher.fetch(into, "127.0.0.1", peer.config().port(), "peer", null, upTo);
    }

    private static byte[] block(int n) {
        byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) n);
        b[0] = (byte) (n >> 8);
        return b;
    }

    private static byte[] read(ChronicleLogStore store, long position) {
        ByteBuf out = Unpooled.buffer(BLOCK);
        LogReader r = store.openReader();
        try {
            r.read(position, out);
            byte[] bytes = new byte[BLOCK];
            out.getBytes(0, bytes);
            return bytes;
        } finally {
            r.close();
            out.release();
        }
    }

    @Test
    void anEmptyStoreBecomesTheSameLogWithTheTrimmedPrefixTrimmed() throws Exception {
        ChronicleLogStore s = store("empty");
        assertEquals(301, fetch(s, 601), "blocks 300..600 read from the peer");
        assertEquals(601, s.tail());
        assertEquals(300, s.trimPoint(), "what the peer trimmed is trimmed here");
        assertEquals(peer.store().logId(), s.logId());
        assertEquals(BLOCK, s.blockSize());
        assertArrayEquals(CONFIG, s.config());
        for (int p = 300; p <= 600; p++) {
            assertArrayEquals(block(p), read(s, p), "position " + p);
        }
        LogErrorException trimmed = assertThrows(LogErrorException.class, () -> read(s, 299));
        assertEquals(ErrorCode.TRIMMED, trimmed.code());
    }

    @Test
    void aStoreHoldingAPrefixFetchesOnlyTheRest() throws Exception {
        ChronicleLogStore s = store("prefix");
        assertEquals(101, fetch(s, 401));
        assertEquals(200, fetch(s, 601), "only 401..600");
        assertEquals(0, fetch(s, 500), "nothing below its tail");
        for (int p = 300; p <= 600; p++) {
            assertArrayEquals(block(p), read(s, p), "position " + p);
        }
    }

    @Test
    void aStoreOfAnotherLogIsRefusedAndKeepsItsBlocks() throws Exception {
        ChronicleLogStore s = store("other");
        s.create(BLOCK, CONFIG, UUID.randomUUID());
        IOException e = assertThrows(IOException.class, () -> fetch(s, 601));
        assertTrue(e.getMessage().contains("wrong data directory"), e.getMessage());
        assertEquals(1, s.tail(), "nothing appended");
        IOException past = assertThrows(IOException.class, () -> fetch(store("past"), 700));
        assertTrue(past.getMessage().contains("holds positions below 601"), past.getMessage());
    }
}
