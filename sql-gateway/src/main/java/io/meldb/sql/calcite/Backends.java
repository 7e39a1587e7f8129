package io.meldb.sql.calcite;

/**
 * The sessions of the gateway's PostgreSQL front end by their process id (the one BackendKeyData and
 * {@code pg_backend_pid()} report), as {@code pg_cancel_backend} and {@code pg_terminate_backend} reach them.
 */
public interface Backends {
    /** No PostgreSQL front end: no process id names a session. */
    Backends NONE = new Backends() {
        @Override
        public boolean cancel(final long processId) {
            return false;
        }

        @Override
        public boolean terminate(final long processId) {
            return false;
        }
    };

    /** Stops the statement session {@code processId} runs now; false when no session has that id. */
    boolean cancel(long processId);

    /** Ends session {@code processId} (FATAL 57P01), stopping its statement; false when no session has that id. */
    boolean terminate(long processId);
}
