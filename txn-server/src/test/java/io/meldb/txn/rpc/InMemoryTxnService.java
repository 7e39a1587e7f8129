package io.meldb.txn.rpc;

import io.meldb.core.IntField;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test double of a transaction server for the RPC tests: a TreeMap store (unsigned byte order) with snapshot
 * reads, buffered writes and first-committer-wins conflicts on written keys, plus hooks to fail the next call of
 * an operation with a chosen {@link TxnError}, to hold BEGINs and commits, and counters of what happened. It has no
 * meld: only the wire mapping is under test.
 */
final class InMemoryTxnService implements TxnService {
    static final long INCARNATION = 42;

    private final NavigableMap<byte[], byte[]> store = new TreeMap<>(Arrays::compareUnsigned);
    private final NavigableMap<byte[], Long> lastWrite = new TreeMap<>(Arrays::compareUnsigned);
    private long csn;
    private long nextSequence;

    private final Map<TxnId, TxnOutcome> outcomes = new ConcurrentHashMap<>();
    private final Set<TxnId> active = ConcurrentHashMap.newKeySet();
    private final Map<String, TxnError> failNext = new ConcurrentHashMap<>();
    final AtomicInteger begun = new AtomicInteger();
    /** The restart count of the last begin that carried one (-1: none did). */
    final AtomicInteger lastRestarts = new AtomicInteger(-1);
    final AtomicInteger aborted = new AtomicInteger();
    final AtomicInteger committed = new AtomicInteger();
    /** Commits that reached this service (counted before the commit gate). */
    final AtomicInteger commitsStarted = new AtomicInteger();

    /** When set, BEGIN waits for it (as admission would). */
    volatile CountDownLatch beginGate;
    /** Commits with writes complete only when this completes. */
    volatile CompletableFuture<Void> commitGate = CompletableFuture.completedFuture(null);
    /** Thrown (as an unexpected failure) by the next GET when set. */
    volatile RuntimeException nextGetFailure;

    /** The next call of {@code op} (begin, get, scan, put, delete, commit, outcome, status) fails with {@code error}. */
    void failNext(String op, TxnError error) {
        failNext.put(op, error);
    }

    int activeCount() {
        return active.size();
    }

    private void maybeFail(String op) {
        TxnError e = failNext.remove(op);
        if (e != null) {
            throw new TxnException(e, "injected " + e + " on " + op);
        }
    }

    @Override
    public TxnSession begin(IsolationLevel isolation, boolean readOnly, int restarts) {
        lastRestarts.set(restarts);
        return begin(isolation, readOnly);
    }

