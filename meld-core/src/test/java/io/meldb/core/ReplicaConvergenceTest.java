package io.meldb.core;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replicas that decode the same log with the same pipeline configuration must build identical trees: same
 * decision and same state hash after every intention (Hyder II §3.4). Replicas with different configurations
 * (final meld only vs premeld + group meld) must reach the same decisions for the same transactions.
 */
class ReplicaConvergenceTest {
    private static final MeldConfig PIPELINED = new MeldConfig(3, 2, true, false);

    /** One server: its own memory, directory and pipeline, fed blocks from the shared log. */
    static final class Replica implements AutoCloseable {
        final Arena arena = new Arena();
        final NodeDirectory directory = new NodeDirectory();
        final MeldPipeline pipeline;
        final IntentionDecoder decoder;
        final BlockReader reader;
        final List<Boolean> decisions = new ArrayList<>();
        final List<Long> hashes = new ArrayList<>();
        long nextCsn = 1;

        Replica(final MeldConfig config, final int blockSize) {
            pipeline = new MeldPipeline(config, directory);
            decoder = new IntentionDecoder(arena, directory);
            reader = new BlockReader(blockSize, (buf, offset, length, position) -> {
                final Intention i = decoder.decode(buf, offset, length, nextCsn++, new Intention());
                pipeline.submit(i, this::decided);
            });
        }

        void decided(final long csn, final boolean committed) {
            assertEquals(decisions.size() + 1, csn, "decisions arrive in log order");
            decisions.add(committed);
            hashes.add(StateHash.of(pipeline.lcs().root()));
        }

        @Override
        public void close() {
            pipeline.close();
            arena.close();
        }
    }

    /** The shared log: encoded intentions framed into fixed-size blocks, delivered to every replica in order. */
    static final class Log {
        final List<byte[]> blocks = new ArrayList<>();
        final IntentionEncoder encoder = new IntentionEncoder();
        final ExpandableDirectByteBuffer record = new ExpandableDirectByteBuffer(1024);
        final BlockWriter writer;
        int delivered;

        Log(final int blockSize) {
            writer = new BlockWriter(blockSize, (DirectBuffer block, int offset, int length) -> {
                final byte[] copy = new byte[length];
                block.getBytes(offset, copy);
                blocks.add(copy);
            });
        }

        void append(final Transaction txn) {
            final int length = encoder.encode(txn, 0, record);
            writer.append(record, 0, length);
        }

        void deliver(final Replica... replicas) {
            writer.flush();
            for (; delivered < blocks.size(); delivered++) {
                final UnsafeBuffer block = new UnsafeBuffer(blocks.get(delivered));
                for (final Replica r : replicas) {
                    r.reader.onBlock(block, 0, block.capacity(), delivered);
                }
            }
        }
    }

    private static byte[] key(final SplittableRandom rnd, final int keySpace) {
        final int k = rnd.nextInt(keySpace);
        return new byte[] {(byte) (k >>> 8), (byte) k};
    }

