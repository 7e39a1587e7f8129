package io.meldb.sql.server;

import io.meldb.sql.catalog.DeferredConstraints;
import io.meldb.txn.api.TxnSession;

import java.util.concurrent.CompletableFuture;

/**
 * A write transaction that can hold deferred FOREIGN KEY checks ({@link DeferredConstraints}, PostgreSQL's
 * {@code DEFERRABLE INITIALLY DEFERRED} and {@code SET CONSTRAINTS}): COMMIT runs them first, in the transaction,
 * and a violation (23503) fails the commit, so the transaction aborts and nothing of it is written. The checks'
 * reads join the transaction's intention, so meld validates them like any other read. The state is made on the
 * first deferred check or SET CONSTRAINTS, so a transaction without them carries none.
 */
final class DeferringSession extends ForwardingSession {
    private DeferredConstraints deferred;

    DeferringSession(final TxnSession session) {
        super(session);
    }

    @Override
    public DeferredConstraints deferredConstraints() {
        if (deferred == null) {
            deferred = new DeferredConstraints();
        }
        return deferred;
    }

    @Override
    public long commit() {
        checkDeferred();
        return session.commit();
    }

    @Override
    public CompletableFuture<Long> commitAsync() {
        checkDeferred();
        return session.commitAsync();
    }

    private void checkDeferred() {
        if (deferred != null) {
            deferred.checkAll(this);
        }
    }
}
