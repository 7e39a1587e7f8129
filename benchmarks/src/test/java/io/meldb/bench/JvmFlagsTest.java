package io.meldb.bench;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Fork;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * bin/jvm-flags is the one source of the JVM flags Chronicle Queue and Agrona need. JMH's {@code @Fork} annotations
 * cannot read a file, so the benchmarks that fork repeat the flags; this test fails when a copy drifts.
 */
class JvmFlagsTest {
    private static final List<Class<?>> FORKING_BENCHMARKS = List.of(MeldBenchmark.class, MeldWarmBenchmark.class,
        CheckpointBenchmark.class, IntentionEncodeBenchmark.class, PointReadBenchmark.class);

    @Test
    void forkedBenchmarksStartWithExactlyTheFlagsOfBinJvmFlags() throws IOException {
        final List<String> flags = Arrays.asList(Files.readString(Path.of("../bin/jvm-flags")).trim().split("\\s+"));
        for (Class<?> benchmark : FORKING_BENCHMARKS) {
            final Fork fork = benchmark.getAnnotation(Fork.class);
            assertNotNull(fork, benchmark + " has no @Fork");
            final List<String> args = Arrays.asList(fork.jvmArgsAppend());
            assertEquals(flags, args.subList(0, Math.min(flags.size(), args.size())),
                    benchmark.getSimpleName() + "'s @Fork flags differ from bin/jvm-flags");
        }
    }
}