    @Override
    public TxnSession begin(IsolationLevel isolation, boolean readOnly) {
        maybeFail("begin");
        CountDownLatch gate = beginGate;
        if (gate != null) {
            try {
                if (!gate.await(10, TimeUnit.SECONDS)) {
                    throw new TxnException(TxnError.OVERLOADED, "no admission within 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TxnException(TxnError.UNAVAILABLE, "interrupted");
            }
        }
        synchronized (this) {
            TxnId id = new TxnId(INCARNATION, ++nextSequence);
            active.add(id);
            begun.incrementAndGet();
            return new Session(id, isolation, readOnly, csn, new TreeMap<>(store));
        }
    }

    @Override
    public TxnOutcome outcome(TxnId id) {
        maybeFail("outcome");
        TxnOutcome o = outcomes.get(id);
        if (o != null) {
            return o;
        }
        return new TxnOutcome(id, active.contains(id) ? TxnOutcome.State.PENDING : TxnOutcome.State.UNKNOWN, 0, null);
    }

    @Override
    public synchronized ServerStatus status() {
        maybeFail("status");
        long hash = 1;
        for (Map.Entry<byte[], byte[]> e : store.entrySet()) {
            hash = 31 * hash + Arrays.hashCode(e.getKey()) * 17L + Arrays.hashCode(e.getValue());
        }
        return new ServerStatus(1, INCARNATION, csn, hash, active.size());
    }

    @Override
    public void close() {
    }

    private synchronized long apply(Session s) {
        for (byte[] key : s.writes.keySet()) {
            Long w = lastWrite.get(key);
            if (w != null && w > s.snapshotCsn) {
                outcomes.put(s.id, new TxnOutcome(s.id, TxnOutcome.State.ABORTED, csn, "write-write conflict"));
                throw new TxnException(TxnError.CONFLICT, "transaction " + s.id + " conflicts on a key written at csn " + w);
            }
        }
        for (byte[][] range : s.dependencies) {
            for (Map.Entry<byte[], Long> w : rangeOf(lastWrite, range).entrySet()) {
                if (w.getValue() > s.snapshotCsn) {
                    outcomes.put(s.id, new TxnOutcome(s.id, TxnOutcome.State.ABORTED, csn, "read dependency"));
                    throw new TxnException(TxnError.CONFLICT, "transaction " + s.id + " depends on a key written at csn "
                            + w.getValue());
                }
            }
        }
        csn++;
        for (Map.Entry<byte[], byte[]> e : s.writes.entrySet()) {
            if (e.getValue() == null) {
                store.remove(e.getKey());
            } else {
                store.put(e.getKey(), e.getValue());
            }
            lastWrite.put(e.getKey(), csn);
        }
        outcomes.put(s.id, new TxnOutcome(s.id, TxnOutcome.State.COMMITTED, csn, null));
        return csn;
    }

    /** The entries in a range {lo, hi, loInclusive?, hiInclusive?} as {@link Session#dependOn} records it. */
    private static <V> NavigableMap<byte[], V> rangeOf(NavigableMap<byte[], V> map, byte[][] range) {
        NavigableMap<byte[], V> m = map;
        if (range[0] != null) {
            m = m.tailMap(range[0], range[2].length > 0);
        }
        if (range[1] != null) {
            m = m.headMap(range[1], range[3].length > 0);
        }
        return m;
    }

    /** One transaction: a copy of the store at begin, and its writes (null value = delete). */
    private final class Session implements TxnSession {
        private final TxnId id;
        private final IsolationLevel isolation;
        private final boolean readOnly;
        private final long snapshotCsn;
        private final NavigableMap<byte[], byte[]> snapshot;
        private final NavigableMap<byte[], byte[]> writes = new TreeMap<>(Arrays::compareUnsigned);
        /** Ranges {lo, hi, loInclusive (non-empty), hiInclusive (non-empty)} checked at commit like written keys. */
        private final List<byte[][]> dependencies = new ArrayList<>();
        private boolean ended;

        Session(TxnId id, IsolationLevel isolation, boolean readOnly, long snapshotCsn, NavigableMap<byte[], byte[]> snapshot) {
            this.id = id;
            this.isolation = isolation;
            this.readOnly = readOnly;
            this.snapshotCsn = snapshotCsn;
            this.snapshot = snapshot;
        }

        @Override
        public TxnId id() {
            return id;
        }

        @Override
        public IsolationLevel isolation() {
            return isolation;
        }

        @Override
        public boolean readOnly() {
            return readOnly;
        }

        @Override
        public long snapshotCsn() {
            return snapshotCsn;
        }

        private void checkActive() {
            if (ended) {
                throw new TxnException(TxnError.UNKNOWN_TRANSACTION, "transaction " + id + " has ended");
            }
        }

        private void checkKey(byte[] key) {
            if (key == null || key.length == 0) {
                throw new TxnException(TxnError.BAD_REQUEST, "key must not be null or empty");
            }
        }

        private void checkWrite(byte[] key) {
            checkActive();
            if (readOnly) {
                throw new TxnException(TxnError.READ_ONLY, "transaction " + id + " is read-only");
            }
            checkKey(key);
        }

        @Override
        public byte[] get(byte[] key) {
            maybeFail("get");
            RuntimeException boom = nextGetFailure;
            if (boom != null) {
                nextGetFailure = null;
                throw boom;
            }
            checkActive();
            checkKey(key);
            return writes.containsKey(key) ? writes.get(key) : snapshot.get(key);
        }

        @Override
        public List<KeyValue> scan(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, boolean descending,
                                   int limit) {
            maybeFail("scan");
            checkActive();
            if (limit < 0) {
                throw new TxnException(TxnError.BAD_REQUEST, "negative limit " + limit);
            }
            NavigableMap<byte[], byte[]> view = new TreeMap<>(snapshot);
            for (Map.Entry<byte[], byte[]> e : writes.entrySet()) {
                if (e.getValue() == null) {
                    view.remove(e.getKey());
                } else {
                    view.put(e.getKey(), e.getValue());
                }
            }
            if (lo != null) {
                view = view.tailMap(lo, loInclusive);
            }
            if (hi != null) {
                view = view.headMap(hi, hiInclusive);
            }
            if (descending) {
                view = view.descendingMap();
            }
            List<KeyValue> out = new ArrayList<>();
            for (Map.Entry<byte[], byte[]> e : view.entrySet()) {
                if (limit > 0 && out.size() == limit) {
                    break;
                }
                out.add(new KeyValue(e.getKey(), e.getValue()));
            }
            return out;
        }

        @Override
        public void put(byte[] key, byte[] value) {
            maybeFail("put");
            checkWrite(key);
            if (value == null) {
                throw new TxnException(TxnError.BAD_REQUEST, "value must not be null");
            }
            if (value.length > 1 << 20) {
                throw new TxnException(TxnError.TOO_LARGE, "value of " + value.length + " bytes");
            }
            writes.put(key.clone(), value.clone());
        }

        @Override
        public void dependOn(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive) {
            maybeFail("depend");
            dependencies.add(new byte[][] {lo, hi, loInclusive ? new byte[1] : new byte[0],
                    hiInclusive ? new byte[1] : new byte[0]});
        }

        /** Applied to the view at once (this double has no meld): the wire mapping of ADD is what is under test. */
        @Override
        public void add(byte[] key, IntField field, long delta) {
            maybeFail("add");
            checkWrite(key);
            byte[] value = get(key);
            if (value == null || value.length < field.offset() + field.width()) {
                throw new TxnException(TxnError.NOT_APPLICABLE, "no field at " + field.offset() + " of " + Arrays.toString(key));
            }
            long v = 0;
            for (int i = 0; i < field.width(); i++) {
                v = v << 8 | (value[field.offset() + i] & 0xFF);
            }
            v = v << (64 - 8 * field.width()) >> (64 - 8 * field.width());
            long sum = v + delta;
            if (((v ^ sum) & (delta ^ sum)) < 0 || sum < field.min() || sum > field.max()) {
                throw new TxnException(TxnError.OUT_OF_RANGE, v + " + " + delta + " is out of range");
            }
            byte[] out = value.clone();
            for (int i = 0; i < field.width(); i++) {
                out[field.offset() + i] = (byte) (sum >>> (8 * (field.width() - 1 - i)));
            }
            writes.put(key.clone(), out);
        }

        @Override
        public void delete(byte[] key) {
            maybeFail("delete");
            checkWrite(key);
            writes.put(key.clone(), null);
        }

        @Override
        public long commit() {
            try {
                return commitAsync().join();
            } catch (java.util.concurrent.CompletionException e) {
                throw (RuntimeException) e.getCause();
            }
        }

        @Override
        public CompletableFuture<Long> commitAsync() {
            if (ended) {
                return CompletableFuture.failedFuture(new TxnException(TxnError.UNKNOWN_TRANSACTION,
                        "transaction " + id + " has ended"));
            }
            ended = true;
            commitsStarted.incrementAndGet();
            TxnError injected = failNext.remove("commit");
            if (injected != null) {
                active.remove(id);
                return CompletableFuture.failedFuture(new TxnException(injected, "injected " + injected + " on commit"));
            }
            if (writes.isEmpty()) {
                active.remove(id);
                committed.incrementAndGet();
                return CompletableFuture.completedFuture(snapshotCsn);
            }
            return commitGate.thenApply(v -> {
                try {
                    long c = apply(this);
                    committed.incrementAndGet();
                    return c;
                } finally {
                    active.remove(id);
                }
            });
        }

        @Override
        public void abort() {
            if (ended) {
                return;
            }
            ended = true;
            active.remove(id);
            aborted.incrementAndGet();
            outcomes.put(id, new TxnOutcome(id, TxnOutcome.State.NOT_COMMITTED, 0, "aborted"));
        }

        @Override
        public void close() {
            abort();
        }
    }
}
