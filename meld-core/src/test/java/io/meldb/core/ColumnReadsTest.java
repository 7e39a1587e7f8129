package io.meldb.core;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Column-granular reads ({@link ColumnReads}): which increments a read of some bytes stands against, and where the history goes. */
class ColumnReadsTest {
    /** A row: [presence, 8-byte ytd] [presence, 4-byte next id] [presence, 4-byte tax], like TPC-C's district. */
    private static final IntField YTD = new IntField(1, 8, true, Long.MIN_VALUE, Long.MAX_VALUE);
    private static final IntField NEXT = new IntField(10, 4, true, Integer.MIN_VALUE, Integer.MAX_VALUE);
    private static final long READ_NEXT = ColumnReads.bytes(9, 14);
    private static final long READ_TAX = ColumnReads.bytes(14, 19);

    private static byte[] row() {
        final byte[] v = new byte[19];
        v[0] = 1;
        v[9] = 1;
        v[13] = 1; // next id 1
        v[14] = 1;
        v[18] = 7; // tax 7
        return v;
    }

    private static int read(final Transaction t, final String key, final long columns) {
        final ExpandableArrayBuffer into = new ExpandableArrayBuffer(32);
        return t.get(b(key), into, columns);
    }

    private static long seed(final MeldHarness h) {
        final Transaction t = h.begin(Isolation.SERIALIZABLE);
        t.put(b("d"), row());
        assertTrue(h.commit(t));
        return h.pipeline.lcsCsn();
    }

    private static int sides;

    /** A transaction that reads {@code columns} of "d" at {@code snapshot} and writes another key, so it is melded. */
    /** The transaction's own nodes marked as read. */
    private static int readNodes(final long n) {
        if (!Transaction.owned(n)) {
            return 0;
        }
        return (Node.dependsOn(n) ? 1 : 0) + readNodes(Node.left(n)) + readNodes(Node.right(n));
    }

    private static Transaction reader(final MeldHarness h, final long snapshot, final long columns) {
        final Transaction t = h.begin(snapshot, Isolation.SERIALIZABLE);
        assertEquals(19, read(t, "d", columns));
        t.put(b("side" + sides++), b("x")); // a key of its own: no write-write conflict between readers
        return t;
    }

    private static boolean increment(final MeldHarness h, final IntField field) {
        final Transaction t = h.begin(Isolation.SERIALIZABLE);
        t.add(b("d"), field, 1);
        return h.commit(t);
    }

