package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;

/** A frontend message that breaks the protocol (SQLState 08P01): malformed, or not allowed in this state. */
public final class PgProtocolException extends SqlStateException {
    public PgProtocolException(final String message) {
        super("08P01", message);
    }
}
