package io.meldb.bench;

import io.meldb.core.Arena;
import io.meldb.core.Intention;
import io.meldb.core.IntentionAdopter;
import io.meldb.core.Isolation;
import io.meldb.core.Meld;
import io.meldb.core.Node;
import io.meldb.core.NodeDirectory;
import io.meldb.core.NodeMemory;
import io.meldb.core.Snapshot;
import io.meldb.core.Transaction;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Meld throughput on one thread, reproducing the method of meld paper §8 (and App. F for brute force).
 *
 * <h2>Workload</h2>
 * A base table of {@value #BASE_KEYS} keys (8-byte big-endian {@code i * }{@value #KEY_SPACING}, so inserts can
 * fall between neighbours) with 8-byte values is committed as intention CSN 1. Then {@value #INTENTIONS}
 * serializable transactions are generated: transaction {@code i} gets CSN {@code c = i + 2} and executes on the
 * committed state {@code c - concurrencyDegree - 1}, so its conflict zone holds exactly {@code concurrencyDegree}
 * intentions (clamped at the base state for the first ones). Each of its {@code txnSize} operations is a read
 * of a uniformly random base key with probability {@code readPercent}; otherwise an insert of a fresh key strictly
 * between two base keys with probability {@code insertPercent} (the asymmetric case, §8.3), else an update of a
 * random base key (the symmetric case, §8.1). A transaction whose operations all happen to be reads never
 * reaches the log: a serializable read records its reads as point range dependencies, so it has no intention tree,
 * and a txn-server commits it at its snapshot without one ({@code LocalSession}); the generator counts it and
 * draws another transaction for the same CSN, so the log holds only transactions that wrote. Each transaction is
 * adopted as an intention ({@link IntentionAdopter}, exactly what decoding it from the log would build) and
 * immediately melded by a "generation" meld, so the states later transactions read exist. All of this happens in
 * the trial setup, which prints the generation's abort rate.
 *
 * <h2>Measured operation</h2>
 * One operation is one final meld: the next pre-generated intention melded into the current LCS by a separate
 * "measured" {@link Meld}. When the sequence wraps around, the LCS is reset and the measured arena is reset
 * (no heap allocation, no off-heap allocation after the first pass; reused arena segments are re-zeroed as
 * the next pass reaches them, a cost amortized over the pass). An untimed pass in the setup checks the decisions
 * and grows the measured arena to its steady size. The sequence measured starts at intention
 * {@code concurrencyDegree} (from the generation state just before it), so every measured meld has a full
 * conflict zone of {@code concurrencyDegree} intentions.
 *
 * <p>Why re-melding pre-generated intentions is valid: the intentions point into the generation's states
 * (their snapshots, built from generation ephemeral nodes), not into the states the measured pass builds. Meld
 * never compares handles across the two; it compares version numbers (SCV/NCV, SSV/NSV, VN prefixes), and a
 * meld assigns ephemeral VNs deterministically ({@code (csn, FINAL, counter)}). So the measured pass recreates
 * every state node with the same VN and content as the generation did, and an intention node whose child points
 * at a generation node reaches a node equal (by VN, key, payload) to its measured twin. The decisions therefore
 * equal the generation's; this is checked at every wrap (commit count, and the VN of the final root), and a
 * mismatch throws {@link IllegalStateException}. The measured meld registers its ephemerals in the same
 * {@link NodeDirectory} as the generation (as a replica's meld must); their VNs are already present, so the
 * registration overwrites entries and never grows the map.
 *
 * <p>{@code algorithm=bruteForce} (App. F) disables the grafting shortcuts. Ephemeral VNs depend on which nodes
 * meld re-creates, so the generation meld runs the same algorithm as the measured one (otherwise the intentions'
 * SCVs would name versions the brute-force states do not have). Decisions do not depend on the algorithm (same
 * conflict predicate), so both algorithms see the same commits and aborts.
 *
 * <h2>Reading the results</h2>
 * The primary score ({@code MeldBenchmark.meld}) is melds per second (paper Fig. 8b; latency is its
 * reciprocal). The secondary rows come from {@link MeldCounters} and are rates in the same unit:
 * {@code meld:nodesVisited} (intention/state node pairs examined, paper Fig. 9 "node accesses"),
 * {@code meld:ephemeralNodes} (ephemeral nodes created, Fig. 9) and {@code meld:aborts} (melds that decided
 * abort, Fig. 13). <b>Per meld = secondary score / primary score of the same row</b>; e.g. 1,400,000
 * nodesVisited ops/s at 70,000 ops/s is 20 nodes per meld. The trial also prints both per-meld averages and the
 * abort percentage, over the measurement iterations, in a {@code [per meld]} log line. (JMH's EVENTS counters
 * would be summed over iterations, so per-meld averages cannot be reported in the table directly.)
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar MeldBenchmark [-p txnSize=2,8 -p insertPercent=50 ...]}.
 * A {@code -jvmArgsAppend} on the command line replaces the flags of {@code @Fork} below, so it must repeat
 * them: {@code -jvmArgsAppend "$(cat bin/jvm-flags) -Xmx2g ..."}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
// Annotations cannot read bin/jvm-flags, so its flags are repeated here; JvmFlagsTest checks they match.
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dchronicle.analytics.disable=true",
    "-Dchronicle.announcer.disable=true",
    "-Dio.netty.leakDetection.level=disabled",
    // heap: the node directory; off-heap: generation and measured arenas (see the setup's memory line)
    "-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=6g"})
