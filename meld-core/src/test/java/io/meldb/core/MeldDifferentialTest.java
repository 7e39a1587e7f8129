package io.meldb.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomized differential test: meld against the {@link ReferenceCertifier}, transaction by transaction.
 *
 * <p>Every run draws a workload (key space, uniform or hotspot access, operation mix, concurrency degree,
 * isolation mix, pipeline configuration) from its seed, executes transactions on snapshots taken up to
 * {@code concurrency} intentions behind the last committed state, melds them and requires: every read returns
 * what the certifier's multi-version history says, every commit/abort decision equals the certifier's, and
 * the final contents are equal. A failure names the seed; {@code -Dmeld.seed=N} replays just that run.
 */
@Tag("slow")
class MeldDifferentialTest {
    private static final int RUNS = Integer.getInteger("meld.runs", 400);
    private static final int TXNS_PER_RUN = Integer.getInteger("meld.txns", 2600);

    @Test
    @Timeout(value = 14, unit = TimeUnit.MINUTES)
    void meldDecidesExactlyAsTheReferenceCertifierOverAMillionTransactions() {
        final Long only = Long.getLong("meld.seed");
        long transactions = 0;
        long melded = 0;
        long aborted = 0;
        long incremented = 0;
        long incrementAborts = 0;
        long columnReadCommits = 0;
        long columnReadsStood = 0;
        if (only != null) {
            final RunResult r = run(only, TXNS_PER_RUN);
            System.out.println("seed " + only + ": " + r);
            return;
        }
        for (int i = 0; i < RUNS; i++) {
            final long seed = 0x5EEDL * 1_000_003L + i;
            final RunResult r = run(seed, TXNS_PER_RUN);
            transactions += r.transactions;
            melded += r.melded;
            aborted += r.aborted;
            incremented += r.incremented;
            incrementAborts += r.incrementAborts;
            columnReadCommits += r.columnReadCommits;
            columnReadsStood += r.columnReadsStood;
        }
        System.out.printf("differential: %d transactions, %d melded, %d aborted (%.1f%%), %d committed with increments,"
                + " %d aborted by an increment, %d committed with column reads, %d of them past a concurrent increment"
                + " of other bytes%n",
            transactions, melded, aborted, 100.0 * aborted / Math.max(1, melded), incremented, incrementAborts,
            columnReadCommits, columnReadsStood);
        if (incremented == 0 || incrementAborts == 0 || columnReadCommits == 0 || columnReadsStood == 0) {
            fail("the workloads committed no increments or column reads, or none aborted on an increment");
        }
        if (RUNS * TXNS_PER_RUN >= 1_000_000 && transactions < 1_000_000) {
            fail("expected at least 1,000,000 transactions, ran " + transactions);
        }
    }

    record RunResult(long transactions, long melded, long aborted, long incremented, long incrementAborts,
                     long columnReadCommits, long columnReadsStood, String workload) {
    }

    static RunResult run(final long seed, final int txns) {
        final SplittableRandom rnd = new SplittableRandom(seed);
        final Workload w = Workload.draw(rnd);
        try {
            return runWorkload(seed, rnd, w, txns);
        } catch (final AssertionError | RuntimeException e) {
            throw new AssertionError("seed " + seed + " failed (" + w + "); replay with -Dmeld.seed=" + seed
                + " -Dtest=MeldDifferentialTest: " + e.getMessage(), e);
        }
    }

    /** The counter field of the increments: a presence byte, then 2 bytes, bounded tightly so results overflow. */
    static final IntField FIELD = new IntField(1, 2, true, -300, 300);
    /** A second counter after the first (presence byte 3), so column reads meet increments of another field. */
    static final IntField FIELD2 = new IntField(4, 2, true, -300, 300);

