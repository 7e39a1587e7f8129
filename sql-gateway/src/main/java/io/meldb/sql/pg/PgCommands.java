package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.server.SqlSession;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Carries out the {@link PgCommand}s: transaction control on the connection's {@link PgTransactionBlock},
 * session parameters in its {@link PgSettings} (and the ones that change what MeldDB does: search_path, the
 * transaction characteristics), and the statements accepted without effect. Savepoints and DISCARD ALL reach the
 * connection's SQL cursors ({@link PgCursors}) too. Writes each command's rows,
 * warnings (as PostgreSQL gives them: BEGIN inside a block, COMMIT outside one) and CommandComplete.
 */
final class PgCommands {
    private final SqlSession session;
    private final PgSettings settings;
    private final PgTransactionBlock block;
    private final PgOutput output;
    /** The settings the open transaction changed, undone when it ends. */
    private final PgSettingChanges changes = new PgSettingChanges();
    private final PgCursors cursors;

    PgCommands(final SqlSession session, final PgSettings settings, final PgTransactionBlock block,
               final PgOutput output, final PgCursors cursors) {
        this.session = session;
        this.settings = settings;
        this.block = block;
        this.output = output;
        block.onEnd(this::transactionEnded);
        this.cursors = cursors;
    }

    /** The columns a command answers (SHOW), or none. */
    PgColumns columns(final PgCommand command) {
        if (command instanceof PgCommand.Show s) {
            if (s.name().equalsIgnoreCase("all")) {
                return PgColumns.text(List.of("name", "setting", "description"));
            }
            settings.get(s.name()); // an unknown parameter fails when the statement is prepared
            return PgColumns.text(List.of(s.name().toLowerCase(Locale.ROOT)));
        }
        return PgColumns.NONE;
    }

    /** Runs a command; answers the command tag it completed with. */
    String run(final PgCommand command, final String tag) {
        final ByteBuf out = output.buffer();
        String completed = tag;
        if (command instanceof PgCommand.Begin b) {
            if (!block.begin(b.isolation(), b.readOnly())) {
                warning("25001", "there is already a transaction in progress");
            }
        } else if (command instanceof PgCommand.Commit) {
            final String result = block.commit();
            if (result == null) {
                warning("25P01", "there is no transaction in progress");
            } else {
                completed = result;
            }
        } else if (command instanceof PgCommand.Rollback) {
            if (!block.rollback()) {
                warning("25P01", "there is no transaction in progress");
            }
        } else if (command instanceof PgCommand.Savepoint sp) {
            session.state().savepoint(sp.name());
            cursors.savepoint(sp.name());
        } else if (command instanceof PgCommand.RollbackToSavepoint sp) {
            session.state().rollbackToSavepoint(sp.name());
            cursors.rollbackTo(sp.name());
        } else if (command instanceof PgCommand.ReleaseSavepoint sp) {
            session.state().releaseSavepoint(sp.name());
            cursors.release(sp.name());
        } else if (command instanceof PgCommand.SetConstraints s) {
            if (!block.explicit()) {
                warning("25P01", "SET CONSTRAINTS can only be used in transaction blocks");
            } else {
                s.statement().apply(session.state());
            }
        } else if (command instanceof PgCommand.SetTransaction s) {
            if (!s.session() && !block.explicit()) {
                warning("25P01", "SET TRANSACTION can only be used in transaction blocks");
            }
            block.characteristics(s.session(), s.isolation(), s.readOnly());
        } else if (command instanceof PgCommand.Set s) {
            if (s.local() && !block.explicit()) {
                // as PostgreSQL: outside a transaction block SET LOCAL would end with the statement
                warning("25P01", "SET LOCAL can only be used in transaction blocks");
            } else {
                set(s.name(), s.value(), s.local());
            }
        } else if (command instanceof PgCommand.Show s) {
            show(s.name());
        } else if (command instanceof PgCommand.Reset r) {
            if (r.tag().equals("DISCARD ALL")) {
                if (block.explicit()) {
                    throw new SqlStateException("25001", "DISCARD ALL cannot run inside a transaction block");
                }
                cursors.closeAll(); // DISCARD ALL closes every cursor (CLOSE ALL) too
            }
            if (r.name() == null) {
                for (String name : List.copyOf(settings.all().keySet())) {
                    if (!PgSettings.REPORTED.contains(name) || name.equals("application_name")) {
                        set(name, null, false);
                    }
                }
            } else {
                set(r.name(), null, false);
            }
        } else if (command instanceof PgCommand.SetRole r) {
            final String user = settings.get("session_authorization");
            if (r.role() != null && !r.role().equals(user)) {
                throw new SqlStateException("0A000", "SET ROLE " + r.role() + " is not supported: MeldDB has no roles "
                        + "or privileges, so the role is always the session's user (" + user + ")");
            }
        } else if (command instanceof PgCommand.Unsupported u) {
            throw new SqlStateException("0A000", u.feature() + " is not supported");
        }
        PgBackend.commandComplete(out, completed);
        return completed;
    }

