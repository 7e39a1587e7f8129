package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.server.SqlSession;

import java.util.HashMap;
import java.util.Map;

/**
 * The prepared statements and portals of one connection, by name (PostgreSQL docs, "Extended Query": named and
 * unnamed statements and portals), with the Close message that drops one (or the SQL cursor of that name:
 * PostgreSQL's cursors are portals). The unnamed portal's object is reused from Bind to Bind, and the statement a
 * Bind or Describe named last is found again without making a String.
 */
final class PgPortals {
    private final SqlSession session;
    private final PgCursors cursors;
    private final Map<String, PgStatement> statements = new HashMap<>();
    private final Map<String, PgPortal> portals = new HashMap<>();
    /** The portal object the unnamed portal reuses (Bind to "" on every statement is the common case). */
    PgPortal unnamedPortal;
    /** The statement a Bind or Describe named last, so that the next one finds it without making a String. */
    private String lastStatementName;
    private PgStatement lastStatement;

    PgPortals(final SqlSession session, final PgCursors cursors) {
        this.session = session;
        this.cursors = cursors;
    }

    boolean hasStatement(final String name) {
        return statements.containsKey(name);
    }

    /** Keeps {@code statement} under {@code name}, closing the one it replaces (the unnamed statement). */
    void putStatement(final String name, final PgStatement statement) {
        final PgStatement old = statements.put(name, statement);
        forgetStatementName();
        if (old != null) {
            old.close();
        }
    }

    PgPortal portal(final String name) {
        return portals.get(name);
    }

    /** Keeps {@code portal} under {@code name}; the portal it replaces, if another, has its cursor closed. */
    void putPortal(final String name, final PgPortal portal) {
        final PgPortal old = portals.put(name, portal);
        if (old != null && old != portal) {
            closeCursor(old);
        }
    }

    void removePortal(final String name) {
        portals.remove(name);
    }

    /** The name the message holds in its name and the statement of that name ({@link #lastStatementName}). */
    String lastStatementName() {
        return lastStatementName;
    }

    /** Reads a portal or statement name: the empty one, the commonest, without making a String. */
    static String readName(final PgMessage m) {
        return m.readEmptyCString() ? "" : m.readCString();
    }

    /**
     * Reads a statement name and answers its statement (26000 when there is none); the name is then in
     * {@link #lastStatementName}. The name the previous call found is compared in place, without a String.
     */
    PgStatement readStatement(final PgMessage m) {
        if (lastStatement != null && m.readCStringIf(lastStatementName)) {
            return lastStatement;
        }
        final String name = readName(m);
        final PgStatement statement = statements.get(name);
        if (statement == null) {
            throw new SqlStateException("26000", "prepared statement \"" + name + "\" does not exist");
        }
        lastStatementName = name;
        lastStatement = statement;
        return statement;
    }

    /** The statements changed: the next lookup goes through the map. */
    private void forgetStatementName() {
        lastStatementName = null;
        lastStatement = null;
    }

    /** Close: drops a statement ('S') or a portal ('P'), whether or not it exists. */
    void close(final PgMessage m) {
        final byte what = m.readByte();
        final String name = readName(m);
        if (what == 'S') {
            forgetStatementName();
            final PgStatement s = statements.remove(name);
            if (s != null) {
                s.close();
            }
        } else if (what == 'P') {
            final PgPortal p = portals.remove(name);
            if (p != null) {
                closeCursor(p);
            } else if (cursors.get(name) != null) {
                cursors.close(name);
            }
        } else {
            throw new PgProtocolException("invalid Close target '" + (char) what + "'");
        }
    }

    void closeCursor(final PgPortal portal) {
        if (portal.result != null) {
            session.closeResult(portal.result);
            portal.result = null;
        }
    }

    void closeAllPortals() {
        if (portals.isEmpty()) {
            return;
        }
        if (portals.size() == 1 && unnamedPortal != null && portals.get("") == unnamedPortal) {
            closeCursor(unnamedPortal); // the common case, without an iterator
            portals.clear();
            return;
        }
        for (PgPortal p : portals.values()) {
            closeCursor(p);
        }
        portals.clear();
    }

    /** The connection ended: every portal and statement goes. */
    void closeEverything() {
        closeAllPortals();
        for (PgStatement s : statements.values()) {
            s.close();
        }
        statements.clear();
        forgetStatementName();
    }
}