    record Workload(int keySpace, boolean hotspot, boolean variableKeys, int concurrency, int maxOps,
                    int readPct, int deletePct, int scanPct, double serializableShare, MeldConfig config,
                    int incrementPct, boolean columnReads) {
        static Workload draw(final SplittableRandom rnd) {
            final int[] spaces = {8, 32, 128, 1024, 8192};
            final int[] degrees = {1, 2, 4, 8, 16, 64, 256};
            final MeldConfig[] configs = {
                MeldConfig.FINAL_ONLY,
                new MeldConfig(0, 0, false, true),
                new MeldConfig(1, 1, false, false),
                new MeldConfig(2, 3, false, false),
                new MeldConfig(0, 0, true, false),
                new MeldConfig(3, 2, true, false),
            };
            final double[] serializable = {0.0, 0.5, 1.0};
            return new Workload(spaces[rnd.nextInt(spaces.length)], rnd.nextBoolean(), rnd.nextInt(4) == 0,
                degrees[rnd.nextInt(degrees.length)], 1 + rnd.nextInt(8), 20 + rnd.nextInt(60), rnd.nextInt(20),
                rnd.nextInt(15), serializable[rnd.nextInt(serializable.length)], configs[rnd.nextInt(configs.length)],
                rnd.nextInt(3) == 0 ? 0 : 10 + rnd.nextInt(50), rnd.nextInt(3) != 0);
        }

        /** A random value; with increments on, most are counters of {@link #FIELD} (a few null or short). */
        byte[] value(final SplittableRandom rnd) {
            if (incrementPct > 0 && rnd.nextInt(4) != 0) {
                final byte[] v = new byte[(columnReads ? 6 : 3) + rnd.nextInt(4) - (rnd.nextInt(20) == 0 ? (columnReads ? 4 : 2) : 0)];
                v[0] = (byte) (rnd.nextInt(15) == 0 ? 0 : 1);
                final int c = rnd.nextInt(-280, 281);
                if (v.length >= 3) {
                    v[1] = (byte) (c >>> 8);
                    v[2] = (byte) c;
                }
                if (v.length >= 6) {
                    final int c2 = rnd.nextInt(-280, 281);
                    v[3] = (byte) (rnd.nextInt(15) == 0 ? 0 : 1);
                    v[4] = (byte) (c2 >>> 8);
                    v[5] = (byte) c2;
                }
                return v;
            }
            final byte[] value = new byte[rnd.nextInt(12)];
            for (int b = 0; b < value.length; b++) {
                value[b] = (byte) rnd.nextInt(256);
            }
            return value;
        }

        byte[] key(final SplittableRandom rnd) {
            int k = hotspot && rnd.nextInt(10) < 8 ? rnd.nextInt(Math.max(1, keySpace / 10)) : rnd.nextInt(keySpace);
            if (variableKeys) {
                final byte[] s = Integer.toString(k, 7).getBytes();
                return s;
            }
            return new byte[] {(byte) (k >>> 24), (byte) (k >>> 16), (byte) (k >>> 8), (byte) k};
        }
    }

