package io.meldb.core;

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
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The differential test's reordering mode (docs/testing.md, issue 21): random transactions melded with a reorder
 * window, checked against the {@link ReferenceCertifier} replaying the order meld chose. Decisions arrive in meld
 * order; the certifier gives the k-th decision serial position k, so a state materialized after CSN s is serial
 * position s (windows are contiguous and only their ends are states). Every read a transaction makes agrees with
 * the certifier's history at its snapshot, every commit is one the certifier accepts at its position in meld
 * order, and the final contents agree. A second replica fed the same log through the premeld-ahead entry point
 * (as a threaded txn-server does) reaches the same state hash after every window and the same {@link ReorderStats};
 * under the fewest-aborts policy no run aborts more members inside its windows than log order would on them.
 */
class ReorderDifferentialTest {
    private static final int RUNS = Integer.getInteger("reorder.runs", 48);
    private static final int TXNS_PER_RUN = Integer.getInteger("reorder.txns", 2500);

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void reorderedCommitsAreSerializableInMeldOrderAndReplicasAgreeAfterEveryWindow() {
        final Long only = Long.getLong("reorder.seed");
        if (only != null) {
            System.out.println("seed " + only + ": " + run(only));
            return;
        }
        long transactions = 0;
        long aborted = 0;
        long logOrderAborts = 0;
        for (int i = 0; i < RUNS; i++) {
            final long[] r = run(0x0DE4L * 1_000_003L + i);
            transactions += r[0];
            aborted += r[1];
            logOrderAborts += r[2];
        }
        System.out.printf("reorder differential: %d intentions, %d aborted reordered, %d the certifier aborts in"
            + " log order%n", transactions, aborted, logOrderAborts);
        assertTrue(aborted < logOrderAborts, "reordering aborted " + aborted + ", log order " + logOrderAborts);
    }

    private static long[] run(final long seed) {
        final SplittableRandom rnd = new SplittableRandom(seed);
        final MeldDifferentialTest.Workload base = MeldDifferentialTest.Workload.draw(rnd);
        final int[] windows = {2, 4, 16, 64};
        final MeldConfig[] configs = {MeldConfig.FINAL_ONLY, new MeldConfig(0, 0, false, true),
            new MeldConfig(2, 3, false, false)};
        final ReorderConfig reorder = new ReorderConfig(windows[rnd.nextInt(windows.length)],
            ReorderConfig.Algorithm.values()[rnd.nextInt(3)], ReorderConfig.Policy.values()[rnd.nextInt(2)]);
        final MeldConfig config = configs[rnd.nextInt(configs.length)].withReorder(reorder);
        final MeldDifferentialTest.Workload w = new MeldDifferentialTest.Workload(base.keySpace(), base.hotspot(),
            base.variableKeys(), Math.max(4, base.concurrency()), base.maxOps(), base.readPct(), base.deletePct(),
            base.scanPct(), base.serializableShare(), config, 0, false);
        try {
            return runWorkload(rnd, w);
        } catch (final AssertionError | RuntimeException e) {
            throw new AssertionError("seed " + seed + " failed (" + w + "); replay with -Dreorder.seed=" + seed
                + " -Dtest=ReorderDifferentialTest: " + e.getMessage(), e);
        }
    }

    /** What the certifier needs of one transaction, kept until meld decides it. */
    private record Txn(long snapshot, Isolation iso, List<byte[]> reads, List<RangeDependency> ranges,
                       List<RangeDependency> declared, NavigableMap<byte[], byte[]> writes) {
    }

