package io.meldb.sql;

/**
 * An error the gateway reports to the SQL client with a given SQLState (constraint violations, unknown objects,
 * unsupported features, ...). Thrown from code that Calcite calls, so it is unchecked; the JDBC layer turns it
 * into a {@link java.sql.SQLException} with the same state.
 */
public class SqlStateException extends RuntimeException {
    private final String sqlState;

    public SqlStateException(final String sqlState, final String message) {
        super(message);
        this.sqlState = sqlState;
    }

    public SqlStateException(final String sqlState, final String message, final Throwable cause) {
        super(message, cause);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }
}