    private static RunResult runWorkload(final long seed, final SplittableRandom rnd, final Workload w, final int txns) {
        final ReferenceCertifier certifier = new ReferenceCertifier();
        final NodeDirectory directory = new NodeDirectory();
        long transactions = 0;
        long melded = 0;
        final long[] abortedCount = {0};
        long incremented = 0;
        long incrementAborts = 0;
        long columnReadCommits = 0;
        try (Arena exec = new Arena(); MeldPipeline pipeline = new MeldPipeline(w.config, directory)) {
            final IntentionAdopter adopter = new IntentionAdopter(exec, directory);
            final boolean throughCodec = (seed & 1) == 0;
            final int blockSize = rnd.nextBoolean() ? 512 : 8192;
            final IntentionEncoder encoder = new IntentionEncoder();
            final org.agrona.ExpandableDirectByteBuffer record = new org.agrona.ExpandableDirectByteBuffer(256);
            final IntentionDecoder decoder = new IntentionDecoder(exec, directory);
            final List<Intention> decoded = new ArrayList<>();
            final long[] decodedCsn = {0};
            final BlockReader reader = new BlockReader(blockSize,
                (buf, offset, length, position) -> decoded.add(decoder.decode(buf, offset, length, ++decodedCsn[0], new Intention())));
            final BlockWriter writer = new BlockWriter(blockSize, (block, offset, length) -> reader.onBlock(block, offset, length, 0));
            final Map<Long, Boolean> expected = new HashMap<>();
            final Map<Long, String> described = new HashMap<>();
            final MeldPipeline.DecisionListener listener = (csn, committed) -> {
                final Boolean want = expected.remove(csn);
                if (want == null) {
                    fail("decision for unknown csn " + csn);
                }
                if (want != committed) {
                    fail("csn " + csn + ": meld " + (committed ? "committed" : "aborted") + ", certifier "
                        + (want ? "committed" : "aborted") + "; " + described.get(csn));
                }
                if (!committed) {
                    abortedCount[0]++;
                }
            };
            long nextCsn = 1;
            for (int t = 0; t < txns; t++) {
                transactions++;
                final long wantSnapshot = Math.max(0, pipeline.lcsCsn() - rnd.nextInt(w.concurrency + 1));
                final Snapshot snapshot = pipeline.state(wantSnapshot);
                final Isolation iso = rnd.nextDouble() < w.serializableShare ? Isolation.SERIALIZABLE : Isolation.SNAPSHOT;
                final Transaction txn = new Transaction(exec, snapshot, iso);
                final List<byte[]> reads = new ArrayList<>();
                final NavigableMap<byte[], Long> columnReads = new TreeMap<>(Arrays::compareUnsigned);
                final List<RangeDependency> ranges = new ArrayList<>();
                final NavigableMap<byte[], byte[]> writes = new TreeMap<>(Arrays::compareUnsigned);
                final List<RangeDependency> declared = new ArrayList<>();
                final NavigableMap<byte[], Long> increments = new TreeMap<>(Arrays::compareUnsigned);
                final NavigableMap<byte[], IntField> fields = new TreeMap<>(Arrays::compareUnsigned);
                final int ops = 1 + rnd.nextInt(w.maxOps);
                for (int o = 0; o < ops; o++) {
                    final int dice = rnd.nextInt(100);
                    final byte[] key = w.key(rnd);
                    if (rnd.nextInt(100) < w.incrementPct) {
                        final IntField field = w.columnReads && rnd.nextBoolean() ? FIELD2 : FIELD;
                        final byte[] before = view(key, writes, increments, fields, certifier, snapshot);
                        if (increment(rnd, txn, key, before, field, writes, increments, fields)
                            && iso == Isolation.SERIALIZABLE && !reads.stream().anyMatch(r -> Arrays.equals(r, key))) {
                            reads.add(key); // a second field of the key: a read-modify-write, with a read
                            columnReads.remove(key);
                        }
                        continue;
                    }
                    // a snapshot transaction declares some of its reads as dependencies (Transaction.dependOn)
                    final boolean declare = iso == Isolation.SNAPSHOT && rnd.nextInt(4) == 0;
                    if (dice < w.scanPct) {
                        final RangeDependency read = scan(rnd, w, txn, certifier, snapshot, writes, increments, fields,
                            ranges);
                        if (declare) {
                            txn.dependOn(read);
                            declared.add(read);
                        }
                    } else if (dice < w.scanPct + w.readPct * (100 - w.scanPct) / 100) {
                        final long columns = w.columnReads ? COLUMN_MASKS[rnd.nextInt(COLUMN_MASKS.length)]
                            : ColumnReads.WHOLE_ROW;
                        final byte[] got = get(txn, key, columns);
                        final byte[] want = view(key, writes, increments, fields, certifier, snapshot);
                        assertArrayEquals(want, got, "get at snapshot " + snapshot.csn());
                        if (columns == ColumnReads.WHOLE_ROW || reads.stream().anyMatch(r -> Arrays.equals(r, key))) {
                            reads.add(key);
                            columnReads.remove(key);
                        } else {
                            columnReads.merge(key, columns, (a, b) -> a | b);
                        }
                        if (declare) {
                            txn.dependOn(RangeDependency.point(key));
                            declared.add(RangeDependency.point(key));
                        }
                    } else if (rnd.nextInt(100) < w.deletePct) {
                        txn.delete(key);
                        writes.put(key, null);
                        increments.remove(key);
                        fields.remove(key);
                    } else {
                        final byte[] value = w.value(rnd);
                        txn.put(key, value);
                        writes.put(key, value);
                        increments.remove(key);
                        fields.remove(key);
                    }
                }
                if (!txn.hasWrites()) {
                    continue;
                }
                melded++;
                final long csn = nextCsn++;
                final boolean want = certifier.certify(csn, snapshot.csn(), iso, reads, columnReads,
                    iso == Isolation.SERIALIZABLE ? ranges : List.of(), declared, writes, FIELD, increments, fields);
                columnReadCommits += want && !columnReads.isEmpty() ? 1 : 0;
                expected.put(csn, want);
                incremented += want && !increments.isEmpty() ? 1 : 0;
                incrementAborts += certifier.lastIncrementReason != AbortReason.NONE ? 1 : 0;
                described.put(csn, iso + " snapshot " + snapshot.csn() + " reads " + keys(reads) + " column reads "
                    + keys(columnReads.keySet()) + " ranges " + ranges
                    + " declared " + declared + " writes " + keys(writes.keySet()) + " increments " + keys(increments.keySet()) + (want ? "" : " certifier: " + certifier.lastReason));
                if (Boolean.getBoolean("meld.debug")) {
                    System.out.println("csn " + csn + " " + described.get(csn) + " want=" + want);
                    for (long s = Math.max(0, pipeline.lcsCsn() - 3); s <= pipeline.lcsCsn(); s++) {
                        System.out.println("   state " + pipeline.state(s).csn() + ": " + dump(pipeline.state(s).root()));
                    }
                    System.out.println("   intention: " + dump(txn.root()));
                }
                if (throughCodec) {
                    writer.append(record, 0, encoder.encode(txn, 0, record));
                    writer.flush();
                    assertEquals(1, decoded.size(), "one intention decoded per append");
                    pipeline.submit(decoded.remove(0), listener);
                } else {
                    pipeline.submit(adopter.adopt(txn, csn, 0, new Intention()), listener);
                }
            }
            pipeline.flush(listener);
            if (!expected.isEmpty()) {
                fail("no decision for " + expected.keySet());
            }
            assertContents(certifier.contents(pipeline.lcsCsn()), pipeline.lcs().root());
            TreeInvariants.check(pipeline.lcs().root());
        }
        return new RunResult(transactions, melded, abortedCount[0], incremented, incrementAborts, columnReadCommits,
            certifier.columnReadsStood, w.toString());
    }

