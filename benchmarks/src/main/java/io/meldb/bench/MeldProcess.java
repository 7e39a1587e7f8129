package io.meldb.bench;

import io.meldb.log.Durability;
import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * MeldDB's embedded database as {@code bin/meldb} runs it ({@code GatewayMain}: log server, txn-server and gateway
 * in one JVM), in a process of its own started from this JVM's classpath with this JVM's flags and heap, for the
 * SQL benchmark's target {@code meld-pg-process}. Its CPU is the process's as a whole (every thread, GC and JIT
 * included), from the operating system's accounting.
 */
final class MeldProcess implements AutoCloseable {
    /** The CPU group the benchmark reports the process's CPU under. */
    static final String CPU_GROUP = "MeldDB's own process (all its threads, GC and JIT)";
    private static final Pattern READY = Pattern.compile("MeldDB PostgreSQL: postgresql://[^:]+:(\\d+)/");

    private final ChildProcess child;
    private final int pgPort;

    private MeldProcess(final ChildProcess child, final int pgPort) {
        this.child = child;
        this.pgPort = pgPort;
    }

    /** Starts the database on free loopback ports with its data in {@code dir}; returns once it serves. */
    static MeldProcess start(final Path dir, final Durability durability) {
        final ChildProcess child = ChildProcess.builder("MeldDB (bin/meldb)", JavaCommand
                        .main("io.meldb.launcher.GatewayMain").inheritJvmFlags()
                        .jvmArgs("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                        .args("--host", "127.0.0.1", "--port", "0", "--pg-port", "0", "--metrics-port", "0",
                                "--data-dir", dir.resolve("data").toString(), "--durability",
                                durability.flag())
                        .build())
                .output(dir.resolve("meldb.out")).ready(READY).start();
        try {
            final MatchResult ready = child.awaitReady(Duration.ofMinutes(2));
            return new MeldProcess(child, Integer.parseInt(ready.group(1)));
        } catch (RuntimeException | Error e) {
            child.close();
            throw e;
        }
    }

    int pgPort() {
        return pgPort;
    }

    /** CPU the process has used so far, in nanoseconds (the kernel counts it in ticks of 10 ms). */
    long cpuNanos() {
        return child.process().toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    @Override
    public void close() {
        child.stop(Duration.ofSeconds(10));
    }
}
