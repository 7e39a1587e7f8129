package io.meldb.bench.replication;

import org.apache.bookkeeper.client.BKException;
import org.apache.bookkeeper.client.BookKeeper;
import org.apache.bookkeeper.client.LedgerHandle;
import org.apache.bookkeeper.conf.ClientConfiguration;
import org.apache.bookkeeper.conf.ServerConfiguration;
import org.apache.bookkeeper.util.LocalBookKeeper;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * Apache BookKeeper with three bookies and a ZooKeeper (its metadata store) in this process on loopback: the
 * writer appends to a ledger of ensemble 3, write quorum 3, ack quorum 2, as a log server would. Failover is the
 * writer's: a new writer opens the old ledger with recovery (fencing it, so the old writer can add nothing more),
 * then starts a new ledger, as Pulsar brokers do.
 */
final class BookKeeperCandidate implements Candidate {
    private static final byte[] PASSWORD = "meldb".getBytes(StandardCharsets.US_ASCII);

    private final LocalBookKeeper bookies;
    private final ClientConfiguration clientConf;
    private BookKeeper writer;
    private LedgerHandle ledger;

    BookKeeperCandidate() throws Exception {
        final int zkPort = RatisCandidate.freePort();
        final ServerConfiguration conf = new ServerConfiguration();
        conf.setAllowLoopback(true);
        conf.setBookiePort(RatisCandidate.freePort());
        bookies = LocalBookKeeper.getLocalBookies("127.0.0.1", zkPort, 3, true, conf);
        bookies.start();
        clientConf = new ClientConfiguration().setMetadataServiceUri("zk+null://127.0.0.1:" + zkPort + "/ledgers");
        writer = new BookKeeper(clientConf);
        ledger = writer.createLedger(3, 3, 2, BookKeeper.DigestType.CRC32C, PASSWORD);
    }

    @Override
    public CompletableFuture<Void> append(final byte[] block) {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        ledger.asyncAddEntry(block, (rc, lh, entryId, ctx) -> {
            if (rc == BKException.Code.OK) {
                done.complete(null);
            } else {
                done.completeExceptionally(BKException.create(rc));
            }
        }, null);
        return done;
    }

    @Override
    public void failLeaderAndAppend(final byte[] block) throws Exception {
        // the old writer is abandoned as a crash would leave it: its ledger open, its client not closed
        final long old = ledger.getId();
        final BookKeeper next = new BookKeeper(clientConf);
        final LedgerHandle recovered = next.openLedger(old, BookKeeper.DigestType.CRC32C, PASSWORD);
        recovered.close();
        writer = next;
        ledger = next.createLedger(3, 3, 2, BookKeeper.DigestType.CRC32C, PASSWORD);
        append(block).get();
    }

    @Override
    public String describe() {
        return "BookKeeper " + BookKeeper.class.getPackage().getImplementationVersion() + ", 3 bookies + ZooKeeper in "
            + "one JVM, ensemble 3 / write quorum 3 / ack quorum 2, journal fsync (journalSyncData): default";
    }

    @Override
    public void close() throws Exception {
        try {
            ledger.close();
        } catch (BKException e) {
            // fenced or already closed
        }
        writer.close();
        bookies.close();
    }
}
