package io.meldb.sql.client;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.Locale;
import java.util.Properties;

/**
 * The client side of one MeldDB-driver connection, kept so that the connection outlives the gateway's memory of it:
 * the Avatica connection in use (replaced when the gateway forgot it, e.g. after a restart), the settings the
 * program made (re-applied to the replacement), and whether a transaction with work in it is open (which a
 * replacement cannot carry over). A connection with no work in flight heals without the program noticing; one whose
 * transaction was lost says so once with 08003, then answers 25P02 (as PostgreSQL does in an aborted transaction)
 * until the program rolls back, so that a later {@code commit()} never claims the lost work.
 */
final class ClientSession {
    /** The connection's JDBC savepoints, sent as statements. */
    final Savepoints savepoints = new Savepoints();
    /** SQLState of a call made in a transaction that is already gone, before the program rolled it back. */
    static final String IN_FAILED_TRANSACTION = "25P02";

    private final Driver avatica;
    private final String avaticaUrl;
    private final Properties info;

    private Connection current;
    /** How many times the connection was replaced: objects made on an older one make themselves again. */
    private int generation;

    private boolean autoCommit = true;
    private Integer isolation;
    private Boolean readOnly;
    private String schema;
    private String catalog;

    /** A transaction is open on the server with statements in it (autocommit off, or an explicit BEGIN). */
    private boolean work;
    /** Such a transaction was lost with the server-side connection, and the program has not rolled back since. */
    private boolean lost;
    /** A commit failed because the gateway could not be reached: the transaction's outcome is not known here. */
    private boolean commitUnreached;

    ClientSession(final Driver avatica, final String avaticaUrl, final Properties info, final Connection first) {
        this.avatica = avatica;
        this.avaticaUrl = avaticaUrl;
        this.info = info;
        this.current = first;
    }

    synchronized Connection current() {
        return current;
    }

    synchronized int generation() {
        return generation;
    }

    /** Records a setting the program made successfully, to make again on a replacement connection. */
    synchronized void setting(final String method, final Object value) {
        switch (method) {
            case "setAutoCommit" -> {
                autoCommit = (Boolean) value;
                work = false; // turning autocommit on commits; turning it off starts afresh
                lost = false;
            }
            case "setTransactionIsolation" -> isolation = (Integer) value;
            case "setReadOnly" -> readOnly = (Boolean) value;
            case "setSchema" -> schema = (String) value;
            case "setCatalog" -> catalog = (String) value;
            default -> {
            }
        }
    }

    /** A statement ran (or was sent): with autocommit off, or inside an explicit BEGIN, it is work to lose. */
    synchronized void executed(final String sql) {
        switch (leadingKeyword(sql)) {
            case "BEGIN", "START" -> work = true;
            case "COMMIT", "END" -> work = false;
            case "ABORT" -> ended();
            case "ROLLBACK" -> {
                if (!isRollbackTo(sql)) {
                    ended();
                }
            }
            default -> work |= !autoCommit;
        }
    }

    /** The transaction ended (commit or rollback answered). */
    synchronized void ended() {
        work = false;
        lost = false;
        commitUnreached = false;
    }

    /** A commit could not reach the gateway: whether it happened is not known to this client. */
    synchronized void commitUnreached() {
        commitUnreached = true;
    }

    /** Throws 25P02 when the transaction was lost and the program has not rolled back since it was told. */
    synchronized void checkNotLost(final String sql) throws SQLException {
        if (!lost) {
            return;
        }
        final String keyword = leadingKeyword(sql);
        if (!keyword.equals("ABORT") && !(keyword.equals("ROLLBACK") && !isRollbackTo(sql))) {
            throw ClientErrors.create("the transaction on this connection was lost when the MeldDB gateway "
                    + "restarted (reported with 08003); call rollback() to start a new one",
                    IN_FAILED_TRANSACTION, 0, null);
        }
    }

    /**
     * Replaces the connection the gateway forgot, unless another call already did since {@code seenGeneration}:
     * opens a new one and makes the program's settings on it. When a transaction with work was open, the work is
     * gone: throws 08003 (once) unless {@code forRollback}, since rolling back is what losing it amounts to.
     *
     * @throws SQLException 08006 when the gateway cannot be reached (the connection stays as it is, to heal later)
     */
    synchronized void reconnect(final int seenGeneration, final boolean forRollback) throws SQLException {
        if (seenGeneration != generation) {
            return;
        }
        final Connection fresh;
        try {
            fresh = avatica.connect(avaticaUrl, info);
        } catch (RuntimeException e) {
            if (ClientErrors.convert(e) instanceof SQLException s) {
                throw s;
            }
            throw e;
        }
        if (fresh == null) {
            throw ClientErrors.create("Avatica's remote driver refused " + avaticaUrl, "08001", 0, null);
        }
        try {
            if (isolation != null) {
                fresh.setTransactionIsolation(isolation);
            }
            if (readOnly != null) {
                fresh.setReadOnly(readOnly);
            }
            if (catalog != null) {
                fresh.setCatalog(catalog);
            }
            if (schema != null) {
                fresh.setSchema(schema);
            }
            fresh.setAutoCommit(autoCommit);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(fresh);
            final Throwable converted = ClientErrors.convert(e);
            throw converted instanceof SQLException s ? s : new SQLNonTransientConnectionException(
                    "cannot restore the connection's settings on the MeldDB gateway", "08006", e);
        }
        closeQuietly(current); // the gateway has forgotten it: this only frees the client's side
        current = fresh;
        generation++;
        final boolean hadWork = work;
        final boolean unknownCommit = commitUnreached;
        work = false;
        commitUnreached = false;
        if (hadWork && !forRollback) {
            lost = true;
            throw ClientErrors.create("the connection's transaction is gone: the MeldDB gateway restarted and "
                    + (unknownCommit ? "whether the COMMIT that failed with 08006 happened is not known here; "
                    : "nothing of the transaction was committed; ")
                    + "the connection itself works again: roll back and run the transaction again",
                    ClientErrors.CONNECTION_DOES_NOT_EXIST, 0, null);
        }
    }

    synchronized void close() {
        lost = false;
        work = false;
    }

    private static void closeQuietly(final Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            // the server side is gone already; nothing else to free
        }
    }

    private static boolean isRollbackTo(final String sql) {
        return sql.toUpperCase(Locale.ROOT).matches("(?s)\\s*ROLLBACK\\s+(WORK\\s+|TRANSACTION\\s+)?TO\\b.*");
    }

    /** The first word of {@code sql}, upper case ("" when there is none). */
    static String leadingKeyword(final String sql) {
        if (sql == null) {
            return "";
        }
        int i = 0;
        final int n = sql.length();
        while (i < n && (Character.isWhitespace(sql.charAt(i)) || sql.charAt(i) == '(')) {
            i++;
        }
        int j = i;
        while (j < n && Character.isLetter(sql.charAt(j))) {
            j++;
        }
        return sql.substring(i, j).toUpperCase(Locale.ROOT);
    }
}
