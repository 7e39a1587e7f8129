package io.meldb.txn.api;

import io.meldb.txn.api.IsolationLevel;

/**
 * What a client of MeldDB's key-value layer talks to: one transaction server, in this process
 * ({@code io.meldb.txn.TxnServer}) or over the network ({@code io.meldb.txn.client.TxnRpcClient}). Both forms behave alike,
 * including their errors, which are always a {@link TxnException} with a {@link TxnError} code.
 */
public interface TxnService extends AutoCloseable {
    /**
     * Starts a transaction on the server's last committed state. A read-only transaction never writes to the
     * log; an update transaction's {@link TxnSession#commit()} appends its intention and waits for meld.
     *
     * @throws TxnException {@link TxnError#OVERLOADED} when the server's in-flight limit is reached and no slot
     *                      frees up within the admission wait
     */
    TxnSession begin(IsolationLevel isolation, boolean readOnly);

    /**
     * {@link #begin(IsolationLevel, boolean)} of a transaction that has already restarted {@code restarts} times (aborted
     * and been retried by its client): the count goes into its intention (saturating at
     * {@link io.meldb.core.Intention#MAX_RESTARTS}), where a reorder window's tail-latency policy keeps often
     * restarted transactions (seed 001 §4.2). The servers and the RPC client carry it; this default, for test
     * doubles that meld nothing, begins as if it were the first attempt.
     */
    default TxnSession begin(final IsolationLevel isolation, final boolean readOnly, final int restarts) {
        return begin(isolation, readOnly);
    }

    /**
     * The outcome of a transaction that any server of the cluster began, as far as this server's copy of the
     * log says. A client that lost its connection during commit asks this, of any server.
     */
    TxnOutcome outcome(TxnId id);

    /**
     * The definite outcome of a transaction, waiting up to {@code waitMillis} for the log to decide it: a server
     * that melds the log may fence off the transaction's server so that one that never reached the log is known
     * not to have committed. Answers {@link TxnOutcome.State#PENDING} only when no decision could be reached in
     * time. (This default just asks {@link #outcome} once.)
     */
    default TxnOutcome awaitOutcome(TxnId id, long waitMillis) {
        return outcome(id);
    }

    /**
     * Whether the server runs in this process, so that reads and writes of its sessions are memory accesses, not
     * network calls (a front end may then run short statements on its I/O threads).
     */
    default boolean inProcess() {
        return false;
    }

    /**
     * Whether {@link #begin} would answer now, without waiting for admission, with a snapshot at least as recent
     * as {@code requiredCsn}: a hint for a front end that runs a transaction's first statement on an I/O thread,
     * which must not wait. A server that cannot tell answers false.
     */
    default boolean beginsWithoutWaiting(final long requiredCsn) {
        return false;
    }

    /** CSN and state hash of this server's last committed state, and its load. */
    ServerStatus status();

    /**
     * A health probe: the server's id, CSN and load if it takes transactions now. An in-process server answers
     * without hashing its state ({@link ServerStatus#stateHash()} is then 0); a remote one is asked for its status.
     *
     * @throws TxnException {@link TxnError#UNAVAILABLE} with the reason when the server does not take transactions
     */
    default ServerStatus probe() {
        return status();
    }

    @Override
    void close();
}
