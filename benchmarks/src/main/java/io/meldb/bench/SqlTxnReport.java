package io.meldb.bench;

import io.meldb.bench.SqlTxnBenchmark.Target;
import io.meldb.bench.SqlTxnBenchmark.Window;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The report of {@link SqlTxnBenchmark}: medians of the rounds per target and variant, the ratios of MeldDB's
 * targets to their peers, and MeldDB's server CPU per committed transaction by thread group.
 */
final class SqlTxnReport {
    private SqlTxnReport() {
    }

    static void report(final List<Target> targets, final List<String> variants, final int rounds,
                               final Map<String, String> consistency) {
        System.out.printf(Locale.ROOT, "%n## Medians of %d rounds%n", rounds);
        for (String variant : variants) {
            System.out.printf(Locale.ROOT, "%n### variant %s: %s%n%n", variant, variant.equals("update")
                    ? "every transaction 2 UPDATEs + 8 point SELECTs"
                    : "95% read-only (10 point SELECTs), 5% 2 UPDATEs + 8 SELECTs");
            System.out.println("| target | committed tps | aborts (retried attempts) | p50 ms | p99 ms | isolation |");
            System.out.println("| --- | ---: | ---: | ---: | ---: | --- |");
            for (Target t : targets) {
                final List<Window> ws = ok(t, variant);
                if (ws == null) {
                    System.out.printf("| %s | FAILED: %s | | | | |%n", t.label, failure(t, variant));
                    continue;
                }
                final long commits = ws.stream().mapToLong(Window::commits).sum();
                final long retried = ws.stream().mapToLong(Window::retries).sum();
                final Map<String, Long> states = new TreeMap<>();
                ws.forEach(w -> w.retryStates().forEach((k, v) -> states.merge(k, v, Long::sum)));
                System.out.printf(Locale.ROOT, "| %s | %.0f | %.2f%% (%d%s) | %.2f | %.2f | %s |%n", t.label,
                        median(ws, Window::tps), 100.0 * retried / Math.max(1, commits + retried), retried,
                        states.isEmpty() ? "" : " " + states, median(ws, Window::p50Ms), median(ws, Window::p99Ms),
                        t.isolation);
            }
            final Target h2 = byId(targets, "h2");
            final Target pg = byId(targets, "postgres");
            final Target pgFloor = byId(targets, "null-pg");
            final Target jdbcFloor = byId(targets, "null-avatica");
            System.out.println();
            for (Target t : targets) {
                if (!(t.meld() || t.floor()) || ok(t, variant) == null) {
                    continue;
                }
                final Target floor = t.id.startsWith("meld-pg") ? pgFloor : t.id.equals("meld-avatica") ? jdbcFloor
                        : null;
                for (Target peer : new Target[] {h2, pg, floor}) {
                    if (peer == null || ok(peer, variant) == null) {
                        continue;
                    }
                    System.out.printf(Locale.ROOT, "%s / %s: tps %.3fx, p50 %.2fx, p99 %.2fx%n", t.label, peer.label,
                            median(ok(t, variant), Window::tps) / median(ok(peer, variant), Window::tps),
                            median(ok(t, variant), Window::p50Ms) / median(ok(peer, variant), Window::p50Ms),
                            median(ok(t, variant), Window::p99Ms) / median(ok(peer, variant), Window::p99Ms));
                }
            }
        }

        System.out.printf(Locale.ROOT, "%n## In-process server CPU per committed transaction (us), all %d rounds "
                + "(sum of thread CPU / sum of commits)%n", rounds);
        for (Target t : targets) {
            if (!t.inProcess) {
                continue;
            }
            for (String variant : variants) {
                final List<Window> ws = ok(t, variant);
                if (ws == null) {
                    continue;
                }
                final long commits = Math.max(1, ws.stream().mapToLong(Window::commits).sum());
                final Map<String, Long> cpu = new LinkedHashMap<>();
                ws.forEach(w -> w.cpuNanos().forEach((k, v) -> cpu.merge(k, v, Long::sum)));
                if (!t.meld()) {
                    // the idle MeldDB servers of the same JVM are not this target's: show its own threads only
                    final String own = WindowCpu.group(t.id.equals("null-pg") ? PgNullServer.THREAD_PREFIX
                            : t.id.equals("null-avatica") ? "meldb-jdbc-io" : "H2 ");
                    System.out.printf(Locale.ROOT, "%n%s, variant %s: %s %.1f us CPU / txn (clients %.1f)%n",
                            t.label, variant, own, cpu.getOrDefault(own, 0L) / 1e3 / commits,
                            ws.stream().mapToLong(Window::clientCpuNanos).sum() / 1e3 / commits);
                    continue;
                }
                final long server = cpu.values().stream().mapToLong(Long::longValue).sum();
                System.out.printf(Locale.ROOT, "%n%s, variant %s:%n%n| thread group | us CPU / txn |%n| --- | ---: |%n",
                        t.label, variant);
                cpu.forEach((k, v) -> {
                    if (v > 0) {
                        System.out.printf(Locale.ROOT, "| %s | %.1f |%n", k, v / 1e3 / commits);
                    }
                });
                System.out.printf(Locale.ROOT, "| **server total** | **%.1f** |%n", server / 1e3 / commits);
                System.out.printf(Locale.ROOT, "| (clients: %s*, pgjdbc cleaner) | %.1f |%n", SqlTxnBenchmark.CLIENT_PREFIX,
                        ws.stream().mapToLong(Window::clientCpuNanos).sum() / 1e3 / commits);
                System.out.printf(Locale.ROOT, "| (JVM, no Java thread: GC, JIT) | %.1f |%n",
                        ws.stream().mapToLong(Window::unattributedCpuNanos).sum() / 1e3 / commits);
            }
        }

        System.out.println();
        consistency.forEach((k, v) -> System.out.println("consistency, " + k + ": " + v));
        for (Target t : targets) {
            if (t.error != null) {
                System.out.println("FAILED target " + t.label + ": " + t.error);
            }
        }
    }

    private static Target byId(final List<Target> targets, final String id) {
        return targets.stream().filter(t -> t.id.equals(id)).findFirst().orElse(null);
    }

    /** The target's windows of {@code variant} if none failed, else null. */
    static List<Window> ok(final Target t, final String variant) {
        final List<Window> ws = t.windows.get(variant);
        if (t.error != null || ws == null || ws.isEmpty() || ws.stream().anyMatch(w -> w.error() != null)) {
            return null;
        }
        return ws;
    }

    static String failure(final Target t, final String variant) {
        if (t.error != null) {
            return t.error;
        }
        final List<Window> ws = t.windows.get(variant);
        return ws == null ? "not run" : ws.stream().filter(w -> w.error() != null).map(Window::error).findFirst()
                .orElse("?");
    }

    static double median(final List<Window> ws, final java.util.function.ToDoubleFunction<Window> f) {
        final double[] v = ws.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