public class MeldBenchmark {
    /** Number of pre-generated intentions; the measured sequence wraps around after them. */
    public static final int INTENTIONS = 8192;
    /** Keys in the base table (meld paper §8: 128K key-value pairs). */
    public static final int BASE_KEYS = 128 * 1024;
    /** Distance between adjacent base keys; inserts pick a fresh key in between. */
    public static final long KEY_SPACING = 1024;

    private static final long SEED = 0x5EED_3E1DL;

    @Param({"2", "4", "8", "16", "32"})
    public int txnSize;

    @Param({"1", "4", "16", "64", "256"})
    public int concurrencyDegree;

    /** Percentage of operations that are reads (below 100: only transactions that write are logged). */
    @Param({"50"})
    public int readPercent;

    /** Percentage of the non-read operations that insert new keys (0: reads and updates only, symmetric case). */
    @Param({"0"})
    public int insertPercent;

    @Param({"optimized", "bruteForce"})
    public String algorithm;

    private NodeDirectory directory;
    private Arena generationArena;
    private Arena measuredArena;
    private Meld measured;

    private Intention[] intentions;
    private long generationFinalRoot;
    private int generationCommits;
    private long startRoot;
    private int start;

    private int next;
    private long lcs;
    private int passCommits;

    @Setup(Level.Trial)
    public void setUp() {
        // readPercent 100 would log nothing: a read-only transaction needs no intention
        if (readPercent < 0 || readPercent >= 100 || insertPercent < 0 || insertPercent > 100 || txnSize < 1
            || concurrencyDegree < 0) {
            throw new IllegalArgumentException("bad parameters");
        }
        final boolean bruteForce;
        switch (algorithm) {
            case "optimized":
                bruteForce = false;
                break;
            case "bruteForce":
                bruteForce = true;
                break;
            default:
                throw new IllegalArgumentException("algorithm must be optimized or bruteForce: " + algorithm);
        }
        directory = new NodeDirectory();
        generationArena = new Arena();
        measuredArena = new Arena();
        final Meld generation = new Meld(generationArena, directory).bruteForce(bruteForce);
        measured = new Meld(measuredArena, directory).bruteForce(bruteForce);
        final IntentionAdopter adopter = new IntentionAdopter(generationArena, directory);
        final SplittableRandom random = new SplittableRandom(SEED);
        final long started = System.nanoTime();

        // state roots by CSN; CSN 1 is the base table
        final long[] roots = new long[INTENTIONS + 2];
        final Transaction load = new Transaction(generationArena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
        for (int i = 0; i < BASE_KEYS; i++) {
            load.put(key(i * KEY_SPACING), key(random.nextLong()));
        }
        final long baseRoot = generation.finalMeld(adopter.adopt(load, 1, 0, new Intention()), 0);
        if (baseRoot == Meld.CONFLICT) {
            throw new IllegalStateException("the base table did not commit");
        }
        roots[1] = baseRoot;

        intentions = new Intention[INTENTIONS];
        final boolean[] committed = new boolean[INTENTIONS];
        final Set<Long> inserted = new HashSet<>();
        long lcsRoot = baseRoot;
        int readOnly = 0;
        for (int i = 0; i < INTENTIONS; i++) {
            final int csn = i + 2;
            final int snapshotCsn = Math.max(1, csn - concurrencyDegree - 1);
            Transaction txn;
            while (true) {
                txn = new Transaction(generationArena, new Snapshot(roots[snapshotCsn], snapshotCsn),
                    Isolation.SERIALIZABLE);
                for (int op = 0; op < txnSize; op++) {
                    if (random.nextInt(100) < readPercent) {
                        txn.get(key(random.nextInt(BASE_KEYS) * KEY_SPACING));
                    } else if (random.nextInt(100) < insertPercent) {
                        long k;
                        do {
                            k = random.nextInt(BASE_KEYS - 1) * KEY_SPACING + 1
                                + random.nextInt((int) KEY_SPACING - 1);
                        } while (!inserted.add(k));
                        txn.put(key(k), key(random.nextLong()));
                    } else {
                        txn.put(key(random.nextInt(BASE_KEYS) * KEY_SPACING), key(random.nextLong()));
                    }
                }
                if (txn.hasWrites()) {
                    break;
                }
                // read-only: committed at its snapshot without an intention, as a txn-server does
                readOnly++;
                if (readOnly > INTENTIONS * 16) {
                    throw new IllegalArgumentException("readPercent " + readPercent + " leaves almost no "
                        + "transaction of " + txnSize + " operations a write; the log would stay empty");
                }
            }
            final Intention intention = adopter.adopt(txn, csn, 0, new Intention());
            intentions[i] = intention;
            final long root = generation.finalMeld(intention, lcsRoot);
            if (root != Meld.CONFLICT) {
                committed[i] = true;
                lcsRoot = root;
            }
            roots[csn] = lcsRoot;
        }
        generationFinalRoot = lcsRoot;

        // the measured sequence starts once conflict zones are full
        start = Math.min(concurrencyDegree, INTENTIONS / 2);
        startRoot = roots[start + 1];
        int commits = 0;
        int allCommits = 0;
        for (int i = 0; i < INTENTIONS; i++) {
            allCommits += committed[i] ? 1 : 0;
            if (i >= start) {
                commits += committed[i] ? 1 : 0;
            }
        }
        generationCommits = commits;
        final long generationBytes = generationArena.allocatedBytes();

        // one untimed measured pass: checks the decisions and grows the measured arena to its steady size
        next = start;
        lcs = startRoot;
        passCommits = 0;
        while (next < INTENTIONS) {
            meldNext();
        }
        wrap();

        System.out.printf("%n[setup] %d intentions generated in %d ms: %d committed, abort rate %.2f%% "
                + "(measured sequence %d..%d: %.2f%%), %d read-only committed without an intention; directory %d entries; off-heap in use %d MiB "
                + "(generation arena %d MiB, measured arena %d MiB)%n",
            INTENTIONS, (System.nanoTime() - started) / 1_000_000, allCommits,
            100.0 * (INTENTIONS - allCommits) / INTENTIONS, start, INTENTIONS - 1,
            100.0 * (INTENTIONS - start - commits) / (INTENTIONS - start), readOnly, directory.size(),
            (long) NodeMemory.segmentsInUse() * NodeMemory.SEGMENT_SIZE >> 20, generationBytes >> 20,
            measuredArena.reservedBytes() >> 20);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        measuredArena.close();
        generationArena.close();
        directory.clear();
        intentions = null;
    }

    /** One final meld of the next pre-generated intention; returns the new LCS root (consumed by JMH). */
    @Benchmark
    public long meld(final MeldCounters counters) {
        final long nodesBefore = measured.nodesVisited();
        final long ephemeralsBefore = measured.ephemeralsCreated();
        final boolean commit = meldNext();
        counters.melds++;
        counters.aborts += commit ? 0 : 1;
        counters.nodesVisited += measured.nodesVisited() - nodesBefore;
        counters.ephemeralNodes += measured.ephemeralsCreated() - ephemeralsBefore;
        if (next == INTENTIONS) {
            wrap();
        }
        return lcs;
    }

    /**
     * Index of the intention the {@code k}-th next meld will meld ({@code k = 0}: the next one), following the
     * wrap-around of the measured sequence; for {@link MeldWarmBenchmark}, which touches them ahead of time.
     */
    int upcoming(final int k) {
        int i = next + k;
        while (i >= INTENTIONS) {
            i = start + (i - INTENTIONS);
        }
        return i;
    }

    Intention intention(final int i) {
        return intentions[i];
    }

    /** One measured meld as {@link #meld} does it, without counters; for {@link MeldWarmBenchmark}. */
    long meldOne() {
        meldNext();
        if (next == INTENTIONS) {
            wrap();
        }
        return lcs;
    }

    private boolean meldNext() {
        final long root = measured.finalMeld(intentions[next++], lcs);
        if (root == Meld.CONFLICT) {
            return false;
        }
        lcs = root;
        passCommits++;
        return true;
    }

    /** End of a pass: check it decided exactly as the generation did, then start over. */
    private void wrap() {
        if (passCommits != generationCommits || Node.vn(lcs) != Node.vn(generationFinalRoot)) {
            throw new IllegalStateException("measured meld diverged from the generation: " + passCommits
                + " commits vs " + generationCommits + ", final root VN " + Node.vn(lcs) + " vs "
                + Node.vn(generationFinalRoot));
        }
        measuredArena.reset();
        next = start;
        lcs = startRoot;
        passCommits = 0;
    }

    private static byte[] key(final long k) {
        final byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (k >>> (56 - 8 * i));
        }
        return b;
    }

