package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code ALTER TABLE t DROP CONSTRAINT t_pkey}: the reverse of ADD PRIMARY KEY. MeldDB stores rows by their key, so
 * every row (and its index entries) is rewritten under a hidden row id ({@link RowIds}) in the statement's
 * transaction, and the former key columns move into the payload. The key columns stay NOT NULL, as in PostgreSQL.
 * A foreign key of this table that used the primary key as its index gets a hidden index of its own. Refused: a
 * primary key another table's foreign key references (2BP01), and a table whose columns ALTER TABLE changed (0A000:
 * its row layout would need the key columns as new slots).
 */
final class PrimaryKeyDrop {
    private PrimaryKeyDrop() {
    }

    static void drop(final TxnSession txn, final Catalog catalog, final String db, final TableDef def) {
        final String constraint = def.name() + "_pkey";
        for (ForeignKeys.Reference r : catalog.foreignKeys().referencing(def.id())) {
            if (ForeignKeys.sameSet(def.primaryKey(), r.foreignKey().parentColumns())) {
                throw new SqlStateException("2BP01", "cannot drop constraint " + constraint + " on table "
                        + def.name() + " because other objects depend on it", "constraint " + r.foreignKey().name()
                        + " on table " + r.child().name() + " depends on index " + constraint
                        + " (drop that foreign key first)", null);
            }
        }
        if (!def.layout().isCompact(def.columns(), def.primaryKey())) {
            throw new SqlStateException("0A000", "dropping the primary key of table \"" + def.name() + "\" after "
                    + "ALTER TABLE changed its columns is not supported");
        }
        final List<IndexDef> indexes = new ArrayList<>(def.indexes());
        final List<ForeignKeyDef> foreignKeys = new ArrayList<>();
        for (ForeignKeyDef fk : def.foreignKeys()) {
            if (!fk.usesPrimaryKey()) {
                foreignKeys.add(fk);
                continue;
            }
            final int indexId = CatalogStore.nextId(txn);
            indexes.add(new IndexDef(fk.name(), indexId, fk.columns(), false, false, true));
            foreignKeys.add(new ForeignKeyDef(fk.name(), fk.columns(), fk.parentId(), fk.parentColumns(),
                    fk.onDelete(), fk.onUpdate(), indexId, fk.timing()));
        }
        final TableDef hidden = new TableDef(def.db(), def.schema(), def.name(), def.id(), def.columns(), new int[0],
                indexes, true, def.checks(), foreignKeys, null);
        final TableStore from = new TableStore(def);
        final TableStore to = new TableStore(hidden);
        // keyed rows sort above the row-id range (RowIds.MARKER is below every key tag): the rows written here
        // never fall into the range being read
        final byte[] prefix = Keys.dataPrefix(def.id());
        TableStore.forEachEntry(txn, RowIds.rangeEnd(prefix), KeyCodec.prefixEnd(prefix), kv -> {
            final Object[] row = from.decodeRow(kv.key(), kv.value());
            from.deleteAt(txn, kv.key(), row);
            to.insert(txn, row);
        });
        CatalogStore.putTable(txn, hidden);
        CatalogStore.bumpVersion(txn);
    }
}
