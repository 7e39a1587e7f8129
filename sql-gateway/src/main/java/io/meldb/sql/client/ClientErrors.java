package io.meldb.sql.client;

import org.apache.calcite.avatica.AvaticaClientRuntimeException;
import org.apache.calcite.avatica.AvaticaSqlException;
import org.apache.calcite.avatica.NoSuchConnectionException;
import org.apache.calcite.avatica.NoSuchStatementException;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;

import java.io.IOException;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;

/**
 * The client side of MeldDB's error contract: turns what Avatica's remote client throws into the
 * {@link SQLException} a JDBC program expects. Avatica throws {@link AvaticaClientRuntimeException} (unchecked)
 * when a connection-level call (commit, rollback, setAutoCommit, ...) fails on the server, and a
 * {@code RuntimeException} around an {@link IOException} when it cannot reach the gateway; both become
 * SQLExceptions with the server's message, SQLState and vendor code. Every SQLException is also given the JDBC 4
 * subclass its SQLState class calls for (40xxx: {@link SQLTransactionRollbackException}, 42xxx:
 * {@link SQLSyntaxErrorException}, ...), so {@code catch (SQLTransactionRollbackException e)} finds meld aborts
 * wherever they happen.
 */
public final class ClientErrors {
    /** SQLState of a failed connection to the gateway. */
    public static final String CONNECTION_FAILURE = "08006";
    /** SQLState of a connection whose server side is gone (a gateway restart took the open transaction with it). */
    public static final String CONNECTION_DOES_NOT_EXIST = "08003";
    /** SQLState for an error the server gave no SQLState for (Avatica sends "00000" or nothing). */
    public static final String INTERNAL_ERROR = "XX000";

    /** What the gateway no longer knows, when a call failed because the gateway forgot it (e.g. it restarted). */
    public enum Lost {
        /** The call failed for another reason. */
        NOTHING,
        /** The gateway does not know the statement (restarted, or the statement expired from its cache). */
        STATEMENT,
        /** The gateway does not know the connection: it restarted, and everything open on it is gone. */
        CONNECTION
    }

    private ClientErrors() {
    }

    /**
     * What a JDBC method should throw instead of {@code t}: an SQLException (of the most specific subclass), or
     * {@code t} itself when it is neither an SQLException nor an Avatica error (a bug or misuse in the caller,
     * e.g. a NullPointerException, stays what it is).
     */
    public static Throwable convert(final Throwable t) {
        if (t instanceof SQLException e) {
            return specific(e);
        }
        if (t instanceof AvaticaClientRuntimeException e) {
            return create(message(e.getMessage(), e.getServerExceptions()), e.getSqlState(), e.getErrorCode(), e);
        }
        if (t instanceof AvaticaRuntimeException e) {
            return create(e.getErrorMessage(), e.getSqlState(), e.getErrorCode(), e);
        }
        if (t instanceof UnsupportedOperationException e) {
            return new SQLFeatureNotSupportedException(e.getMessage() == null ? "not supported by MeldDB's driver"
                    : e.getMessage(), "0A000", 0, e);
        }
        if (t instanceof RuntimeException e && e.getMessage() != null && e.getMessage().endsWith("got HTTP/401")) {
            // the gateway has users and the connection gave none (Avatica's client says only the status)
            return new java.sql.SQLInvalidAuthorizationSpecException("the MeldDB gateway requires a user and "
                    + "password (HTTP/401): set the user and password properties", "28000", 0, e);
        }
        if (t instanceof RuntimeException e) {
            final IOException io = ioCause(e);
            if (io != null) {
                return new SQLNonTransientConnectionException("cannot reach the MeldDB gateway: " + describe(io),
                        CONNECTION_FAILURE, 0, e);
            }
        }
        return t;
    }

