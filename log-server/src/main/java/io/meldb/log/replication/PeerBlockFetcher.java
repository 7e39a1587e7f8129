package io.meldb.log.replication;

import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogStatus;
import io.meldb.log.storage.ChronicleLogStore;
import io.meldb.wire.auth.ClusterSecret;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.meldb.log.replication.StoreCatchUp.join;

/**
 * Copies the blocks a replica's store lacks from a peer's log port (the LogClient READ API) up to a position, the data
 * half of installing a snapshot ({@link StoreCatchUp}): an empty store is first created like the peer's (block size,
 * configuration, log id); positions the peer trimmed become zero blocks trimmed here too; every other block is read in
 * 256-block READs and appended, each checked to land at its position. The caller makes sure nothing else appends to
 * the store meanwhile. Not a hot path: it allocates per block.
 */
final class PeerBlockFetcher {
    private static final Logger LOG = LoggerFactory.getLogger(PeerBlockFetcher.class);
    /** Blocks per READ and per append batch. */
    private static final int CHUNK = 256;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private PeerBlockFetcher() {
    }

    /**
     * Reads from {@code peer}'s log port every block below {@code upTo} that the store lacks and appends it; creates
     * the log first on an empty store. Returns the blocks fetched. Only this thread appends meanwhile.
     */
    static long fetch(final LogStore store, final String host, final int port, final String peer,
                      final ClusterSecret secret, final long upTo) throws IOException {
        LogClientOptions o = LogClientOptions.to(host, port).requestTimeout(REQUEST_TIMEOUT)
            .connectTimeout(REQUEST_TIMEOUT).ioThreads(1);
        if (secret != null) {
            o = o.clusterSecret(secret);
        }
        try (LogClient client = LogClient.connect(o)) {
            final LogStatus status = join(client.status(), "the log status of " + peer);
            if (status.tail() < upTo) {
                throw new IOException("peer " + peer + " holds positions below " + status.tail() + " only, not " + upTo);
            }
            createLike(store, client, status, peer);
            long fetched = 0;
            long next = store.tail();
            if (next < status.trimPoint() && next < upTo) {
                next = fillTrimmed(store, Math.min(status.trimPoint(), upTo));
            }
            while (next < upTo) {
                final int count = (int) Math.min(CHUNK, upTo - next);
                final List<byte[]> blocks = join(client.read(next, count), "blocks from " + next + " of " + peer);
                if (blocks.isEmpty()) {
                    throw new IOException("peer " + peer + " answered no block at " + next);
                }
                next = appendAll(store, next, blocks);
                fetched += blocks.size();
            }
            return fetched;
        }
    }

    private static void createLike(final LogStore store, final LogClient client, final LogStatus status,
                                   final String peer) throws IOException {
        if (store.isCreated()) {
            if (!store.logId().equals(status.logId()) || store.blockSize() != status.blockSize()) {
                throw new IOException("this replica's store holds log " + store.logId() + " (" + store.blockSize()
                    + "-byte blocks), peer " + peer + " log " + status.logId() + " (" + status.blockSize()
                    + "-byte blocks): wrong data directory?");
            }
            return;
        }
        if (!(store instanceof ChronicleLogStore chronicle)) {
            throw new IOException("a replicated log needs a store that takes the log id");
        }
        final byte[] config = join(client.config(), "the configuration of " + peer);
        chronicle.create(status.blockSize(), config, status.logId());
        LOG.info("replicated log: empty store created as log {} from peer {}", status.logId(), peer);
    }

    /**
     * Positions the peer released: zero blocks in this store, trimmed as they go (a whole queue file at a time is
     * freed), so they answer TRIMMED here too and the disk holds no more than a file of them.
     */
    private static long fillTrimmed(final LogStore store, final long upTo) throws IOException {
        final byte[] zeros = new byte[store.blockSize()];
        long next = store.tail();
        final List<byte[]> chunk = new ArrayList<>(CHUNK);
        while (next < upTo) {
            chunk.clear();
            for (int i = 0; i < Math.min(CHUNK, upTo - next); i++) {
                chunk.add(zeros);
            }
            next = appendAll(store, next, chunk);
            store.trim(next);
        }
        LOG.info("replicated log: positions below {} are trimmed on the peer, trimmed here too", upTo);
        return next;
    }

    /** Appends {@code blocks} at {@code first}, {@code first + 1}, ...; waits until all are stored. */
    private static long appendAll(final LogStore store, final long first, final List<byte[]> blocks) throws IOException {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final int n = blocks.size();
        for (int i = 0; i < n; i++) {
            final long expected = first + i;
            final boolean last = i == n - 1;
            store.append(Unpooled.wrappedBuffer(blocks.get(i)), new LogStore.AppendCallback() {
                @Override
                public void appended(final long position) {
                    if (position != expected) {
                        done.completeExceptionally(new IllegalStateException("fetched block " + expected
                            + " was stored at " + position + ": the store is not this task's alone"));
                    } else if (last) {
                        done.complete(null);
                    }
                }

                @Override
                public void failed(final LogErrorException error) {
                    done.completeExceptionally(error);
                }
            });
        }
        join(done, "storing blocks " + first + ".." + (first + n - 1));
        // the tail moves once the writer's batch is done, just after its callbacks
        final long deadline = System.nanoTime() + REQUEST_TIMEOUT.toNanos();
        while (store.tail() < first + n) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the store's tail stayed at " + store.tail() + " after storing up to " + (first + n));
            }
            pause(Duration.ofMillis(1));
        }
        return first + n;
    }

    private static void pause(final Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
