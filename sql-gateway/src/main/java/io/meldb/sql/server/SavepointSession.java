package io.meldb.sql.server;

import io.meldb.core.IntField;
import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.List;

/**
 * A transaction with PostgreSQL's savepoints: SAVEPOINT marks the transaction's writes so far, ROLLBACK TO
 * SAVEPOINT undoes the writes made since the mark (keeping the mark), RELEASE forgets it. A transaction is one
 * copy-on-write intention that meld judges as a whole, so a write is undone by writing the key's earlier value
 * back (or deleting a key that was absent, subtracting an increment): the intention then holds that key as
 * written, which can only add conflicts, never lose one, and every read stays a read dependency (as PostgreSQL's
 * serializable isolation keeps the reads of a rolled-back subtransaction). Undo entries are kept only while a
 * savepoint exists. A savepoint over DDL cannot be rolled back to (0A000): DDL also changes the gateway's catalog.
 */
final class SavepointSession extends ForwardingSession {
    /** A write to undo: the key's earlier value (null: absent), or an increment to subtract. */
    private record Undo(byte[] key, byte[] previous, IntField field, long delta) {
    }

    /** A savepoint: its name, where its writes begin in the undo log, and the DDL count when it was set. */
    private record Mark(String name, int undoAt, int ddlCount) {
    }

    private final List<Undo> undo = new ArrayList<>();
    private final List<Mark> marks = new ArrayList<>();
    private int ddlCount;

    SavepointSession(final TxnSession session) {
        super(session);
    }

    boolean hasSavepoints() {
        return !marks.isEmpty();
    }

    void savepoint(final String name) {
        marks.add(new Mark(name, undo.size(), ddlCount));
    }

    /** A DDL statement runs: no savepoint set before it can be rolled back to. */
    void ddl() {
        ddlCount++;
    }

    /** ROLLBACK TO SAVEPOINT: undoes the writes since the newest savepoint of that name, which stays. */
    void rollbackTo(final String name) {
        final int at = find(name);
        final Mark mark = marks.get(at);
        if (mark.ddlCount() != ddlCount) {
            throw new SqlStateException("0A000", "ROLLBACK TO SAVEPOINT " + name + " after DDL is not supported: "
                    + "roll back the whole transaction");
        }
        for (int i = undo.size() - 1; i >= mark.undoAt(); i--) {
            final Undo u = undo.get(i);
            if (u.field() != null) {
                session.add(u.key(), u.field(), -u.delta());
            } else if (u.previous() == null) {
                session.delete(u.key());
            } else {
                session.put(u.key(), u.previous());
            }
        }
        undo.subList(mark.undoAt(), undo.size()).clear();
        marks.subList(at + 1, marks.size()).clear();
    }

    /** RELEASE SAVEPOINT: forgets the newest savepoint of that name and those set after it; its writes stay. */
    void release(final String name) {
        final int at = find(name);
        marks.subList(at, marks.size()).clear();
        if (marks.isEmpty()) {
            undo.clear();
        }
    }

    private int find(final String name) {
        for (int i = marks.size() - 1; i >= 0; i--) {
            if (marks.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new SqlStateException("3B001", "savepoint \"" + name + "\" does not exist");
    }

    @Override
    public void put(final byte[] key, final byte[] value) {
        if (!marks.isEmpty()) {
            undo.add(new Undo(key.clone(), session.get(key), null, 0));
        }
        session.put(key, value);
    }

    @Override
    public void delete(final byte[] key) {
        if (!marks.isEmpty()) {
            final byte[] previous = session.get(key);
            if (previous != null) {
                undo.add(new Undo(key.clone(), previous, null, 0));
            }
        }
        session.delete(key);
    }

    @Override
    public void add(final byte[] key, final IntField field, final long delta) {
        session.add(key, field, delta);
        if (!marks.isEmpty()) {
            undo.add(new Undo(key.clone(), null, field, delta));
        }
    }
}
