package io.meldb.core;

import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IntentionCopierTest {
    private static final IntField BALANCE = IntField.int64(0);

    @Test
    void copiedIntentionIsTheDecodedOneFieldForField() {
        try (MeldHarness h = committedState(1); Arena copyArena = new Arena(); Arena decodeArena = new Arena()) {
            final Transaction t = workload(h, 7);
            final long csn = h.nextCsn;
            final Intention decoded = decode(new IntentionDecoder(decodeArena, h.directory), t, 3, csn);
            final NodeDirectory copyDirectory = new NodeDirectory();
            final Intention copied = new IntentionCopier(copyArena, copyDirectory).copy(t, csn, 3, new Intention());

            assertEquals(decoded.nodeCount(), copied.nodeCount());
            assertEquals(decoded.snapshotCsn(), copied.snapshotCsn());
            assertEquals(decoded.isolation(), copied.isolation());
            assertEquals(decoded.flags(), copied.flags());
            assertEquals(decoded.rangeCount(), copied.rangeCount());
            assertTrue(decoded.rangeCount() >= 2, "the workload declares ranges");
            assertArrayEquals(rangeRecords(decoded), rangeRecords(copied));
            assertEquals(decoded.spanEnd - decoded.spanStart, copied.spanEnd - copied.spanStart,
                "both are one packed run");
            assertEquals(decoded.nodeCount(), sameTree(decoded.root(), copied.root(), csn));
            assertTrue(ownNodesWith(decoded.root(), csn, Node.HISTORY) > 0, "the workload reads counters with a history");
            assertTrue(ownNodesWithColumns(decoded.root(), csn) > 0, "the workload reads some columns only");
            // registered as the decoder registers them: every VN of the intention finds its copy
            for (int i = 0; i < copied.nodeCount(); i++) {
                final long vn = Versions.vn(csn, Versions.KIND_PERSISTED, i);
                assertEquals(Node.vn(copyDirectory.lookup(vn)), vn);
                assertTrue(copied.contains(copyDirectory.lookup(vn)));
            }
        }
    }

    @Test
    void meldingTheCopyReachesTheStateMeldingTheDecodedIntentionReaches() {
        // two replicas of the same history; the last intention is decoded on one and copied on the other
        for (long seed = 1; seed <= 5; seed++) {
            try (MeldHarness decoding = committedState(seed); MeldHarness copying = committedState(seed);
                 Arena decodeArena = new Arena(); Arena copyArena = new Arena()) {
                assertEquals(StateHash.of(decoding.pipeline.lcs().root()), StateHash.of(copying.pipeline.lcs().root()));
                // a concurrent writer commits first, so the last intention melds against a newer state
                final Transaction a = workload(decoding, seed * 31);
                final Transaction b = workload(copying, seed * 31);
                final Transaction concurrentA = decoding.begin(Isolation.SERIALIZABLE);
                final Transaction concurrentB = copying.begin(Isolation.SERIALIZABLE);
                for (Transaction c : new Transaction[] {concurrentA, concurrentB}) {
                    c.put(b("k" + (seed * 7 % 150)), b("concurrent"));
                    c.add(b("n" + (seed % 20)), BALANCE, 5);
                }
                final boolean first = decoding.commit(concurrentA);
                assertEquals(first, copying.commit(concurrentB));
                final long csn = decoding.nextCsn;
                final Intention viaLog = decode(new IntentionDecoder(decodeArena, decoding.directory), a, 0, csn);
                final Intention viaCopy = new IntentionCopier(copyArena, copying.directory).copy(b, csn, 0,
                    new Intention());
                final boolean[] outcomes = new boolean[2];
                decoding.nextCsn++;
                copying.nextCsn++;
                decoding.pipeline.submit(viaLog, (c, committed) -> outcomes[0] = committed);
                copying.pipeline.submit(viaCopy, (c, committed) -> outcomes[1] = committed);
                decoding.pipeline.flush((c, committed) -> outcomes[0] = committed);
                copying.pipeline.flush((c, committed) -> outcomes[1] = committed);
                assertEquals(outcomes[0], outcomes[1], "seed " + seed + ": the same decision");
                assertEquals(StateHash.of(decoding.pipeline.lcs().root()), StateHash.of(copying.pipeline.lcs().root()),
                    "seed " + seed + ": the same state");
            }
        }
    }

    @Test
    void theSessionTreeIsLeftUntouched() {
        try (MeldHarness h = committedState(3); Arena copyArena = new Arena()) {
            final Transaction t = workload(h, 11);
            final long before = StateHash.of(t.root());
            new IntentionCopier(copyArena, new NodeDirectory()).copy(t, h.nextCsn, 0, new Intention());
            assertEquals(before, StateHash.of(t.root()));
            assertTrue(Transaction.owned(t.root()), "its nodes are still the transaction's own (no VN assigned)");
            assertNotEquals(0, copyArena.allocatedBytes());
        }
    }

    /** 150 rows and 20 counters committed in a few transactions of a seeded history. */
    private static MeldHarness committedState(final long seed) {
        final MeldHarness h = new MeldHarness();
        final Random random = new Random(seed);
        for (int batch = 0; batch < 5; batch++) {
            final Transaction t = h.begin(Isolation.SERIALIZABLE);
            for (int i = batch * 30; i < batch * 30 + 30; i++) {
                t.put(b("k" + i), b("value-" + i + "-" + random.nextInt(1000)));
            }
            for (int i = 0; i < 20; i++) {
                t.put(b("n" + i), counter(100));
            }
            assertTrue(h.commit(t));
        }
        // increments give the counters an increment history, which reads then carry in their intentions
        final Transaction increments = h.begin(Isolation.SERIALIZABLE);
        for (int i = 0; i < 20; i++) {
            increments.add(b("n" + i), BALANCE, 1 + random.nextInt(9));
        }
        assertTrue(h.commit(increments));
        return h;
    }

    /** Reads, updates, a delete, increments and range dependencies: every kind of node and record. */
    private static Transaction workload(final MeldHarness h, final long seed) {
        final Random random = new Random(seed);
        final Transaction t = h.begin(Isolation.SERIALIZABLE);
        for (int i = 0; i < 8; i++) {
            t.get(b("k" + random.nextInt(150)));
        }
        final ExpandableDirectByteBuffer into = new ExpandableDirectByteBuffer(64);
        for (int i = 0; i < 3; i++) {
            // a read of the balance's bytes only: its node carries a column mask and the counter's history
            t.get(b("n" + random.nextInt(20)), into, ColumnReads.bytes(0, 8));
        }
        t.put(b("k" + random.nextInt(150)), b("updated"));
        t.put(b("new-" + seed), b(""));
        t.delete(b("k" + random.nextInt(150)));
        t.add(b("n" + random.nextInt(20)), BALANCE, -3);
        t.add(b("n" + random.nextInt(20)), BALANCE, 4);
        t.dependOn(new RangeDependency(null, true, b("k5"), false));
        t.dependOn(new RangeDependency(b("k7"), false, null, true));
        return t;
    }

    private static byte[] counter(final long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    }

    private static Intention decode(final IntentionDecoder decoder, final Transaction t, final int flags,
                                    final long csn) {
        final ExpandableDirectByteBuffer dst = new ExpandableDirectByteBuffer(256);
        final int length = new IntentionEncoder().encode(t, flags, dst);
        return decoder.decode(new UnsafeBuffer(dst.byteBuffer(), 0, length), 0, length, csn, new Intention());
    }

    /** The range records: bounds by content (and whether there is one), everything else as stored. */
    private static String[] rangeRecords(final Intention in) {
        final String[] out = new String[in.rangeCount()];
        for (int i = 0; i < in.rangeCount(); i++) {
            final long r = in.ranges() + (long) i * Intention.RANGE_SIZE;
            final long lo = NodeMemory.getLong(r, Intention.RANGE_LO);
            final long hi = NodeMemory.getLong(r, Intention.RANGE_HI);
            final int loLength = NodeMemory.getInt(r, Intention.RANGE_LO_LENGTH);
            final int hiLength = NodeMemory.getInt(r, Intention.RANGE_HI_LENGTH);
            out[i] = NodeMemory.getLong(r, Intention.RANGE_AS_OF) + " " + NodeMemory.getInt(r, Intention.RANGE_FLAGS)
                + " " + (lo == 0) + " " + java.util.Arrays.toString(NodeMemory.toArray(lo, loLength))
                + " " + (hi == 0) + " " + java.util.Arrays.toString(NodeMemory.toArray(hi, hiLength));
        }
        return out;
    }

    private static int ownNodesWith(final long n, final long csn, final int flag) {
        if (n == 0 || Versions.csnOf(Node.vn(n)) != csn) {
            return 0;
        }
        return ((Node.flags(n) & flag) != 0 ? 1 : 0) + ownNodesWith(Node.left(n), csn, flag)
            + ownNodesWith(Node.right(n), csn, flag);
    }

    private static int ownNodesWithColumns(final long n, final long csn) {
        if (n == 0 || Versions.csnOf(Node.vn(n)) != csn) {
            return 0;
        }
        return (Node.columns(n) != ColumnReads.WHOLE_ROW ? 1 : 0) + ownNodesWithColumns(Node.left(n), csn)
            + ownNodesWithColumns(Node.right(n), csn);
    }

    /** Compares two intention trees field by field; answers the number of the intention's own nodes. */
    private static int sameTree(final long d, final long c, final long csn) {
        if (d == 0 || c == 0) {
            assertEquals(d, c);
            return 0;
        }
        if (Versions.csnOf(Node.vn(d)) != csn) {
            assertEquals(d, c, "a pointer to a committed node is the node the decoder looked up");
            return 0;
        }
        assertEquals(Node.vn(d), Node.vn(c));
        assertEquals(Node.scv(d), Node.scv(c));
        assertEquals(Node.ssv(d), Node.ssv(c));
        assertEquals(Node.flags(d), Node.flags(c), "flags of " + Versions.toString(Node.vn(d)));
        assertEquals(Node.height(d), Node.height(c));
        assertEquals(Node.maxCv(d), Node.maxCv(c));
        assertEquals(Node.columns(d), Node.columns(c), "column mask of " + Versions.toString(Node.vn(d)));
        assertEquals(Node.keyPrefix(d), Node.keyPrefix(c));
        assertArrayEquals(Node.keyBytes(d), Node.keyBytes(c));
        assertEquals(Node.payloadLength(d), Node.payloadLength(c));
        assertEquals(Node.payload(d) == 0, Node.payload(c) == 0);
        assertArrayEquals(Node.payloadBytes(d), Node.payloadBytes(c));
        final int history = ColumnReads.historyLength(d);
        assertEquals(history, ColumnReads.historyLength(c), "history of " + Versions.toString(Node.vn(d)));
        assertArrayEquals(NodeMemory.toArray(Node.payload(d) + Node.payloadLength(d), history),
            NodeMemory.toArray(Node.payload(c) + Node.payloadLength(c), history));
        return 1 + sameTree(Node.left(d), Node.left(c), csn) + sameTree(Node.right(d), Node.right(c), csn);
    }
}
