package io.meldb.sql;

/**
 * The object an error is about, as PostgreSQL names it in an ErrorResponse (PostgreSQL docs, "Error and Notice
 * Message Fields": s schema_name, t table_name, c column_name, d data_type_name, n constraint_name). PostgreSQL
 * fills them for integrity violations: a unique, foreign key or check violation names the schema, the table and
 * the constraint; a not-null violation the schema, the table and the column; a domain's check the schema, the
 * type and the constraint. Each part is null when the error does not name it. Immutable.
 */
public record ErrorFields(String schema, String table, String column, String datatype, String constraint) {
    /** An error about no object in particular. */
    public static final ErrorFields NONE = new ErrorFields(null, null, null, null, null);

    /** A violation of a table's constraint (unique, primary key, foreign key, check): schema, table, constraint. */
    public static ErrorFields constraint(final String schema, final String table, final String constraint) {
        return new ErrorFields(schema, table, null, null, constraint);
    }

    /** An error about a table's column (a not-null violation): schema, table, column. */
    public static ErrorFields column(final String schema, final String table, final String column) {
        return new ErrorFields(schema, table, column, null, null);
    }
}
