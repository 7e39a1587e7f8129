package io.meldb.sql.server;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.MeldTxnContext;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.CatalogStore;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The transaction state of one JDBC connection: autocommit, read-only and isolation settings, the open explicit
 * transaction, and the read-only snapshots that autocommit queries keep until their result set is closed.
 *
 * <ul>
 *   <li>Autocommit query: a read-only snapshot on some txn-server, no intention, no log append.</li>
 *   <li>Autocommit INSERT/UPDATE/DELETE/DDL: an update transaction committed (melded) at the statement's end.</li>
 *   <li>Explicit transaction ({@code setAutoCommit(false)}): begun by the first statement, ended by commit or
 *       rollback; read-only when the connection is. A statement that fails while writing leaves the transaction
 *       failed (PostgreSQL's rule), since MeldDB has no statement-level rollback: only ROLLBACK ends it.</li>
 * </ul>
 * Isolation: SERIALIZABLE (the default) is meld's serializable; REPEATABLE READ and weaker levels run as
 * snapshot isolation (JDBC allows a stronger level than asked for).
 *
 * <p>Every statement, commit, rollback and abort is recorded in the gateway's {@link SqlMetrics} here, where every
 * front end passes.
 */
public final class GatewayConnection implements MeldTxnContext {
    private static final Logger LOG = LoggerFactory.getLogger(GatewayConnection.class);

    private volatile String id;
    private final String database;
    private final TxnRouter router;
    private final CatalogStore catalogStore;
    private final SqlMetrics metrics;
    private final String protocol;

    private boolean autoCommit = true;
    private boolean readOnly;
    private int jdbcIsolation = Connection.TRANSACTION_SERIALIZABLE;

    /** The explicit transaction, or the autocommit statement's transaction while it runs. */
    private TxnSession txn;
    private boolean txnFailed;
    /** The catalog as {@link #txn} sees it, read once per transaction ({@link #catalogOf} names its owner). */
    private Catalog catalog;
    private TxnSession catalogOf;
    /** Snapshots of autocommit queries whose results may still be fetched, by statement id. */
    private final Map<Integer, TxnSession> openSnapshots = new HashMap<>();
    /** When the running statement began (System.nanoTime). */
    private long statementStart;
    private boolean closed;
    /** When the connection last began or ended a statement, commit or rollback (System.nanoTime). */
    private volatile long lastActivity = System.nanoTime();
    /** A statement is between {@link #beginStatement} and {@link #endStatement} (it runs outside the lock). */
    private boolean running;
    /** Why the connection was ended by the server (25P03), or null. */
    private SqlStateException terminated;
    private final SessionSequences sequences;
    /** How often the next update transaction has restarted, as far as this connection can tell (40001 retries). */
    private final RestartGuess restartGuess = new RestartGuess();
    /** The running statement's written rows, while a RETURNING clause wants them. */
    private java.util.List<Object[]> writtenRows;
    /** The running statement's ON CONFLICT action and FOR UPDATE tables (null: none). */
    private io.meldb.sql.calcite.InsertConflicts insertConflicts;
    private io.meldb.sql.calcite.RowLocks rowLocks;
    private io.meldb.sql.catalog.TableStatistics statistics;
    private AutocommitRetry autocommitRetry;

    /** {@code protocol} tags the connection in the metrics ({@link SqlMetrics#JDBC}, "pg"). */
    public GatewayConnection(final String id, final String database, final TxnRouter router,
                             final CatalogStore catalogStore, final SqlMetrics metrics, final String protocol) {
        this(id, database, router, catalogStore, metrics, protocol, new SequenceCache(router));
    }

    /** A connection whose sequence values come from {@code sequenceCache} (one per gateway). */
    public GatewayConnection(final String id, final String database, final TxnRouter router,
                             final CatalogStore catalogStore, final SqlMetrics metrics, final String protocol,
                             final SequenceCache sequenceCache) {
        this.sequences = new SessionSequences(this, sequenceCache);
        this.id = id;
        this.database = database;
        this.router = router;
        this.catalogStore = catalogStore;
        this.metrics = metrics;
        this.protocol = protocol;
        metrics.connectionOpened(protocol);
    }

    public String id() {
        return id;
    }

    /** The row counts of this connection's gateway (ANALYZE), which the planner estimates with. */
    void statistics(final io.meldb.sql.catalog.TableStatistics gatewayStatistics) {
        this.statistics = gatewayStatistics;
    }

    @Override
    public io.meldb.sql.catalog.TableStatistics statistics() {
        return statistics;
    }

    /** How this connection retries autocommit writes that meld refused (null: never). */
    void autocommitRetry(final AutocommitRetry retry) {
        this.autocommitRetry = retry;
    }

    /** How this connection retries autocommit writes that meld refused, or null. */
    public AutocommitRetry autocommitRetry() {
        return autocommitRetry;
    }

    /** Names the connection once Avatica has given it its id. */
    void bind(final String connectionId) {
        this.id = connectionId;
    }

    @Override
    public java.util.List<Object[]> writtenRows() {
        return writtenRows;
    }

    @Override
    public io.meldb.sql.calcite.InsertConflicts insertConflicts() {
        return insertConflicts;
    }

    @Override
    public io.meldb.sql.calcite.RowLocks rowLocks() {
        return rowLocks;
    }

    /** Sets (or clears, with nulls) the running statement's ON CONFLICT action and FOR UPDATE tables. */
    public void statementClauses(final io.meldb.sql.calcite.InsertConflicts conflicts,
                                 final io.meldb.sql.calcite.RowLocks locks) {
        this.insertConflicts = conflicts;
        this.rowLocks = locks;
    }

    /** Starts (a list) or stops (null) capturing the rows the running statement writes. */
    public void captureWrittenRows(final java.util.List<Object[]> into) {
        writtenRows = into;
    }

    @Override
    public SessionSequences sequences() {
        return sequences;
    }

    /** The schema unqualified sequence names resolve in ({@code SET search_path}, {@code setSchema}). */
    public void schema(final String schema) {
        sequences.schema(schema);
    }

    @Override
    public String database() {
        return database;
    }

    public CatalogStore catalogStore() {
        return catalogStore;
    }

    public synchronized boolean autoCommit() {
        return autoCommit;
    }

    public synchronized void setAutoCommit(final boolean on) {
        if (on && !autoCommit && txn != null) {
            commit(); // JDBC: switching autocommit on commits the open transaction
        }
        autoCommit = on;
    }

    public synchronized void setReadOnly(final boolean on) {
        readOnly = on;
    }

    public synchronized boolean readOnly() {
        return readOnly;
    }

    /** Whether an explicit transaction failed and only ROLLBACK (or COMMIT, which then rolls back) ends it. */
    public synchronized boolean failed() {
        return txnFailed;
    }

    /**
     * Marks the explicit transaction failed after an error outside of execution (PostgreSQL's rule: any error in
     * a transaction block aborts it): its transaction is aborted and later statements get 25P02 until ROLLBACK.
     */
    public synchronized void markFailed() {
        if (autoCommit) {
            return;
        }
        if (!hasSavepoints()) {
            abortTransaction();
        }
        txnFailed = true;
    }

    /** A transaction from the router; no txn-server taking transactions is 57P03 (see {@link SqlErrors#atBegin}). */
    private TxnSession begin(final IsolationLevel isolation, final boolean readOnly) {
        return begin(isolation, readOnly, 0);
    }

    private TxnSession begin(final IsolationLevel isolation, final boolean readOnly, final int restarts) {
        try {
            final TxnSession session = router.begin(isolation, readOnly, restarts);
            return readOnly ? session : new DeferringSession(session);
        } catch (TxnException e) {
            throw SqlErrors.atBegin(e);
        }
    }

    /** Aborts the open transaction, if any (a failed one kept for ROLLBACK TO SAVEPOINT included). */
    private void abortTransaction() {
        if (txn != null) {
            txn.abort();
            txn = null;
            catalogOf = null;
        }
    }

    private boolean hasSavepoints() {
        return txn instanceof SavepointSession s && s.hasSavepoints();
    }

    /**
     * SAVEPOINT in an explicit transaction ({@link SavepointSession}): begins the transaction if no statement has
     * yet, so that the savepoint has a transaction to mark.
     */
    public synchronized void savepoint(final String name) {
        checkSavepointStatement("SAVEPOINT", false);
        if (txn == null) {
            txn = begin(isolation(), readOnly, readOnly ? 0 : restartGuess.restarts());
        }
        if (!(txn instanceof SavepointSession)) {
            txn = new SavepointSession(txn);
        }
        ((SavepointSession) txn).savepoint(name);
    }

    /**
     * Runs {@code work} on the explicit transaction (begun if none yet) as a statement of it: its failure fails the
     * transaction as a failed statement's would. Nothing to do in autocommit mode ({@link SetConstraintsStatement}:
     * PostgreSQL only warns there).
     */
    public synchronized void inTransaction(final java.util.function.Consumer<TxnSession> work) {
        if (autoCommit) {
            return;
        }
        if (txnFailed) {
            throw failedTransaction();
        }
        if (txn == null) {
            txn = begin(isolation(), readOnly, readOnly ? 0 : restartGuess.restarts());
        }
        try {
            work.accept(txn);
        } catch (RuntimeException e) {
            failTransaction(e);
            throw e;
        }
    }

    /** A statement of the explicit transaction failed: the transaction fails (kept for ROLLBACK TO SAVEPOINT). */
    private void failTransaction(final Throwable error) {
        txnFailed = true;
        if (hasSavepoints()) {
            // ROLLBACK TO SAVEPOINT undoes what the failed statement wrote and goes on in the transaction
            LOG.debug("connection {}: statement failed inside a transaction with savepoints", id);
        } else {
            LOG.debug("connection {}: statement failed inside a transaction; the transaction is aborted", id);
            abortTransaction();
            aborted(SqlErrors.describe(error).sqlState());
        }
    }

    /**
     * ROLLBACK TO SAVEPOINT: undoes the transaction's writes since the savepoint and ends its failed state, as in
     * PostgreSQL; 3B001 when there is no such savepoint (a failed transaction stays failed).
     */
    public synchronized void rollbackToSavepoint(final String name) {
        checkSavepointStatement("ROLLBACK TO SAVEPOINT", true);
        savepoints(name).rollbackTo(name);
        catalogOf = null;
        txnFailed = false;
    }

    /** RELEASE SAVEPOINT: forgets the savepoint (and those set after it); the writes since it stay. */
    public synchronized void releaseSavepoint(final String name) {
        checkSavepointStatement("RELEASE SAVEPOINT", false);
        savepoints(name).release(name);
    }

    /** PostgreSQL's errors for a savepoint statement outside a block (25P01) or in a failed one (25P02). */
    private void checkSavepointStatement(final String statement, final boolean allowedWhenFailed) {
        if (autoCommit) {
            throw new SqlStateException("25P01", statement + " can only be used in transaction blocks");
        }
        if (txnFailed && !allowedWhenFailed) {
            throw failedTransaction();
        }
        lastActivity = System.nanoTime();
    }

    /** The transaction's savepoints; 3B001 naming {@code name} when it has none. */
    private SavepointSession savepoints(final String name) {
        if (!(txn instanceof SavepointSession s)) {
            throw new SqlStateException("3B001", "savepoint \"" + name + "\" does not exist");
        }
        return s;
    }

    private static SqlStateException failedTransaction() {
        return new SqlStateException("25P02", "current transaction is aborted, commands ignored until end of "
                + "transaction block (rollback)");
    }

    public synchronized void setIsolation(final int level) {
        jdbcIsolation = level;
    }

    public synchronized int jdbcIsolation() {
        return jdbcIsolation;
    }

    private IsolationLevel isolation() {
        // TRANSACTION_NONE is what tools send when they know no better (sqlline): keep the default
        return jdbcIsolation == Connection.TRANSACTION_SERIALIZABLE || jdbcIsolation == Connection.TRANSACTION_NONE
                ? IsolationLevel.SERIALIZABLE : IsolationLevel.SNAPSHOT;
    }

    /**
     * Runs one statement inside the connection's transaction handling ({@link #beginStatement}, then
     * {@link #endStatement}): whatever {@code body} throws is thrown again after the transaction was rolled back
     * (autocommit) or marked failed (an explicit transaction, when the error came from execution).
     */
    public <T> T runStatement(final int statementId, final StatementKind kind, final Supplier<T> body) {
        return runStatement(statementId, kind, body, false);
    }

    /**
     * {@link #runStatement(int, StatementKind, Supplier)}; with {@code retryCommit}, an autocommit write whose commit
     * meld refuses (40001) runs again, whole, on a new snapshot ({@link AutocommitRetry}): for a front end that
     * sends nothing of the statement before this returns (JDBC), and whose {@code body} may run again, its earlier
     * result dropped. A cancel stops the retries (57014).
     */
    public <T> T runStatement(final int statementId, final StatementKind kind, final Supplier<T> body,
                              final boolean retryCommit) {
        final AutocommitRetry retry = autocommitRetry;
        cancelled = ended; // a session whose client is gone runs nothing more
        if (!retryCommit || retry == null || kind != StatementKind.WRITE || !autoCommit()) {
            try {
                return runOnce(statementId, kind, body);
            } catch (CommitFailed e) {
                throw (RuntimeException) e.getCause();
            }
        }
        int retries = 0;
        boolean inTurn = false;
        while (true) {
            try {
                return runOnce(statementId, kind, body);
            } catch (CommitFailed e) {
                if (!retry.retry(e.getCause(), retries)) {
                    throw (RuntimeException) e.getCause();
                }
            } finally {
                if (inTurn) {
                    retry.leaveTurn();
                    inTurn = false;
                }
            }
            retry.backoff(retries, this::cancelled);
            retries++;
            inTurn = retry.enterTurn(retries, this::cancelled);
        }
    }

    /** The commit of an autocommit write failed: its error, told apart from the statement's own. */
    private static final class CommitFailed extends RuntimeException {
        CommitFailed(final RuntimeException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    private <T> T runOnce(final int statementId, final StatementKind kind, final Supplier<T> body) {
        if (cancelled) {
            throw new SqlStateException("57014", "canceling statement due to user request");
        }
        boolean began = false;
        Throwable error = null;
        memory.reset();
        insertConflicts = null;
        rowLocks = null;
        try {
            beginStatement(statementId, kind);
            began = true;
            return body.get();
        } catch (RuntimeException | Error e) {
            error = e;
            throw e;
        } finally {
            if (began) {
                try {
                    endStatement(statementId, kind, error, error != null && startedExecution(error));
                } catch (RuntimeException e) {
                    if (error == null) {
                        throw kind == StatementKind.WRITE && AutocommitRetry.isConflict(e) ? new CommitFailed(e) : e;
                    }
                    LOG.debug("ending a failed statement failed too", e);
                }
            }
        }
    }

    /** Whether an error came from executing (rather than parsing or validating) the statement. */
    private static boolean startedExecution(final Throwable error) {
        final String cls = SqlErrors.describe(error).sqlState().substring(0, 2);
        return !(cls.equals("42") || cls.equals("0A"));
    }

    /**
     * Starts a statement of the given kind on statement {@code statementId}: begins its transaction in autocommit
     * mode, or the explicit transaction if none is open.
     */
    public synchronized void beginStatement(final int statementId, final StatementKind kind) {
        final long start = System.nanoTime();
        lastActivity = start;
        try {
            if (terminated != null) {
                throw terminated;
            }
            closeSnapshot(statementId);
            if (autoCommit) {
                final boolean reads = readOnly || kind == StatementKind.READ;
                txn = begin(isolation(), reads, reads ? 0 : restartGuess.restarts());
            } else {
                if (txnFailed) {
                    throw failedTransaction();
                }
                if (txn == null) {
                    txn = begin(isolation(), readOnly, readOnly ? 0 : restartGuess.restarts());
                }
            }
            if (kind == StatementKind.DDL && txn instanceof SavepointSession sp) {
                sp.ddl();
            }
            if (kind != StatementKind.READ && txn.readOnly()) {
                if (autoCommit) {
                    txn.close(); // the statement will not run, and endStatement is not called for it
                    txn = null;
                    catalogOf = null;
                }
                throw new SqlStateException("25006", "cannot execute " + kind + " in a read-only transaction");
            }
        } catch (RuntimeException e) {
            metrics.statement(kind, System.nanoTime() - start, true);
            throw e;
        }
        running = true;
        statementStart = start;
    }

    /**
     * Ends a statement. In autocommit mode a successful write is committed here (a meld abort surfaces as SQLState
     * 40001) and a query's snapshot stays open for fetching; a failure rolls back. In an explicit transaction a
     * failure during execution marks the transaction failed.
     */
    public synchronized void endStatement(final int statementId, final StatementKind kind, final Throwable error,
                                          final boolean executionStarted) {
        lastActivity = System.nanoTime();
        running = false;
        boolean failed = error != null;
        try {
            if (autoCommit) {
                final TxnSession t = txn;
                txn = null;
                catalogOf = null;
                if (t == null) {
                    return;
                }
                if (error != null) {
                    t.abort();
                    if (kind != StatementKind.READ) {
                        aborted(SqlErrors.describe(error).sqlState());
                    }
                } else if (kind == StatementKind.READ) {
                    openSnapshots.put(statementId, t);
                } else {
                    try {
                        commitAndClose(t);
                    } catch (RuntimeException e) {
                        failed = true;
                        throw e;
                    }
                }
            } else if (error != null && executionStarted && txn != null) {
                failTransaction(error);
            }
        } finally {
            metrics.statement(kind, System.nanoTime() - statementStart, failed);
        }
    }

    /** Counts an aborted transaction (by SQLSTATE) and feeds the connection's restart guess. */
    private void aborted(final String sqlState) {
        metrics.aborted(sqlState);
        restartGuess.failed(sqlState);
    }

    private void committed() {
        metrics.committed();
        restartGuess.committed();
    }

    /** Commits {@code t} and counts the outcome; a failed commit (a meld conflict: 40001) is thrown on. */
    private void commitAndClose(final TxnSession t) {
        try {
            router.observed(t.commit());
            committed();
        } catch (RuntimeException e) {
            aborted(SqlErrors.describe(e).sqlState());
            throw e;
        } finally {
            t.close();
        }
    }

    public synchronized void commit() {
        final long start = System.nanoTime();
        lastActivity = start;
        boolean failed = true;
        try {
            if (terminated != null) {
                throw terminated;
            }
            if (txnFailed) {
                txnFailed = false; // counted as aborted when its statement failed
                abortTransaction();
                throw new SqlStateException("40000", "the transaction was rolled back because a statement in it "
                        + "failed");
            }
            final TxnSession t = txn;
            txn = null;
            catalogOf = null;
            if (t != null) {
                commitAndClose(t);
            }
            failed = false;
        } finally {
            metrics.statement(StatementKind.COMMIT, System.nanoTime() - start, failed);
        }
    }

    /**
     * {@link #commit()} without waiting for meld: the transaction is over for this connection at once, and the
     * future completes with its outcome on the thread that learns it (the txn-server's reply thread), failing with
     * the error {@code commit()} would throw (40001 for a meld abort). For a front end that must not block its
     * I/O thread on an in-process server.
     */
    public synchronized CompletableFuture<Void> commitAsync() {
        final long start = System.nanoTime();
        lastActivity = start;
        if (terminated != null) {
            metrics.statement(StatementKind.COMMIT, System.nanoTime() - start, true);
            return CompletableFuture.failedFuture(terminated);
        }
        if (txnFailed) {
            txnFailed = false; // counted as aborted when its statement failed
            abortTransaction();
            metrics.statement(StatementKind.COMMIT, System.nanoTime() - start, true);
            return CompletableFuture.failedFuture(new SqlStateException("40000", "the transaction was rolled back "
                    + "because a statement in it failed"));
        }
        final TxnSession t = txn;
        txn = null;
        catalogOf = null;
        if (t == null) {
            metrics.statement(StatementKind.COMMIT, System.nanoTime() - start, false);
            return CompletableFuture.completedFuture(null);
        }
        final CompletableFuture<Long> decided;
        try {
            decided = t.commitAsync();
        } catch (RuntimeException e) {
            t.close();
            aborted(SqlErrors.describe(e).sqlState());
            metrics.statement(StatementKind.COMMIT, System.nanoTime() - start, true);
            return CompletableFuture.failedFuture(e);
        }
        return decided.handle((csn, error) -> {
            t.close();
            metrics.statement(StatementKind.COMMIT, System.nanoTime() - start, error != null);
            if (error == null) {
                router.observed(csn);
                committed();
                return null;
            }
            final Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            aborted(SqlErrors.describe(cause).sqlState());
            throw cause instanceof CompletionException ce ? ce : new CompletionException(cause);
        });
    }

    public synchronized void rollback() {
        final long start = System.nanoTime();
        lastActivity = start;
        txnFailed = false;
        final TxnSession t = txn;
        txn = null;
        catalogOf = null;
        try {
            if (t != null) {
                t.abort();
                metrics.rolledBack();
            }
        } finally {
            metrics.statement(StatementKind.ROLLBACK, System.nanoTime() - start, false);
        }
    }

    /** The statement's result was closed: its snapshot is no longer needed. */
    public synchronized void closeSnapshot(final int statementId) {
        if (openSnapshots.isEmpty()) {
            return; // the common case, without boxing the id
        }
        final TxnSession snapshot = openSnapshots.remove(statementId);
        if (snapshot != null) {
            snapshot.close();
        }
    }

    /**
     * Ends the connection's transaction if it has been open without a statement for {@code timeoutNanos}
     * (PostgreSQL's idle_in_transaction_session_timeout): it is rolled back, which frees its admission slot, and
     * every later statement, COMMIT included, fails with 25P03. Returns whether it did. A statement running now
     * is never cut off: only the time between statements counts.
     */
    public boolean expireIfIdleInTransaction(final long now, final long timeoutNanos) {
        if (txn == null || now - lastActivity < timeoutNanos) {
            return false; // unlocked first look: the sweep passes busy connections without waiting for them
        }
        synchronized (this) {
            if (txn == null || autoCommit || running || terminated != null || now - lastActivity < timeoutNanos) {
                return false;
            }
            terminated = new SqlStateException("25P03", "terminating connection due to idle-in-transaction timeout: "
                    + "its transaction was open for more than " + java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(
                    timeoutNanos) + " s without a statement and was rolled back; open a new connection");
            abortTransaction();
            metrics.rolledBack();
            return true;
        }
    }

    public synchronized void close() {
        for (TxnSession s : openSnapshots.values()) {
            s.close();
        }
        openSnapshots.clear();
        if (txn != null) {
            abortTransaction();
            metrics.disconnected();
        }
        if (!closed) {
            closed = true;
            metrics.connectionClosed(protocol);
        }
    }

    @Override
    public synchronized TxnSession session() {
        if (txn == null) {
            throw new SqlStateException("25P01", "no transaction is active for this statement");
        }
        return txn;
    }

    /** The open transaction, or null. */
    public synchronized TxnSession currentTransaction() {
        return txn;
    }

    /**
     * Set by another thread to stop the running statement; cleared when the next one starts, unless the session
     * is ending ({@link #end}).
     */
    private volatile boolean cancelled;
    /** The session is ending (its client went away, pg_terminate_backend): every statement stops. */
    private volatile boolean ended;

    /**
     * Asks the running statement to stop: it ends with 57014 at its next input row of any operator, rule attempt
     * of the planner or row sent.
     */
    public void cancel() {
        cancelled = true;
    }

    /**
     * The session is ending: stops the running statement, and any that starts later (a message that was waiting
     * when the client went away), until the session is closed.
     */
    public void end() {
        ended = true;
        cancelled = true;
    }

    /** A new statement begins (planning comes before {@link #runStatement}): an earlier cancel no longer counts. */
    public void clearCancel() {
        cancelled = ended;
    }

    /** The PostgreSQL session of this connection; none for a JDBC connection. */
    private volatile io.meldb.sql.calcite.SessionParameters sessionParameters =
            io.meldb.sql.calcite.SessionParameters.NONE;

    /** The PostgreSQL front end gives the connection its session (user, process id, settings). */
    public void sessionParameters(final io.meldb.sql.calcite.SessionParameters parameters) {
        sessionParameters = parameters;
    }

    @Override
    public io.meldb.sql.calcite.SessionParameters sessionParameters() {
        return sessionParameters;
    }

    /** The session's SQL cursors (pg_cursors): the PostgreSQL front end's, or none. */
    private volatile io.meldb.sql.calcite.OpenCursors openCursors = io.meldb.sql.calcite.OpenCursors.NONE;

    public void openCursors(final io.meldb.sql.calcite.OpenCursors cursors) {
        this.openCursors = cursors;
    }

    @Override
    public io.meldb.sql.calcite.OpenCursors openCursors() {
        return openCursors;
    }

    /** The PostgreSQL front end's sessions (pg_cancel_backend, pg_terminate_backend). */
    private volatile io.meldb.sql.calcite.Backends backends = io.meldb.sql.calcite.Backends.NONE;

    public void backends(final io.meldb.sql.calcite.Backends b) {
        backends = b;
    }

    @Override
    public io.meldb.sql.calcite.Backends backends() {
        return backends;
    }

    /** The running statement's memory budget (limit set per connection; usage reset per statement). */
    private final io.meldb.sql.calcite.StatementMemory memory = new io.meldb.sql.calcite.StatementMemory();

    @Override
    public io.meldb.sql.calcite.StatementMemory memory() {
        return memory;
    }

    @Override
    public void rowsRead(final int n) {
        metrics.rowsRead(n);
    }

    @Override
    public boolean cancelled() {
        return cancelled;
    }

    /** The transaction's own DDL changed the catalog: read it again. */
    public synchronized void catalogChanged() {
        catalogOf = null;
    }

    @Override
    public synchronized Catalog catalog() {
        if (txn != null) {
            if (catalogOf != txn) {
                catalog = catalogStore.read(txn);
                catalogOf = txn;
            }
            return catalog;
        }
        try (TxnSession snapshot = begin(IsolationLevel.SNAPSHOT, true)) {
            return catalogStore.read(snapshot);
        }
    }
}
