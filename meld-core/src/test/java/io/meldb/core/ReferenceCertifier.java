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
 * The deliberately simple oracle meld is checked against (docs/architecture.md "How we know it is right"): backward
 * validation OCC over explicit read and write sets, plus a multi-version key/value history to read snapshots.
 *
 * <p>A transaction with snapshot s and log position v commits iff no committed transaction at a position in
 * (s, v) wrote a key it wrote (both isolation levels) or a key it read or a key inside a range it scanned
 * (serializable), or a key inside a range it declared a dependency on ({@link Transaction#dependOn}, both isolation
 * levels). Deletes are writes. A read-only transaction never reaches the certifier.
 *
 * <p>Increments ({@link Transaction#add}) are neither reads nor writes of the transaction that makes them: after the
 * checks above, each is applied to the latest committed value (the key must be live, the field present, non-null and
 * the sum within its bounds, or the transaction aborts), and the result counts as a write for later transactions.
 *
 * <p>A serializable read may name the value bytes it used ({@link ColumnReads} masks): it then conflicts with a later
 * committed write of the key, or with a later committed increment whose field's bytes meet those it used; an increment
 * of other bytes leaves it valid. A key read both whole and by columns counts as read whole.
 */
final class ReferenceCertifier {
    private static final byte[] DELETED = new byte[0];

    /** key -> versions (csn ascending) of committed values; DELETED marks a delete. */
    private final NavigableMap<byte[], List<long[]>> versionCsns = new TreeMap<>(Arrays::compareUnsigned);
    private final Map<byte[], List<byte[]>> versionValues = new TreeMap<>(Arrays::compareUnsigned);
    private final Map<Long, Set<byte[]>> committedWrites = new HashMap<>();
    /** csn -> key -> bytes of a pure increment it committed (keys it wrote whole are absent). */
    private final Map<Long, Map<byte[], Long>> committedIncrements = new HashMap<>();

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

    /** Committed transactions with a column read that a row-level rule would have aborted (an increment of other bytes). */
    long columnReadsStood;

    /** Why the last certification aborted (for failure messages). */
    String lastReason = "";

    boolean certify(final long csn, final long snapshotCsn, final Isolation isolation, final Collection<byte[]> reads,
                    final Collection<RangeDependency> ranges, final Map<byte[], byte[]> writes) {
        return certify(csn, snapshotCsn, isolation, reads, ranges, List.of(), writes);
    }

    boolean certify(final long csn, final long snapshotCsn, final Isolation isolation, final Collection<byte[]> reads,
                    final Collection<RangeDependency> ranges, final Collection<RangeDependency> dependencies,
                    final Map<byte[], byte[]> writes) {
        return certify(csn, snapshotCsn, isolation, reads, ranges, dependencies, writes, null, Map.of());
    }

    /** The reason the last certification aborted on an increment ({@link AbortReason}), else NONE. */
    int lastIncrementReason;

    boolean certify(final long csn, final long snapshotCsn, final Isolation isolation, final Collection<byte[]> reads,
                    final Collection<RangeDependency> ranges, final Collection<RangeDependency> dependencies,
                    final Map<byte[], byte[]> plainWrites, final IntField field, final Map<byte[], Long> increments) {
        return certify(csn, snapshotCsn, isolation, reads, Map.of(), ranges, dependencies, plainWrites, field, increments);
    }

    boolean certify(final long csn, final long snapshotCsn, final Isolation isolation, final Collection<byte[]> reads,
                    final Map<byte[], Long> columnReads, final Collection<RangeDependency> ranges,
                    final Collection<RangeDependency> dependencies, final Map<byte[], byte[]> plainWrites,
                    final IntField field, final Map<byte[], Long> increments) {
        return certify(csn, snapshotCsn, isolation, reads, columnReads, ranges, dependencies, plainWrites, field,
            increments, Map.of());
    }

    /**
     * As above, with {@code columnReads}: keys read by some value bytes only (the mask), not also whole; and
     * {@code fields}: the field each increment adds to, where it is not {@code field}.
     */
    boolean certify(final long csn, final long snapshotCsn, final Isolation isolation, final Collection<byte[]> reads,
                    final Map<byte[], Long> columnReads, final Collection<RangeDependency> ranges,
                    final Collection<RangeDependency> dependencies, final Map<byte[], byte[]> plainWrites,
                    final IntField defaultField, final Map<byte[], Long> increments, final Map<byte[], IntField> fields) {
        lastIncrementReason = AbortReason.NONE;
        boolean stood = false;
        final Map<byte[], byte[]> writes = plainWrites;
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
                    final Long used = columnReads.get(key);
                    if (used != null) {
                        final Long touched = committedIncrements.getOrDefault(c, Map.of()).get(key);
                        if (touched == null || (touched & used) != 0) {
                            lastReason = "rw (columns " + Long.toHexString(used) + ") with csn " + c + " on "
                                + Arrays.toString(key);
                            return false;
                        }
                        stood = true;
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
        final Map<byte[], byte[]> all = new TreeMap<>(Arrays::compareUnsigned);
        all.putAll(writes);
        final Map<byte[], Long> incremented = new TreeMap<>(Arrays::compareUnsigned);
        for (final Map.Entry<byte[], Long> inc : increments.entrySet()) {
            final IntField field = fields.getOrDefault(inc.getKey(), defaultField);
            final byte[] latest = read(inc.getKey(), csn - 1);
            final int reason = latest == null ? AbortReason.INCREMENT_ABSENT : fieldReason(latest, field, inc.getValue());
            if (reason != AbortReason.NONE) {
                lastIncrementReason = reason;
                lastReason = "increment of " + Arrays.toString(inc.getKey()) + ": " + AbortReason.describe(reason);
                return false;
            }
            all.put(inc.getKey(), added(latest, field, inc.getValue()));
            incremented.put(inc.getKey(), ColumnReads.touched(field.offset(), field.width()));
        }
        committedIncrements.put(csn, incremented);
        final Set<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        for (final Map.Entry<byte[], byte[]> w : all.entrySet()) {
            keys.add(w.getKey());
            versionCsns.computeIfAbsent(w.getKey(), k -> new ArrayList<>()).add(new long[] {csn});
            versionValues.computeIfAbsent(w.getKey(), k -> new ArrayList<>()).add(w.getValue() == null ? DELETED : w.getValue());
        }
        committedWrites.put(csn, keys);
        columnReadsStood += stood ? 1 : 0;
        return true;
    }

    /** Why adding {@code delta} to {@code field} of {@code value} is refused ({@link AbortReason}), or NONE. */
    static int fieldReason(final byte[] value, final IntField field, final long delta) {
        if (value.length < field.offset() + field.width()) {
            return AbortReason.INCREMENT_NO_FIELD;
        }
        if (field.presenceByte() && value[field.offset() - 1] != 1) {
            return AbortReason.INCREMENT_NULL;
        }
        final long v = fieldValue(value, field);
        final long sum;
        try {
            sum = Math.addExact(v, delta);
        } catch (ArithmeticException e) {
            return AbortReason.INCREMENT_OUT_OF_RANGE;
        }
        return sum < field.min() || sum > field.max() ? AbortReason.INCREMENT_OUT_OF_RANGE : AbortReason.NONE;
    }

    static long fieldValue(final byte[] value, final IntField field) {
        long v = value[field.offset()];
        for (int i = 1; i < field.width(); i++) {
            v = v << 8 | (value[field.offset() + i] & 0xFF);
        }
        return v;
    }

    /** {@code value} with {@code delta} added to {@code field} (the caller checked {@link #fieldReason}). */
    static byte[] added(final byte[] value, final IntField field, final long delta) {
        final byte[] out = value.clone();
        final long sum = fieldValue(value, field) + delta;
        for (int i = 0; i < field.width(); i++) {
            out[field.offset() + i] = (byte) (sum >>> (8 * (field.width() - 1 - i)));
        }
        return out;
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
