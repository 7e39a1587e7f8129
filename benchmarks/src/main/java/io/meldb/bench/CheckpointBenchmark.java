package io.meldb.bench;

import io.meldb.core.Arena;
import io.meldb.core.CheckpointLoader;
import io.meldb.core.CheckpointWriter;
import io.meldb.core.Intention;
import io.meldb.core.IntentionAdopter;
import io.meldb.core.Isolation;
import io.meldb.core.Meld;
import io.meldb.core.NodeDirectory;
import io.meldb.core.Snapshot;
import io.meldb.core.Transaction;
import io.meldb.txn.checkpoint.CheckpointAppender;
import org.agrona.concurrent.UnsafeBuffer;
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

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One compaction as a txn-server runs it (meld paper App. A-B; {@code Checkpointer}): every node of the retained
 * states serialized into checkpoint chunks, each chunk framed as its log record, then all of them loaded into a
 * fresh arena and node directory. This is the work the meld thread waits for at each checkpoint, so its time and
 * its heap allocation (run with {@code -prof gc}) are what a checkpoint costs the commit path.
 *
 * <p>Workload: the SQL benchmark's table shape (issue 16): {@code rows} keys with 112-byte values, then
 * {@code states} committed transactions of 2 updates and 8 point reads each, melded one after another; the
 * checkpoint holds all {@code states + 1} states, as a server's holds the last {@code maxSnapshotAge}.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar CheckpointBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
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
public class CheckpointBenchmark {
    private static final int CHUNK_BYTES = 256 * 1024;
    private static final int VALUE_BYTES = 112;

    @Param({"100000"})
    public int rows;

    @Param({"10000"})
    public int states;

    private NodeDirectory directory;
    private Arena arena;
    private long[] roots;
    /** Nodes in the checkpoint, from an untimed pass: what a server knows from its previous checkpoint. */
    private int checkpointNodes;

    @Setup(Level.Trial)
    public void setUp() {
        directory = new NodeDirectory();
        arena = new Arena();
        final Meld meld = new Meld(arena, directory);
        final IntentionAdopter adopter = new IntentionAdopter(arena, directory);
        final SplittableRandom random = new SplittableRandom(42);
        roots = new long[states + 1];
        final Transaction load = new Transaction(arena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
        for (int i = 0; i < rows; i++) {
            load.put(key(i), value(random));
        }
        long lcs = commit(meld, adopter.adopt(load, 1, 0, new Intention()), 0);
        roots[0] = lcs;
        for (int s = 1; s <= states; s++) {
            final long csn = s + 1;
            final Transaction txn = new Transaction(arena, new Snapshot(lcs, csn - 1), Isolation.SERIALIZABLE);
            for (int op = 0; op < 8; op++) {
                txn.get(key(random.nextInt(rows)));
            }
            txn.put(key(random.nextInt(rows)), value(random));
            txn.put(key(random.nextInt(rows)), value(random));
            lcs = commit(meld, adopter.adopt(txn, csn, 0, new Intention()), lcs);
            roots[s] = lcs;
        }
        final CheckpointWriter count = new CheckpointWriter(CHUNK_BYTES, (b, o, l) -> { });
        for (long root : roots) {
            count.writeState(root);
        }
        count.finish();
        checkpointNodes = (int) count.nodesWritten();
        System.out.printf("%n[setup] checkpoint of %d states: %d nodes, %d MiB%n", roots.length, checkpointNodes,
            count.bytesWritten() >> 20);
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
        directory.clear();
    }

    /** Serializes the retained states into log records and loads them into new memory; returns the nodes loaded. */
    @Benchmark
    public long compact() {
        final List<UnsafeBuffer> chunks = new ArrayList<>();
        final NodeDirectory loaded = new NodeDirectory(checkpointNodes);
        try (Arena chunkMemory = new Arena(); Arena into = new Arena()) {
            final CheckpointWriter writer = new CheckpointWriter(CHUNK_BYTES,
                (b, o, l) -> chunks.add(CheckpointAppender.record(chunkMemory, b, o, l)), checkpointNodes);
            for (long root : roots) {
                writer.writeState(root);
            }
            writer.finish();
            final CheckpointLoader loader = new CheckpointLoader(into, loaded);
            for (UnsafeBuffer chunk : chunks) {
                loader.load(chunk, CheckpointAppender.CHUNK_OFFSET, chunk.capacity() - CheckpointAppender.CHUNK_OFFSET);
            }
            return loader.nodesLoaded();
        }
    }

    private static byte[] key(final int id) {
        return new byte[] {0, 0, 0, 7, (byte) 0x80, (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8),
            (byte) id};
    }

    private static byte[] value(final SplittableRandom random) {
        final byte[] v = new byte[VALUE_BYTES];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) ('a' + random.nextInt(26));
        }
        return v;
    }
}
