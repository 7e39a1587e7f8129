package io.meldb.core;

import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Increments ({@link Transaction#add}, {@link Increment}): commutative in meld, exact, and refused when they cannot apply. */
class IncrementTest {
    private static final IntField COUNTER = IntField.int64(0);

    static Stream<MeldConfig> configs() {
        return Stream.of(MeldConfig.FINAL_ONLY, new MeldConfig(0, 0, false, true), new MeldConfig(2, 3, false, false),
            new MeldConfig(3, 2, true, false), new MeldConfig(0, 0, true, false),
            // a reorder window: increments without a read add no edge and pass pre-validation
            MeldConfig.FINAL_ONLY.withReorder(new ReorderConfig(16, ReorderConfig.Algorithm.values()[0],
                ReorderConfig.Policy.values()[0])),
            new MeldConfig(2, 3, false, false).withReorder(new ReorderConfig(64, ReorderConfig.Algorithm.values()[2],
                ReorderConfig.Policy.values()[1])));
    }

    private static byte[] counter(final long v) {
        return ByteBuffer.allocate(12).putLong(v).putInt(0xCAFE).array();
    }

    private static long valueOf(final byte[] v) {
        return ByteBuffer.wrap(v).getLong();
    }

    private static long seed(final MeldHarness h, final String key, final byte[] value) {
        final Transaction t = h.begin(Isolation.SERIALIZABLE);
        t.put(b(key), value);
        assertTrue(h.decided(appendAll(h, List.of(t)).get(0)));
        return h.pipeline.lcsCsn();
    }

    /** Appends the transactions and flushes the pipeline; their decisions and abort reasons land in the harness. */
    private static List<Long> appendAll(final MeldHarness h, final List<Transaction> txns) {
        final List<Long> csns = new ArrayList<>();
        final MeldPipeline.DecisionListener listener = (c, committed) -> {
            while (h.decisions.size() < c) {
                h.decisions.add(null);
            }
            h.decisions.set((int) c - 1, committed);
            REASONS.put(c, committed ? AbortReason.NONE : h.pipeline.lastAbortReason());
        };
        for (final Transaction t : txns) {
            final long csn = h.nextCsn++;
            h.pipeline.submit(h.adopter.adopt(t, csn, 0, new Intention()), listener);
            csns.add(csn);
        }
        h.pipeline.flush(listener);
        return csns;
    }

    private static final java.util.Map<Long, Integer> REASONS = new java.util.concurrent.ConcurrentHashMap<>();

    @ParameterizedTest
    @MethodSource("configs")
    void concurrentIncrementsOfOneKeyAllCommitAndTheSumIsExact(final MeldConfig config) {
        try (MeldHarness h = new MeldHarness(config)) {
            final long s = seed(h, "c", counter(1000));
            final List<Transaction> txns = new ArrayList<>();
            long sum = 1000;
            for (int i = 0; i < 64; i++) {
                final Transaction t = h.begin(s, i % 2 == 0 ? Isolation.SERIALIZABLE : Isolation.SNAPSHOT);
                t.add(b("c"), COUNTER, i - 20);
                sum += i - 20;
                txns.add(t);
            }
            for (final long csn : appendAll(h, txns)) {
                assertTrue(h.decided(csn), "increment at csn " + csn + " commits");
            }
            final byte[] v = new Transaction(h.exec, h.pipeline.lcs(), Isolation.SNAPSHOT).get(b("c"));
            assertEquals(sum, valueOf(v));
            assertEquals(0xCAFE, ByteBuffer.wrap(v).getInt(8), "bytes beyond the field are the committed ones");
            assertEquals(12, v.length);
            TreeInvariants.check(h.pipeline.lcs().root());
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void aReadOfTheIncrementedKeyKeepsItsDependencyUnderSerializable(final MeldConfig config) {
        try (MeldHarness h = new MeldHarness(config)) {
            final long s = seed(h, "c", counter(5));
            final Transaction reader = h.begin(s, Isolation.SERIALIZABLE);
            reader.add(b("c"), COUNTER, 1);
            assertEquals(6, valueOf(reader.get(b("c"))), "the transaction sees its own increment");
            final Transaction blind = h.begin(s, Isolation.SERIALIZABLE);
            blind.add(b("c"), COUNTER, 10);
            final Transaction snapshotReader = h.begin(s, Isolation.SNAPSHOT);
            snapshotReader.add(b("c"), COUNTER, 100);
            assertEquals(105, valueOf(snapshotReader.get(b("c"))));
            final List<Long> csns = appendAll(h, List.of(blind, reader, snapshotReader));
            assertTrue(h.decided(csns.get(0)));
            assertTrue(h.decided(csns.get(2)), "snapshot isolation validates no read");
            if (!config.reorder().enabled()) {
                assertFalse(h.decided(csns.get(1)), "read 5, but 15 was committed before it");
                assertEquals(115, valueOf(new Transaction(h.exec, h.pipeline.lcs(), Isolation.SNAPSHOT).get(b("c"))));
            } else {
                // the reorder window melds the reader before the blind increment (the edge reader -> blind)
                assertTrue(h.decided(csns.get(1)), "melded first, the reader read the latest value");
                assertEquals(116, valueOf(new Transaction(h.exec, h.pipeline.lcs(), Isolation.SNAPSHOT).get(b("c"))));
            }
        }
    }

    @Test
    void aPlainWriteAfterAnIncrementWinsAndAnIncrementAfterAWriteAppliesToIt() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "c", counter(5));
            final Transaction inc = h.begin(s, Isolation.SNAPSHOT);
            inc.add(b("c"), COUNTER, 1);
            final Transaction put = h.begin(s, Isolation.SNAPSHOT);
            put.put(b("c"), counter(50));
            final Transaction inc2 = h.begin(s, Isolation.SNAPSHOT);
            inc2.add(b("c"), COUNTER, 7);
            final List<Long> csns = appendAll(h, List.of(inc, put, inc2));
            assertTrue(h.decided(csns.get(0)));
            assertFalse(h.decided(csns.get(1)), "a blind write conflicts with the committed increment (write-write)");
            assertTrue(h.decided(csns.get(2)));
            assertEquals(13, valueOf(new Transaction(h.exec, h.pipeline.lcs(), Isolation.SNAPSHOT).get(b("c"))));

            final long s2 = h.pipeline.lcsCsn();
            final Transaction put2 = h.begin(s2, Isolation.SNAPSHOT);
            put2.put(b("c"), counter(-4));
            final Transaction inc3 = h.begin(s2, Isolation.SNAPSHOT);
            inc3.add(b("c"), COUNTER, 3);
            final List<Long> later = appendAll(h, List.of(put2, inc3));
            assertTrue(h.decided(later.get(0)));
            assertTrue(h.decided(later.get(1)), "the increment applies to the value committed before it");
            assertEquals(-1, valueOf(new Transaction(h.exec, h.pipeline.lcs(), Isolation.SNAPSHOT).get(b("c"))));
        }
    }

    @Test
    void anIncrementOfAKeyDeletedConcurrentlyAbortsWithItsReason() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "c", counter(5));
            final Transaction inc = h.begin(s, Isolation.SNAPSHOT);
            inc.add(b("c"), COUNTER, 1);
            final Transaction del = h.begin(s, Isolation.SNAPSHOT);
            del.delete(b("c"));
            final List<Long> csns = appendAll(h, List.of(del, inc));
            assertTrue(h.decided(csns.get(0)));
            assertFalse(h.decided(csns.get(1)));
            assertEquals(AbortReason.INCREMENT_ABSENT, REASONS.get(csns.get(1)));
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void anOverflowAtMeldTimeAbortsInsteadOfWrapping(final MeldConfig config) {
        try (MeldHarness h = new MeldHarness(config)) {
            final long s = seed(h, "c", counter(Long.MAX_VALUE - 10));
            final Transaction a = h.begin(s, Isolation.SNAPSHOT);
            a.add(b("c"), COUNTER, 6);
            final Transaction b = h.begin(s, Isolation.SNAPSHOT);
            b.add(b("c"), COUNTER, 6);
            final List<Long> csns = appendAll(h, List.of(a, b));
            assertTrue(h.decided(csns.get(0)));
            assertFalse(h.decided(csns.get(1)), "MAX - 4 + 6 overflows");
            assertEquals(AbortReason.INCREMENT_OUT_OF_RANGE, REASONS.get(csns.get(1)));
            assertEquals(Long.MAX_VALUE - 4, valueOf(new Transaction(h.exec, h.pipeline.lcs(), Isolation.SNAPSHOT).get(b("c"))));
        }
    }

    @Test
    void boundedNarrowFieldsWithAPresenceByte() {
        try (MeldHarness h = new MeldHarness()) {
            final IntField smallint = new IntField(1, 2, true, 0, 100);
            final long s = seed(h, "c", new byte[] {1, 0, 90, 7});
            final Transaction a = h.begin(s, Isolation.SNAPSHOT);
            a.add(b("c"), smallint, 6);
            a.add(b("c"), smallint, 2);
            assertArrayEquals(new byte[] {1, 0, 98, 7}, a.get(b("c")));
            assertEquals(AbortReason.INCREMENT_OUT_OF_RANGE,
                assertThrows(IncrementException.class, () -> a.add(b("c"), smallint, 3)).reason());
            assertArrayEquals(new byte[] {1, 0, 98, 7}, a.get(b("c")), "a refused add changes nothing");
            final Transaction b = h.begin(s, Isolation.SNAPSHOT);
            b.add(b("c"), smallint, 5);
            final List<Long> csns = appendAll(h, List.of(a, b));
            assertTrue(h.decided(csns.get(0)));
            assertFalse(h.decided(csns.get(1)), "98 + 5 leaves [0, 100]");
            assertEquals(AbortReason.INCREMENT_OUT_OF_RANGE, REASONS.get(csns.get(1)));

            final long s2 = seed(h, "n", new byte[] {0});
            final Transaction n = h.begin(s2, Isolation.SNAPSHOT);
            assertEquals(AbortReason.INCREMENT_NO_FIELD,
                assertThrows(IncrementException.class, () -> n.add(b("n"), smallint, 1)).reason());
            final long s3 = seed(h, "n", new byte[] {0, 0, 0});
            final Transaction n2 = h.begin(s3, Isolation.SNAPSHOT);
            assertEquals(AbortReason.INCREMENT_NULL,
                assertThrows(IncrementException.class, () -> n2.add(b("n"), smallint, 1)).reason());
            assertEquals(AbortReason.INCREMENT_ABSENT,
                assertThrows(IncrementException.class, () -> n2.add(b("absent"), smallint, 1)).reason());
            assertFalse(n2.hasWrites());
        }
    }

    @Test
    void aSecondFieldOfAnIncrementedKeyTurnsItIntoAReadModifyWrite() {
        try (MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "c", counter(5));
            final Transaction both = h.begin(s, Isolation.SNAPSHOT);
            both.add(b("c"), COUNTER, 1);
            both.add(b("c"), new IntField(8, 4, false, Integer.MIN_VALUE, Integer.MAX_VALUE), 1);
            final byte[] v = both.get(b("c"));
            assertEquals(6, valueOf(v));
            assertEquals(0xCAFF, ByteBuffer.wrap(v).getInt(8));
            final Transaction other = h.begin(s, Isolation.SNAPSHOT);
            other.add(b("c"), COUNTER, 1);
            final List<Long> csns = appendAll(h, List.of(other, both));
            assertTrue(h.decided(csns.get(0)));
            assertFalse(h.decided(csns.get(1)), "a read-modify-write conflicts with the committed increment");
        }
    }

    @Test
    void anIncrementNodeRoundTripsThroughTheCodecAndMalformedOnesAreRejected() {
        try (Arena arena = new Arena(); MeldHarness h = new MeldHarness()) {
            final long s = seed(h, "c", counter(5));
            final Transaction t = h.begin(s, Isolation.SNAPSHOT);
            t.add(b("c"), COUNTER, 3);
            final ExpandableDirectByteBuffer dst = new ExpandableDirectByteBuffer(256);
            final int length = new IntentionEncoder().encode(t, 0, dst);
            final byte[] record = new byte[length];
            dst.getBytes(0, record);
            final IntentionDecoder decoder = new IntentionDecoder(arena, h.directory);
            final Intention i = decoder.decode(new UnsafeBuffer(record), 0, record.length, 2, new Intention());
            assertTrue(Node.increment(i.root()));
            assertTrue((Node.flags(i.root()) & Node.INCREMENT_BELOW) != 0, "derived on decode");
            assertArrayEquals(Node.payloadBytes(t.root()), Node.payloadBytes(i.root()));
            assertEquals(8, valueOf(Node.valueBytes(i.root())));
            h.nextCsn = 2;
            h.pipeline.submit(i, (c, committed) -> assertTrue(committed));
            assertEquals(8, valueOf(new Transaction(h.exec, h.pipeline.lcs(), Isolation.SNAPSHOT).get(b("c"))));
            assertFalse(Node.increment(h.pipeline.lcs().root()), "a committed state holds no increment");

            final byte[] bad = record.clone();
            bad[bad.length - Increment.DESCRIPTOR_LENGTH + 4] = 3; // the descriptor's width (the payload ends the record)
            final IntentionFormatException e = assertThrows(IntentionFormatException.class,
                () -> decoder.decode(new UnsafeBuffer(bad), 0, bad.length, 3, new Intention()));
            assertTrue(e.getMessage().contains("increment"), e.getMessage());
        }
    }
}
