package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.List;

/**
 * ALTER TABLE ... DROP COLUMN, as PostgreSQL does it: the column leaves the definition at once, its values stay
 * in the rows' payloads (a dead slot of the {@link RowLayout}, written NULL from then on) until rows are rewritten
 * by their next UPDATE. Indexes, UNIQUE, CHECK and FOREIGN KEY constraints on the column go with it, and so does a
 * sequence it owns ({@link ForeignKeyColumns} for another table's foreign key that references it); a view whose query names the column is dropped with CASCADE and refuses the drop (2BP01) without. A
 * primary-key column cannot be dropped (MeldDB stores the rows by their key): 0A000.
 */
final class DropColumn {
    private DropColumn() {
    }

    static TableDef drop(final TxnSession txn, final Catalog catalog, final TableDef def,
                         final AlterAction.DropColumn d) {
        final int c = def.columnIndex(d.column());
        if (c < 0) {
            if (d.ifExists()) {
                return def; // PostgreSQL: a notice, "column does not exist, skipping"
            }
            AlterTableDdl.column(def, d.column()); // 42703
            throw new IllegalStateException();
        }
        final String name = d.column();
        if (AlterTableDdl.keyColumn(def, c)) {
            throw new SqlStateException("0A000", "cannot drop column \"" + name + "\" of table \"" + def.name()
                    + "\": it is in the primary key, by which MeldDB stores the rows");
        }
        if (def.columns().size() == 1) {
            throw new SqlStateException("0A000", "cannot drop column \"" + name + "\": it is the only column of "
                    + "table \"" + def.name() + "\"");
        }
        for (ViewDef v : catalog.viewsUsing(def.id())) {
            if (!v.mentions(name)) {
                continue;
            }
            if (!d.cascade()) {
                throw new SqlStateException("2BP01", "cannot drop column " + name + " of table " + def.name()
                        + " because other objects depend on it: view " + v.name() + " depends on it (use DROP "
                        + "COLUMN ... CASCADE to drop the view too)");
            }
            if (catalog.view(v.db(), v.schema(), v.name()) != null) {
                ViewDdl.dropView(txn, catalog, v, true);
            }
        }
        final TableDef keyed = ForeignKeyColumns.dropColumn(txn, catalog, def, c, d.cascade());
        final List<IndexDef> indexes = new ArrayList<>();
        for (IndexDef index : keyed.indexes()) {
            boolean uses = false;
            final int[] columns = index.columns().clone();
            for (int i = 0; i < columns.length; i++) {
                uses |= columns[i] == c;
                columns[i] = columns[i] > c ? columns[i] - 1 : columns[i];
            }
            if (uses) {
                CatalogStore.deleteRange(txn, Keys.dataPrefix(index.id()));
            } else {
                indexes.add(new IndexDef(index.name(), index.id(), columns, index.unique(), index.constraint(),
                        index.hidden()));
            }
        }
        final List<CheckDef> checks = new ArrayList<>();
        for (CheckDef check : def.checks()) {
            if (!CheckExpression.columnsOf(check.sql()).contains(name)) {
                checks.add(check);
            }
        }
        for (SequenceDef q : catalog.sequences()) {
            if (q.db().equals(def.db()) && q.schema().equals(def.schema()) && def.name().equals(q.ownerTable())
                    && name.equals(q.ownerColumn())) {
                CatalogStore.dropSequence(txn, q);
            }
        }
        txn.delete(Keys.commentKey(def.id(), def.layout().attnum(c)));
        final int[] pk = def.primaryKey().clone();
        for (int i = 0; i < pk.length; i++) {
            pk[i] = pk[i] > c ? pk[i] - 1 : pk[i];
        }
        final List<ColumnDef> columns = new ArrayList<>(def.columns());
        columns.remove(c);
        return new TableDef(def.db(), def.schema(), def.name(), def.id(), columns, pk, indexes, def.hiddenRowId(),
                checks, keyed.foreignKeys(), def.layout().withColumnDropped(c));
    }
}
