package io.meldb.core;

import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.meldb.core.MeldHarness.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Copying states into a new generation gives exactly the nodes a checkpoint round trip gives, and copying the
 * states melded afterwards copies only the nodes they added; a pipeline resumed on the copies melds on like the
 * original.
 */
class StateCopierTest {
    private static final int FIRST = 120;
    private static final int MORE = 80;

    @Test
    void aCopiedStateHasTheNodesACheckpointRoundTripLoadsAndLaterStatesCopyOnlyTheirNewNodes() {
        try (MeldHarness h = new MeldHarness(); Arena copyArena = new Arena(); Arena loadArena = new Arena()) {
            final long[] roots = new long[FIRST + MORE + 1];
            for (int i = 1; i <= FIRST + MORE; i++) {
                final Transaction t = h.begin(i % 3 == 0 ? Isolation.SERIALIZABLE : Isolation.SNAPSHOT);
                t.get(b("k" + (i * 7 % 50)));
                t.put(b("k" + (i * 13 % 50)), b("v" + i));
                if (i % 5 == 0) {
                    t.delete(b("k" + (i * 3 % 50)));
                }
                h.commit(t);
                roots[i] = h.pipeline.stateRootAt(i);
            }

            // the checkpoint round trip of state FIRST, and the copy of it
            final NodeDirectory loaded = new NodeDirectory();
            final CheckpointLoader loader = new CheckpointLoader(loadArena, loaded);
            final CheckpointWriter writer = new CheckpointWriter(4096,
                (chunk, offset, length) -> loader.load(new UnsafeBuffer(copy(chunk, offset, length)), 0, length));
            writer.writeState(roots[FIRST]);
            writer.finish();
            final NodeDirectory copied = new NodeDirectory();
            final StateCopier copier = new StateCopier(copyArena, copied);
            final long copiedRoot = copier.copyState(roots[FIRST]);
            assertEquals(loader.nodesLoaded(), copier.nodesCopied());
            assertSameNodes(loader.resolve(Node.vn(roots[FIRST])), copiedRoot);
            assertEquals(StateHash.of(roots[FIRST]), StateHash.of(copiedRoot));

            // the later states: only what they added is copied, and each reads as the original
            final CheckpointWriter counter = new CheckpointWriter(4096, (chunk, offset, length) -> { });
            for (int i = FIRST; i <= FIRST + MORE; i++) {
                counter.writeState(roots[i]);
            }
            counter.finish();
            final long before = copier.nodesCopied();
            final long[] copiedRoots = new long[MORE + 1];
            for (int i = 0; i <= MORE; i++) {
                copiedRoots[i] = copier.copyState(roots[FIRST + i]);
                assertEquals(StateHash.of(roots[FIRST + i]), StateHash.of(copiedRoots[i]), "state " + (FIRST + i));
            }
            assertEquals(counter.nodesWritten(), copier.nodesCopied(),
                "the copies hold the nodes a checkpoint of the same states holds");
            assertTrue(copier.nodesCopied() - before < (long) MORE * 20, "the later states added few nodes each: "
                + (copier.nodesCopied() - before));

            // a pipeline resumed on the copies melds the next intentions exactly like the original
            final MeldPipeline resumed = new MeldPipeline(MeldConfig.FINAL_ONLY, copied, FIRST, copiedRoots);
            try (Arena decodeArena = new Arena(); Arena originalDecodeArena = new Arena()) {
                final IntentionDecoder decoder = new IntentionDecoder(decodeArena, copied);
                final IntentionDecoder originalDecoder = new IntentionDecoder(originalDecodeArena, h.directory);
                final IntentionEncoder encoder = new IntentionEncoder();
                final ExpandableDirectByteBuffer record = new ExpandableDirectByteBuffer(4096);
                final List<Boolean> originalDecisions = new ArrayList<>();
                final List<Boolean> resumedDecisions = new ArrayList<>();
                for (int i = 1; i <= 30; i++) {
                    // snapshots a few states back, so some of them conflict
                    final Transaction t = h.begin(h.pipeline.lcsCsn() - (i % 4), Isolation.SERIALIZABLE);
                    t.get(b("hot"));
                    t.put(b("hot"), b("w" + i));
                    t.put(b("k" + (i * 11 % 50)), b("w" + i));
                    final int length = encoder.encode(t, 0, record);
                    final long csn = h.pipeline.lcsCsn() + 1;
                    h.pipeline.submit(originalDecoder.decode(record, 0, length, csn, new Intention()),
                        (c, committed) -> originalDecisions.add(committed));
                    resumed.submit(decoder.decode(record, 0, length, csn, new Intention()),
                        (c, committed) -> resumedDecisions.add(committed));
                    assertEquals(StateHash.of(h.pipeline.lcs().root()), StateHash.of(resumed.lcs().root()));
                }
                assertEquals(originalDecisions, resumedDecisions);
                assertTrue(originalDecisions.contains(true) && originalDecisions.contains(false),
                    "both commits and aborts: " + originalDecisions);
            } finally {
                resumed.close();
            }
        }
    }

