package io.meldb.sql.pg;

import io.meldb.sql.server.GatewayConnection;

import java.sql.Connection;

/**
 * PostgreSQL's transaction blocks over a connection's {@link GatewayConnection}. Outside BEGIN ... COMMIT, the
 * statements up to the next Sync (extended protocol) or of one Query message (simple protocol) form an implicit
 * transaction that commits at its end, as in PostgreSQL. An implicit transaction that starts with a query is
 * read-only (a snapshot that never touches the log); should a write follow in the same block, the read part
 * commits first and the write runs in an update transaction of its own. Any error inside a block fails it: the
 * rest of an implicit block is skipped, and an explicit one answers 25P02 until ROLLBACK (the status byte 'E').
 * The connection's SQL cursors ({@link Cursors}) hear of every write and of every end of a block.
 */
final class PgTransactionBlock {
    /** What becomes of the connection's SQL cursors as its transactions write and end ({@link PgCursors}). */
    interface Cursors {
        /** A statement that writes is about to run: cursors that read the transaction read the rest of their rows. */
        void beforeWrite();

        /** Whether cursors were declared in the open transaction (COMMIT has to see to them). */
        boolean ofTransaction();

        /** The block is about to commit: WITH HOLD cursors read the rest of their rows (an error rolls it back). */
        void beforeCommit();

        /**
         * The read-only part of an implicit block committed before a write ({@link #beforeWrite} came first): the
         * WITH HOLD cursors it declared are held, whatever becomes of the rest of the block.
         */
        void readPartCommitted();

        /** The block ended, committed or rolled back: the cursors of its transaction go, or are held. */
        void ended(boolean committed);
    }

    private final GatewayConnection state;
    private final Cursors cursors;
    private boolean explicit;
    private boolean implicit;
    private boolean implicitReadOnly;

    /** The session's characteristics (SET SESSION CHARACTERISTICS), restored when a block ends. */
    private String sessionIsolation = "serializable";
    private boolean sessionReadOnly;
    /** The characteristics of the open transaction. */
    private String isolation = "serializable";
    private boolean readOnly;
    /** Told when a block ends, whether it committed (the settings it changed: {@link PgSettingChanges}). */
    private java.util.function.Consumer<Boolean> ended = committed -> { };

    PgTransactionBlock(final GatewayConnection state, final Cursors cursors) {
        this.state = state;
        this.cursors = cursors;
        apply();
    }

    /** ReadyForQuery's status byte. */
    byte status() {
        if (!explicit) {
            return PgBackend.IDLE;
        }
        return state.failed() ? PgBackend.FAILED : PgBackend.IN_TRANSACTION;
    }

    boolean explicit() {
        return explicit;
    }

    /** Whether a block, explicit or implicit, is open: a transaction that will commit or roll back. */
    boolean open() {
        return explicit || implicit;
    }

    /** {@code listener} is told the end of every block, with whether it committed. */
    void onEnd(final java.util.function.Consumer<Boolean> listener) {
        this.ended = listener;
    }

    /** Whether ending the implicit block commits writes, and so waits for meld. */
    boolean commitPending() {
        return implicit && !implicitReadOnly;
    }

    /** Whether a statement would begin a new transaction before it runs (which may wait for admission). */
    boolean beginsTransaction(final boolean writes) {
        return !explicit && (!implicit || (writes && implicitReadOnly));
    }

    String isolation() {
        return isolation;
    }

    boolean readOnly() {
        return readOnly;
    }

    /** Before a statement of the SQL engine runs: opens the implicit block, or widens a read-only one. */
    void beforeStatement(final boolean writes) {
        if (writes) {
            cursors.beforeWrite();
        }
        if (explicit) {
            return;
        }
        if (!implicit) {
            implicit = true;
            implicitReadOnly = !writes && !readOnly;
            state.setAutoCommit(false);
            state.setReadOnly(readOnly || implicitReadOnly);
        } else if (writes && implicitReadOnly) {
            state.commit(); // the read-only part ends; the write gets an update transaction
            cursors.readPartCommitted();
            implicitReadOnly = false;
            state.setReadOnly(readOnly);
        }
    }

    /** A statement failed: the block it ran in fails too. */
    void failed() {
        if (explicit || implicit) {
            state.markFailed();
        }
    }

    /** The end of an implicit block (Sync, or the end of a Query): commits it, or rolls it back if it failed. */
    void endImplicit() {
        if (!implicit) {
            return;
        }
        implicit = false;
        boolean committed = false;
        try {
            committed = end(state.failed());
        } finally {
            state.setAutoCommit(true);
            restoreSession(committed);
        }
    }