    /**
     * Byte masks a column read names: the counter's presence byte, the counter {@link #FIELD} itself, the bytes
     * after it, the presence byte and what follows the counter (all but the field), and every byte.
     */
    static final long[] COLUMN_MASKS = {
        ColumnReads.bytes(0, 1), ColumnReads.bytes(1, 3), ColumnReads.bytes(3, Integer.MAX_VALUE),
        ColumnReads.bytes(0, 1) | ColumnReads.bytes(3, Integer.MAX_VALUE), ColumnReads.bytes(0, Integer.MAX_VALUE),
    };

    /** A read of {@code key} that depends on the bytes of {@code columns} only (through the buffer variant). */
    private static byte[] get(final Transaction txn, final byte[] key, final long columns) {
        if (columns == ColumnReads.WHOLE_ROW) {
            return txn.get(key);
        }
        final org.agrona.ExpandableArrayBuffer into = new org.agrona.ExpandableArrayBuffer(16);
        final int length = txn.get(key, into, columns);
        return length < 0 ? null : Arrays.copyOf(into.byteArray(), length);
    }

    /** The value the transaction sees: its own write, else the snapshot's with its own increments added. */
    private static byte[] view(final byte[] key, final Map<byte[], byte[]> writes, final Map<byte[], Long> increments,
                               final Map<byte[], IntField> fields, final ReferenceCertifier certifier,
                               final Snapshot snapshot) {
        if (writes.containsKey(key)) {
            return writes.get(key);
        }
        final byte[] base = certifier.read(key, snapshot.csn());
        final Long delta = increments.get(key);
        return delta == null ? base : ReferenceCertifier.added(base, fields.getOrDefault(key, FIELD), delta);
    }

    /**
     * Adds a random delta to {@code field} and checks that the transaction refuses exactly what the model refuses.
     * Answers true when the add became a read-modify-write (a second field of a key this transaction increments).
     */
    private static boolean increment(final SplittableRandom rnd, final Transaction txn, final byte[] key,
                                     final byte[] view, final IntField field, final Map<byte[], byte[]> writes,
                                     final Map<byte[], Long> increments, final Map<byte[], IntField> fields) {
        final long delta = rnd.nextInt(-60, 61);
        final int reason = view == null ? AbortReason.INCREMENT_ABSENT : ReferenceCertifier.fieldReason(view, field, delta);
        try {
            txn.add(key, field, delta);
            if (reason != AbortReason.NONE) {
                fail("add of " + delta + " to " + Arrays.toString(view) + " succeeded; expected " + AbortReason.describe(reason));
            }
        } catch (final IncrementException e) {
            assertEquals(AbortReason.describe(reason), AbortReason.describe(e.reason()), "refused add of " + delta
                + " to " + Arrays.toString(view));
            return false;
        }
        if (writes.containsKey(key)) {
            writes.put(key, ReferenceCertifier.added(view, field, delta));
            return false;
        }
        if (increments.containsKey(key) && !fields.get(key).equals(field)) {
            writes.put(key, ReferenceCertifier.added(view, field, delta));
            increments.remove(key);
            fields.remove(key);
            return true;
        }
        increments.merge(key, delta, Long::sum);
        fields.put(key, field);
        return false;
    }

