package io.meldb.bench;

import io.meldb.core.Isolation;
import io.meldb.core.Snapshot;
import io.meldb.core.Transaction;
import org.agrona.ExpandableArrayBuffer;
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
 * A point read by primary key on a committed state, as the SQL fast path does it (meld paper App. E's executor,
 * {@code Transaction.get}): the SQL benchmark's table (issue 16), {@code rows} keys with 112-byte values, after
 * {@code history} melded transactions of 2 updates and 8 reads, so that the tree's nodes are spread over memory as a
 * running server's are. The read descends about 1.44 log2(rows) levels; its time is the cache and TLB misses of
 * that descent. Run: {@code java -jar benchmarks/target/benchmarks.jar PointReadBenchmark}.
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
public class PointReadBenchmark {
    @Param({"100000"})
    public int rows;

    @Param({"20000"})
    public int history;

    private SqlShapedTree tree;
    private Snapshot snapshot;
    private byte[][] keys;
    private final ExpandableArrayBuffer value = new ExpandableArrayBuffer(256);
    private final SplittableRandom random = new SplittableRandom(7);

    @Setup(Level.Trial)
    public void setUp() {
        tree = new SqlShapedTree(rows, history, new SplittableRandom(42));
        snapshot = tree.snapshot();
        keys = new byte[rows][];
        for (int i = 0; i < rows; i++) {
            keys[i] = SqlShapedTree.key(i);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        tree.close();
    }

    /** One read of a random key at snapshot isolation (no readset, as a read-only transaction); its length. */
    @Benchmark
    public int read() {
        final Transaction txn = new Transaction(tree.arena(), snapshot, Isolation.SNAPSHOT);
        return txn.get(keys[random.nextInt(rows)], value);
    }
}