    @Test
    void aReadOfEveryByteIsAReadOfTheWholeRowRecordedAsAPointRangeWithoutAPath() {
        assertEquals(ColumnReads.EVERY_BYTE, ColumnReads.bytes(0, Integer.MAX_VALUE));
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h);
            final Transaction every = reader(h, s, ColumnReads.EVERY_BYTE);
            final Transaction whole = reader(h, s, ColumnReads.WHOLE_ROW);
            final Transaction tax = reader(h, s, READ_TAX);
            for (Transaction t : List.of(every, whole)) {
                assertEquals(1, t.ranges().size(), "a point range");
                assertEquals(0, readNodes(t.root()), "no read node (and no path copied for the read)");
            }
            assertEquals(0, tax.ranges().size(), "a read of some columns stays a node, whose mask meld checks");
            assertEquals(1, readNodes(tax.root()));
            every.get(b("d"));
            assertEquals(1, every.ranges().size(), "a key read again adds no range");
            assertTrue(increment(h, YTD));
            assertFalse(h.commit(every), "an increment of any byte conflicts with a read of every byte");
            assertFalse(h.commit(whole));
            assertTrue(h.commit(tax), "ytd is not among the bytes it read");
        }
    }

    @Test
    void aReadStandsAgainstIncrementsOfOtherBytesButNotOfItsOwn() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h);
            final Transaction tax = reader(h, s, READ_TAX);
            final Transaction next = reader(h, s, READ_NEXT);
            final Transaction whole = reader(h, s, ColumnReads.WHOLE_ROW);
            assertTrue(increment(h, YTD));
            assertTrue(h.commit(tax), "ytd is not among the bytes it read");
            assertTrue(h.commit(next));
            assertFalse(h.commit(whole), "a read of the whole row");
            final long afterYtd = h.pipeline.lcsCsn();
            final Transaction nextLater = reader(h, afterYtd, READ_NEXT);
            final Transaction taxLater = reader(h, afterYtd, READ_TAX);
            assertTrue(increment(h, NEXT));
            assertFalse(h.commit(nextLater), "next id was incremented after its snapshot");
            assertTrue(h.commit(taxLater));
            // an increment of next before the snapshot, then of ytd after it: the read of next stands
            final Transaction afterBoth = reader(h, h.pipeline.lcsCsn(), READ_NEXT);
            assertTrue(increment(h, YTD));
            assertTrue(h.commit(afterBoth), "the history keeps a version per field, not one for the row");
            // a write that is not an increment: every read of the row conflicts
            final Transaction lastTax = reader(h, h.pipeline.lcsCsn(), READ_TAX);
            final Transaction w = h.begin(Isolation.SERIALIZABLE);
            w.put(b("d"), row());
            assertTrue(h.commit(w));
            assertFalse(h.commit(lastTax));
        }
    }

    @Test
    void aReadAndAnIncrementOfOneRowIsNewOrdersNextId() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h);
            final List<Transaction> newOrders = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                final Transaction t = h.begin(s, Isolation.SERIALIZABLE);
                read(t, "d", READ_TAX | READ_NEXT);
                t.add(b("d"), NEXT, 1);
                newOrders.add(t);
            }
            assertTrue(increment(h, YTD), "a payment");
            assertTrue(h.commit(newOrders.get(0)), "the payment incremented ytd only");
            assertFalse(h.commit(newOrders.get(1)), "the first new-order incremented the next id it read");
            final byte[] v = h.begin(Isolation.SNAPSHOT).get(b("d"));
            assertEquals(2, v[13], "next id 1 + 1");
            assertEquals(1, v[8], "ytd 0 + 1");
        }
    }

    @Test
    void theHistoryTravelsThroughTheCodecAndACheckpoint() {
        try (MeldHarness h = new MeldHarness(); Arena loadArena = new Arena()) {
            seed(h);
            assertTrue(increment(h, YTD));
            assertTrue(increment(h, NEXT));
            // a transaction that copies the incremented node (a read) carries its history into its record
            final Transaction t = reader(h, h.pipeline.lcsCsn(), READ_TAX);
            final ExpandableDirectByteBuffer record = new ExpandableDirectByteBuffer(256);
            final int length = new IntentionEncoder().encode(t, 0, record);
            assertEquals(IntentionFormat.VERSION_EXTENDED, record.getByte(0));
            final Intention decoded = new IntentionDecoder(loadArena, h.directory)
                .decode(record, 0, length, h.nextCsn, new Intention());
            final long d = find(decoded.root, b("d"));
            assertEquals(Node.HISTORY | Node.DEPENDS_ON, Node.flags(d) & (Node.HISTORY | Node.DEPENDS_ON));
            assertEquals(READ_TAX, Node.columns(d));
            final long committed = find(h.pipeline.lcs().root(), b("d"));
            assertArrayEquals(history(committed), history(d));

            final List<byte[]> chunks = new ArrayList<>();
            final CheckpointWriter writer = new CheckpointWriter(4096, (chunk, offset, len) -> {
                final byte[] copy = new byte[len];
                chunk.getBytes(offset, copy);
                chunks.add(copy);
            });
            writer.writeState(h.pipeline.lcs().root());
            writer.finish();
            final NodeDirectory fresh = new NodeDirectory();
            final CheckpointLoader loader = new CheckpointLoader(loadArena, fresh);
            for (byte[] chunk : chunks) {
                loader.load(new UnsafeBuffer(chunk), 0, chunk.length);
            }
            final long loaded = fresh.lookup(Node.vn(committed));
            assertTrue((Node.flags(loaded) & Node.HISTORY) != 0);
            assertArrayEquals(history(committed), history(loaded));
            assertArrayEquals(Node.valueBytes(committed), Node.valueBytes(loaded));
        }
    }

    @Test
    void malformedHistoriesAndColumnMasksAreRejected() {
        try (MeldHarness h = new MeldHarness(); Arena loadArena = new Arena()) {
            seed(h);
            assertTrue(increment(h, YTD));
            final Transaction t = reader(h, h.pipeline.lcsCsn(), READ_TAX);
            final ExpandableDirectByteBuffer record = new ExpandableDirectByteBuffer(256);
            final int length = new IntentionEncoder().encode(t, 0, record);
            final byte[] bytes = new byte[length];
            record.getBytes(0, bytes);
            final IntentionDecoder decoder = new IntentionDecoder(loadArena, h.directory);
            // the history's field count sits 8 bytes after the value: zero fields, or too many for the record
            final int count = indexOf(bytes, history(find(h.pipeline.lcs().root(), b("d")))) + 8;
            for (byte bad : new byte[] {0, 9, 100}) {
                final byte[] broken = bytes.clone();
                broken[count] = bad;
                assertThrows(IntentionFormatException.class,
                    () -> decoder.decode(new UnsafeBuffer(broken), 0, broken.length, h.nextCsn, new Intention()));
            }
            final byte[] oldVersion = bytes.clone();
            oldVersion[0] = IntentionFormat.VERSION;
            assertThrows(IntentionFormatException.class,
                () -> decoder.decode(new UnsafeBuffer(oldVersion), 0, oldVersion.length, h.nextCsn, new Intention()),
                "an extension byte needs version 2");
        }
    }

    private static byte[] history(final long n) {
        return NodeMemory.toArray(Node.payload(n) + Node.payloadLength(n), ColumnReads.historyLength(n));
    }

    private static int indexOf(final byte[] in, final byte[] what) {
        for (int i = 0; i + what.length <= in.length; i++) {
            if (Arrays.equals(Arrays.copyOfRange(in, i, i + what.length), what)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    private static long find(long n, final byte[] key) {
        final long prefix = NodeMemory.prefix(key);
        final long prefix2 = NodeMemory.prefix2(key);
        while (n != 0) {
            final int c = Node.compareKey(key, prefix, prefix2, n);
            if (c == 0) {
                return n;
            }
            n = c < 0 ? Node.left(n) : Node.right(n);
        }
        throw new AssertionError("no key");
    }
}
