package io.meldb.sql.server;

import io.meldb.core.IntField;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnSession;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A transaction that hands every call to another one: the base of the gateway's decorators
 * ({@link ResolvingSession}, {@link SavepointSession}), which override only what they add. Every method forwards,
 * the allocation-free reads included, so a decorator never falls back to a slower default of {@link TxnSession}.
 */
abstract class ForwardingSession implements TxnSession, io.meldb.sql.catalog.DeferredConstraints.Owner {
    protected final TxnSession session;

    ForwardingSession(final TxnSession session) {
        this.session = session;
    }

    /** The deferred constraints of the transaction this one decorates ({@link DeferringSession}), or null. */
    @Override
    public io.meldb.sql.catalog.DeferredConstraints deferredConstraints() {
        return io.meldb.sql.catalog.DeferredConstraints.of(session);
    }

    @Override
    public TxnId id() {
        return session.id();
    }

    @Override
    public IsolationLevel isolation() {
        return session.isolation();
    }

    @Override
    public boolean readOnly() {
        return session.readOnly();
    }

    @Override
    public long snapshotCsn() {
        return session.snapshotCsn();
    }

    @Override
    public byte[] get(final byte[] key) {
        return session.get(key);
    }

    @Override
    public int get(final byte[] key, final org.agrona.MutableDirectBuffer into) {
        return session.get(key, into);
    }

    @Override
    public int get(final byte[] key, final org.agrona.MutableDirectBuffer into, final long columns) {
        return session.get(key, into, columns);
    }

    @Override
    public List<KeyValue> scan(final byte[] lo, final boolean loInclusive, final byte[] hi, final boolean hiInclusive,
                               final boolean descending, final int limit) {
        return session.scan(lo, loInclusive, hi, hiInclusive, descending, limit);
    }

    @Override
    public void dependOn(final byte[] lo, final boolean loInclusive, final byte[] hi, final boolean hiInclusive) {
        session.dependOn(lo, loInclusive, hi, hiInclusive);
    }

    @Override
    public void put(final byte[] key, final byte[] value) {
        session.put(key, value);
    }

    @Override
    public void add(final byte[] key, final IntField field, final long delta) {
        session.add(key, field, delta);
    }

    @Override
    public void delete(final byte[] key) {
        session.delete(key);
    }

    @Override
    public long commit() {
        return session.commit();
    }

    @Override
    public CompletableFuture<Long> commitAsync() {
        return session.commitAsync();
    }

    @Override
    public void abort() {
        session.abort();
    }

    @Override
    public void close() {
        session.close();
    }
}
