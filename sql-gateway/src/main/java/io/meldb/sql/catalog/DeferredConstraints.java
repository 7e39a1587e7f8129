package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The deferred FOREIGN KEY checks of one transaction and its {@code SET CONSTRAINTS} modes (PostgreSQL's "SET
 * CONSTRAINTS" and the deferred-trigger queue of its {@code AfterTriggerSetState}).
 *
 * <p>A DEFERRABLE constraint is deferred in a transaction when SET CONSTRAINTS named it DEFERRED, else when SET
 * CONSTRAINTS ALL DEFERRED was the last ALL, else when it is INITIALLY DEFERRED. Its NO ACTION checks (a child row
 * must find its parent; a parent key deleted or changed must leave no child) are then queued here instead of run as
 * the row is written, and run at COMMIT ({@link #checkAll}) or when SET CONSTRAINTS makes the constraint IMMEDIATE
 * again. Each check reads again what it checks, in the transaction, as PostgreSQL's deferred RI triggers do: a child
 * row deleted since, or a parent key written back, passes. Referential actions (CASCADE, SET NULL) and RESTRICT are
 * never deferred, as in PostgreSQL. The reads of a check are the transaction's reads, so meld validates them at
 * commit like any other: a concurrent transaction that breaks what the check saw aborts one of the two.
 */
public final class DeferredConstraints {
    public DeferredConstraints() {
    }

    /** A transaction that carries deferred checks: the gateway's write transactions. */
    public interface Owner {
        /** This transaction's deferred constraints, or null when it cannot defer any. */
        DeferredConstraints deferredConstraints();
    }

    /**
     * A check of constraint {@code fk}, held by table {@code child}, postponed to COMMIT; it reads again what it
     * checks.
     */
    abstract static class Check {
        final TableDef child;
        final ForeignKeyDef fk;

        Check(final TableDef child, final ForeignKeyDef fk) {
            this.child = child;
            this.fk = fk;
        }

        /** Throws 23503 when the constraint is violated in {@code txn}'s current state. */
        abstract void run(TxnSession txn);
    }

    /** A constraint SET CONSTRAINTS names: the table that holds it and its name. */
    public record Named(int tableId, String name) {
    }

    /** SET CONSTRAINTS ALL's mode: null until one is run. */
    private Boolean all;
    private final Map<Named, Boolean> named = new HashMap<>();
    private final List<Check> pending = new ArrayList<>();

    /** The deferred constraints of {@code txn}, or null when it cannot defer (a read-only transaction). */
    public static DeferredConstraints of(final TxnSession txn) {
        return txn instanceof Owner o ? o.deferredConstraints() : null;
    }

    /** Whether the checks of {@code fk}, held by table {@code tableId}, wait for COMMIT in this transaction. */
    boolean deferred(final int tableId, final ForeignKeyDef fk) {
        if (!fk.timing().deferrable()) {
            return false;
        }
        Boolean mode = named.isEmpty() ? null : named.get(new Named(tableId, fk.name()));
        if (mode == null) {
            mode = all;
        }
        return mode != null ? mode : fk.timing() == ForeignKeyDef.Timing.INITIALLY_DEFERRED;
    }

    void defer(final Check check) {
        pending.add(check);
    }

    /** Whether checks wait for COMMIT. */
    public boolean hasPending() {
        return !pending.isEmpty();
    }

    /** SET CONSTRAINTS ALL: IMMEDIATE runs every pending check now (their failure fails the statement). */
    public void setAll(final boolean deferred, final TxnSession txn) {
        all = deferred;
        named.clear();
        if (!deferred) {
            run(txn, null);
        }
    }

    /** SET CONSTRAINTS names: IMMEDIATE runs the named constraints' pending checks now. */
    public void set(final List<Named> constraints, final boolean deferred, final TxnSession txn) {
        for (Named n : constraints) {
            named.put(n, deferred);
        }
        if (!deferred) {
            run(txn, constraints);
        }
    }

    /** At COMMIT: runs every pending check, in the order the rows were written. */
    public void checkAll(final TxnSession txn) {
        run(txn, null);
    }

    private void run(final TxnSession txn, final List<Named> only) {
        final List<Check> now = new ArrayList<>();
        final List<Check> later = new ArrayList<>();
        for (Check c : pending) {
            (only == null || only.contains(new Named(c.child.id(), c.fk.name())) ? now : later).add(c);
        }
        pending.clear();
        pending.addAll(later);
        for (Check c : now) {
            c.run(txn);
        }
    }

    /**
     * The constraints SET CONSTRAINTS names (each {@code [schema.]name}, as PostgreSQL resolves them: an unqualified
     * name in the first schema of {@code searchPath} that has a constraint of that name): every FOREIGN KEY of that
     * name there. 42704 when there is none; 42809 when one is not deferrable (a PRIMARY KEY, UNIQUE or CHECK
     * constraint, which MeldDB never defers, included).
     */
    public static List<Named> resolve(final Catalog catalog, final String db, final List<String[]> names,
                                      final List<String> searchPath) {
        final List<Named> out = new ArrayList<>();
        for (String[] qualified : names) {
            final String name = qualified[qualified.length - 1];
            final List<String> schemas = qualified.length > 1 ? List.of(qualified[0]) : searchPath;
            boolean found = false;
            for (String schema : schemas) {
                for (TableDef t : catalog.tables(db, schema).values()) {
                    for (ForeignKeyDef fk : t.foreignKeys()) {
                        if (fk.name().equals(name)) {
                            found = true;
                            if (!fk.timing().deferrable()) {
                                throw notDeferrable(name);
                            }
                            out.add(new Named(t.id(), name));
                        }
                    }
                    if (otherConstraint(t, name)) {
                        throw notDeferrable(name);
                    }
                }
                if (found) {
                    break;
                }
            }
            if (!found) {
                throw new SqlStateException("42704", "constraint \"" + name + "\" does not exist");
            }
        }
        return out;
    }

    private static boolean otherConstraint(final TableDef t, final String name) {
        for (IndexDef i : t.indexes()) {
            if (i.constraint() && i.name().equals(name)) {
                return true;
            }
        }
        for (CheckDef c : t.checks()) {
            if (c.name().equals(name)) {
                return true;
            }
        }
        return t.primaryKey().length > 0 && (t.name() + "_pkey").equals(name);
    }

    private static SqlStateException notDeferrable(final String name) {
        return new SqlStateException("42809", "constraint \"" + name + "\" is not deferrable");
    }
}
