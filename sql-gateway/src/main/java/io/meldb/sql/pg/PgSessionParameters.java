package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.SessionParameters;

/**
 * One PostgreSQL session as the SQL functions about the session see it ({@link SessionParameters}): its user
 * (session_authorization), its process id, and its {@link PgSettings}, read as SHOW reads them and written as SET
 * writes them ({@link PgCommands#set}: applied where a setting changes what MeldDB does, reported with
 * ParameterStatus where PostgreSQL reports it). {@code set_config(name, value, true)} is SET LOCAL: the value lasts
 * until the transaction the statement runs in ends, an explicit block's or the statement's own implicit one
 * ({@link PgSettingChanges}).
 */
final class PgSessionParameters implements SessionParameters {
    private final PgSettings settings;
    private final PgCommands commands;
    private final int processId;

    PgSessionParameters(final PgSettings settings, final PgCommands commands, final int processId) {
        this.settings = settings;
        this.commands = commands;
        this.processId = processId;
    }

    @Override
    public String user() {
        return settings.get("session_authorization");
    }

    @Override
    public int processId() {
        return processId;
    }

    @Override
    public String find(final String name) {
        try {
            return commands.value(name);
        } catch (SqlStateException e) {
            if (e.sqlState().equals("42704")) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public String set(final String name, final String value, final boolean local) {
        return commands.value(commands.set(name, value, local));
    }
}