    @Test
    void aPayloadSharedBySeveralNodesOfTheSourceIsCopiedOnceAndSharedInTheCopy() {
        try (MeldHarness h = new MeldHarness(); Arena copyArena = new Arena()) {
            final byte[] row = new byte[200];
            final long[] roots = new long[101];
            for (int i = 1; i <= 100; i++) {
                final Transaction t = h.begin(Isolation.SNAPSHOT);
                row[0] = (byte) i;
                t.put(b("row" + (i % 30)), row);
                h.commit(t);
                roots[i] = h.pipeline.stateRootAt(i);
            }
            final StateCopier copier = new StateCopier(copyArena, new NodeDirectory());
            final org.agrona.collections.Long2LongHashMap payloads = new org.agrona.collections.Long2LongHashMap(0);
            final org.agrona.collections.Long2LongHashMap owners = new org.agrona.collections.Long2LongHashMap(0);
            final int[] shared = {0};
            for (int i = 1; i <= 100; i++) {
                walk(roots[i], copier.copyState(roots[i]), payloads, owners, shared);
            }
            assertTrue(shared[0] > 0, "no payload was shared by two source nodes");
        }
    }

    /** Every source payload of 64 bytes or more has one copy, whichever node it is reached through. */
    private static void walk(final long source, final long copy, final org.agrona.collections.Long2LongHashMap seen,
                             final org.agrona.collections.Long2LongHashMap owners, final int[] shared) {
        if (source == 0) {
            return;
        }
        if (Node.payloadLength(source) >= 64) {
            final long before = seen.get(Node.payload(source));
            if (before == 0) {
                seen.put(Node.payload(source), Node.payload(copy));
                owners.put(Node.payload(source), source);
            } else {
                assertEquals(before, Node.payload(copy));
                if (owners.get(Node.payload(source)) != source) {
                    shared[0]++; // two source nodes with one payload: one copy
                }
            }
        }
        walk(Node.left(source), Node.left(copy), seen, owners, shared);
        walk(Node.right(source), Node.right(copy), seen, owners, shared);
    }

    private static byte[] copy(final org.agrona.DirectBuffer b, final int offset, final int length) {
        final byte[] bytes = new byte[length];
        b.getBytes(offset, bytes);
        return bytes;
    }

    /** Walks both trees together: every stored and derived field and the key and payload bytes agree. */
    private static void assertSameNodes(final long a, final long b) {
        assertEquals(a == 0, b == 0);
        if (a == 0) {
            return;
        }
        assertEquals(Node.vn(a), Node.vn(b));
        assertEquals(Node.scv(a), Node.scv(b));
        assertEquals(Node.ssv(a), Node.ssv(b));
        assertEquals(Node.flags(a), Node.flags(b));
        assertEquals(Node.height(a), Node.height(b));
        assertEquals(Node.maxCv(a), Node.maxCv(b));
        assertEquals(Node.columns(a), Node.columns(b));
        assertEquals(Node.keyPrefix(a), Node.keyPrefix(b));
        assertArrayEquals(NodeMemory.toArray(Node.key(a), Node.keyLength(a)),
            NodeMemory.toArray(Node.key(b), Node.keyLength(b)));
        assertArrayEquals(NodeMemory.toArray(Node.payload(a), Node.payloadLength(a)),
            NodeMemory.toArray(Node.payload(b), Node.payloadLength(b)));
        assertSameNodes(Node.left(a), Node.left(b));
        assertSameNodes(Node.right(a), Node.right(b));
    }
}
