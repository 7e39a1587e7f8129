package io.meldb.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CPU of one measured window of {@link SqlTxnBenchmark}, from the JVM's per-thread CPU counters sampled at the
 * window's two ends: by server thread group (thread-name prefixes), the client threads' apart, and what the process
 * used beyond its Java threads (GC, JIT).
 *
 * @param groups            nanoseconds per thread group, in print order (the last "other JVM threads")
 * @param byThread          nanoseconds per server thread name
 * @param clientNanos       the benchmark's client threads and pgjdbc's cleaner
 * @param unattributedNanos the process's CPU beyond its Java threads
 */
record WindowCpu(Map<String, Long> groups, Map<String, Long> byThread, long clientNanos, long unattributedNanos) {
    /** Client-side threads: the benchmark's workers and pgjdbc's cleaner. */
    private static final String[] CLIENT_THREADS = {SqlTxnBenchmark.CLIENT_PREFIX, "PostgreSQL-JDBC"};
    /** CPU groups by thread-name prefix, in print order; the rest is "other". */
    private static final String[][] CPU_GROUPS = {
        {"PostgreSQL protocol: meldb-pg-io (Netty, messages)", "meldb-pg-io"},
        {"PostgreSQL protocol: meldb-pg-worker (statements, Calcite)", "meldb-pg-worker"},
        {"Avatica/Jetty (avatica_qtp*, Connector-Scheduler*; HTTP, protobuf, statements, Calcite)", "avatica_qtp",
            "qtp", "Connector-Scheduler"},
        {"JDBC endpoint: meldb-jdbc-io (Netty, HTTP, protobuf, fast-path statements, commits)", "meldb-jdbc-io"},
        {"JDBC endpoint: meldb-jdbc-worker (other requests, Calcite)", "meldb-jdbc-worker"},
        {"txn-server (meldb-reader/decode/premeld/meld/reply/checkpoint/compaction)", "meldb-reader-",
            "meldb-decode-", "meldb-premeld-", "meldb-meld-", "meldb-reply-", "meldb-checkpoint-",
            "meldb-compaction-"},
        {"txn-server chained on the in-process log's subscription thread (log-inproc-sub: read, meld, reply)",
            "log-inproc-sub"},
        {"log server (log-io/accept/read/writer/pretouch, log-client, Chronicle's)", "log-",
            "background~resource~releaser", "main/disk~space~checker"},
        {"H2 TCP server (H2 *, MVStore *)", "H2 ", "H2-", "MVStore"},
        {"no-op PostgreSQL-protocol server (pgnull-io)", PgNullServer.THREAD_PREFIX},
    };
    private static final String OTHER = "other JVM threads";

    /** Every thread's CPU so far, and the process's. */
    record Sample(Map<Long, ThreadCpu> threads, long processNanos) {
    }

    /** One thread's name and CPU so far. */
    record ThreadCpu(String name, long nanos) {
    }

    static Sample sample(final ThreadMXBean mx) {
        final Map<Long, ThreadCpu> out = new HashMap<>();
        final long[] ids = mx.getAllThreadIds();
        final ThreadInfo[] infos = mx.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] == null) {
                continue;
            }
            final long nanos = mx.getThreadCpuTime(ids[i]);
            if (nanos >= 0) {
                out.put(ids[i], new ThreadCpu(infos[i].getThreadName(), nanos));
            }
        }
        final long process = ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : 0;
        return new Sample(out, process);
    }

    /** The CPU used between two samples. */
    static WindowCpu between(final Sample start, final Sample end) {
        final Map<String, Long> groups = new LinkedHashMap<>();
        for (String[] g : CPU_GROUPS) {
            groups.put(g[0], 0L);
        }
        groups.put(OTHER, 0L);
        final Map<String, Long> byThread = new HashMap<>();
        long client = 0;
        long allThreads = 0;
        for (Map.Entry<Long, ThreadCpu> e : end.threads().entrySet()) {
            final ThreadCpu before = start.threads().get(e.getKey());
            final long delta = e.getValue().nanos() - (before == null ? 0 : before.nanos());
            if (delta <= 0) {
                continue;
            }
            allThreads += delta;
            final String name = e.getValue().name();
            if (isClient(name)) {
                client += delta;
            } else {
                groups.merge(group(name), delta, Long::sum);
                byThread.merge(name, delta, Long::sum);
            }
        }
        return new WindowCpu(groups, byThread, client,
                Math.max(0, end.processNanos() - start.processNanos() - allThreads));
    }

    private static boolean isClient(final String threadName) {
        for (String prefix : CLIENT_THREADS) {
            if (threadName.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** The group a thread's CPU is reported under. */
    static String group(final String threadName) {
        for (String[] g : CPU_GROUPS) {
            for (int i = 1; i < g.length; i++) {
                if (threadName.startsWith(g[i])) {
                    return g[0];
                }
            }
        }
        return OTHER;
    }
}
