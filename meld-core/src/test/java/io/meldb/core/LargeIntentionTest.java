package io.meldb.core;

import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Intentions larger than a 4 MiB node-memory segment: encoded, framed across many blocks, decoded into a dedicated
 * large segment, melded identically by two replicas, and carried through a checkpoint into a recovered replica.
 */
class LargeIntentionTest {
    private static final int BLOCK_SIZE = 8192;
    /** Enough rows that the record (and its range list) outgrows a segment and the old 104,857-range bound. */
    private static final int ROWS = 120_000;

    private static byte[] key(final int i) {
        return new byte[] {'r', (byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i};
    }

    private static byte[] value(final int i, final int version) {
        final byte[] v = new byte[40];
        for (int j = 0; j < v.length; j++) {
            v[j] = (byte) (i * 31 + j + version);
        }
        return v;
    }

    /** As the SQL layer inserts: look the key up (a range dependency when absent), then write it. */
    private static void insertRows(final Transaction txn, final int from, final int to, final int version) {
        for (int i = from; i < to; i++) {
            assertNull(txn.get(key(i)));
            txn.put(key(i), value(i, version));
        }
    }

    @Test
    void anAllocationLargerThanASegmentGetsAZeroedSegmentOfItsOwnFreedOnReset() {
        final int before = NodeMemory.largeSegmentsInUse();
        try (Arena arena = new Arena()) {
            final long small = arena.allocate(64);
            final int size = NodeMemory.SEGMENT_SIZE * 2 + 5;
            final long big = arena.allocate(size);
            assertEquals(0, big & 7, "8-byte aligned");
            assertEquals(before + 1, NodeMemory.largeSegmentsInUse());
            for (int i = 0; i < size; i += 4093) {
                assertEquals(0, NodeMemory.getByte(big, i));
            }
            NodeMemory.putLong(big, size - 8 - 3, 42L);
            assertEquals(42L, NodeMemory.getLong(big, size - 8 - 3));
            NodeMemory.putLong(small, 0, 7L);
            assertTrue(arena.reservedBytes() >= (long) NodeMemory.SEGMENT_SIZE + size);
            arena.reset();
            assertEquals(before, NodeMemory.largeSegmentsInUse(), "reset frees the large segment");
            arena.allocate(NodeMemory.SEGMENT_SIZE + 8);
            assertEquals(before + 1, NodeMemory.largeSegmentsInUse());
        }
        assertEquals(before, NodeMemory.largeSegmentsInUse(), "close frees it too");
        assertThrows(IllegalArgumentException.class, () -> new Arena().allocate(0));
    }

    @Test
    void theSizeBoundIsNeverBelowTheEncodedRecord() {
        final SplittableRandom rnd = new SplittableRandom(18);
        final IntentionEncoder encoder = new IntentionEncoder();
        final ExpandableDirectByteBuffer dst = new ExpandableDirectByteBuffer(1024);
        try (MeldHarness h = new MeldHarness()) {
            for (int t = 0; t < 400; t++) {
                final Transaction txn = h.begin(rnd.nextBoolean() ? Isolation.SERIALIZABLE : Isolation.SNAPSHOT);
                final int ops = 1 + rnd.nextInt(40);
                for (int op = 0; op < ops; op++) {
                    final byte[] k = key(rnd.nextInt(2000));
                    switch (rnd.nextInt(4)) {
                        case 0 -> txn.get(k);
                        case 1 -> txn.delete(k);
                        case 2 -> txn.scan(k, true, key(rnd.nextInt(2000)), rnd.nextBoolean(), rnd.nextBoolean(),
                            rnd.nextInt(5));
                        default -> txn.put(k, new byte[rnd.nextInt(300)]);
                    }
                }
                if (!txn.hasWrites() && !Transaction.owned(txn.root())) {
                    continue;
                }
                final int length = encoder.encode(txn, 0, dst);
                assertTrue(txn.intentionBytesBound() >= length, txn.intentionBytesBound() + " < " + length);
                assertTrue(txn.intentionBytesBound() < 3L * length + 64, "the bound stays close: "
                    + txn.intentionBytesBound() + " for " + length);
                if (txn.hasWrites()) {
                    h.commit(txn);
                }
            }
        }
    }

    @Test
    void anIntentionLargerThanASegmentSpansBlocksAndMeldsIdenticallyOnTwoReplicasAndThroughACheckpoint() {
        final int largeBefore = NodeMemory.largeSegmentsInUse();
        try (Arena exec = new Arena();
             ReplicaConvergenceTest.Replica a = new ReplicaConvergenceTest.Replica(MeldConfig.FINAL_ONLY, BLOCK_SIZE);
             ReplicaConvergenceTest.Replica b = new ReplicaConvergenceTest.Replica(MeldConfig.FINAL_ONLY, BLOCK_SIZE)) {
            final ReplicaConvergenceTest.Log log = new ReplicaConvergenceTest.Log(BLOCK_SIZE);
            final Transaction base = new Transaction(exec, a.pipeline.lcs(), Isolation.SERIALIZABLE);
            insertRows(base, 0, 1000, 0);
            log.append(base);
            log.deliver(a, b);
            assertEquals(List.of(true), a.decisions);

            // three transactions on the same snapshot: the large one, one disjoint from it, one writing a key
            // the large one wrote
            final Snapshot s1 = a.pipeline.lcs();
            final Transaction large = new Transaction(exec, s1, Isolation.SERIALIZABLE);
            insertRows(large, 1000, 1000 + ROWS, 1);
            for (int i = 0; i < 1000; i += 10) {
                large.put(key(i), value(i, 1)); // updates of existing rows too
            }
            final Transaction disjoint = new Transaction(exec, s1, Isolation.SERIALIZABLE);
            disjoint.put(key(5_000_000), value(5_000_000, 2));
            final Transaction conflicting = new Transaction(exec, s1, Isolation.SERIALIZABLE);
            conflicting.get(key(1000 + ROWS / 2));
            conflicting.put(key(1000 + ROWS / 2), value(0, 3));

            final int blocksBefore = log.blocks.size();
            final int length = log.encoder.encode(large, 0, log.record);
            assertTrue(length > NodeMemory.SEGMENT_SIZE, "record of " + length + " bytes outgrows a segment");
            assertTrue(large.intentionBytesBound() >= length);
            assertTrue(large.ranges().size() > 104_857, "more ranges than the old bound");
            log.writer.append(log.record, 0, length);
            log.append(disjoint);
            log.append(conflicting);
            log.deliver(a, b);
            assertTrue(log.blocks.size() - blocksBefore > length / BLOCK_SIZE, "the record spans blocks");
            assertTrue(NodeMemory.largeSegmentsInUse() >= largeBefore + 2, "each replica decoded into a large segment");

            assertEquals(List.of(true, true, true, false), a.decisions);
            assertEquals(a.decisions, b.decisions);
            assertEquals(a.hashes, b.hashes, "state hash after every intention");
            final long lcs = a.pipeline.lcs().root();
            TreeInvariants.check(lcs);
            assertRows(a.pipeline.lcs(), 1000 + ROWS);

            // checkpoint the state after the large intention and recover a third replica from it
            final List<byte[]> chunks = new ArrayList<>();
            final CheckpointWriter writer = new CheckpointWriter(256 * 1024, (chunk, offset, len) -> {
                final byte[] copy = new byte[len];
                chunk.getBytes(offset, copy);
                chunks.add(copy);
            });
            writer.writeState(lcs);
            writer.finish();
            try (Recovered c = new Recovered(a.pipeline.lcsCsn(), lcs, chunks)) {
                assertEquals(StateHash.of(lcs), StateHash.of(c.pipeline.lcs().root()), "the checkpoint loads the same state");
                c.reader.resync();
                // another large intention after the checkpoint reaches all three alike
                final Transaction next = new Transaction(exec, a.pipeline.lcs(), Isolation.SERIALIZABLE);
                insertRows(next, 2_000_000, 2_000_000 + ROWS, 4);
                log.append(next);
                final int from = log.delivered;
                log.deliver(a, b);
                for (int i = from; i < log.blocks.size(); i++) {
                    final UnsafeBuffer block = new UnsafeBuffer(log.blocks.get(i));
                    c.reader.onBlock(block, 0, block.capacity(), i);
                }
                assertEquals(List.of(true), c.decisions);
                assertEquals(a.hashes.get(a.hashes.size() - 1), b.hashes.get(b.hashes.size() - 1));
                assertEquals(a.hashes.get(a.hashes.size() - 1), c.hashes.get(0), "the recovered replica agrees");
                assertRows(c.pipeline.lcs(), 1000 + 2 * ROWS);
            }
        }
        assertEquals(largeBefore, NodeMemory.largeSegmentsInUse(), "closing the arenas freed the large segments");
    }

    private static void assertRows(final Snapshot state, final int expected) {
        final List<byte[][]> rows = new ArrayList<>();
        TreeInvariants.inOrder(state.root(), rows);
        int live = 0;
        for (byte[][] r : rows) {
            if (r[1] != null) {
                live++;
            }
        }
        assertEquals(expected + 1, live, "rows (and the disjoint one)");
        final Transaction read = new Transaction(new Arena(), state, Isolation.SNAPSHOT);
        assertArrayEquals(value(1000 + ROWS - 1, 1), read.get(key(1000 + ROWS - 1)));
        assertArrayEquals(value(10, 1), read.get(key(10)));
        assertArrayEquals(value(11, 0), read.get(key(11)));
        assertFalse(read.hasWrites());
    }

    /** A replica started from a checkpoint, as a server recovers: its own memory, the loaded nodes, a reader. */
    private static final class Recovered implements AutoCloseable {
        final Arena loadArena = new Arena();
        final Arena decodeArena = new Arena();
        final NodeDirectory directory = new NodeDirectory();
        final MeldPipeline pipeline;
        final BlockReader reader;
        final List<Boolean> decisions = new ArrayList<>();
        final List<Long> hashes = new ArrayList<>();
        long nextCsn;

        Recovered(final long csn, final long root, final List<byte[]> chunks) {
            final CheckpointLoader loader = new CheckpointLoader(loadArena, directory);
            for (byte[] chunk : chunks) {
                loader.load(new UnsafeBuffer(chunk), 0, chunk.length);
            }
            pipeline = new MeldPipeline(MeldConfig.FINAL_ONLY, directory, csn,
                new long[] {loader.resolve(Node.vn(root))});
            nextCsn = csn + 1;
            final IntentionDecoder decoder = new IntentionDecoder(decodeArena, directory);
            reader = new BlockReader(BLOCK_SIZE, (buf, offset, length, position) ->
                pipeline.submit(decoder.decode(buf, offset, length, nextCsn++, new Intention()), (c, committed) -> {
                    decisions.add(committed);
                    hashes.add(StateHash.of(pipeline.lcs().root()));
                }));
        }

        @Override
        public void close() {
            pipeline.close();
            decodeArena.close();
            loadArena.close();
        }
    }
}
