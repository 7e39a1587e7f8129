package io.meldb.txn;

import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The most recent transaction outcomes this server read from the log (every server's transactions, not only its
 * own), so a client that lost its connection during commit can ask any server what became of its transaction.
 * Bounded: the oldest entries go first.
 */
public final class OutcomeTable {
    private final LinkedHashMap<TxnId, TxnOutcome> map;

    public OutcomeTable(final int capacity) {
        this.map = new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(final Map.Entry<TxnId, TxnOutcome> eldest) {
                return size() > capacity;
            }
        };
    }

    public synchronized void put(final TxnOutcome outcome) {
        map.put(outcome.id(), outcome);
    }

    public synchronized TxnOutcome get(final TxnId id) {
        return map.get(id);
    }
}
