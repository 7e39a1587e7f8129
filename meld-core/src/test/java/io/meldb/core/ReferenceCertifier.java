package io.meldb.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The deliberately simple oracle meld is checked against (DESIGN.md "How we know it is right"): backward
 * validation OCC over explicit read and write sets, plus a multi-version key/value history to read snapshots.
 *
 * <p>A transaction with snapshot s and log position v commits iff no committed transaction at a position in
 * (s, v) wrote a key it wrote (both isolation levels) or a key it read or a key inside a range it scanned
 * (serializable), or a key inside a range it declared a dependency on ({@link Transaction#dependOn}, both isolation
 * levels). Deletes are writes. A read-only transaction never reaches the certifier.
 */
final class ReferenceCertifier {
    private static final byte[] DELETED = new byte[0];

    /** key -> versions (csn ascending) of committed values; DELETED marks a delete. */
    private final NavigableMap<byte[], List<long[]>> versionCsns = new TreeMap<>(Arrays::compareUnsigned);
    private final Map<byte[], List<byte[]>> versionValues = new TreeMap<>(Arrays::compareUnsigned);
    private final Map<Long, Set<byte[]>> committedWrites = new HashMap<>();

    /** The value of {@code key} in the state after {@code csn}, or null. */
    byte[] read(final byte[] key, final long csn) {
        final List<long[]> csns = versionCsns.get(key);
        if (csns == null) {
            return null;
        }
        for (int i = csns.size() - 1; i >= 0; i--) {
            if (csns.get(i)[0] <= csn) {
                final byte[] v = versionValues.get(key).get(i);
                return v == DELETED ? null : v;
            }
        }
        return null;
    }

    /** All live keys of the state after {@code csn} in the range, in key order. */
    List<byte[]> keys(final RangeDependency range, final long csn) {
        final List<byte[]> out = new ArrayList<>();
        for (final byte[] key : versionCsns.keySet()) {
            if (range.contains(key) && read(key, csn) != null) {
                out.add(key);
            }
        }
        return out;
    }

    /** Why the last certification aborted (for failure messages). */
    String lastReason = "";

    boolean certify(final long csn, final long snapshotCsn, final Isolation isolation, final Collection<byte[]> reads,
                    final Collection<RangeDependency> ranges, final Map<byte[], byte[]> writes) {
        return certify(csn, snapshotCsn, isolation, reads, ranges, List.of(), writes);
    }

    boolean certify(final long csn, final long snapshotCsn, final Isolation isolation, final Collection<byte[]> reads,
                    final Collection<RangeDependency> ranges, final Collection<RangeDependency> dependencies,
                    final Map<byte[], byte[]> writes) {
        final Set<byte[]> readSet = new TreeSet<>(Arrays::compareUnsigned);
        readSet.addAll(reads);
        for (long c = snapshotCsn + 1; c < csn; c++) {
            final Set<byte[]> written = committedWrites.get(c);
            if (written == null) {
                continue;
            }
            for (final byte[] key : written) {
                if (writes.containsKey(key)) {
                    lastReason = "ww with csn " + c + " on " + Arrays.toString(key);
                    return false;
                }
                for (final RangeDependency d : dependencies) {
                    if (d.contains(key)) {
                        lastReason = "declared dependency with csn " + c + " on " + Arrays.toString(key) + " in " + d;
                        return false;
                    }
                }
                if (isolation == Isolation.SERIALIZABLE) {
                    if (readSet.contains(key)) {
                        lastReason = "rw with csn " + c + " on " + Arrays.toString(key);
                        return false;
                    }
                    for (final RangeDependency r : ranges) {
                        if (r.contains(key)) {
                            lastReason = "phantom with csn " + c + " on " + Arrays.toString(key) + " in " + r;
                            return false;
                        }
                    }
                }
            }
        }
        final Set<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        for (final Map.Entry<byte[], byte[]> w : writes.entrySet()) {
            keys.add(w.getKey());
            versionCsns.computeIfAbsent(w.getKey(), k -> new ArrayList<>()).add(new long[] {csn});
            versionValues.computeIfAbsent(w.getKey(), k -> new ArrayList<>()).add(w.getValue() == null ? DELETED : w.getValue());
        }
        committedWrites.put(csn, keys);
        return true;
    }

    /** Live contents of the state after {@code csn}. */
    NavigableMap<byte[], byte[]> contents(final long csn) {
        final NavigableMap<byte[], byte[]> out = new TreeMap<>(Arrays::compareUnsigned);
        for (final byte[] key : versionCsns.keySet()) {
            final byte[] v = read(key, csn);
            if (v != null) {
                out.put(key, v);
            }
        }
        return out;
    }
}
