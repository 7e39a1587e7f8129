package io.meldb.sql.pg;

/** An error that ends the connection: sent with severity FATAL, after which the server closes it. */
final class PgFatalException extends RuntimeException {
    PgFatalException(final RuntimeException cause) {
        super(cause.getMessage(), cause);
    }
}
