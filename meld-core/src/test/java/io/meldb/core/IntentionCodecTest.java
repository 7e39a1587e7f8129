package io.meldb.core;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The intention codec end to end: transaction tree → record → intention blocks → record → decoded tree.
 */
class IntentionCodecTest {
    private static final int SMALL_BLOCK = 512;

    // ---------------------------------------------------------------------------------------------------------
    // round trip

    @ParameterizedTest
    @ValueSource(ints = {512, 8192})
    void roundTripThroughBlocksPreservesTreeVersionsAndRanges(final int blockSize) {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final Random random = new Random(42);
            final Transaction t1 = new Transaction(txArena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
            final List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                final byte[] key = randomBytes(random, 1 + random.nextInt(12));
                keys.add(key);
                t1.put(key, randomBytes(random, random.nextInt(20)));
            }
            for (int i = 0; i < 50; i++) {
                t1.delete(keys.get(random.nextInt(keys.size())));
            }
            t1.delete(new byte[] {(byte) 0xFF, 1, 2, 3});             // delete of an absent key: a tombstone insert
            for (int i = 0; i < 20; i++) {
                t1.get(keys.get(random.nextInt(keys.size())));
                t1.get(randomBytes(random, 13));                        // absent: a point range
            }
            t1.scan(new byte[] {0x20}, true, new byte[] {0x60}, false, false, 0);
            t1.scan(null, true, null, true, true, 10);                  // descending, limited: hi unbounded
            t1.scan(null, false, new byte[] {0x10}, true, false, 0);    // lo unbounded
            t1.scan(new byte[0], true, new byte[] {0x01}, true, false, 0); // empty, but bounded, lower bound
            assertTrue(t1.ranges().size() > 20);

            final byte[] record1 = encode(t1, Intention.FLAG_CHECKPOINT);
            final List<Delivered> delivered = readAll(writeBlocks(blockSize, record1), blockSize);
            assertEquals(1, delivered.size());
            assertArrayEquals(record1, delivered.get(0).bytes);

            final NodeDirectory directory = new NodeDirectory();
            final IntentionDecoder decoder = new IntentionDecoder(logArena, directory);
            final Intention i1 = decode(decoder, delivered.get(0).bytes, 1);
            assertEquals(1, i1.csn());
            assertEquals(1, i1.minCsn());
            assertEquals(0, i1.snapshotCsn());
            assertEquals(Isolation.SERIALIZABLE, i1.isolation());
            assertEquals(Intention.FLAG_CHECKPOINT, i1.flags());
            assertSameIntention(t1, i1, directory);
            assertRegisteredAsOneRun(directory, i1, 1);

            // A second transaction on the state the first one produced: copied nodes carry SCV/SSV, reads set
            // DependsOn, and every untouched subtree is an external pointer to a csn-1 node.
            final Transaction t2 = new Transaction(txArena, new Snapshot(i1.root(), 1), Isolation.SERIALIZABLE);
            final int rangesBefore = t2.ranges().size();
            for (int i = 0; i < 5; i++) {
                t2.get(keys.get(random.nextInt(keys.size())));                  // whole rows: point ranges
                t2.get(keys.get(random.nextInt(keys.size())), new org.agrona.ExpandableArrayBuffer(), 1L); // a column: a node
            }
            assertTrue(t2.ranges().size() >= rangesBefore + 4, "whole-row reads are point ranges");
            for (int i = 0; i < 5; i++) {
                t2.put(keys.get(random.nextInt(keys.size())), randomBytes(random, 8));
            }
            t2.delete(keys.get(random.nextInt(keys.size())));
            t2.put(new byte[] {0x7F, 0x7F, 0x7F}, new byte[] {1});
            t2.get(new byte[] {(byte) 0xEE, 0x01});
            final byte[] record2 = encode(t2, 0);
            final List<Delivered> delivered2 = readAll(writeBlocks(blockSize, record2), blockSize);
            final Intention i2 = decode(decoder, delivered2.get(0).bytes, 2);
            assertEquals(2, i2.csn());
            assertEquals(1, i2.snapshotCsn());
            assertSameIntention(t2, i2, directory);
            assertRegisteredAsOneRun(directory, i2, 2);

            int external = 0;
            int withScv = 0;
            int withSsv = 0;
            int dependsOn = 0;
            final long[] mine = postOrderOwned(t2.root());
            final long[] decoded = postOrderOf(i2);
            for (int i = 0; i < mine.length; i++) {
                for (int side = 0; side < 2; side++) {
                    final long source = side == 0 ? Node.left(mine[i]) : Node.right(mine[i]);
                    final long copy = side == 0 ? Node.left(decoded[i]) : Node.right(decoded[i]);
                    if (source != 0 && !Transaction.owned(source)) {
                        external++;
                        assertEquals(source, copy, "external pointer must resolve to the same csn-1 node");
                        assertEquals(1, Versions.csnOf(Node.vn(copy)));
                    }
                }
                withScv += Node.scv(decoded[i]) != 0 ? 1 : 0;
                withSsv += Node.ssv(decoded[i]) != 0 ? 1 : 0;
                dependsOn += Node.dependsOn(decoded[i]) ? 1 : 0;
            }
            assertTrue(external > 10, "external pointers: " + external);
            assertTrue(withScv > 0 && withSsv > 0 && dependsOn > 0);
            assertTrue(withSsv < mine.length, "the inserted leaf has no source, so no SSV");
        }
    }

    @Test
    void pointersAndVersionsNamingEphemeralNodesRoundTrip() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final NodeDirectory directory = new NodeDirectory();
            final IntentionDecoder decoder = new IntentionDecoder(logArena, directory);
            final Intention i1 = decode(decoder, encode(bigTransaction(txArena, 100, 1), 0), 1);
            // what meld would leave behind: the root and its left child replaced by ephemeral copies
            final long r = i1.root();
            final long left = ephemeralCopy(logArena, Node.left(r), Versions.vn(1, Versions.KIND_FINAL, 0));
            directory.register(Node.vn(left), left);
            final long root = ephemeralCopy(logArena, r, Versions.vn(1, Versions.KIND_FINAL, 1));
            Node.left(root, left);
            Node.updateDerived(root);
            directory.register(Node.vn(root), root);

            final Transaction t = new Transaction(txArena, new Snapshot(root, 1), Isolation.SERIALIZABLE);
            long last = Node.right(r);
            while (Node.right(last) != 0) {
                last = Node.right(last);
            }
            t.put(Node.keyBytes(last), new byte[] {42});
            final Intention i2 = decode(decoder, encode(t, 0), 2);
            assertSameIntention(t, i2, directory);
            assertEquals(left, Node.left(i2.root()), "external pointer to an ephemeral node");
            assertEquals(Node.vn(root), Node.scv(i2.root()), "SCV naming an ephemeral version");
            assertTrue((Node.flags(i2.root()) & Node.EPHEMERAL_BELOW) != 0, "derived on decode");
        }
    }

    private static long ephemeralCopy(final Arena arena, final long source, final long vn) {
        final long n = arena.allocate(Node.SIZE);
        Node.key(n, Node.key(source), Node.keyLength(source));
        Node.payload(n, Node.payload(source), Node.payloadLength(source));
        Node.left(n, Node.left(source));
        Node.right(n, Node.right(source));
        Node.scv(n, Node.ncv(source));
        Node.ssv(n, Node.nsv(source));
        Node.flags(n, Node.ALTERED);
        Node.vn(n, vn);
        Node.updateDerived(n);
        return n;
    }

    @Test
    void severalIntentionsShareOneBlock() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final List<byte[]> records = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                final Transaction t = new Transaction(txArena, new Snapshot(0, 0), Isolation.SNAPSHOT);
                for (int k = 0; k <= r; k++) {
                    t.put(new byte[] {(byte) r, (byte) k}, new byte[] {(byte) (10 * r + k)});
                }
                records.add(encode(t, 0));
            }
            final List<byte[]> blocks = writeBlocks(BlockFormat.DEFAULT_BLOCK_SIZE, records.toArray(new byte[0][]));
            assertEquals(1, blocks.size());
            final UnsafeBuffer header = new UnsafeBuffer(blocks.get(0));
            assertEquals(0, BlockFormat.firstRecordOffset(header, 0));
            assertEquals(records.stream().mapToInt(r -> r.length + 4).sum(), BlockFormat.usedLength(header, 0));

            final List<Delivered> delivered = readAll(blocks, BlockFormat.DEFAULT_BLOCK_SIZE);
            assertEquals(3, delivered.size());
            final NodeDirectory directory = new NodeDirectory();
            final IntentionDecoder decoder = new IntentionDecoder(logArena, directory);
            for (int r = 0; r < 3; r++) {
                assertEquals(0, delivered.get(r).position);
                assertArrayEquals(records.get(r), delivered.get(r).bytes);
                final Intention intention = decode(decoder, delivered.get(r).bytes, r + 1);
                assertEquals(r + 1, intention.nodeCount());
                assertEquals(Isolation.SNAPSHOT, intention.isolation());
            }
        }
    }

    @Test
    void oneIntentionSpansManyBlocksAndIsPositionedAtItsLastBlock() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final Transaction t = bigTransaction(txArena, 1000, 7);
            final byte[] record = encode(t, 0);
            final List<byte[]> blocks = writeBlocks(SMALL_BLOCK, record);
            final int capacity = BlockFormat.capacity(SMALL_BLOCK);
            assertEquals((record.length + 4 + capacity - 1) / capacity, blocks.size());
            assertTrue(blocks.size() > 20, "blocks: " + blocks.size());
            for (int b = 0; b < blocks.size(); b++) {
                assertEquals(b == 0 ? 0 : BlockFormat.NO_RECORD_STARTS,
                    BlockFormat.firstRecordOffset(new UnsafeBuffer(blocks.get(b)), 0));
            }
            final List<Delivered> delivered = readAll(blocks, SMALL_BLOCK);
            assertEquals(1, delivered.size());
            assertEquals(blocks.size() - 1, delivered.get(0).position);
            final NodeDirectory directory = new NodeDirectory();
            final Intention intention = decode(new IntentionDecoder(logArena, directory), delivered.get(0).bytes, 1);
            assertEquals(1000, intention.nodeCount());
            assertSameIntention(t, intention, directory);
        }
    }

    @Test
    void recordsOfEveryAlignmentIncludingSplitLengthPrefixesAreReassembled() {
        final Random random = new Random(7);
        final int capacity = BlockFormat.capacity(SMALL_BLOCK);
        final List<byte[]> records = new ArrayList<>();
        final List<Long> expectedPositions = new ArrayList<>();
        final List<byte[]> blocks = new ArrayList<>();
        final BlockWriter writer = new BlockWriter(SMALL_BLOCK, sinkInto(blocks));
        // length prefix split after 0..4 bytes, then random sizes (1 byte .. several blocks) with random flushes
        for (int split = 0; split <= 4; split++) {
            writer.flush();
            records.add(append(writer, randomBytes(random, capacity - 4 - split), expectedPositions));
            assertEquals(split == 0 ? 0 : capacity - split, writer.pendingBytes());
            records.add(append(writer, randomBytes(random, 10), expectedPositions));
        }
        for (int i = 0; i < 300; i++) {
            final int length = random.nextInt(4) == 0 ? 1 + random.nextInt(3 * capacity) : 1 + random.nextInt(40);
            records.add(append(writer, randomBytes(random, length), expectedPositions));
            if (random.nextInt(10) == 0) {
                writer.flush();
            }
        }
        writer.flush();
        assertEquals(blocks.size(), writer.blocksWritten());
        final List<Delivered> delivered = readAll(blocks, SMALL_BLOCK);
        assertEquals(records.size(), delivered.size());
        for (int i = 0; i < records.size(); i++) {
            assertArrayEquals(records.get(i), delivered.get(i).bytes, "record " + i);
            assertEquals(expectedPositions.get(i), delivered.get(i).position, "record " + i);
        }
    }

    @Test
    void readsBlocksHeldOnHeapOffHeapAndAtAnOffset() {
        final Random random = new Random(3);
        final byte[][] records = {randomBytes(random, 100), randomBytes(random, 2000), randomBytes(random, 5)};
        final List<byte[]> blocks = writeBlocks(SMALL_BLOCK, records);
        final List<Delivered> delivered = new ArrayList<>();
        final BlockReader reader = new BlockReader(SMALL_BLOCK, collectInto(delivered));
        for (int b = 0; b < blocks.size(); b++) {
            final DirectBuffer buffer;
            final int offset = 8 * b + 3;
            switch (b % 3) {
                case 0: {
                    final byte[] array = new byte[offset + SMALL_BLOCK];
                    System.arraycopy(blocks.get(b), 0, array, offset, SMALL_BLOCK);
                    buffer = new UnsafeBuffer(array, 1, array.length - 1);
                    reader.onBlock(buffer, offset - 1, SMALL_BLOCK, b);
                    continue;
                }
                case 1: {
                    final ByteBuffer direct = ByteBuffer.allocateDirect(offset + SMALL_BLOCK);
                    direct.position(offset);
                    direct.put(blocks.get(b));
                    buffer = new UnsafeBuffer(direct);
                    break;
                }
                default: {
                    final ExpandableDirectByteBuffer expandable = new ExpandableDirectByteBuffer(offset + SMALL_BLOCK);
                    expandable.putBytes(offset, blocks.get(b));
                    buffer = expandable;
                    break;
                }
            }
            reader.onBlock(buffer, offset, SMALL_BLOCK, b);
        }
        assertEquals(records.length, delivered.size());
        for (int i = 0; i < records.length; i++) {
            assertArrayEquals(records[i], delivered.get(i).bytes);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // corrupt blocks

    @Test
    void flippingAnySingleByteOfABlockIsRejectedAndTheReaderCanContinue() {
        final Random random = new Random(11);
        final byte[][] records = {randomBytes(random, 1200), randomBytes(random, 30)};
        final List<byte[]> blocks = writeBlocks(SMALL_BLOCK, records);
        assertEquals(3, blocks.size());                      // a middle block that only continues record 0
        for (int target = 0; target < blocks.size(); target++) {
            for (int at = 0; at < SMALL_BLOCK; at++) {
                final List<Delivered> delivered = new ArrayList<>();
                final BlockReader reader = new BlockReader(SMALL_BLOCK, collectInto(delivered));
                for (int b = 0; b < target; b++) {
                    reader.onBlock(new UnsafeBuffer(blocks.get(b)), 0, SMALL_BLOCK, b);
                }
                final boolean inProgress = reader.recordInProgress();
                final byte[] bad = blocks.get(target).clone();
                bad[at] ^= (byte) (1 << (at % 8));
                final int block = target;
                final CorruptBlockException ex = assertThrows(CorruptBlockException.class,
                    () -> reader.onBlock(new UnsafeBuffer(bad), 0, SMALL_BLOCK, block), "byte " + at);
                assertTrue(ex.getMessage().startsWith("block " + target + ": "), ex.getMessage());
                assertEquals(target, ex.position());
                assertEquals(inProgress, reader.recordInProgress());
                assertEquals(0, reader.recordsDelivered());
                for (int b = target; b < blocks.size(); b++) {
                    reader.onBlock(new UnsafeBuffer(blocks.get(b)), 0, SMALL_BLOCK, b);
                }
                assertEquals(2, delivered.size());
                assertArrayEquals(records[0], delivered.get(0).bytes);
                assertArrayEquals(records[1], delivered.get(1).bytes);
            }
        }
    }

    @Test
    void namedHeaderCorruptionsAreReportedPrecisely() {
        final List<byte[]> blocks = writeBlocks(SMALL_BLOCK, new byte[100]);
        final BlockReader reader = new BlockReader(SMALL_BLOCK, (b, o, l, p) -> { });
        final byte[] magic = blocks.get(0).clone();
        magic[0] ^= 1;
        assertMessage("block 17: bad magic 0x4d454c45", () -> reader.onBlock(new UnsafeBuffer(magic), 0, 512, 17));
        final byte[] crc = blocks.get(0).clone();
        crc[BlockFormat.CRC_OFFSET] ^= 1;
        assertMessage("block 17: checksum mismatch", () -> reader.onBlock(new UnsafeBuffer(crc), 0, 512, 17));
        final byte[] payload = blocks.get(0).clone();
        payload[200] ^= 1;
        assertMessage("block 17: checksum mismatch", () -> reader.onBlock(new UnsafeBuffer(payload), 0, 512, 17));
        final byte[] version = blocks.get(0).clone();
        version[BlockFormat.VERSION_OFFSET] = 2;
        assertMessage("block 17: unsupported format version 2",
            () -> reader.onBlock(new UnsafeBuffer(version), 0, 512, 17));
    }

    @Test
    void truncatedOrOversizedBlocksAreRejected() {
        final List<byte[]> blocks = writeBlocks(SMALL_BLOCK, new byte[10]);
        final BlockReader reader = new BlockReader(SMALL_BLOCK, (b, o, l, p) -> { });
        final UnsafeBuffer big = new UnsafeBuffer(Arrays.copyOf(blocks.get(0), SMALL_BLOCK + 1));
        assertMessage("block 4: length 511, expected the block size 512", () -> reader.onBlock(big, 0, 511, 4));
        assertMessage("block 4: length 513, expected the block size 512", () -> reader.onBlock(big, 0, 513, 4));
        reader.onBlock(big, 0, SMALL_BLOCK, 4);
        assertEquals(1, reader.recordsDelivered());
    }

    @Test
    void blocksWithValidChecksumsButInconsistentFramingAreRejectedWithoutChangingTheReader() {
        final Random random = new Random(5);
        final byte[][] records = {randomBytes(random, 1200), randomBytes(random, 30)};
        final List<byte[]> blocks = writeBlocks(SMALL_BLOCK, records);
        final List<Delivered> delivered = new ArrayList<>();
        final BlockReader reader = new BlockReader(SMALL_BLOCK, collectInto(delivered));

        // a continuation with no record in progress (e.g. reading from the middle of the log)
        assertMessage("block 1: continues a record but no record is in progress",
            () -> reader.onBlock(new UnsafeBuffer(blocks.get(1)), 0, SMALL_BLOCK, 1));
        reader.onBlock(new UnsafeBuffer(blocks.get(0)), 0, SMALL_BLOCK, 0);
        // the same block again: it starts a record while one is in progress
        assertMessage("block 0: firstRecordOffset 0 lies inside a record that continues into the next block",
            () -> reader.onBlock(new UnsafeBuffer(blocks.get(0)), 0, SMALL_BLOCK, 0));
        // the last block claims no record starts in it, though one does after the continued record
        final byte[] lying = withHeader(blocks.get(2), BlockFormat.usedLength(new UnsafeBuffer(blocks.get(2)), 0),
            BlockFormat.NO_RECORD_STARTS);
        reader.onBlock(new UnsafeBuffer(blocks.get(1)), 0, SMALL_BLOCK, 1);
        final CorruptBlockException ex = assertThrows(CorruptBlockException.class,
            () -> reader.onBlock(new UnsafeBuffer(lying), 0, SMALL_BLOCK, 2));
        assertTrue(ex.getMessage().contains("firstRecordOffset says no record starts here"), ex.getMessage());
        // a usedLength shorter than the data: the block would end inside a record while not full
        final int used = BlockFormat.usedLength(new UnsafeBuffer(blocks.get(2)), 0);
        final byte[] shortened = withHeader(blocks.get(2), used - 1, BlockFormat.firstRecordOffset(
            new UnsafeBuffer(blocks.get(2)), 0));
        shortened[BlockFormat.HEADER_LENGTH + used - 1] = 0;
        fixCrc(shortened);
        assertThrows(CorruptBlockException.class, () -> reader.onBlock(new UnsafeBuffer(shortened), 0, 512, 2));
        assertTrue(delivered.isEmpty());
        assertTrue(reader.recordInProgress());

        reader.onBlock(new UnsafeBuffer(blocks.get(2)), 0, SMALL_BLOCK, 2);
        assertEquals(2, delivered.size());
        assertArrayEquals(records[0], delivered.get(0).bytes);
        assertArrayEquals(records[1], delivered.get(1).bytes);
    }

    @Test
    void aHandlerFailurePropagatesAndResetsTheReader() {
        final List<byte[]> blocks = writeBlocks(SMALL_BLOCK, new byte[600], new byte[10]);
        final BlockReader reader = new BlockReader(SMALL_BLOCK, (b, o, l, p) -> {
            throw new IllegalStateException("meld is full");
        });
        reader.onBlock(new UnsafeBuffer(blocks.get(0)), 0, SMALL_BLOCK, 0);
        assertTrue(reader.recordInProgress());
        assertThrows(IllegalStateException.class, () -> reader.onBlock(new UnsafeBuffer(blocks.get(1)), 0, 512, 1));
        assertFalse(reader.recordInProgress());
    }

    @Test
    void decodedAndAdoptedIntentionsSpanExactlyTheirOwnNodes() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final Transaction t = bigTransaction(txArena, 200, 9);
            final Intention decoded = decode(new IntentionDecoder(logArena, new NodeDirectory()), encode(t, 0), 1);
            // decoded nodes are allocated one after another: the span is exactly nodeCount nodes, ending at the root
            assertEquals(decoded.root() + Node.SIZE, decoded.spanEnd);
            assertEquals((long) decoded.nodeCount() * Node.SIZE, decoded.spanEnd - decoded.spanStart);

            final Intention adopted = new IntentionAdopter(txArena, new NodeDirectory()).adopt(t, 1, 0, new Intention());
            assertTrue(adopted.spanStart > 0, "an adopted intention built in one arena segment has a span");
            final long[] inside = {0};
            forEachOwnNode(adopted.root(), 1, n -> {
                assertTrue(n >= adopted.spanStart && n + Node.SIZE <= adopted.spanEnd, "node outside the span");
                inside[0]++;
            });
            assertEquals(adopted.nodeCount(), inside[0]);
            assertTrue(adopted.spanEnd - adopted.spanStart <= 2L * adopted.nodeCount() * Node.SIZE);

            // an intention whose nodes are scattered gets no span rather than one covering unrelated memory
            final Intention scattered = new Intention().set(2, 2, 1, decoded.root(), 2, Isolation.SNAPSHOT, 0, 0, 0)
                .span(decoded.spanStart, decoded.spanStart + 10L * Node.SIZE, 2);
            assertEquals(0, scattered.spanStart);
        }
    }

    private static void forEachOwnNode(final long n, final long csn, final java.util.function.LongConsumer visit) {
        if (n == 0 || Versions.csnOf(Node.vn(n)) < csn) {
            return;
        }
        visit.accept(n);
        forEachOwnNode(Node.left(n), csn, visit);
        forEachOwnNode(Node.right(n), csn, visit);
    }

    // ---------------------------------------------------------------------------------------------------------
    // malformed intentions

    @Test
    void malformedRecordsAreRejectedAndRegisterNothing() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final Transaction t1 = bigTransaction(txArena, 200, 9);
            final byte[] record1 = encode(t1, 0);
            final NodeDirectory directory = new NodeDirectory();
            final IntentionDecoder decoder = new IntentionDecoder(logArena, directory);

            final byte[] badVersion = record1.clone();
            badVersion[0] = 3;
            assertFormatError("unsupported format version 3", decoder, badVersion, 1);
            final byte[] badIsolation = record1.clone();
            badIsolation[1] = 9;
            assertFormatError("unknown isolation code 9", decoder, badIsolation, 1);
            assertFormatError("1 trailing bytes", decoder, Arrays.copyOf(record1, record1.length + 1), 1);
            assertEquals(0, directory.size());

            // a pointer to a node that is not resident: intention 2 decoded without intention 1
            final Intention i1 = decode(new IntentionDecoder(logArena, new NodeDirectory()), record1, 1);
            final Transaction t2 = new Transaction(txArena, new Snapshot(i1.root(), 1), Isolation.SNAPSHOT);
            t2.put(Node.keyBytes(i1.root()), new byte[] {1});
            final byte[] record2 = encode(t2, 0);
            assertFormatError("snapshot csn 1 is not older than the intention", decoder, record2, 1);
            final NodeNotResidentException ex = assertThrows(NodeNotResidentException.class,
                () -> decoder.decode(new UnsafeBuffer(record2), 0, record2.length, 2, new Intention()));
            assertTrue(ex.getMessage().matches("intention csn 2 points to node 1\\.P\\d+ which is not resident"),
                ex.getMessage());
            assertEquals(1, Versions.csnOf(ex.vn()));
            assertEquals(0, directory.size());

            // hand-made: one node whose local left pointer goes before the record's first node
            final ExpandableDirectByteBuffer crafted = new ExpandableDirectByteBuffer(64);
            int pos = 0;
            crafted.putByte(pos++, IntentionFormat.VERSION);
            crafted.putByte(pos++, (byte) 0);
            crafted.putByte(pos++, (byte) 0);
            pos = Varint.putLong(crafted, pos, 0);                          // snapshot csn
            pos = Varint.putInt(crafted, pos, 1);                           // nodes
            pos = Varint.putInt(crafted, pos, 0);                           // ranges
            crafted.putByte(pos++, (byte) Node.ALTERED);
            crafted.putByte(pos++, (byte) IntentionFormat.POINTER_LOCAL);   // left local, right null
            pos = Varint.putInt(crafted, pos, 2);                           // height
            pos = Varint.putInt(crafted, pos, 1);
            crafted.putByte(pos++, (byte) 'k');
            pos = Varint.putInt(crafted, pos, 0);                           // empty payload
            pos = Varint.putInt(crafted, pos, 1);                           // left: index 0 - 1
            final byte[] badPointer = new byte[pos];
            crafted.getBytes(0, badPointer);
            assertFormatError("local pointer delta 1 outside 1..0", decoder, badPointer, 1);
            assertEquals(0, directory.size());
        }
    }

    @Test
    void everyTruncationIsRejectedAndEveryByteFlipIsRejectedOrDecodesCleanly() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final Transaction t = bigTransaction(txArena, 60, 13);
            t.get(new byte[] {1, 2, 3});
            t.scan(new byte[] {4}, true, null, false, false, 0);
            final byte[] record = encode(t, 0);
            final NodeDirectory directory = new NodeDirectory();
            final IntentionDecoder decoder = new IntentionDecoder(logArena, directory);
            for (int length = 0; length < record.length; length++) {
                final int n = length;
                assertThrows(IntentionFormatException.class,
                    () -> decoder.decode(new UnsafeBuffer(record), 0, n, 1, new Intention()), "length " + n);
                assertEquals(0, directory.size());
                logArena.reset();
            }
            int rejected = 0;
            for (int at = 0; at < record.length; at++) {
                for (int bit = 0; bit < 8; bit += 3) {
                    final byte[] flipped = record.clone();
                    flipped[at] ^= (byte) (1 << bit);
                    try {
                        decoder.decode(new UnsafeBuffer(flipped), 0, flipped.length, 1, new Intention());
                        directory.clear();
                    } catch (final IntentionFormatException expected) {
                        assertEquals(0, directory.size());
                        rejected++;
                    }
                    logArena.reset();
                }
            }
            assertTrue(rejected > record.length / 2, "rejected " + rejected);
        }
    }

    @Test
    void encoderRejectsEmptyAndOversizedIntentions() {
        try (Arena txArena = new Arena()) {
            final ExpandableDirectByteBuffer dst = new ExpandableDirectByteBuffer(64);
            final IntentionEncoder encoder = new IntentionEncoder();
            final Transaction empty = new Transaction(txArena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
            empty.get(new byte[] {1});
            final IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> encoder.encode(empty, 0, dst));
            assertTrue(none.getMessage().contains("a transaction without writes needs no intention"));

            final Transaction huge = new Transaction(txArena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
            for (int i = 0; i < 5; i++) {
                huge.put(new byte[] {(byte) i}, new byte[1 << 20]);
            }
            final IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> encoder.encode(huge, 0, dst, 0, 4 << 20));
            assertTrue(big.getMessage().matches("intention of \\d+ bytes exceeds the limit of 4194304 bytes"),
                big.getMessage());
            assertTrue(dst.capacity() < 1 << 20, "nothing was written for the oversized intention");

            final Transaction ok = new Transaction(txArena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
            ok.put(new byte[] {1}, new byte[] {2});
            assertThrows(IllegalArgumentException.class, () -> encoder.encode(ok, 256, dst));
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // metadata size (meld paper §4.3: "less than 30 bytes" per node)

    @Test
    void metadataPerNodeStaysUnderThirtyBytes() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final Random random = new Random(1);
            final int keyCount = 128 * 1024;
            final Transaction base = new Transaction(txArena, new Snapshot(0, 0), Isolation.SNAPSHOT);
            final int[] order = new int[keyCount];
            for (int i = 0; i < keyCount; i++) {
                order[i] = i;
            }
            for (int i = keyCount - 1; i > 0; i--) {
                final int j = random.nextInt(i + 1);
                final int x = order[i];
                order[i] = order[j];
                order[j] = x;
            }
            for (final int k : order) {
                base.put(key8(k), randomBytes(random, 8));
            }
            final NodeDirectory directory = new NodeDirectory();
            final IntentionDecoder decoder = new IntentionDecoder(logArena, directory);
            final byte[] baseRecord = encode(base, 0);
            Intention state = decode(decoder, baseRecord, 1);
            final double baseFigure = metadataPerNode(base, baseRecord);

            // serial transactions, each committed before the next starts, so each intention's root is the next
            // state; the figure is averaged once CSN deltas and node indices look like a running system
            final IntentionEncoder encoder = new IntentionEncoder();
            final ExpandableDirectByteBuffer dst = new ExpandableDirectByteBuffer(4096);
            long metadata = 0;
            long nodes = 0;
            long mixedMetadata = 0;
            long mixedNodes = 0;
            for (long csn = 2; csn <= 201; csn++) {
                final boolean mixed = csn > 101;
                final Transaction t = new Transaction(txArena, new Snapshot(state.root(), csn - 1),
                    Isolation.SERIALIZABLE);
                for (int op = 0; op < 8; op++) {
                    if (mixed) {
                        t.get(key8(random.nextInt(keyCount)));
                    }
                    t.put(key8(random.nextInt(keyCount)), randomBytes(random, 8));
                }
                final int length = encoder.encode(t, 0, dst);
                final byte[] record = new byte[length];
                dst.getBytes(0, record);
                final long[] owned = postOrderOwned(t.root());
                final long meta = length - keyAndPayloadBytes(owned);
                if (csn > 51 && !mixed) {
                    metadata += meta;
                    nodes += owned.length;
                } else if (csn > 151) {
                    mixedMetadata += meta;
                    mixedNodes += owned.length;
                }
                state = decode(decoder, record, csn);
            }
            final double perNode = (double) metadata / nodes;
            final double mixedPerNode = (double) mixedMetadata / mixedNodes;
            System.out.printf("intention metadata (bytes per node, excluding key and payload bytes): "
                    + "8 updates on 128K 8-byte keys: %.2f over %.1f nodes per intention; "
                    + "8 reads + 8 updates: %.2f over %.1f nodes; bulk load of 128K keys: %.2f%n",
                perNode, nodes / 50.0, mixedPerNode, mixedNodes / 50.0, baseFigure);
            assertTrue(perNode < 30, "metadata per node " + perNode);
            assertTrue(mixedPerNode < 30, "metadata per node " + mixedPerNode);
        }
    }

    @Test
    void unchangedPathCopiesAreWrittenAsReferencesAndDecodeToTheirSourcesPayloads() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final Random random = new Random(7);
            final Transaction load = new Transaction(txArena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
            for (int k = 0; k < 4096; k++) {
                load.put(key8(k), randomBytes(random, 100));
            }
            final NodeDirectory directory = new NodeDirectory();
            final IntentionDecoder decoder = new IntentionDecoder(logArena, directory);
            final Intention state = decode(decoder, encode(load, 0), 1);

            // one write and one read of a column: two root-to-node paths, 2 of whose ~24 nodes carry their own
            // payload (a read of the whole row would be a point range, no path)
            final Transaction t = new Transaction(txArena, new Snapshot(state.root(), 1), Isolation.SERIALIZABLE);
            t.put(key8(17), randomBytes(random, 100));
            t.get(key8(3001), new org.agrona.ExpandableArrayBuffer(), 1L);
            final byte[] record = encode(t, 0);
            final long[] owned = postOrderOwned(t.root());
            assertTrue(owned.length > 20, "nodes: " + owned.length);
            assertTrue(record.length < 2 * 110 + owned.length * 30, "record of " + record.length + " bytes for "
                + owned.length + " nodes: the copies' payloads are not in it");

            final Intention decoded = decode(decoder, record, 2);
            assertSameIntention(t, decoded, directory);
            final long[] nodes = postOrderOf(decoded);
            int references = 0;
            for (final long n : nodes) {
                final long source = find(state.root(), n);
                final boolean own = Node.altered(n) || Node.dependsOn(n);
                if (!own) {
                    assertEquals(Node.payload(source), Node.payload(n), "an unchanged copy shares its source's payload");
                    assertEquals(Node.scv(n), Node.ncv(source));
                    references++;
                } else {
                    assertNotEquals(Node.payload(source), Node.payload(n));
                }
            }
            assertEquals(nodes.length - 2, references);

            // a replica that no longer holds a referenced node cannot decode the record: it says so, as for a child
            final NodeDirectory other = new NodeDirectory();
            final IntentionDecoder stranger = new IntentionDecoder(logArena, other);
            assertThrows(NodeNotResidentException.class,
                () -> stranger.decode(new UnsafeBuffer(record), 0, record.length, 2, new Intention()));
        }
    }

    @Test
    void aPayloadReferenceToANodeWithOtherContentIsRejected() {
        try (Arena txArena = new Arena(); Arena logArena = new Arena()) {
            final Random random = new Random(8);
            final Transaction load = new Transaction(txArena, new Snapshot(0, 0), Isolation.SNAPSHOT);
            for (int k = 0; k < 64; k++) {
                load.put(key8(k), randomBytes(random, 40));
            }
            final byte[] loadRecord = encode(load, 0);
            final NodeDirectory directory = new NodeDirectory();
            final IntentionDecoder decoder = new IntentionDecoder(logArena, directory);
            final Intention state = decode(decoder, loadRecord, 1);
            final Transaction t = new Transaction(txArena, new Snapshot(state.root(), 1), Isolation.SNAPSHOT);
            t.put(key8(5), randomBytes(random, 40));
            final byte[] record = encode(t, 0);

            // the same record against a replica whose csn-1 nodes say a key's content is newer than the copy's SCV
            final NodeDirectory lying = new NodeDirectory();
            final Intention forged = decode(new IntentionDecoder(logArena, lying), loadRecord, 1);
            for (final long n : postOrderOf(forged)) {
                Node.flags(n, Node.flags(n) & ~Node.ALTERED);
                Node.scv(n, Versions.vn(1, Versions.KIND_PERSISTED, 63));
            }
            assertFormatError("whose content is not its SCV", new IntentionDecoder(logArena, lying), record, 2);
        }
    }

    /** The node of state {@code root} with the key of node {@code n}. */
    private static long find(long root, final long n) {
        while (root != 0) {
            final int c = Node.compareKeys(n, root);
            if (c == 0) {
                return root;
            }
            root = c < 0 ? Node.left(root) : Node.right(root);
        }
        throw new AssertionError("key not in the state");
    }

    // ---------------------------------------------------------------------------------------------------------
    // helpers

    private record Delivered(byte[] bytes, long position) {
    }

    private static byte[] encode(final Transaction t, final int flags) {
        final ExpandableDirectByteBuffer dst = new ExpandableDirectByteBuffer(256);
        final int length = new IntentionEncoder().encode(t, flags, dst);
        final byte[] record = new byte[length];
        dst.getBytes(0, record);
        return record;
    }

    private static Intention decode(final IntentionDecoder decoder, final byte[] record, final long csn) {
        final Intention into = new Intention();
        assertEquals(into, decoder.decode(new UnsafeBuffer(record), 0, record.length, csn, into));
        return into;
    }

    private static BlockSink sinkInto(final List<byte[]> blocks) {
        return (block, offset, length) -> {
            final byte[] copy = new byte[length];
            block.getBytes(offset, copy);
            blocks.add(copy);
        };
    }

    private static RecordHandler collectInto(final List<Delivered> delivered) {
        return (buffer, offset, length, position) -> {
            final byte[] copy = new byte[length];
            buffer.getBytes(offset, copy);
            delivered.add(new Delivered(copy, position));
        };
    }

    private static List<byte[]> writeBlocks(final int blockSize, final byte[]... records) {
        final List<byte[]> blocks = new ArrayList<>();
        final BlockWriter writer = new BlockWriter(blockSize, sinkInto(blocks));
        for (final byte[] record : records) {
            writer.append(new UnsafeBuffer(record), 0, record.length);
        }
        writer.flush();
        for (final byte[] block : blocks) {
            assertEquals(blockSize, block.length);
        }
        return blocks;
    }

    private static byte[] append(final BlockWriter writer, final byte[] record, final List<Long> positions) {
        writer.append(new UnsafeBuffer(record), 0, record.length);
        positions.add(writer.pendingBytes() > 0 ? writer.blocksWritten() : writer.blocksWritten() - 1);
        return record;
    }

    private static List<Delivered> readAll(final List<byte[]> blocks, final int blockSize) {
        final List<Delivered> delivered = new ArrayList<>();
        final BlockReader reader = new BlockReader(blockSize, collectInto(delivered));
        for (int b = 0; b < blocks.size(); b++) {
            reader.onBlock(new UnsafeBuffer(blocks.get(b)), 0, blockSize, b);
        }
        assertFalse(reader.recordInProgress());
        assertEquals(delivered.size(), reader.recordsDelivered());
        return delivered;
    }

    private static byte[] withHeader(final byte[] block, final int used, final int first) {
        final byte[] copy = block.clone();
        BlockFormat.putHeader(new UnsafeBuffer(copy), 0, 0, used, first);
        fixCrc(copy);
        return copy;
    }

    private static void fixCrc(final byte[] block) {
        BlockFormat.putCrc(new UnsafeBuffer(block), 0,
            BlockFormat.checksum(new java.util.zip.CRC32C(), block, 0, block.length));
    }

    private static void assertMessage(final String prefix, final Runnable action) {
        final CorruptBlockException ex = assertThrows(CorruptBlockException.class, action::run);
        assertTrue(ex.getMessage().startsWith(prefix), ex.getMessage());
    }

    private static void assertFormatError(final String fragment, final IntentionDecoder decoder, final byte[] record,
                                          final long csn) {
        final IntentionFormatException ex = assertThrows(IntentionFormatException.class,
            () -> decoder.decode(new UnsafeBuffer(record), 0, record.length, csn, new Intention()));
        assertTrue(ex.getMessage().contains(fragment), ex.getMessage());
    }

    private static Transaction bigTransaction(final Arena arena, final int keys, final long seed) {
        final Random random = new Random(seed);
        final Transaction t = new Transaction(arena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
        for (int i = 0; i < keys; i++) {
            t.put(key8(i * 7919 % 100_003), randomBytes(random, 8));
        }
        return t;
    }

    private static byte[] key8(final long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    private static byte[] randomBytes(final Random random, final int length) {
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /** Decoded intention equals the transaction's tree: content in order, metadata and VNs in post order. */
    private static void assertSameIntention(final Transaction t, final Intention intention,
                                            final NodeDirectory directory) {
        final List<Object[]> expected = new ArrayList<>();
        inOrder(t.root(), expected);
        final List<Object[]> actual = new ArrayList<>();
        inOrder(intention.root(), actual);
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals((byte[]) expected.get(i)[0], (byte[]) actual.get(i)[0], "key " + i);
            assertArrayEquals((byte[]) expected.get(i)[1], (byte[]) actual.get(i)[1], "payload " + i);
            assertEquals(expected.get(i)[2], actual.get(i)[2], "tombstone " + i);
        }

        final long[] mine = postOrderOwned(t.root());
        final long[] decoded = postOrderOf(intention);
        assertEquals(mine.length, intention.nodeCount());
        assertEquals(mine.length, decoded.length);
        assertEquals(decoded[decoded.length - 1], intention.root(), "the root is the last node");
        for (int i = 0; i < mine.length; i++) {
            final long vn = Versions.vn(intention.csn(), Versions.KIND_PERSISTED, i);
            assertEquals(vn, Node.vn(decoded[i]), "VN of node " + i);
            assertEquals(decoded[i], directory.lookup(vn));
            assertEquals(Node.flags(mine[i]) & IntentionFormat.NODE_FLAGS_MASK,
                Node.flags(decoded[i]) & IntentionFormat.NODE_FLAGS_MASK, "flags of node " + i);
            assertEquals(Node.scv(mine[i]), Node.scv(decoded[i]), "SCV of node " + i);
            assertEquals(Node.ssv(mine[i]), Node.ssv(decoded[i]), "SSV of node " + i);
            assertEquals(Node.height(mine[i]), Node.height(decoded[i]), "height of node " + i);
            assertArrayEquals(Node.keyBytes(mine[i]), Node.keyBytes(decoded[i]));
        }

        final List<RangeDependency> ranges = t.ranges();
        assertEquals(ranges.size(), intention.rangeCount());
        for (int i = 0; i < ranges.size(); i++) {
            final RangeDependency range = ranges.get(i);
            final long r = intention.ranges() + (long) i * Intention.RANGE_SIZE;
            final int flags = NodeMemory.getInt(r, Intention.RANGE_FLAGS);
            assertEquals(range.lo() == null, (flags & Intention.RANGE_LO_UNBOUNDED) != 0);
            assertEquals(range.hi() == null, (flags & Intention.RANGE_HI_UNBOUNDED) != 0);
            assertEquals(range.loInclusive(), (flags & Intention.RANGE_LO_INCLUSIVE) != 0);
            assertEquals(range.hiInclusive(), (flags & Intention.RANGE_HI_INCLUSIVE) != 0);
            assertEquals(intention.snapshotCsn(), NodeMemory.getLong(r, Intention.RANGE_AS_OF));
            if (range.lo() != null) {
                assertArrayEquals(range.lo(), NodeMemory.toArray(NodeMemory.getLong(r, Intention.RANGE_LO),
                    NodeMemory.getInt(r, Intention.RANGE_LO_LENGTH)));
            }
            if (range.hi() != null) {
                assertArrayEquals(range.hi(), NodeMemory.toArray(NodeMemory.getLong(r, Intention.RANGE_HI),
                    NodeMemory.getInt(r, Intention.RANGE_HI_LENGTH)));
            }
        }
    }

    private static void inOrder(final long n, final List<Object[]> out) {
        if (n == 0) {
            return;
        }
        inOrder(Node.left(n), out);
        out.add(new Object[] {Node.keyBytes(n), Node.payloadBytes(n), Node.tombstone(n)});
        inOrder(Node.right(n), out);
    }

    private static long[] postOrderOwned(final long root) {
        final List<Long> out = new ArrayList<>();
        postOrder(root, out, Transaction::owned);
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    private static long[] postOrderOf(final Intention intention) {
        final List<Long> out = new ArrayList<>();
        postOrder(intention.root(), out, intention::contains);
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    private static void postOrder(final long n, final List<Long> out, final java.util.function.LongPredicate mine) {
        if (!mine.test(n)) {
            return;
        }
        postOrder(Node.left(n), out, mine);
        postOrder(Node.right(n), out, mine);
        out.add(n);
    }

    private static long keyAndPayloadBytes(final long[] nodes) {
        long bytes = 0;
        for (final long n : nodes) {
            bytes += Node.keyLength(n) + (Node.tombstone(n) ? 0 : Node.payloadLength(n));
        }
        return bytes;
    }

    private static double metadataPerNode(final Transaction t, final byte[] record) {
        final long[] owned = postOrderOwned(t.root());
        return (double) (record.length - keyAndPayloadBytes(owned)) / owned.length;
    }

    /**
     * Every node of a decoded intention is found by its VN, the root at the intention's root handle, and the
     * decoder registered them all as one run (its nodes lie one after another in its arena): {@code entries} runs
     * in the directory after that many intentions.
     */
    private static void assertRegisteredAsOneRun(final NodeDirectory directory, final Intention intention,
                                                 final int entries) {
        for (int i = 0; i < intention.nodeCount(); i++) {
            final long h = directory.lookup(Versions.vn(intention.csn(), Versions.KIND_PERSISTED, i));
            assertNotEquals(0, h, "node " + i + " of intention " + intention.csn());
            assertEquals(Versions.vn(intention.csn(), Versions.KIND_PERSISTED, i), Node.vn(h));
        }
        assertEquals(intention.root(),
            directory.lookup(Versions.vn(intention.csn(), Versions.KIND_PERSISTED, intention.nodeCount() - 1)));
        assertEquals(0, directory.lookup(Versions.vn(intention.csn(), Versions.KIND_PERSISTED, intention.nodeCount())));
        assertEquals(entries, directory.size());
    }
}
