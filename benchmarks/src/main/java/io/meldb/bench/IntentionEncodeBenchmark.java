package io.meldb.bench;

import io.meldb.core.Arena;
import io.meldb.core.Intention;
import io.meldb.core.IntentionAdopter;
import io.meldb.core.IntentionEncoder;
import io.meldb.core.Isolation;
import io.meldb.core.Meld;
import io.meldb.core.NodeDirectory;
import io.meldb.core.Snapshot;
import io.meldb.core.Transaction;
import org.agrona.ExpandableDirectByteBuffer;
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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Encoding one commit's intention (meld paper App. E; {@code IntentionEncoder}), as a session does on the
 * PostgreSQL I/O thread at COMMIT: the SQL benchmark's update transaction (issue 16), 2 updates and 8 point reads at
 * serializable isolation on {@code rows} keys with 112-byte values, built on a state that already went through
 * {@code history} such transactions. Each operation encodes the next of {@value #TRANSACTIONS} prebuilt
 * transactions, whose nodes are scattered over memory as a server's are; run with {@code -prof gc} to see that the
 * encoder allocates nothing.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar IntentionEncodeBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
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
    "-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=6g"})
public class IntentionEncodeBenchmark {
    private static final int TRANSACTIONS = 4096;
    private static final int VALUE_BYTES = 112;

    @Param({"100000"})
    public int rows;

    @Param({"20000"})
    public int history;

    private Arena arena;
    private Transaction[] transactions;
    private final IntentionEncoder encoder = new IntentionEncoder();
    private final ExpandableDirectByteBuffer record = new ExpandableDirectByteBuffer(64 * 1024);
    private int next;
    /** Record bytes per transaction, from the untimed setup. */
    private long recordBytes;

    @Setup(Level.Trial)
    public void setUp() {
        final NodeDirectory directory = new NodeDirectory();
        arena = new Arena();
        final Meld meld = new Meld(arena, directory);
        final IntentionAdopter adopter = new IntentionAdopter(arena, directory);
        final SplittableRandom random = new SplittableRandom(42);
        final Transaction load = new Transaction(arena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
        for (int i = 0; i < rows; i++) {
            load.put(key(i), value(random));
        }
        long lcs = commit(meld, adopter.adopt(load, 1, 0, new Intention()), 0);
        long csn = 1;
        for (int s = 0; s < history; s++) {
            csn++;
            lcs = commit(meld, adopter.adopt(transaction(random, lcs, csn - 1), csn, 0, new Intention()), lcs);
        }
        transactions = new Transaction[TRANSACTIONS];
        for (int t = 0; t < TRANSACTIONS; t++) {
            transactions[t] = transaction(random, lcs, csn);
            recordBytes += encoder.encode(transactions[t], 0, record);
        }
        System.out.printf("%n[setup] %d bytes per intention record%n", recordBytes / TRANSACTIONS);
    }

    private Transaction transaction(final SplittableRandom random, final long root, final long csn) {
        final Transaction txn = new Transaction(arena, new Snapshot(root, csn), Isolation.SERIALIZABLE);
        txn.put(key(random.nextInt(rows)), value(random));
        txn.put(key(random.nextInt(rows)), value(random));
        for (int op = 0; op < 8; op++) {
            txn.get(key(random.nextInt(rows)));
        }
        return txn;
    }

    private static long commit(final Meld meld, final Intention intention, final long lcs) {
        final long root = meld.finalMeld(intention, lcs);
        if (root == Meld.CONFLICT) {
            throw new IllegalStateException("a transaction on the latest state did not commit");
        }
        return root;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Encodes one update transaction's intention; returns its length. */
    @Benchmark
    public int encode() {
        final Transaction txn = transactions[next];
        next = (next + 1) & (TRANSACTIONS - 1);
        return encoder.encode(txn, 0, record);
    }

    private static byte[] key(final int id) {
        return new byte[] {0, 0, 0, 7, (byte) 0x80, 1, (byte) ((id >>> 24) ^ 0x80), (byte) (id >>> 16),
            (byte) (id >>> 8), (byte) id};
    }

    private static byte[] value(final SplittableRandom random) {
        final byte[] v = new byte[VALUE_BYTES];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) ('a' + random.nextInt(26));
        }
        return v;
    }
}
