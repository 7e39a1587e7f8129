package io.meldb.txn.api;

import io.meldb.core.IntField;
import io.meldb.txn.api.IsolationLevel;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One transaction. Reads see the snapshot pinned at {@link TxnService#begin}, plus the transaction's own
 * writes. A session is used by one thread at a time. Every method throws {@link TxnException}; after
 * {@link #commit()} or {@link #abort()} (or any error that ends the transaction) further calls fail with
 * {@link TxnError#UNKNOWN_TRANSACTION}. No method keeps a key or value array it is given once it returns (the
 * caller may reuse it: the SQL fast path encodes every key of a statement into one array).
 */
public interface TxnSession extends AutoCloseable {
    TxnId id();

    IsolationLevel isolation();

    boolean readOnly();

    /** CSN of the committed state this transaction reads. */
    long snapshotCsn();

    /** The value of {@code key}, or null when absent. */
    byte[] get(byte[] key);

    /**
     * {@link #get} into a caller's buffer, from index 0 (grown when it is expandable), instead of into a new
     * array: answers the value's length, or -1 when absent. A statement that reads one row after another reuses
     * one buffer (issue 16's zero-allocation path; the in-process session copies straight from the tree's memory).
     * Neither {@code key} nor {@code into} is kept after the call.
     */
    default int get(final byte[] key, final org.agrona.MutableDirectBuffer into) {
        final byte[] value = get(key);
        if (value == null) {
            return -1;
        }
        into.putBytes(0, value);
        return value.length;
    }

    /**
     * {@link #get(byte[], org.agrona.MutableDirectBuffer)} for a caller that uses only the value bytes in
     * {@code columns} (an {@link io.meldb.core.ColumnReads} byte mask; 0 = all of them): the read then does not
     * conflict with concurrent increments ({@link #add}) of other bytes of the row (issue 21). The caller may still be
     * handed the whole value. A session that cannot record the mask (one over the RPC, for now) reads the whole row,
     * which is always sound.
     */
    default int get(final byte[] key, final org.agrona.MutableDirectBuffer into, final long columns) {
        return get(key, into);
    }

    /**
     * Keys in [lo, hi] (each bound inclusive or exclusive; a null bound is unbounded), ascending or descending,
     * at most {@code limit} of them (0 = no limit).
     */
    List<KeyValue> scan(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, boolean descending,
                        int limit);

    /**
     * Makes the keys in [lo, hi] (bounds as in {@link #scan}) a read dependency that meld validates at either
     * isolation: the commit fails with {@link TxnError#CONFLICT} if a transaction that committed after this one's
     * snapshot wrote a key in the range ({@link io.meldb.core.Transaction#dependOn}). Reads nothing. Snapshot
     * transactions use it where a read must not be overtaken, as PostgreSQL's {@code FOR KEY SHARE} does for a
     * foreign-key check; a read-only transaction commits without meld, so it needs none and this does nothing.
     */
    void dependOn(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive);

    /** Inserts or replaces {@code key}. Fails with {@link TxnError#READ_ONLY} on a read-only transaction. */
    void put(byte[] key, byte[] value);

    /**
     * Adds {@code delta} to the integer {@code field} of {@code key}'s value as an increment
     * ({@link io.meldb.core.Transaction#add}): the intention records the delta rather than a read, so concurrent
     * increments of one key all commit and meld adds each to the value committed before it. The commit fails with
     * {@link TxnError#OUT_OF_RANGE} if the result leaves the field's bounds at meld time, and with
     * {@link TxnError#CONFLICT} if the key was deleted (or its field made null) concurrently.
     *
     * @throws TxnException {@link TxnError#OUT_OF_RANGE} if the result leaves the bounds in this transaction's view,
     *     {@link TxnError#NOT_APPLICABLE} if the key is absent there or its field missing or null (nothing changes)
     */
    void add(byte[] key, IntField field, long delta);

    /** Removes {@code key} (no error when it is absent). */
    void delete(byte[] key);

    /**
     * Ends the transaction. A read-only transaction, or one that wrote nothing, commits at once without the log
     * and answers its snapshot CSN. Otherwise the intention is appended and this returns the CSN meld committed
     * it at.
     *
     * @throws TxnException {@link TxnError#CONFLICT} when meld aborted it (retry the whole transaction);
     *                      {@link TxnError#OUTCOME_UNKNOWN} when the server lost the log before learning the
     *                      outcome (ask {@link TxnService#outcome} later)
     */
    long commit();

    /**
     * {@link #commit()} without blocking the caller: the future completes with the commit CSN, or exceptionally
     * with the {@link TxnException} that {@code commit()} would throw. Servers use this to keep event-loop
     * threads free while meld decides.
     */
    CompletableFuture<Long> commitAsync();

    /** Ends the transaction without writing anything. Safe to call on an ended transaction. */
    void abort();

    /** Aborts the transaction if it is still active. */
    @Override
    void close();
}