    /**
     * Auxiliary counters, reported by JMH as rates next to the primary score (unit ops/s): {@code nodesVisited}
     * and {@code ephemeralNodes} per second, {@code aborts} per second. Divide by the primary score (melds/s) of
     * the same row to get per-meld figures. The trial teardown also prints those per-meld averages, computed
     * over the measurement iterations only, as a {@code [per meld]} line in the run log.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class MeldCounters {
        /** Intention/state node pairs meld examined (meld paper Fig. 9, node accesses). */
        public long nodesVisited;
        /** Ephemeral nodes meld created (meld paper Fig. 9). */
        public long ephemeralNodes;
        /** Melds that decided abort (meld paper Fig. 13). */
        public long aborts;
        long melds;

        private long totalMelds;
        private long totalNodes;
        private long totalEphemerals;
        private long totalAborts;
        private int iterations;

        @Setup(Level.Iteration)
        public void reset() {
            nodesVisited = 0;
            ephemeralNodes = 0;
            aborts = 0;
            melds = 0;
        }

        @TearDown(Level.Iteration)
        public void accumulate(final IterationParams iteration) {
            if (iteration.getType() == IterationType.MEASUREMENT) {
                totalMelds += melds;
                totalNodes += nodesVisited;
                totalEphemerals += ephemeralNodes;
                totalAborts += aborts;
                iterations++;
            }
        }

        @TearDown(Level.Trial)
        public void report() {
            if (totalMelds > 0) {
                System.out.printf("%n[per meld] nodes visited %.2f, ephemeral nodes %.2f, aborts %.3f%% "
                        + "(%d melds in %d measurement iterations)%n",
                    (double) totalNodes / totalMelds, (double) totalEphemerals / totalMelds,
                    100.0 * totalAborts / totalMelds, totalMelds, iterations);
            }
        }
    }
}
