package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL cursors of one connection by name (PostgreSQL's portals made by DECLARE, which pg_cursors lists) and
 * what becomes of them as transactions go (portalmem.c: AtCommit_Portals, AtAbort_Portals, AtSubAbort_Portals).
 * A cursor ends with the transaction that declared it, unless WITH HOLD: that one reads the rest of its rows into
 * memory at COMMIT and lives until CLOSE or the session's end. ROLLBACK drops every cursor the transaction declared,
 * held or not; ROLLBACK TO SAVEPOINT the ones declared since the savepoint. Before a statement writes, the
 * cursors that still read the transaction read the rest of their rows, so that none sees the write (PostgreSQL's
 * cursors do not see changes made after they were opened). pg_cursors lists them ({@link #list}).
 */
final class PgCursors implements PgTransactionBlock.Cursors, io.meldb.sql.calcite.OpenCursors {
    private final Map<String, PgCursor> byName = new LinkedHashMap<>();
    /** The savepoints of the open transaction, oldest first (SAVEPOINT, ROLLBACK TO and RELEASE keep it). */
    private final List<String> savepoints = new ArrayList<>();

    /** The cursor named {@code name}, or null. */
    PgCursor get(final String name) {
        return byName.get(name);
    }

    /** The cursor named {@code name}; 34000 when there is none. */
    PgCursor find(final String name) {
        final PgCursor c = byName.get(name);
        if (c == null) {
            throw new SqlStateException("34000", "cursor \"" + name + "\" does not exist");
        }
        return c;
    }

    /** Keeps a cursor the open transaction declared (the caller checked that its name is free). */
    void add(final PgCursor cursor) {
        cursor.level = savepoints.size();
        byName.put(cursor.name, cursor);
    }

    /** pg_cursors: the cursors, in the order they were declared. */
    @Override
    public List<Cursor> list() {
        final List<Cursor> out = new ArrayList<>(byName.size());
        for (PgCursor c : byName.values()) {
            out.add(new Cursor(c.name, c.statement, c.holdable, c.binary, c.scrollable, c.created));
        }
        return out;
    }

    /** CLOSE name: 34000 when there is no such cursor. */
    void close(final String name) {
        find(name);
        byName.remove(name).rows.close();
    }

    /** CLOSE ALL, DISCARD ALL, and the end of the session. */
    void closeAll() {
        final List<PgCursor> open = List.copyOf(byName.values());
        byName.clear();
        RuntimeException first = null;
        for (PgCursor c : open) {
            try {
                c.rows.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public void beforeWrite() {
        if (byName.isEmpty()) {
            return;
        }
        for (PgCursor c : byName.values()) {
            if (c.rows.reading()) {
                c.rows.materialize();
            }
        }
    }

    /** Whether a cursor still reads the transaction (a write would make it read the rest of its rows). */
    boolean reading() {
        if (byName.isEmpty()) {
            return false;
        }
        for (PgCursor c : byName.values()) {
            if (c.rows.reading()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean ofTransaction() {
        if (byName.isEmpty()) {
            return false;
        }
        for (PgCursor c : byName.values()) {
            if (c.ofTransaction) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void beforeCommit() {
        if (byName.isEmpty()) {
            return;
        }
        for (PgCursor c : byName.values()) {
            if (c.ofTransaction && c.holdable && !c.failed) {
                c.rows.materialize(); // PersistHoldablePortal
            }
        }
    }

    @Override
    public void readPartCommitted() {
        if (byName.isEmpty()) {
            return;
        }
        for (PgCursor c : byName.values()) {
            if (c.ofTransaction && c.holdable && !c.failed && !c.rows.reading()) {
                c.ofTransaction = false;
                c.level = 0;
            }
        }
    }

    @Override
    public void ended(final boolean committed) {
        savepoints.clear();
        if (byName.isEmpty()) {
            return;
        }
        for (Iterator<PgCursor> it = byName.values().iterator(); it.hasNext(); ) {
            final PgCursor c = it.next();
            if (!c.ofTransaction) {
                continue; // held from an earlier transaction
            }
            if (committed && c.holdable && !c.failed) {
                c.ofTransaction = false;
                c.level = 0;
            } else {
                it.remove();
                c.rows.close();
            }
        }
    }

    /** SAVEPOINT name (it ran). */
    void savepoint(final String name) {
        savepoints.add(name);
    }

    /** ROLLBACK TO SAVEPOINT name (it ran): the cursors declared since go; the savepoint stays. */
    void rollbackTo(final String name) {
        final int i = savepoints.lastIndexOf(name);
        if (i < 0) {
            return;
        }
        savepoints.subList(i + 1, savepoints.size()).clear();
        for (Iterator<PgCursor> it = byName.values().iterator(); it.hasNext(); ) {
            final PgCursor c = it.next();
            if (c.ofTransaction && c.level > i) {
                it.remove();
                c.rows.close();
            }
        }
    }

    /** RELEASE SAVEPOINT name (it ran): the cursors declared since belong to the level it was set in. */
    void release(final String name) {
        final int i = savepoints.lastIndexOf(name);
        if (i < 0) {
            return;
        }
        savepoints.subList(i, savepoints.size()).clear();
        for (PgCursor c : byName.values()) {
            if (c.ofTransaction && c.level > i) {
                c.level = i;
            }
        }
    }
}