    /**
     * SET name TO value (null = DEFAULT), SET LOCAL with {@code local}: as {@link #set(String, String)}, and
     * inside a transaction remembered, to be undone when it ends ({@link PgSettingChanges}). Answers the
     * parameter's canonical name.
     */
    String set(final String name, final String value, final boolean local) {
        if (!block.open()) {
            return set(name, value);
        }
        final String before = find(name);
        final String key = set(name, value);
        if (!TRANSACTION_SCOPED.contains(key)) {
            changes.changed(key, before, settings.get(key), local);
        }
        return key;
    }

    /** The settings of the transaction itself, which the block sets and resets ({@link PgTransactionBlock}). */
    private static final java.util.Set<String> TRANSACTION_SCOPED = java.util.Set.of("transaction_isolation",
            "transaction_read_only", "transaction_deferrable");

    /** The block ended: the settings it changed take the values it leaves them ({@link PgSettingChanges}). */
    private void transactionEnded(final boolean committed) {
        changes.end(committed).forEach((name, value) -> {
            if (!java.util.Objects.equals(find(name), value)) {
                set(name, value);
            }
        });
    }

    /** The stored value of a setting, or null when the session has none of that name. */
    private String find(final String name) {
        try {
            return settings.get(name);
        } catch (SqlStateException e) {
            return null;
        }
    }

    /**
     * SET name TO value (null = DEFAULT) for the session: stored, applied where it changes MeldDB, reported if
     * PostgreSQL does. Answers the parameter's canonical name.
     */
    private String set(final String name, final String value) {
        final String key = value == null ? settings.reset(name) : settings.set(name, value);
        final String now = settings.get(key);
        switch (key) {
            case "search_path" -> session.setSchema(schemaOf(now));
            case "transaction_isolation" -> block.characteristics(false, PgSettings.isolation(now), null);
            case "default_transaction_isolation" -> block.characteristics(true, PgSettings.isolation(now), null);
            case "transaction_read_only" -> block.characteristics(false, null, PgSettings.isOn(now));
            case "default_transaction_read_only" -> block.characteristics(true, null, PgSettings.isOn(now));
            case "meldb.fast_path" -> session.fastPath(PgSettings.isOn(now));
            case "meldb.statement_memory" -> session.state().memory().limit(
                    io.meldb.sql.calcite.StatementMemory.parse(now));
            default -> {
                // kept for SHOW only
            }
        }
        if (PgSettings.REPORTED.contains(key)) {
            PgBackend.parameterStatus(output.buffer(), key, now);
        }
        return key;
    }

    /** A parameter's value as SHOW and current_setting answer it; 42704 for a parameter the session lacks. */
    String value(final String name) {
        return current(name, settings.get(name));
    }

    private void show(final String name) {
        final ByteBuf out = output.buffer();
        if (name.equalsIgnoreCase("all")) {
            for (Map.Entry<String, String> e : settings.all().entrySet()) {
                row(out, e.getKey(), current(e.getKey(), e.getValue()), "");
            }
            return;
        }
        row(out, value(name));
    }

    /** The transaction characteristics are the open transaction's, whatever SET last stored. */
    private String current(final String name, final String stored) {
        if (name.equalsIgnoreCase("transaction_isolation")) {
            return block.isolation();
        }
        if (name.equalsIgnoreCase("transaction_read_only")) {
            return block.readOnly() ? "on" : "off";
        }
        return stored;
    }

    private void warning(final String sqlState, final String message) {
        PgBackend.error(output.buffer(), 'N', "WARNING", sqlState, message, null, null);
    }

    private static void row(final ByteBuf out, final String... values) {
        final int at = PgBackend.begin(out, 'D');
        out.writeShort(values.length);
        for (String v : values) {
            PgValues.writeText(out, v);
        }
        PgBackend.end(out, at);
    }

    /**
     * The schema unqualified names resolve in: the first entry of a search_path other than "$user" and
     * pg_catalog. An unquoted name is lower-cased, as MeldDB's SQL folds unquoted identifiers (PostgreSQL's rule).
     */
    static String schemaOf(final String searchPath) {
        for (String entry : searchPath.split(",")) {
            final String e = entry.trim();
            if (e.isEmpty() || e.equals("$user") || e.equals("\"$user\"") || e.equalsIgnoreCase("pg_catalog")) {
                continue;
            }
            if (e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"")) {
                return e.substring(1, e.length() - 1).replace("\"\"", "\"");
            }
            return e.toLowerCase(Locale.ROOT);
        }
        return io.meldb.sql.catalog.Catalog.PUBLIC;
    }
}
