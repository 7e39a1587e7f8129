package io.meldb.sql.server;

import io.meldb.core.Isolation;
import io.meldb.txn.TxnError;
import io.meldb.txn.TxnException;
import io.meldb.txn.TxnService;
import io.meldb.txn.TxnSession;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Chooses the txn-server for each transaction. Every server holds the whole database, so any of them can run any
 * transaction: read-only snapshots and update transactions are both spread round-robin; a server that is
 * unavailable or overloaded is skipped in favour of the next one.
 */
public final class TxnRouter implements AutoCloseable {
    private final List<TxnService> services;
    private final AtomicInteger next = new AtomicInteger();

    public TxnRouter(final List<TxnService> services) {
        if (services.isEmpty()) {
            throw new IllegalArgumentException("no txn-servers");
        }
        this.services = List.copyOf(services);
    }

    public List<TxnService> services() {
        return services;
    }

    /** Begins a transaction on the next server that accepts it. */
    public TxnSession begin(final Isolation isolation, final boolean readOnly) {
        final int start = Math.floorMod(next.getAndIncrement(), services.size());
        TxnException last = null;
        for (int i = 0; i < services.size(); i++) {
            final TxnService service = services.get((start + i) % services.size());
            try {
                return service.begin(isolation, readOnly);
            } catch (TxnException e) {
                if (e.error() != TxnError.UNAVAILABLE && e.error() != TxnError.OVERLOADED
                        && e.error() != TxnError.SESSION_LOST) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    @Override
    public void close() {
        for (TxnService s : services) {
            s.close();
        }
    }
}