    /** Executes one random transaction; returns false if it wrote nothing. */
    private static boolean execute(final Transaction txn, final SplittableRandom rnd, final int keySpace) {
        final int ops = 1 + rnd.nextInt(6);
        for (int o = 0; o < ops; o++) {
            final int dice = rnd.nextInt(100);
            if (dice < 40) {
                txn.get(key(rnd, keySpace));
            } else if (dice < 48) {
                txn.scan(key(rnd, keySpace), true, key(rnd, keySpace), rnd.nextBoolean(), rnd.nextBoolean(), rnd.nextInt(4));
            } else if (dice < 55) {
                txn.delete(key(rnd, keySpace));
            } else {
                txn.put(key(rnd, keySpace), new byte[] {(byte) o, (byte) rnd.nextInt(256)});
            }
        }
        return txn.hasWrites();
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 8192})
    void replicasWithTheSameConfigurationReachTheSameStateHashAfterEveryIntention(final int blockSize) {
        for (final MeldConfig config : new MeldConfig[] {MeldConfig.FINAL_ONLY, PIPELINED}) {
            final SplittableRandom rnd = new SplittableRandom(blockSize * 31L + config.premeldThreads());
            try (Arena exec = new Arena(); Replica a = new Replica(config, blockSize); Replica b = new Replica(config, blockSize)) {
                final Log log = new Log(blockSize);
                int appended = 0;
                for (int t = 0; t < 3000; t++) {
                    final long snapshot = Math.max(0, a.pipeline.lcsCsn() - rnd.nextInt(24));
                    final Isolation iso = rnd.nextBoolean() ? Isolation.SERIALIZABLE : Isolation.SNAPSHOT;
                    final Transaction txn = new Transaction(exec, a.pipeline.state(snapshot), iso);
                    if (execute(txn, rnd, 600)) {
                        log.append(txn);
                        appended++;
                    }
                    if (rnd.nextInt(4) == 0) {
                        log.deliver(a, b);
                    }
                }
                log.deliver(a, b);
                a.pipeline.flush(a::decided);
                b.pipeline.flush(b::decided);
                assertEquals(appended, a.decisions.size());
                assertEquals(a.decisions, b.decisions, config.toString());
                assertEquals(a.hashes, b.hashes, "state hash after every intention, " + config);
                assertTrue(a.decisions.contains(false) && a.decisions.contains(true), "the workload has conflicts");
                TreeInvariants.check(b.pipeline.lcs().root());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void finalMeldOnlyAndPremeldWithGroupMeldReachTheSameDecisions(final long seed) {
        final SplittableRandom choices = new SplittableRandom(seed);
        try (Arena execA = new Arena(); Arena execC = new Arena();
             Replica a = new Replica(MeldConfig.FINAL_ONLY, 8192); Replica c = new Replica(PIPELINED, 8192)) {
            final Log logA = new Log(8192);
            final Log logC = new Log(8192);
            for (int t = 0; t < 4000; t++) {
                final long wanted = Math.max(0, Math.min(a.pipeline.lcsCsn(), c.pipeline.lcsCsn()) - choices.nextInt(40));
                final Snapshot sc = c.pipeline.state(wanted);
                final Snapshot sa = a.pipeline.state(sc.csn());
                assertEquals(sc.csn(), sa.csn());
                final long opsSeed = choices.nextLong();
                final Isolation iso = choices.nextBoolean() ? Isolation.SERIALIZABLE : Isolation.SNAPSHOT;
                final Transaction ta = new Transaction(execA, sa, iso);
                final Transaction tc = new Transaction(execC, sc, iso);
                final boolean writes = execute(ta, new SplittableRandom(opsSeed), 400);
                assertEquals(writes, execute(tc, new SplittableRandom(opsSeed), 400));
                if (writes) {
                    logA.append(ta);
                    logC.append(tc);
                }
                if (choices.nextInt(3) == 0) {
                    logA.deliver(a);
                    logC.deliver(c);
                }
            }
            logA.deliver(a);
            logC.deliver(c);
            a.pipeline.flush(a::decided);
            c.pipeline.flush(c::decided);
            assertEquals(a.decisions, c.decisions);
            assertTrue(c.pipeline.groupsFormed() > 0, "group meld was exercised");
            final List<byte[][]> rowsA = new ArrayList<>();
            final List<byte[][]> rowsC = new ArrayList<>();
            TreeInvariants.inOrder(a.pipeline.lcs().root(), rowsA);
            TreeInvariants.inOrder(c.pipeline.lcs().root(), rowsC);
            assertEquals(rowsA.size(), rowsC.size());
            for (int i = 0; i < rowsA.size(); i++) {
                assertArrayEquals(rowsA.get(i)[0], rowsC.get(i)[0]);
                assertArrayEquals(rowsA.get(i)[1], rowsC.get(i)[1]);
            }
        }
    }
}
