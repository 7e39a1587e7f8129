package io.meldb.sql;

/**
 * An error the gateway reports to the SQL client with a given SQLState (constraint violations, unknown objects,
 * unsupported features, ...). Thrown from code that Calcite calls, so it is unchecked; the JDBC layer turns it
 * into a {@link java.sql.SQLException} with the same state. Besides its message it may carry PostgreSQL's DETAIL
 * and the schema, table, column, type or constraint it is about ({@link ErrorFields}), which the PostgreSQL front
 * end sends as ErrorResponse fields.
 */
public class SqlStateException extends RuntimeException {
    private final String sqlState;
    /** PostgreSQL's DETAIL: a second line of explanation (the duplicated key, ...), or null. */
    private final String detail;
    /** The schema, table, column, type or constraint the error is about (never null). */
    private final ErrorFields fields;
    /** PostgreSQL's HINT: what to do about it, or null. */
    private String hint;

    public SqlStateException(final String sqlState, final String message) {
        this(sqlState, message, null, ErrorFields.NONE, null);
    }

    public SqlStateException(final String sqlState, final String message, final Throwable cause) {
        this(sqlState, message, null, ErrorFields.NONE, cause);
    }

    /** An error with PostgreSQL's DETAIL field (null for none). */
    public SqlStateException(final String sqlState, final String message, final String detail,
                             final Throwable cause) {
        this(sqlState, message, detail, ErrorFields.NONE, cause);
    }

    /** An error with PostgreSQL's DETAIL field (null for none) about the object {@code fields} names. */
    public SqlStateException(final String sqlState, final String message, final String detail,
                             final ErrorFields fields, final Throwable cause) {
        super(message, cause);
        this.sqlState = sqlState;
        this.detail = detail;
        this.fields = fields == null ? ErrorFields.NONE : fields;
    }

    /** Adds PostgreSQL's HINT field (what to do about the error) and answers this exception. */
    public SqlStateException withHint(final String text) {
        this.hint = text;
        return this;
    }

    /** The HINT line for front ends that carry one (PostgreSQL's protocol), or null. */
    public String hint() {
        return hint;
    }

    /** The schema, table, column, type or constraint the error is about ({@link ErrorFields#NONE} for none). */
    public ErrorFields fields() {
        return fields;
    }

    /** The DETAIL line for front ends that carry one (PostgreSQL's protocol), or null. */
    public String detail() {
        return detail;
    }

    public String sqlState() {
        return sqlState;
    }
}