    /**
     * Ends the transaction: rolls it back, or commits it with its cursors first seen to (a commit that fails, by
     * a cursor's error or meld's 40001, rolls back and throws); answers whether it committed.
     */
    private boolean end(final boolean rollback) {
        if (rollback) {
            try {
                state.rollback();
            } finally {
                cursors.ended(false);
            }
            return false;
        }
        boolean committed = false;
        try {
            try {
                cursors.beforeCommit();
            } catch (RuntimeException | Error e) {
                state.rollback();
                throw e;
            }
            state.commit();
            committed = true;
        } finally {
            cursors.ended(committed);
        }
        return true;
    }

    /** BEGIN; answers false (a warning) when a block is already open. */
    boolean begin(final String isolationLevel, final Boolean readOnlyMode) {
        if (explicit) {
            return false;
        }
        if (implicit && implicitReadOnly && !Boolean.TRUE.equals(readOnlyMode)) {
            cursors.beforeWrite(); // their cursors stop reading the transaction
            state.commit(); // statements before BEGIN in the same block only read
            cursors.readPartCommitted();
        }
        implicit = false;
        explicit = true;
        state.setAutoCommit(false);
        isolation = isolationLevel == null ? sessionIsolation : isolationLevel;
        readOnly = readOnlyMode == null ? sessionReadOnly : readOnlyMode;
        apply();
        return true;
    }

    /**
     * COMMIT; answers the command tag ("ROLLBACK" for a failed block), or null with no block open (a warning).
     * A commit that meld refuses throws its error (40001) and the block is over all the same.
     */
    String commit() {
        if (!explicit) {
            endImplicit();
            return null;
        }
        final boolean failed = state.failed();
        boolean committed = false;
        try {
            committed = end(failed);
        } finally {
            endExplicit(committed);
        }
        return failed ? "ROLLBACK" : "COMMIT";
    }

    /**
     * Whether COMMIT may end this block without waiting ({@link #commitAsync}): an explicit block whose
     * statements all succeeded and that declared no cursor (a WITH HOLD one reads its rows at COMMIT).
     */
    boolean commitsAsync() {
        return explicit && !state.failed() && !cursors.ofTransaction();
    }

    /**
     * COMMIT of an explicit block without waiting for meld ({@link #commitsAsync} holds): the block is over at
     * once, as with {@link #commit}; the future completes with the outcome (40001 when meld refuses it).
     */
    java.util.concurrent.CompletableFuture<Void> commitAsync() {
        try {
            return state.commitAsync();
        } finally {
            cursors.ended(true); // none was declared in it (commitsAsync): held ones are unaffected
            endExplicit(true); // its settings stay, as if it commits; meld's answer comes later
        }
    }

    /** ROLLBACK; answers false (a warning) with no block open. */
    boolean rollback() {
        if (!explicit) {
            if (implicit) {
                implicit = false;
                try {
                    end(true);
                } finally {
                    state.setAutoCommit(true);
                    restoreSession(false);
                }
            }
            return false;
        }
        try {
            end(true);
        } finally {
            endExplicit(false);
        }
        return true;
    }

    /** SET TRANSACTION (this block's characteristics) or SET SESSION CHARACTERISTICS. */
    void characteristics(final boolean session, final String isolationLevel, final Boolean readOnlyMode) {
        if (session) {
            if (isolationLevel != null) {
                sessionIsolation = isolationLevel;
            }
            if (readOnlyMode != null) {
                sessionReadOnly = readOnlyMode;
            }
        }
        if (isolationLevel != null) {
            isolation = isolationLevel;
        }
        if (readOnlyMode != null) {
            readOnly = readOnlyMode;
        }
        apply();
    }

    /** The connection closes: whatever is open is rolled back. */
    void close() {
        explicit = false;
        implicit = false;
    }

    private void endExplicit(final boolean committed) {
        explicit = false;
        state.setAutoCommit(true);
        restoreSession(committed);
    }

    private void restoreSession(final boolean committed) {
        isolation = sessionIsolation;
        readOnly = sessionReadOnly;
        apply();
        ended.accept(committed);
    }

    /** SERIALIZABLE is meld's serializable; the weaker levels run as snapshot isolation, as over JDBC. */
    private void apply() {
        state.setIsolation(isolation.equals("serializable") ? Connection.TRANSACTION_SERIALIZABLE
                : Connection.TRANSACTION_REPEATABLE_READ);
        state.setReadOnly(readOnly);
    }
}
