package io.meldb.sql.calcite;

import io.meldb.sql.catalog.Catalog;
import io.meldb.txn.api.TxnSession;

/**
 * What the Calcite side of one connection needs from its JDBC connection: the catalog as the connection's
 * transaction sees it, and the transaction that the running statement reads and writes.
 */
public interface MeldTxnContext {
    /** The database name under which this connection's tables live in the catalog. */
    String database();

    /** The catalog as the current transaction sees it; outside a transaction, the latest committed catalog. */
    Catalog catalog();

    /** The transaction of the running statement. */
    TxnSession session();

    /** The sequences as this connection sees them (its currval values, its gateway's reserved ranges). */
    default SequenceAccess sequences() {
        throw new io.meldb.sql.SqlStateException("0A000", "sequences are not available on this connection");
    }

    /**
     * Where the running statement puts the rows it writes (INSERT, UPDATE: as stored; DELETE: as removed), for
     * its RETURNING clause; null when nobody asks.
     */
    default java.util.List<Object[]> writtenRows() {
        return null;
    }

    /** What the running INSERT does on a conflict (ON CONFLICT), or null: a duplicate key is 23505. */
    default InsertConflicts insertConflicts() {
        return null;
    }

    /** The tables whose rows the running statement reads for update (SELECT ... FOR UPDATE), or null. */
    default RowLocks rowLocks() {
        return null;
    }

    /** The PostgreSQL session of this connection (its user, process id and settings), for the session functions. */
    default SessionParameters sessionParameters() {
        return SessionParameters.NONE;
    }

    /** The session's SQL cursors, for pg_cursors. */
    default OpenCursors openCursors() {
        return OpenCursors.NONE;
    }

    /** The PostgreSQL front end's sessions, for pg_cancel_backend and pg_terminate_backend. */
    default Backends backends() {
        return Backends.NONE;
    }

    /**
     * Whether the running statement was asked to stop (a cancel request, a timeout, its client went away): scans
     * and every operator's input ({@link MeldBudget}) check it per row.
     */
    default boolean cancelled() {
        return false;
    }

    /** The row counts the planner estimates with (ANALYZE), or null: every table is assumed to be large. */
    default io.meldb.sql.catalog.TableStatistics statistics() {
        return null;
    }

    /** The memory budget of the running statement. */
    StatementMemory memory();

    /** A scan read {@code n} more rows (or index entries) from the transaction's snapshot. */
    default void rowsRead(final int n) {
    }
}