    /** Runs a random scan, checks its rows, records the range it read in {@code ranges} and answers it. */
    static RangeDependency scan(final SplittableRandom rnd, final Workload w, final Transaction txn,
                             final ReferenceCertifier certifier, final Snapshot snapshot,
                             final NavigableMap<byte[], byte[]> writes, final Map<byte[], Long> increments,
                             final Map<byte[], IntField> fields, final List<RangeDependency> ranges) {
        byte[] lo = rnd.nextInt(8) == 0 ? null : w.key(rnd);
        byte[] hi = rnd.nextInt(8) == 0 ? null : w.key(rnd);
        if (lo != null && hi != null && Arrays.compareUnsigned(lo, hi) > 0) {
            final byte[] x = lo;
            lo = hi;
            hi = x;
        }
        final boolean loInc = rnd.nextBoolean();
        final boolean hiInc = rnd.nextBoolean();
        final boolean descending = rnd.nextBoolean();
        final int limit = rnd.nextInt(3) == 0 ? 0 : 1 + rnd.nextInt(5);
        final List<byte[][]> got = txn.scan(lo, loInc, hi, hiInc, descending, limit);
        final RangeDependency range = new RangeDependency(lo, loInc, hi, hiInc);
        final NavigableMap<byte[], byte[]> view = new TreeMap<>(Arrays::compareUnsigned);
        for (final byte[] k : certifier.keys(range, snapshot.csn())) {
            final Long delta = increments.get(k);
            final byte[] base = certifier.read(k, snapshot.csn());
            view.put(k, delta == null ? base : ReferenceCertifier.added(base, fields.getOrDefault(k, FIELD), delta));
        }
        for (final Map.Entry<byte[], byte[]> e : writes.entrySet()) {
            if (range.contains(e.getKey())) {
                if (e.getValue() == null) {
                    view.remove(e.getKey());
                } else {
                    view.put(e.getKey(), e.getValue());
                }
            }
        }
        final List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(descending ? view.descendingMap().entrySet() : view.entrySet());
        final List<Map.Entry<byte[], byte[]>> limited = limit > 0 && want.size() > limit ? want.subList(0, limit) : want;
        assertEquals(limited.size(), got.size(), "scan size");
        for (int i = 0; i < got.size(); i++) {
            assertArrayEquals(limited.get(i).getKey(), got.get(i)[0], "scan key " + i);
            assertArrayEquals(limited.get(i).getValue(), got.get(i)[1], "scan value " + i);
        }
        final RangeDependency read;
        if (limit > 0 && got.size() == limit) {
            final byte[] last = got.get(got.size() - 1)[0];
            read = descending ? new RangeDependency(last, true, hi, hiInc) : new RangeDependency(lo, loInc, last, true);
        } else {
            read = range;
        }
        ranges.add(read);
        return read;
    }

    static String dump(final long n) {
        if (n == 0) {
            return ".";
        }
        return "(" + dump(Node.left(n)) + " " + (Node.keyLength(n) == 4 ? Node.keyBytes(n)[3] : Arrays.toString(Node.keyBytes(n)))
            + "{vn=" + Versions.toString(Node.vn(n)) + " scv=" + Versions.toString(Node.scv(n)) + " ssv=" + Versions.toString(Node.ssv(n))
            + " f=" + Node.flags(n) + "} " + dump(Node.right(n)) + ")";
    }

    private static String keys(final java.util.Collection<byte[]> keys) {
        final StringBuilder b = new StringBuilder("{");
        for (final byte[] k : keys) {
            b.append(Arrays.toString(k)).append(' ');
        }
        return b.append('}').toString();
    }

    static void assertContents(final NavigableMap<byte[], byte[]> want, final long root) {
        final List<byte[][]> got = new ArrayList<>();
        TreeInvariants.inOrder(root, got);
        final List<Map.Entry<byte[], byte[]>> wantList = new ArrayList<>(want.entrySet());
        assertEquals(wantList.size(), got.size(), "number of live keys");
        for (int i = 0; i < got.size(); i++) {
            assertArrayEquals(wantList.get(i).getKey(), got.get(i)[0], "key " + i);
            assertArrayEquals(wantList.get(i).getValue(), got.get(i)[1], "value " + i);
        }
    }
}