    private static long[] runWorkload(final SplittableRandom rnd, final MeldDifferentialTest.Workload w) {
        final ReferenceCertifier certifier = new ReferenceCertifier();
        final ReferenceCertifier logOrder = new ReferenceCertifier();
        final NodeDirectory directory = new NodeDirectory();
        final NodeDirectory directoryB = new NodeDirectory();
        final Map<Long, Txn> pending = new HashMap<>();
        final long[] position = {0};
        final long[] aborted = {0};
        long logOrderAborts = 0;
        long melded = 0;
        try (Arena exec = new Arena(); Arena execB = new Arena();
             MeldPipeline pipeline = new MeldPipeline(w.config(), directory);
             MeldPipeline replica = new MeldPipeline(w.config(), directoryB)) {
            final IntentionAdopter adopter = new IntentionAdopter(exec, directory);
            final IntentionEncoder encoder = new IntentionEncoder();
            final org.agrona.ExpandableDirectByteBuffer record = new org.agrona.ExpandableDirectByteBuffer(256);
            final IntentionDecoder decoderB = new IntentionDecoder(execB, directoryB);
            final MeldPipeline.DecisionListener listener = (csn, committed) -> {
                final Txn t = pending.remove(csn);
                if (t == null) {
                    fail("decision for unknown or already decided csn " + csn);
                }
                final long at = ++position[0];
                if (committed) {
                    final boolean ok = certifier.certify(at, t.snapshot, t.iso, t.reads,
                        t.iso == Isolation.SERIALIZABLE ? t.ranges : List.of(), t.declared, t.writes);
                    if (!ok) {
                        fail("csn " + csn + " committed at serial position " + at + " but the certifier rejects it: "
                            + certifier.lastReason);
                    }
                } else {
                    aborted[0]++;
                }
            };
            final MeldPipeline.DecisionListener replicaListener = (csn, committed) -> { };
            long windowsSeen = 0;
            for (int t = 0; t < TXNS_PER_RUN; t++) {
                final long wantSnapshot = Math.max(0, pipeline.lcsCsn() - rnd.nextInt(w.concurrency() + 1));
                final Snapshot snapshot = pipeline.state(wantSnapshot);
                final Isolation iso = rnd.nextDouble() < w.serializableShare() ? Isolation.SERIALIZABLE : Isolation.SNAPSHOT;
                final Transaction txn = new Transaction(exec, snapshot, iso);
                final List<byte[]> reads = new ArrayList<>();
                final List<RangeDependency> ranges = new ArrayList<>();
                final NavigableMap<byte[], byte[]> writes = new TreeMap<>(Arrays::compareUnsigned);
                final List<RangeDependency> declared = new ArrayList<>();
                final int ops = 1 + rnd.nextInt(w.maxOps());
                for (int o = 0; o < ops; o++) {
                    final int dice = rnd.nextInt(100);
                    final byte[] key = w.key(rnd);
                    final boolean declare = iso == Isolation.SNAPSHOT && rnd.nextInt(4) == 0;
                    if (dice < w.scanPct()) {
                        final RangeDependency read = MeldDifferentialTest.scan(rnd, w, txn, certifier, snapshot, writes,
                            java.util.Map.of(), java.util.Map.of(), ranges);
                        if (declare) {
                            txn.dependOn(read);
                            declared.add(read);
                        }
                    } else if (dice < w.scanPct() + w.readPct() * (100 - w.scanPct()) / 100) {
                        final byte[] got = txn.get(key);
                        final byte[] want = writes.containsKey(key) ? writes.get(key) : certifier.read(key, snapshot.csn());
                        assertArrayEquals(want, got, "get at snapshot " + snapshot.csn());
                        reads.add(key);
                        if (declare) {
                            txn.dependOn(RangeDependency.point(key));
                            declared.add(RangeDependency.point(key));
                        }
                    } else if (rnd.nextInt(100) < w.deletePct()) {
                        txn.delete(key);
                        writes.put(key, null);
                    } else {
                        final byte[] value = new byte[rnd.nextInt(12)];
                        rnd.nextBytes(value);
                        txn.put(key, value);
                        writes.put(key, value);
                    }
                }
                if (!txn.hasWrites()) {
                    continue;
                }
                melded++;
                final long csn = pipeline.heldThroughCsn() + 1;
                if (!logOrder.certify(csn, snapshot.csn(), iso, reads, iso == Isolation.SERIALIZABLE ? ranges : List.of(),
                    declared, writes)) {
                    logOrderAborts++;
                }
                pending.put(csn, new Txn(snapshot.csn(), iso, reads, ranges, declared, writes));
                final int flags = Intention.restartFlags(rnd.nextInt(4) == 0 ? rnd.nextInt(8) : 0);
                final int length = encoder.encode(txn, flags, record);
                pipeline.submit(adopter.adopt(txn, csn, flags, new Intention()), listener);
                final Intention copy = decoderB.decode(record, 0, length, csn, new Intention());
                replica.submitPremelded(copy, replica.premeldAhead(copy), replicaListener);
                if (rnd.nextInt(200) == 0) {
                    // a rejected record (a nudge, say) closes the window on every replica alike
                    final long rejected = pipeline.heldThroughCsn() + 1;
                    pending.put(rejected, new Txn(0, Isolation.SNAPSHOT, List.of(), List.of(), List.of(),
                        new TreeMap<>(Arrays::compareUnsigned)));
                    pipeline.reject(rejected, listener);
                    replica.reject(rejected, replicaListener);
                    logOrder.certify(rejected, rejected - 1, Isolation.SNAPSHOT, List.of(), List.of(), List.of(),
                        new TreeMap<>(Arrays::compareUnsigned));
                    melded++;
                    aborted[0]--;
                }
                if (!pipeline.holding()) {
                    windowsSeen++;
                    assertEquals(pipeline.lcsCsn(), replica.lcsCsn(), "replicas decided through the same csn");
                    assertEquals(StateHash.of(pipeline.lcs().root()), StateHash.of(replica.lcs().root()),
                        "state hash after the window ending at csn " + pipeline.lcsCsn());
                    assertEquals(position[0], pipeline.lcsCsn(), "every csn up to the window's end decided");
                }
            }
            pipeline.flush(listener);
            replica.flush(replicaListener);
            assertTrue(pending.isEmpty(), "no decision for " + pending.keySet());
            assertEquals(StateHash.of(pipeline.lcs().root()), StateHash.of(replica.lcs().root()), "final state hash");
            MeldDifferentialTest.assertContents(certifier.contents(pipeline.lcsCsn()), pipeline.lcs().root());
            TreeInvariants.check(pipeline.lcs().root());
            assertTrue(windowsSeen > 0 || melded < 64, "windows closed");
            final ReorderStats stats = pipeline.reorderStats();
            assertEquals(stats.toString(), replica.reorderStats().toString(), "replicas plan every window alike");
            if (w.config().reorder().policy() == ReorderConfig.Policy.MIN_ABORTS) {
                assertTrue(stats.cycleAborts() <= stats.logOrderCycleAborts(),
                    "in-window aborts " + stats.cycleAborts() + " exceed log order's on the same windows " + stats);
            }
        }
        return new long[] {melded, aborted[0], logOrderAborts};
    }
}
