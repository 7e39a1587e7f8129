package io.meldb.bench;

import io.meldb.core.Intention;
import io.meldb.core.Node;
import io.meldb.core.NodeMemory;
import io.meldb.core.Versions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * {@link MeldBenchmark} with <em>warm</em> intentions: the same workload, setup and measured final melds, but
 * before each batch of {@value #BATCH} melds an untimed step reads every node (both of its cache lines), key and
 * payload of the next {@value #BATCH} intentions.
 *
 * <p>Why a second variant: {@link MeldBenchmark} cycles through {@value MeldBenchmark#INTENTIONS} pre-generated
 * intentions (tens to hundreds of MiB), so every intention node meld reads is a cache miss. In the real pipeline
 * (Hyder II §5.2) a deserializer thread has just decoded each intention into node memory before final meld reads
 * it, so its nodes are usually still in cache (the shared L3, or L2 when both run on one core). The untimed touch
 * mirrors that deserializer. The state (LCS) nodes are not touched: they are as warm or cold as in
 * {@link MeldBenchmark}. Neither variant is "the" number: cold intentions bound the worst case (a meld thread
 * that has fallen behind the log), warm intentions the case of a deserializer running just ahead.
 *
 * <p>One operation is still one meld ({@code @OperationsPerInvocation}); JMH excludes the per-invocation touch
 * from the measured time. The class name deliberately does not contain "MeldBenchmark", so the default
 * {@code MeldBenchmark} run (cold) does not include it; run it with
 * {@code java -jar benchmarks/target/benchmarks.jar MeldWarmBenchmark [-p ...]}.
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
    "-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=6g"})
public class MeldWarmBenchmark {
    /** Melds per invocation: the intentions a deserializer has produced ahead of final meld. */
    public static final int BATCH = 16;

    @Param({"2", "4", "8", "16", "32"})
    public int txnSize;

    @Param({"1", "4", "16", "64", "256"})
    public int concurrencyDegree;

    @Param({"50"})
    public int readPercent;

    @Param({"0"})
    public int insertPercent;

    @Param({"optimized", "bruteForce"})
    public String algorithm;

    private MeldBenchmark workload;
    private long[] stack = new long[256];
    /** Sum of the bytes read by the touch, kept so the JIT cannot drop the reads. */
    public long touched;

    @Setup(Level.Trial)
    public void setUp() {
        workload = new MeldBenchmark();
        workload.txnSize = txnSize;
        workload.concurrencyDegree = concurrencyDegree;
        workload.readPercent = readPercent;
        workload.insertPercent = insertPercent;
        workload.algorithm = algorithm;
        workload.setUp();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        workload.tearDown();
    }

    /** Untimed: reads the next batch's intentions as a deserializer that just wrote them would have left them. */
    @Setup(Level.Invocation)
    public void touchNextBatch() {
        long sum = 0;
        for (int k = 0; k < BATCH; k++) {
            sum += touch(workload.intention(workload.upcoming(k)));
        }
        touched += sum;
    }

    private long touch(final Intention intention) {
        long sum = 0;
        int top = 0;
        stack[top++] = intention.root();
        while (top > 0) {
            final long n = stack[--top];
            if (n == 0 || Versions.csnOf(Node.vn(n)) < intention.minCsn()) {
                continue;
            }
            sum += NodeMemory.getLong(n, 0) + NodeMemory.getLong(n, Node.SIZE - 8);
            final int keyLength = Node.keyLength(n);
            for (int i = 0; i < keyLength; i += 8) {
                sum += NodeMemory.getByte(Node.key(n), i);
            }
            final int payloadLength = Node.payloadLength(n);
            for (int i = 0; i < payloadLength; i += 8) {
                sum += NodeMemory.getByte(Node.payload(n), i);
            }
            if (top + 2 > stack.length) {
                stack = java.util.Arrays.copyOf(stack, stack.length * 2);
            }
            stack[top++] = Node.left(n);
            stack[top++] = Node.right(n);
        }
        return sum;
    }

    /** {@value #BATCH} final melds of the next pre-generated intentions; returns the last LCS root. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long meld() {
        long root = 0;
        for (int k = 0; k < BATCH; k++) {
            root = workload.meldOne();
        }
        return root;
    }
}