    /**
     * Whether {@code t} (as Avatica's client throws it, before {@link #convert}) says the gateway does not know the
     * connection or statement of the call. Avatica reports the server's exception only by class name, in the
     * stack traces it ships with the error, and as a bare {@link NoSuchStatementException} for prepared statements.
     */
    public static Lost lost(final Throwable t) {
        Lost found = Lost.NOTHING;
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            final java.util.List<String> server;
            if (c instanceof AvaticaClientRuntimeException e) {
                server = e.getServerExceptions();
            } else if (c instanceof AvaticaSqlException e) {
                server = e.getStackTraces();
            } else if (c instanceof NoSuchConnectionException) {
                return Lost.CONNECTION;
            } else if (c instanceof NoSuchStatementException) {
                found = Lost.STATEMENT;
                continue;
            } else {
                continue;
            }
            for (String trace : server == null ? java.util.List.<String>of() : server) {
                if (trace.startsWith(NoSuchConnectionException.class.getName())) {
                    return Lost.CONNECTION;
                }
                if (trace.startsWith(NoSuchStatementException.class.getName())) {
                    found = Lost.STATEMENT;
                }
            }
        }
        return found;
    }

    /** {@code e}, or an exception of the subclass its SQLState calls for with the same message, state and code. */
    public static SQLException specific(final SQLException e) {
        final String reason = prepareFailure(e);
        if (reason != null) {
            return create(reason, e.getSQLState(), e.getErrorCode(), e);
        }
        final String given = e.getSQLState();
        if (given == null || given.isEmpty() || given.startsWith("00")) {
            final IOException io = ioCause(e);
            if (io != null) { // Avatica's "Error while executing SQL ...": the gateway could not be reached
                return new SQLNonTransientConnectionException("cannot reach the MeldDB gateway: " + describe(io),
                        CONNECTION_FAILURE, 0, e);
            }
        }
        final SQLException s = create(e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        final boolean sameState = s.getSQLState().equals(e.getSQLState());
        return sameState && (s.getClass() == SQLException.class || s.getClass().isInstance(e)) ? e : s;
    }

    /** A new SQLException of the subclass that {@code sqlState} calls for (JDBC 4.3, table 8-1). */
    public static SQLException create(final String message, final String sqlState, final int vendorCode,
                                      final Throwable cause) {
        // an error always has a class: Avatica says "00000" (or nothing) when the server gave no SQLState
        final String state = sqlState == null || sqlState.length() != 5 || sqlState.startsWith("00")
                ? INTERNAL_ERROR : sqlState;
        final String cls = state == null ? "" : state.substring(0, 2);
        return switch (cls) {
            case "40" -> new SQLTransactionRollbackException(message, state, vendorCode, cause);
            case "42" -> new SQLSyntaxErrorException(message, state, vendorCode, cause);
            case "22" -> new SQLDataException(message, state, vendorCode, cause);
            case "23" -> new SQLIntegrityConstraintViolationException(message, state, vendorCode, cause);
            case "28" -> new SQLInvalidAuthorizationSpecException(message, state, vendorCode, cause);
            case "0A" -> new SQLFeatureNotSupportedException(message, state, vendorCode, cause);
            case "08" -> state.equals("08001")
                    ? new SQLTransientConnectionException(message, state, vendorCode, cause)
                    : new SQLNonTransientConnectionException(message, state, vendorCode, cause);
            case "53" -> new SQLTransientException(message, state, vendorCode, cause);
            case "57" -> state.equals("57014") ? new SQLTimeoutException(message, state, vendorCode, cause)
                    // cannot_connect_now: no txn-server takes transactions yet; the connection is fine, retry later
                    : state.equals("57P03") ? new SQLTransientException(message, state, vendorCode, cause)
                    : new SQLException(message, state, vendorCode, cause);
            default -> new SQLException(message, state, vendorCode, cause);
        };
    }

    /**
     * The server's reason for a failed prepare, with the statement, or null when {@code e} is no such failure.
     * Avatica's client reports only "while preparing SQL: ..." and keeps the server's reason in the first line of
     * the server's stack trace ("io.meldb...Reported: column 'x' not found").
     */
    static String prepareFailure(final SQLException e) {
        if (!(e instanceof AvaticaSqlException a) || a.getErrorMessage() == null
                || !a.getErrorMessage().startsWith(WHILE_PREPARING) || a.getStackTraces() == null
                || a.getStackTraces().isEmpty()) {
            return null;
        }
        final String first = a.getStackTraces().get(0).lines().findFirst().orElse("");
        final int colon = first.indexOf(": ");
        if (colon < 0) {
            return null;
        }
        return first.substring(colon + 2) + " (" + a.getErrorMessage() + ")";
    }

    private static final String WHILE_PREPARING = "while preparing SQL";

    /** Avatica's message, or the server's exception when the message says nothing ("Remote driver error: null"). */
    private static String message(final String message, final java.util.List<String> server) {
        if (message != null && !message.endsWith(": null") && !message.equals("null")) {
            return message;
        }
        final String first = server == null || server.isEmpty() ? "" : server.get(0).lines().findFirst().orElse("");
        return first.isEmpty() ? "the MeldDB gateway failed without saying why" : "the MeldDB gateway failed: " + first;
    }

    private static IOException ioCause(final Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof IOException io) {
                return io;
            }
        }
        return null;
    }

    private static String describe(final IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
