package io.meldb.sql.server;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SequenceDef;
import io.meldb.sql.catalog.Sequences;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;

import java.util.HashMap;
import java.util.Map;

/**
 * The ranges of sequence values one gateway has reserved and hands out, shared by all of its connections. A range
 * is reserved in a small transaction of its own ({@link Sequences#reserve}), outside the statement's transaction
 * (sequences are not transactional, as in PostgreSQL): the values are the gateway's even if the statement rolls
 * back, and the user's transaction never reads or writes the counter, so inserts through different gateways or
 * connections do not conflict over it. Two gateways reserving at once conflict in meld; the loser retries.
 */
public final class SequenceCache {
    /** How often a reservation is tried when meld aborts it (another gateway reserving the same sequence). */
    private static final int ATTEMPTS = 20;

    private final TxnRouter router;
    /** Reserved ranges by sequence id (a dropped and re-created sequence has a new id, and a new range). */
    private final Map<Integer, Range> ranges = new HashMap<>();

    /** The unused part of a reserved range: {@code remaining} values from {@code next}, increment apart. */
    static final class Range {
        long next;
        long remaining;
    }

    public SequenceCache(final TxnRouter router) {
        this.router = router;
    }

    /** The next value of {@code q} from this gateway's range, reserving a new range when it is used up. */
    public long next(final SequenceDef q) {
        return next(q, range(q));
    }

    /** As {@link #next(SequenceDef)}, with the range {@link #range} answered for {@code q} (kept by a caller). */
    long next(final SequenceDef q, final Range r) {
        synchronized (r) {
            if (r.remaining == 0) {
                final long[] got = inOwnTransaction(txn -> Sequences.reserve(txn, q));
                r.next = got[0];
                r.remaining = got[1];
            }
            final long v = r.next;
            r.remaining--;
            if (r.remaining > 0) {
                r.next = v + q.increment();
            }
            return v;
        }
    }

    /** {@code setval}: writes the counter and drops this gateway's range (other gateways use theirs up first). */
    public void set(final SequenceDef q, final long value, final boolean isCalled) {
        final Range r = range(q);
        synchronized (r) {
            inOwnTransaction(txn -> {
                Sequences.set(txn, q, value, isCalled);
                return null;
            });
            r.remaining = 0;
        }
    }

    Range range(final SequenceDef q) {
        synchronized (ranges) {
            return ranges.computeIfAbsent(q.id(), id -> new Range());
        }
    }

    private interface Work<T> {
        T run(TxnSession txn);
    }

    private <T> T inOwnTransaction(final Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            final TxnSession begun;
            try {
                begun = router.begin(IsolationLevel.SERIALIZABLE, false);
            } catch (TxnException e) {
                throw SqlErrors.atBegin(e); // no txn-server takes transactions: 57P03
            }
            try (TxnSession txn = begun) {
                final T result = work.run(txn);
                router.observed(txn.commit());
                return result;
            } catch (TxnException e) {
                if (e.error() != TxnError.CONFLICT || attempt == ATTEMPTS) {
                    // the reservation's own transaction failed: its SQLSTATE as for any transaction (40001 when
                    // it can be retried, its txn-server gone included; never class 08 on a live connection)
                    final SqlErrors.Described d = SqlErrors.fromTxn(e);
                    throw new SqlStateException(d.sqlState(), "could not reserve sequence values: " + d.message(),
                            e);
                }
            }
        }
    }
}
