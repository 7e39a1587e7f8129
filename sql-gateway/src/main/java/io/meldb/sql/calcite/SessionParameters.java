package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;

/**
 * The session a statement runs in, as PostgreSQL's session information and configuration functions see it
 * ({@link SessionFunctions}): the user it authenticated as, its process id, and its run-time parameters, which
 * {@code current_setting} reads and {@code set_config} writes as SET does. The PostgreSQL front end keeps them
 * (its {@code PgSettings}); a connection of the JDBC front end has no PostgreSQL session ({@link #NONE}).
 */
public interface SessionParameters {
    /** A connection without a PostgreSQL session: every question is 0A000. */
    SessionParameters NONE = new SessionParameters() {
        @Override
        public String user() {
            throw none();
        }

        @Override
        public int processId() {
            throw none();
        }

        @Override
        public String find(final String name) {
            throw none();
        }

        @Override
        public String set(final String name, final String value, final boolean local) {
            throw none();
        }

        private SqlStateException none() {
            return new SqlStateException("0A000", "the session functions (current_user, current_setting, "
                    + "set_config, version(), ...) answer on MeldDB's PostgreSQL port only: this connection has no "
                    + "PostgreSQL session");
        }
    };

    /** The user the session authenticated as (MeldDB has no roles: also the current role). */
    String user();

    /** The session's process id, as BackendKeyData gave it to the client ({@code pg_backend_pid()}). */
    int processId();

    /** The value of a run-time parameter (its name in any case), or null when the session has none of that name. */
    String find(String name);

    /**
     * Sets a run-time parameter as {@code SET} does ({@code SET LOCAL} with {@code local}); a null value sets
     * its default, as {@code SET ... TO DEFAULT}. Answers the value now in effect. An unknown or read-only
     * parameter, or a bad value, is the error SET gives.
     */
    String set(String name, String value, boolean local);
}
