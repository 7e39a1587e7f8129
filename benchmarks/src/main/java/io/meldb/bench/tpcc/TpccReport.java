package io.meldb.bench.tpcc;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report of {@link TpccBenchmark}: a line per window as it ends, then per warehouse count and payment mode a
 * table of committed tps and new-order tpm (medians over rounds) and, per transaction type over all rounds, the abort
 * rate (retried attempts over attempts, with the SQLStates) and the p99 latency of a finished transaction.
 */
final class TpccReport {
    private TpccReport() {
    }

    static String key(final int warehouses, final boolean apart) {
        return String.format(Locale.ROOT, "%03d %s", warehouses, apart ? "apart" : "inline");
    }

    static void printWindow(final int round, final int warehouses, final boolean apart,
                            final TpccBenchmark.Target t, final TpccWindow.Result r) {
        if (r.error() != null) {
            System.out.printf(Locale.ROOT, "round %d W=%d %-6s %-26s FAILED: %s%n", round, warehouses,
                    apart ? "apart" : "inline", t.label, r.error());
            return;
        }
        final StringBuilder b = new StringBuilder();
        for (TxnType type : TxnType.values()) {
            final TypeStats s = r.byType().get(type);
            b.append(String.format(Locale.ROOT, " %s %d/%d", type.label, s.commits + s.rollbacks, s.retries));
        }
        System.out.printf(Locale.ROOT, "round %d W=%d %-6s %-26s %7.1f tps %8.0f new-order/min; done/retried:%s%n",
                round, warehouses, apart ? "apart" : "inline", t.label, r.tps(), r.newOrderTpm(), b);
    }

    static void report(final List<TpccBenchmark.Target> targets, final int[] warehouseCounts,
                       final List<Boolean> paymentModes, final int rounds, final int threads,
                       final Map<String, String> consistency) {
        System.out.printf(Locale.ROOT, "%n## Order-entry, %d terminals, %d rounds (tps: median; aborts and p99: all "
                + "rounds)%n", threads, rounds);
        for (TpccBenchmark.Target t : targets) {
            System.out.printf(Locale.ROOT, "- %s: %s%n", t.label, t.error != null ? "FAILED: " + t.error
                    : "loaded " + t.loadNote);
        }
        for (int w : warehouseCounts) {
            for (boolean apart : paymentModes) {
                System.out.printf(Locale.ROOT, "%n### %d warehouse%s, payment reads %s%n%n", w, w == 1 ? "" : "s",
                        apart ? "apart (read-only piece first)" : "inline");
                final StringBuilder head = new StringBuilder("| target | tps | new-order/min |");
                final StringBuilder rule = new StringBuilder("| --- | ---: | ---: |");
                for (TxnType type : TxnType.values()) {
                    head.append(' ').append(type.label).append(" aborts | p99 ms |");
                    rule.append(" ---: | ---: |");
                }
                System.out.println(head);
                System.out.println(rule);
                for (TpccBenchmark.Target t : targets) {
                    final List<TpccWindow.Result> ws = t.windows.get(key(w, apart));
                    if (ws == null || ws.isEmpty()) {
                        continue;
                    }
                    final String failed = ws.stream().map(TpccWindow.Result::error).filter(e -> e != null)
                            .findFirst().orElse(null);
                    if (failed != null) {
                        System.out.printf("| %s | FAILED: %s |%n", t.label, failed);
                        continue;
                    }
                    final Map<TxnType, TypeStats> all = new EnumMap<>(TxnType.class);
                    for (TxnType type : TxnType.values()) {
                        final TypeStats s = new TypeStats();
                        ws.forEach(r -> s.add(r.byType().get(type)));
                        all.put(type, s);
                    }
                    final StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %s | %.1f | %.0f |",
                            t.label, median(ws.stream().mapToDouble(TpccWindow.Result::tps).toArray()),
                            median(ws.stream().mapToDouble(TpccWindow.Result::newOrderTpm).toArray())));
                    for (TxnType type : TxnType.values()) {
                        final TypeStats s = all.get(type);
                        row.append(String.format(Locale.ROOT, " %.1f%% | %.1f |", 100 * s.abortRate(), s.p99Ms()));
                    }
                    System.out.println(row);
                }
                System.out.println();
                for (TpccBenchmark.Target t : targets) {
                    final List<TpccWindow.Result> ws = t.windows.get(key(w, apart));
                    if (ws == null) {
                        continue;
                    }
                    final StringBuilder states = new StringBuilder();
                    for (TxnType type : TxnType.values()) {
                        final TypeStats s = new TypeStats();
                        ws.forEach(r -> s.add(r.byType().get(type)));
                        if (s.retries > 0) {
                            states.append(' ').append(type.label).append(' ').append(s.retryStates);
                        }
                        if (s.rollbacks > 0 && type == TxnType.NEW_ORDER) {
                            states.append(" (new-order rolled back by the spec: ").append(s.rollbacks).append(')');
                        }
                    }
                    System.out.printf("retried SQLStates, %s:%s%n", t.label, states.length() == 0 ? " none" : states);
                }
            }
        }
        System.out.println();
        consistency.forEach((db, verdict) -> System.out.printf("consistency %s: %s%n", db, verdict));
    }

    private static double median(final double[] values) {
        final double[] v = values.clone();
        java.util.Arrays.sort(v);
        if (v.length == 0) {
            return 0;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
