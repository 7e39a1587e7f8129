package io.meldb.bench;

import io.meldb.core.IntentionEncoder;
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

    @Param({"100000"})
    public int rows;

    @Param({"20000"})
    public int history;

    private SqlShapedTree tree;
    private Transaction[] transactions;
    private final IntentionEncoder encoder = new IntentionEncoder();
    private final ExpandableDirectByteBuffer record = new ExpandableDirectByteBuffer(64 * 1024);
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        tree = new SqlShapedTree(rows, history, new SplittableRandom(42));
        transactions = new Transaction[TRANSACTIONS];
        long recordBytes = 0;
        for (int t = 0; t < TRANSACTIONS; t++) {
            transactions[t] = tree.update();
            recordBytes += encoder.encode(transactions[t], 0, record);
        }
        System.out.printf("%n[setup] %d bytes per intention record%n", recordBytes / TRANSACTIONS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        tree.close();
    }

    /** Encodes one update transaction's intention; returns its length. */
    @Benchmark
    public int encode() {
        final Transaction txn = transactions[next];
        next = (next + 1) & (TRANSACTIONS - 1);
        return encoder.encode(txn, 0, record);
    }
}
