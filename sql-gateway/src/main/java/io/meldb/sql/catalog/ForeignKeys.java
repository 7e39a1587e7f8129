package io.meldb.sql.catalog;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Enforces the FOREIGN KEY constraints of one catalog version on every row write ({@link TableStore} calls it after
 * it wrote a row; a failing check fails the statement, which aborts its transaction, so nothing half-done stays).
 *
 * <p>Child side: a row whose referencing columns are all non-NULL (MATCH SIMPLE) must find its parent key, read by
 * key: the parent's primary key, or the entry of the parent's UNIQUE constraint index. Parent side: a deleted row,
 * or an updated one whose referenced columns changed, looks its children up by a range scan of the constraint's
 * index ({@link ForeignKeyDef#indexId()}) and applies the ON DELETE / ON UPDATE action: NO ACTION and RESTRICT
 * refuse (23503), CASCADE deletes or re-keys the children, SET NULL empties their referencing columns; the children
 * are written through their own table's store, so chains of constraints cascade.
 *
 * <p>Concurrency. Under serializable isolation the child's key read and the parent's range scan are in the
 * transaction's read set, so meld aborts one of a concurrent child insert and parent delete. Snapshot transactions
 * log no reads, so both sides also declare their read as a dependency ({@link TxnSession#dependOn}, meld's
 * equivalent of PostgreSQL's {@code FOR KEY SHARE}): the child insert depends on the parent key, the parent delete on
 * the range of its children, and whichever commits second aborts. Two child inserts under one parent write
 * different keys and depend on a key neither writes, so they do not conflict with each other.
 *
 * <p>The NO ACTION checks of a constraint deferred in the transaction wait for COMMIT in its
 * {@link DeferredConstraints}, as {@link ChildCheck}s and {@link ParentCheck}s that read again what they check.
 */
public final class ForeignKeys {
    /** A constraint seen from its parent: the child table that holds it. */
    public record Reference(TableDef child, ForeignKeyDef foreignKey) {
    }

    private final Catalog catalog;
    /** parent table id → the constraints that reference it, in catalog order (by child name). */
    private final Map<Integer, List<Reference>> referencedBy = new TreeMap<>();
    private final Map<Integer, TableStore> stores = new ConcurrentHashMap<>();

    ForeignKeys(final Catalog catalog) {
        this.catalog = catalog;
        for (TableDef t : catalog.all()) {
            for (ForeignKeyDef fk : t.foreignKeys()) {
                referencedBy.computeIfAbsent(fk.parentId(), k -> new ArrayList<>()).add(new Reference(t, fk));
            }
        }
    }

    /** The constraints of other tables (and of the table itself) that reference table {@code parentId}. */
    public List<Reference> referencing(final int parentId) {
        return referencedBy.getOrDefault(parentId, List.of());
    }

    /** Whether writes to {@code def} must be checked: it has foreign keys, or some reference it. */
    public boolean involves(final TableDef def) {
        return !def.foreignKeys().isEmpty() || referencedBy.containsKey(def.id());
    }

    /** The store of {@code def} that enforces this catalog's foreign keys on its writes. */
    public TableStore store(final TableDef def) {
        if (!involves(def)) {
            return new TableStore(def);
        }
        if (catalog.tableById(def.id()) != def) {
            return new TableStore(def, this);
        }
        return stores.computeIfAbsent(def.id(), id -> new TableStore(def, this));
    }

    void afterInsert(final TxnSession txn, final TableDef def, final byte[] key, final Object[] row) {
        for (ForeignKeyDef fk : def.foreignKeys()) {
            checkParent(txn, def, fk, key, row);
        }
    }

    void afterUpdate(final TxnSession txn, final TableDef def, final Object[] oldRow, final byte[] newKey,
                     final Object[] newRow) {
        for (ForeignKeyDef fk : def.foreignKeys()) {
            if (changed(fk.columns(), oldRow, newRow)) {
                checkParent(txn, def, fk, newKey, newRow);
            }
        }
        for (Reference r : referencing(def.id())) {
            if (changed(r.foreignKey().parentColumns(), oldRow, newRow)) {
                onParentChange(txn, def, r, oldRow, newRow);
            }
        }
    }

    void afterDelete(final TxnSession txn, final TableDef def, final Object[] oldRow) {
        for (Reference r : referencing(def.id())) {
            onParentChange(txn, def, r, oldRow, null);
        }
    }

    private static boolean changed(final int[] columns, final Object[] oldRow, final Object[] newRow) {
        for (int c : columns) {
            if (!java.util.Objects.equals(oldRow[c], newRow[c])) {
                return true;
            }
        }
        return false;
    }

    /**
     * 23503 unless the parent key {@code row} (stored at {@code key}) references exists (nothing to check when one
     * column is NULL); at COMMIT when the constraint is deferred.
     */
    private void checkParent(final TxnSession txn, final TableDef child, final ForeignKeyDef fk, final byte[] key,
                             final Object[] row) {
        for (int c : fk.columns()) {
            if (row[c] == null) {
                return;
            }
        }
        final DeferredConstraints deferred = fk.timing().deferrable() ? DeferredConstraints.of(txn) : null;
        if (deferred != null && deferred.deferred(child.id(), fk)) {
            deferred.defer(new ChildCheck(child, fk, key, row));
            return;
        }
        checkParentNow(txn, child, fk, row);
    }

    private void checkParentNow(final TxnSession txn, final TableDef child, final ForeignKeyDef fk,
                                final Object[] row) {
        final TableDef parent = catalog.tableById(fk.parentId());
        final byte[] key = parentKey(parent, fk, row);
        if (txn.isolation() == IsolationLevel.SNAPSHOT) {
            txn.dependOn(key, true, key, true);
        }
        if (txn.get(key) == null) {
            throw ForeignKeyViolation.missingParent(child, fk, parent, row);
        }
    }

    /**
     * The key under which the parent row {@code row} references is found: the parent's primary key, or the entry of
     * the unique index on the referenced columns.
     */
    static byte[] parentKey(final TableDef parent, final ForeignKeyDef fk, final Object[] childRow) {
        final int[] order;
        final ByteWriter out = new ByteWriter(32);
        final IndexDef index = referencedIndex(parent, fk.parentColumns());
        if (index == null) {
            order = parent.primaryKey();
            out.write(Keys.dataPrefix(parent.id()));
        } else {
            order = index.columns();
            out.write(Keys.dataPrefix(index.id()));
        }
        for (int p : order) {
            final int i = indexOf(fk.parentColumns(), p);
            final var type = parent.columns().get(p).type();
            KeyCodec.encode(out, type.type(), type.coerce(childRow[fk.columns()[i]]));
        }
        return out.toByteArray();
    }

    /** The unique index whose columns are {@code columns} (in any order), or null when they are the primary key. */
    public static IndexDef referencedIndex(final TableDef parent, final int[] columns) {
        if (sameSet(parent.primaryKey(), columns)) {
            return null;
        }
        for (IndexDef i : parent.indexes()) {
            if (i.unique() && sameSet(i.columns(), columns)) {
                return i;
            }
        }
        throw new IllegalStateException("table " + parent.name() + " has no unique key on the referenced columns");
    }

    public static boolean sameSet(final int[] a, final int[] b) {
        if (a.length != b.length || a.length == 0) {
            return false;
        }
        final int[] x = a.clone();
        final int[] y = b.clone();
        Arrays.sort(x);
        Arrays.sort(y);
        return Arrays.equals(x, y);
    }

    private static int indexOf(final int[] values, final int v) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == v) {
                return i;
            }
        }
        throw new IllegalStateException("column " + v + " is not referenced");
    }

    /** The parent row {@code oldRow} was deleted ({@code newRow} null) or had its referenced key changed. */
    private void onParentChange(final TxnSession txn, final TableDef parent, final Reference r, final Object[] oldRow,
                                final Object[] newRow) {
        final ForeignKeyDef fk = r.foreignKey();
        final Object[] values = new Object[fk.columns().length];
        for (int i = 0; i < values.length; i++) {
            values[i] = oldRow[fk.parentColumns()[i]];
            if (values[i] == null) {
                return; // a NULL is referenced by nobody
            }
        }
        final TableDef child = catalog.tableById(r.child().id());
        final ForeignKeyDef.Action action = newRow == null ? fk.onDelete() : fk.onUpdate();
        final DeferredConstraints deferred = action == ForeignKeyDef.Action.NO_ACTION && fk.timing().deferrable()
                ? DeferredConstraints.of(txn) : null;
        if (deferred != null && deferred.deferred(child.id(), fk)) {
            deferred.defer(new ParentCheck(parent, child, fk, values));
            return;
        }
        final TableStore children = store(child);
        final List<Object[]> found = new ArrayList<>();
        final List<byte[]> keys = new ArrayList<>();
        forEachChild(txn, children, fk, values, (key, row) -> {
            keys.add(key);
            found.add(row);
        });
        if (found.isEmpty()) {
            return;
        }
        switch (action) {
            case NO_ACTION, RESTRICT, SET_DEFAULT -> throw ForeignKeyViolation.stillReferenced(parent, fk, child,
                    oldRow);
            case CASCADE -> {
                for (int i = 0; i < found.size(); i++) {
                    if (newRow == null) {
                        children.deleteAt(txn, keys.get(i), found.get(i));
                    } else {
                        final Object[] changed = found.get(i).clone();
                        for (int c = 0; c < fk.columns().length; c++) {
                            changed[fk.columns()[c]] = newRow[fk.parentColumns()[c]];
                        }
                        children.updateAt(txn, keys.get(i), found.get(i), changed);
                    }
                }
            }
            case SET_NULL -> {
                for (int i = 0; i < found.size(); i++) {
                    final Object[] changed = found.get(i).clone();
                    for (int c : fk.columns()) {
                        changed[c] = null;
                    }
                    children.updateAt(txn, keys.get(i), found.get(i), changed);
                }
            }
            default -> throw new IllegalStateException("unknown action " + action);
        }
    }

    /**
     * Calls {@code action} with the key and row of every child row referencing {@code values} (the referenced
     * columns' values, in the order of the constraint's columns), found by a range scan of the constraint's index.
     * Under snapshot isolation the range becomes a dependency of the transaction, so a child inserted into it by a
     * transaction that commits first aborts this one.
     */
    static void forEachChild(final TxnSession txn, final TableStore children, final ForeignKeyDef fk,
                             final Object[] values, final java.util.function.BiConsumer<byte[], Object[]> action) {
        final TableDef child = children.def();
        final IndexDef index = fk.usesPrimaryKey() ? null : indexById(child, fk.indexId());
        final ByteWriter prefix = new ByteWriter(32);
        prefix.write(index == null ? children.prefix() : Keys.dataPrefix(index.id()));
        for (int i = 0; i < values.length; i++) {
            final var type = child.columns().get(fk.columns()[i]).type();
            KeyCodec.encode(prefix, type.type(), type.coerce(values[i]));
        }
        final byte[] lo = prefix.toByteArray();
        final byte[] hi = KeyCodec.prefixEnd(lo);
        if (txn.isolation() == IsolationLevel.SNAPSHOT) {
            txn.dependOn(lo, true, hi, false);
        }
        final List<KeyValue> entries = new ArrayList<>();
        TableStore.forEachEntry(txn, lo, hi, entries::add);
        for (KeyValue kv : entries) {
            if (index == null) {
                action.accept(kv.key(), children.decodeRow(kv.key(), kv.value()));
            } else {
                final byte[] rowKey = children.rowKeyOfIndexEntry(index, kv.key(), kv.value());
                final byte[] payload = txn.get(rowKey);
                if (payload != null) {
                    action.accept(rowKey, children.decodeRow(rowKey, payload));
                }
            }
        }
    }

    /**
     * A deferred child-side check: the row written at {@code key} must find its parent at COMMIT, unless it has been
     * deleted or its referencing columns changed since (the change queued its own check).
     */
    private final class ChildCheck extends DeferredConstraints.Check {
        private final byte[] key;
        private final Object[] row;

        ChildCheck(final TableDef child, final ForeignKeyDef fk, final byte[] key, final Object[] row) {
            super(child, fk);
            this.key = key;
            this.row = row;
        }

        @Override
        void run(final TxnSession txn) {
            final byte[] payload = txn.get(key);
            if (payload == null) {
                return;
            }
            final Object[] now = store(child).decodeRow(key, payload);
            for (int c : fk.columns()) {
                if (!java.util.Objects.equals(now[c], row[c])) {
                    return;
                }
            }
            checkParentNow(txn, child, fk, now);
        }
    }

    /**
     * A deferred parent-side NO ACTION check: at COMMIT, a referenced key {@code values} deleted or changed must be
     * back in the parent, or no child may reference it.
     */
    private final class ParentCheck extends DeferredConstraints.Check {
        private final TableDef parent;
        private final Object[] values;

        ParentCheck(final TableDef parent, final TableDef child, final ForeignKeyDef fk, final Object[] values) {
            super(child, fk);
            this.parent = parent;
            this.values = values;
        }

        @Override
        void run(final TxnSession txn) {
            final Object[] childRow = new Object[child.columns().size()];
            for (int i = 0; i < values.length; i++) {
                childRow[fk.columns()[i]] = values[i];
            }
            final byte[] parentKey = parentKey(parent, fk, childRow);
            if (txn.isolation() == IsolationLevel.SNAPSHOT) {
                txn.dependOn(parentKey, true, parentKey, true);
            }
            if (txn.get(parentKey) != null) {
                return;
            }
            final boolean[] referenced = new boolean[1];
            forEachChild(txn, store(child), fk, values, (key, row) -> referenced[0] = true);
            if (referenced[0]) {
                final Object[] oldRow = new Object[parent.columns().size()];
                for (int i = 0; i < values.length; i++) {
                    oldRow[fk.parentColumns()[i]] = values[i];
                }
                throw ForeignKeyViolation.stillReferenced(parent, fk, child, oldRow);
            }
        }
    }

    static IndexDef indexById(final TableDef def, final int id) {
        for (IndexDef i : def.indexes()) {
            if (i.id() == id) {
                return i;
            }
        }
        throw new IllegalStateException("table " + def.name() + " has no index " + id);
    }
}
