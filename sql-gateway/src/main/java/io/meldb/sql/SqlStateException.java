package io.meldb.sql;

/**
 * An error the gateway reports to the SQL client with a given SQLState (constraint violations, unknown objects,
 * unsupported features, ...). Thrown from code that Calcite calls, so it is unchecked; the JDBC layer turns it
 * into a {@link java.sql.SQLException} with the same state.
 */
public class SqlStateException extends RuntimeException {
    private final String sqlState;
    /** PostgreSQL's DETAIL: a second line of explanation (the duplicated key, ...), or null. */
    private final String detail;

    public SqlStateException(final String sqlState, final String message) {
        super(message);
        this.sqlState = sqlState;
        this.detail = null;
    }

    public SqlStateException(final String sqlState, final String message, final Throwable cause) {
        super(message, cause);
        this.sqlState = sqlState;
        this.detail = null;
    }

    /** An error with PostgreSQL's DETAIL field (null for none). */
    public SqlStateException(final String sqlState, final String message, final String detail,
                             final Throwable cause) {
        super(message, cause);
        this.sqlState = sqlState;
        this.detail = detail;
    }

    /** The DETAIL line for front ends that carry one (PostgreSQL's protocol), or null. */
    public String detail() {
        return detail;
    }

    public String sqlState() {
        return sqlState;
    }
}
