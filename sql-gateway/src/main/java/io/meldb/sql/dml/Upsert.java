package io.meldb.sql.dml;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.InsertConflicts;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.catalog.TableStore;
import io.meldb.txn.api.TxnSession;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * A prepared {@code INSERT ... ON CONFLICT} (PostgreSQL's upsert): the clause ({@link OnConflictClause}) resolved
 * against the target table, its arbiter (the primary key or the unique constraint or index the conflict target
 * names; 42P10 when none matches) and, for DO UPDATE, the evaluation of its SET and WHERE ({@link ConflictUpdate}).
 * {@link #begin} makes the per-execution handling that the write path hands every row to.
 *
 * <p>Conflicts are found by reading the arbiter's key in the transaction: the read (a key of the read set) and the
 * write that follows (insert or update of that key) are what meld checks, so two upserts of one key racing on
 * different txn-servers cannot both commit (one gets 40001; retried, it sees the other's row and updates it).
 */
public final class Upsert implements InsertConflicts, AutoCloseable {
    private final OnConflictClause clause;
    private final int tableId;
    /** The arbiter: null for the primary key (or, with no conflict target, every unique key), else the index. */
    private final IndexDef arbiter;
    /** Whether a conflict target was given (ON CONFLICT DO NOTHING without one: any unique key is a conflict). */
    private final boolean targeted;
    private final int[] setColumns;
    private final ConflictUpdate update;

    private Upsert(final OnConflictClause clause, final int tableId, final IndexDef arbiter, final boolean targeted,
                   final int[] setColumns, final ConflictUpdate update) {
        this.clause = clause;
        this.tableId = tableId;
        this.arbiter = arbiter;
        this.targeted = targeted;
        this.setColumns = setColumns;
        this.update = update;
    }

    /** The INSERT that runs, without the ON CONFLICT clause. */
    public String insertSql() {
        return clause.sql();
    }

    /**
     * Resolves {@code clause} in {@code catalog} (unqualified names in {@code schema}); DO UPDATE's expressions are
     * planned on {@code calcite}. SQLStates: 42P01 unknown table, 42P10 no matching unique constraint, 42704 unknown
     * constraint, 42703 unknown column, 428C9 a GENERATED ALWAYS column set.
     */
    public static Upsert prepare(final OnConflictClause clause, final Catalog catalog, final String database,
                                 final String schema, final Connection calcite) {
        final TableDef def = catalog.table(database, clause.schema() != null ? clause.schema() : schema,
                clause.table());
        if (def == null) {
            throw new SqlStateException("42P01", "relation \"" + clause.table() + "\" does not exist");
        }
        final IndexDef arbiter = arbiter(clause, def);
        final boolean targeted = clause.targetColumns() != null || clause.constraint() != null;
        if (!clause.doUpdate()) {
            return new Upsert(clause, def.id(), arbiter, targeted, new int[0], null);
        }
        final int[] setColumns = new int[clause.set().size()];
        for (int i = 0; i < setColumns.length; i++) {
            final String name = clause.set().get(i).column();
            final int c = def.columnIndex(name);
            if (c < 0) {
                throw new SqlStateException("42703", "column \"" + name + "\" of relation \"" + def.name()
                        + "\" does not exist");
            }
            if (def.columns().get(c).identity() == ColumnDef.Identity.ALWAYS) {
                throw new SqlStateException("428C9", "column \"" + name + "\" can only be updated to DEFAULT: it is "
                        + "an identity column defined as GENERATED ALWAYS");
            }
            for (int j = 0; j < i; j++) {
                if (setColumns[j] == c) {
                    throw new SqlStateException("42601", "multiple assignments to same column \"" + name + "\"");
                }
            }
            setColumns[i] = c;
        }
        final int[] keyColumns = arbiter == null ? def.primaryKey() : arbiter.columns();
        return new Upsert(clause, def.id(), arbiter, targeted, setColumns,
                ConflictUpdate.prepare(clause, def, keyColumns, calcite));
    }

    /** The unique index the conflict target names, or null for the primary key (or when there is no target). */
    private static IndexDef arbiter(final OnConflictClause clause, final TableDef def) {
        if (clause.constraint() != null) {
            if (!def.hiddenRowId() && clause.constraint().equals(def.name() + "_pkey")) {
                return null;
            }
            for (IndexDef index : def.indexes()) {
                if (index.unique() && index.constraint() && index.name().equals(clause.constraint())) {
                    return index;
                }
            }
            throw new SqlStateException("42704", "constraint \"" + clause.constraint() + "\" for table \""
                    + def.name() + "\" does not exist");
        }
        if (clause.targetColumns() == null) {
            return null;
        }
        final int[] wanted = new int[clause.targetColumns().size()];
        for (int i = 0; i < wanted.length; i++) {
            wanted[i] = def.columnIndex(clause.targetColumns().get(i));
            if (wanted[i] < 0) {
                throw new SqlStateException("42703", "column \"" + clause.targetColumns().get(i) + "\" does not "
                        + "exist");
            }
        }
        if (!def.hiddenRowId() && sameSet(def.primaryKey(), wanted)) {
            return null;
        }
        for (IndexDef index : def.indexes()) {
            if (index.unique() && sameSet(index.columns(), wanted)) {
                return index;
            }
        }
        throw new SqlStateException("42P10", "there is no unique or exclusion constraint matching the ON CONFLICT "
                + "specification");
    }

    private static boolean sameSet(final int[] a, final int[] b) {
        final int[] x = a.clone();
        final int[] y = Arrays.stream(b).distinct().toArray();
        Arrays.sort(x);
        Arrays.sort(y);
        return Arrays.equals(x, y);
    }

    @Override
    public int tableId() {
        return tableId;
    }

    /** The conflict handling of one execution (it remembers the rows the execution inserted or updated). */
    @Override
    public Execution begin() {
        return new Run();
    }

    @Override
    public void close() {
        if (update != null) {
            update.close();
        }
    }

    /** One execution: each proposed row inserted, skipped or turned into an update of the row it conflicts with. */
    private final class Run implements Execution {
        /** Arbiter keys of the rows this execution inserted or updated (DO UPDATE may touch a row once: 21000). */
        private final Set<ByteBuffer> touched = new HashSet<>();

        @Override
        public Object[] insert(final TableStore store, final TxnSession txn, final Object[] row) {
            final TableDef def = store.def();
            final Object[] proposed = store.checkRow(row); // NOT NULL and CHECK come first, as in PostgreSQL
            if (!targeted) {
                return conflictsAnywhere(store, txn, proposed) ? null : store.insert(txn, row);
            }
            final IndexDef index = currentArbiter(def);
            final byte[] arbiterKey = arbiterKey(store, index, proposed);
            byte[] rowKey = null;
            byte[] payload = null;
            if (arbiterKey != null) {
                final byte[] found = txn.get(arbiterKey);
                if (found != null) {
                    rowKey = index == null ? arbiterKey : store.rowKeyOfIndexEntry(index, arbiterKey, found);
                    payload = index == null ? found : txn.get(rowKey);
                }
            }
            if (payload == null) {
                final Object[] stored = store.insert(txn, row);
                if (update != null) {
                    remember(store, index, stored);
                }
                return stored;
            }
            if (update == null) {
                return null; // DO NOTHING
            }
            if (touched.contains(ByteBuffer.wrap(arbiterKey))) {
                throw new SqlStateException("21000", "ON CONFLICT DO UPDATE command cannot affect row a second time",
                        "Ensure that no rows proposed for insertion within the same command have duplicate "
                                + "constrained values.", null);
            }
            final Object[] existing = store.decodeRow(rowKey, payload);
            final Object[] values = update.evaluate(existing, proposed);
            if (values == null) {
                throw new SqlStateException("40001", "the conflicting row of table \"" + def.name() + "\" changed "
                        + "while this statement ran; retry it");
            }
            if (!Boolean.TRUE.equals(values[setColumns.length])) {
                return null; // DO UPDATE ... WHERE false: the row stays as it is
            }
            final Object[] changed = existing.clone();
            for (int i = 0; i < setColumns.length; i++) {
                changed[setColumns[i]] = values[i];
            }
            final Object[] stored = store.updateAt(txn, rowKey, existing, changed);
            remember(store, index, stored);
            return stored;
        }

        private void remember(final TableStore store, final IndexDef index, final Object[] stored) {
            final byte[] key = arbiterKey(store, index, stored);
            if (key != null) {
                touched.add(ByteBuffer.wrap(key));
            }
        }

        /** The arbiter as the table is now (an index dropped since preparing: 42P10). */
        private IndexDef currentArbiter(final TableDef def) {
            if (arbiter == null) {
                if (def.hiddenRowId()) {
                    throw new SqlStateException("42P10", "there is no unique or exclusion constraint matching the "
                            + "ON CONFLICT specification");
                }
                return null;
            }
            for (IndexDef index : def.indexes()) {
                if (index.id() == arbiter.id()) {
                    return index;
                }
            }
            throw new SqlStateException("42P10", "the unique index \"" + arbiter.name() + "\" of this statement's "
                    + "ON CONFLICT was dropped; prepare it again");
        }
    }

    /** The key a row holds in the arbiter (its primary key, or its unique entry), or null when it holds none. */
    private static byte[] arbiterKey(final TableStore store, final IndexDef index, final Object[] row) {
        if (index == null) {
            return store.primaryKey(row);
        }
        // a NULL in a unique column conflicts with nothing
        return TableStore.uniqueEntry(index, row) ? store.indexKey(index, store.prefix(), row) : null;
    }

    /** ON CONFLICT DO NOTHING without a target: whether the row would violate the primary key or any unique key. */
    private static boolean conflictsAnywhere(final TableStore store, final TxnSession txn, final Object[] row) {
        final TableDef def = store.def();
        if (!def.hiddenRowId() && txn.get(store.primaryKey(row)) != null) {
            return true;
        }
        for (IndexDef index : def.indexes()) {
            if (TableStore.uniqueEntry(index, row) && txn.get(store.indexKey(index, store.prefix(), row)) != null) {
                return true;
            }
        }
        return false;
    }
}
