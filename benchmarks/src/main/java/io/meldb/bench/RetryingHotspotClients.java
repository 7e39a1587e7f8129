package io.meldb.bench;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Closed-loop clients of the Hyder II transaction (meld paper §8, Hyder II §6: {@code reads} point reads and
 * {@code updates} read-modify-writes of random keys, {@code hotShare} of the keys taking {@code hotAccess} of the
 * accesses) that RETRY an aborted transaction until it commits, passing its restart count to
 * {@link TxnService#begin(IsolationLevel, boolean, int)} so the reorder window's tail-latency policy sees it (seed 001
 * §4.2). Latency runs from a transaction's first begin to its commit, retries included. Only what happens between
 * the end of the warm-up and the end of the run is counted.
 */
final class RetryingHotspotClients {
    /** The workload: keys, the hotspot and the transaction's shape. */
    record Workload(String name, int keys, double hotShare, double hotAccess, int reads, int updates) {
        byte[] key(final SplittableRandom rnd) {
            final int hot = Math.max(1, (int) (keys * hotShare));
            final int k = rnd.nextDouble() < hotAccess ? rnd.nextInt(hot) : hot + rnd.nextInt(keys - hot);
            return key(k);
        }

        static byte[] key(final int k) {
            return new byte[] {'k', (byte) (k >>> 24), (byte) (k >>> 16), (byte) (k >>> 8), (byte) k};
        }
    }

    /** Counts of one run: committed transactions, aborted attempts, latency (µs) and restarts per commit. */
    record Result(long commits, long aborts, Histogram latencyMicros, Histogram restarts, double seconds) {
    }

    private RetryingHotspotClients() {
    }

    /** Runs {@code clients} threads for {@code warmupNanos + measureNanos}; {@code atMeasureStart} runs at the switch. */
    static Result run(final TxnService db, final Workload w, final int clients, final long warmupNanos,
                      final long measureNanos, final long seed, final Runnable atMeasureStart)
        throws InterruptedException {
        final long start = System.nanoTime();
        final long measureFrom = start + warmupNanos;
        final long end = measureFrom + measureNanos;
        final List<Thread> threads = new ArrayList<>();
        final Histogram[] latency = new Histogram[clients];
        final Histogram[] restarts = new Histogram[clients];
        final long[] commits = new long[clients];
        final long[] aborts = new long[clients];
        final List<Throwable> failures = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            final int me = c;
            latency[c] = new Histogram(TimeUnit.MINUTES.toMicros(5), 3);
            restarts[c] = new Histogram(1_000_000, 3);
            final SplittableRandom rnd = new SplittableRandom(seed * 1_000 + c);
            threads.add(new Thread(() -> {
                try {
                    loop(db, w, rnd, measureFrom, end, latency[me], restarts[me], commits, aborts, me);
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "client-" + c));
        }
        threads.forEach(Thread::start);
        final long untilMeasure = measureFrom - System.nanoTime();
        if (untilMeasure > 0) {
            TimeUnit.NANOSECONDS.sleep(untilMeasure);
        }
        atMeasureStart.run();
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a client failed", failures.get(0));
        }
        final Histogram lat = new Histogram(TimeUnit.MINUTES.toMicros(5), 3);
        final Histogram rs = new Histogram(1_000_000, 3);
        long commitSum = 0;
        long abortSum = 0;
        for (int c = 0; c < clients; c++) {
            lat.add(latency[c]);
            rs.add(restarts[c]);
            commitSum += commits[c];
            abortSum += aborts[c];
        }
        return new Result(commitSum, abortSum, lat, rs, measureNanos / 1e9);
    }

    private static void loop(final TxnService db, final Workload w, final SplittableRandom rnd, final long measureFrom,
                             final long end, final Histogram latency, final Histogram restartsPerCommit,
                             final long[] commits, final long[] aborts, final int me) {
        while (System.nanoTime() < end) {
            final long first = System.nanoTime();
            int restarts = 0;
            // the same keys on every attempt: a retry is the same transaction, as in the simulation
            final long txnSeed = rnd.nextLong();
            while (true) {
                final boolean committed = attempt(db, w, new SplittableRandom(txnSeed), restarts);
                final long now = System.nanoTime();
                if (committed) {
                    if (now >= measureFrom && now < end) {
                        commits[me]++;
                        latency.recordValue(Math.max(1, (now - first) / 1_000));
                        restartsPerCommit.recordValue(restarts);
                    }
                    break;
                }
                if (now >= measureFrom && now < end) {
                    aborts[me]++;
                }
                if (now >= end) {
                    return;
                }
                restarts++;
            }
        }
    }

    /** One attempt; false when meld aborted it (a conflict). */
    private static boolean attempt(final TxnService db, final Workload w, final SplittableRandom keys,
                                   final int restarts) {
        try (TxnSession t = db.begin(IsolationLevel.SERIALIZABLE, false, restarts)) {
            for (int i = 0; i < w.reads(); i++) {
                t.get(w.key(keys));
            }
            for (int i = 0; i < w.updates(); i++) {
                final byte[] k = w.key(keys);
                final byte[] old = t.get(k);
                final byte[] value = old == null ? new byte[8] : old.clone();
                value[7]++;
                t.put(k, value);
            }
            t.commit();
            return true;
        } catch (TxnException e) {
            if (e.error() != TxnError.CONFLICT) {
                throw e;
            }
            return false;
        }
    }
}
