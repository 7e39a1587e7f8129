package io.meldb.bench.tpcc;

import org.HdrHistogram.Histogram;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one transaction type did in a window: commits, rollbacks the spec asks for (new-order's unused item), retried
 * attempts by SQLState, and the latency of each finished transaction from its first attempt (retries included).
 * One per type per client thread, merged after the window, so the clients share nothing while they run.
 */
final class TypeStats {
    long commits;
    long rollbacks;
    long retries;
    final Map<String, Long> retryStates = new TreeMap<>();
    final Histogram latencyMicros = new Histogram(3_600_000_000L, 3);

    void retry(final String state) {
        retries++;
        retryStates.merge(state, 1L, Long::sum);
    }

    void add(final TypeStats o) {
        commits += o.commits;
        rollbacks += o.rollbacks;
        retries += o.retries;
        o.retryStates.forEach((k, v) -> retryStates.merge(k, v, Long::sum));
        latencyMicros.add(o.latencyMicros);
    }

    /** Retried attempts over all attempts. */
    double abortRate() {
        final long attempts = commits + rollbacks + retries;
        return attempts == 0 ? 0 : (double) retries / attempts;
    }

    double p99Ms() {
        return latencyMicros.getTotalCount() == 0 ? 0 : latencyMicros.getValueAtPercentile(99) / 1e3;
    }
}
