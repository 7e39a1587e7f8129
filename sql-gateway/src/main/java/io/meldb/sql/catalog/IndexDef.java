package io.meldb.sql.catalog;

/**
 * A secondary index: a table of entries under its own id, maintained in the same transaction as the row.
 * {@code columns} are positions in the table's column list.
 *
 * <p>A non-unique index's entry is (index columns, row key) → empty payload. A {@code unique} index's entry is
 * (index columns) → row key, so two transactions that insert the same value write the same key and meld aborts
 * one of them (Hyder's write-write conflict), whichever txn-server each ran on; an entry with a NULL in one of its
 * columns uses the non-unique layout, since NULLs never conflict (SQL's rule). {@code constraint} marks the index
 * of a {@code UNIQUE} constraint (as opposed to {@code CREATE UNIQUE INDEX}): its name is the constraint's.
 * {@code hidden} marks the index a FOREIGN KEY made on its referencing columns ({@link ForeignKeyDef#indexId()}):
 * named as the constraint, used by the planner like any other, but listed nowhere and dropped with the constraint.
 */
public record IndexDef(String name, int id, int[] columns, boolean unique, boolean constraint, boolean hidden) {

    public IndexDef {
        if (constraint && !unique) {
            throw new IllegalArgumentException("index " + name + ": only a unique index backs a constraint");
        }
        if (hidden && (unique || constraint)) {
            throw new IllegalArgumentException("index " + name + ": a hidden index is a plain one");
        }
    }

    /** An index a user can see (not {@link #hidden}). */
    public IndexDef(final String name, final int id, final int[] columns, final boolean unique,
                    final boolean constraint) {
        this(name, id, columns, unique, constraint, false);
    }

    /** A non-unique index. */
    public IndexDef(final String name, final int id, final int[] columns) {
        this(name, id, columns, false, false);
    }
}
