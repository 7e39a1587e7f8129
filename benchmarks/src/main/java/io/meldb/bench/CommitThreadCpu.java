package io.meldb.bench;

import io.meldb.log.server.InProcessLog;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.meldb.txn.TxnServer;
import io.meldb.txn.TxnServerConfig;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Thread CPU and allocation per update commit, by thread, below SQL (issue 16: the commit's append and the log,
 * Hyder II §5.1): an embedded node (a log server's store reached in process, one txn-server), {@code --rows} keys of
 * 100-byte values, then one client thread committing {@code --commits} SERIALIZABLE transactions of 8 point reads
 * and 2 writes (the SQL benchmark's update transaction without the SQL: a record of about 15 KB at 100,000 rows)
 * after as many unmeasured ones. Prints, per thread group, µs of CPU and bytes allocated per commit from the JVM's
 * per-thread counters: the committing thread (encode, framing, append), the log's writer, its in-process
 * subscription and toucher, the txn-server's reader and its other threads. One client and no protocol, so the
 * figures move far less with the machine's load than the SQL benchmark's; for an A/B, run it alternately from two
 * builds' jars.
 *
 * <pre>java $(cat bin/jvm-flags) -Xmx1g -cp benchmarks/target/benchmarks.jar io.meldb.bench.CommitThreadCpu
 *     [--commits 4000] [--rows 100000]</pre>
 */
public final class CommitThreadCpu {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int VALUE_BYTES = 100;

    private CommitThreadCpu() {
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> opts = new HashMap<>(Map.of("commits", "4000", "rows", "100000"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--") || !opts.containsKey(args[i].substring(2))) {
                System.err.println("usage: CommitThreadCpu [--commits N] [--rows N]");
                System.exit(2);
            }
            opts.put(args[i].substring(2), args[i + 1]);
        }
        final int commits = Integer.parseInt(opts.get("commits"));
        final int rows = Integer.parseInt(opts.get("rows"));
        final Path dir = Files.createTempDirectory("meldb-commitcpu");
        try {
            run(dir, rows, commits);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void run(final Path dir, final int rows, final int commits) throws Exception {
        final SplittableRandom random = new SplittableRandom(3);
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).port(0).metricsPort(-1))) {
            final InProcessLog inProcess = InProcessLog.over(log.store(), log.config().blockSize());
            try (TxnServer db = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()), inProcess)) {
                load(db, rows);
                commit(db, random, rows, commits); // warm-up
                final Map<String, long[]> before = sample();
                final long start = System.nanoTime();
                commit(db, random, rows, commits);
                final double seconds = (System.nanoTime() - start) / 1e9;
                final Map<String, long[]> after = sample();
                final StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%.0f commits/s;",
                    commits / seconds));
                for (Map.Entry<String, long[]> e : after.entrySet()) {
                    final long[] b = before.getOrDefault(e.getKey(), new long[2]);
                    out.append(String.format(Locale.ROOT, " %s=%.1fus/%.0fB", e.getKey(),
                        (e.getValue()[0] - b[0]) / 1000.0 / commits, (e.getValue()[1] - b[1]) / (double) commits));
                }
                System.out.println(out);
            }
        }
    }

    private static void load(final TxnService db, final int rows) {
        final byte[] value = new byte[VALUE_BYTES];
        for (int from = 0; from < rows; from += 1000) {
            try (TxnSession s = db.begin(IsolationLevel.SNAPSHOT, false)) {
                for (int k = from; k < Math.min(rows, from + 1000); k++) {
                    s.put(key(k), value);
                }
                s.commit();
            }
        }
    }

    private static void commit(final TxnService db, final SplittableRandom random, final int rows, final int n) {
        final byte[] value = new byte[VALUE_BYTES];
        for (int i = 0; i < n; i++) {
            try (TxnSession s = db.begin(IsolationLevel.SERIALIZABLE, false)) {
                for (int r = 0; r < 8; r++) {
                    s.get(key(random.nextInt(rows)));
                }
                for (int w = 0; w < 2; w++) {
                    s.put(key(random.nextInt(rows)), value);
                }
                s.commit();
            }
        }
    }

    private static byte[] key(final int k) {
        return ByteBuffer.allocate(Long.BYTES).putLong(k).array();
    }

    /** CPU ns and allocated bytes so far per thread group (threads that ended are not counted). */
    private static Map<String, long[]> sample() {
        final Map<String, long[]> groups = new TreeMap<>();
        final Thread[] all = new Thread[Thread.activeCount() * 2 + 16];
        final int n = Thread.enumerate(all);
        for (int i = 0; i < n; i++) {
            final String group = group(all[i]);
            if (group != null) {
                final long[] g = groups.computeIfAbsent(group, k -> new long[2]);
                g[0] += Math.max(0, THREADS.getThreadCpuTime(all[i].getId()));
                g[1] += Math.max(0, THREADS.getThreadAllocatedBytes(all[i].getId()));
            }
        }
        return groups;
    }

    private static String group(final Thread t) {
        final String name = t.getName();
        if (t == Thread.currentThread()) {
            return "committer";
        } else if (name.startsWith("log-writer")) {
            return "log-writer";
        } else if (name.startsWith("log-inproc-sub")) {
            return "log-sub";
        } else if (name.startsWith("log-pretouch")) {
            return "log-pretouch";
        } else if (name.startsWith("meldb-reader")) {
            return "reader";
        } else if (name.startsWith("meldb-")) {
            return "txn-other";
        }
        return null;
    }
}
