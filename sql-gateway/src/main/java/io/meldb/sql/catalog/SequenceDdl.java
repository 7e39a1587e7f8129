package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code CREATE SEQUENCE} and {@code DROP SEQUENCE} as transactions on the catalog tree, as {@link CatalogStore}
 * runs the other DDL: a sequence entry (and, when dropped, its counter) written with the catalog version bumped.
 * Tables and sequences share one namespace per schema (42P07), as relations do in PostgreSQL.
 */
public final class SequenceDdl {
    private final CatalogStore store;

    public SequenceDdl(final CatalogStore store) {
        this.store = store;
    }

    /** {@code CREATE SEQUENCE}: returns false (and changes nothing) when it exists and {@code ifNotExists}. */
    public boolean createSequence(final TxnSession txn, final String db, final String schema, final String name,
                                  final Ddl.SequenceOptions options, final boolean ifNotExists) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        CatalogStore.requireSchema(catalog, db, schema);
        if (catalog.sequence(db, schema, name) != null || catalog.table(db, schema, name) != null) {
            if (ifNotExists && catalog.sequence(db, schema, name) != null) {
                return false;
            }
            throw new SqlStateException("42P07", "relation \"" + name + "\" already exists");
        }
        final SequenceDef q = Sequences.define(db, schema, name, CatalogStore.nextId(txn), options, null, null);
        txn.put(Keys.sequenceKey(db, schema, name), CatalogEntryCodec.encodeSequence(q));
        CatalogStore.bumpVersion(txn);
        return true;
    }

    /**
     * {@code DROP SEQUENCE a, b}: every name is checked first (42P01 unless {@code ifExists}); a sequence a column
     * owns is refused (2BP01: drop its table, as PostgreSQL asks). Deletes the definition and the counter.
     */
    public int dropSequences(final TxnSession txn, final String db, final List<Ddl.TableName> names,
                             final boolean ifExists) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        final List<SequenceDef> present = new ArrayList<>();
        for (Ddl.TableName n : names) {
            final SequenceDef q = catalog.sequence(db, n.schema(), n.name());
            if (q == null) {
                if (!ifExists) {
                    throw Sequences.unknown(n.name());
                }
            } else if (q.ownerTable() != null) {
                throw new SqlStateException("2BP01", "cannot drop sequence " + q.name() + " because column "
                        + q.ownerColumn() + " of table " + q.ownerTable() + " requires it (drop the table instead)");
            } else if (!present.contains(q)) {
                present.add(q);
            }
        }
        for (SequenceDef q : present) {
            CatalogStore.dropSequence(txn, q);
        }
        if (!present.isEmpty()) {
            CatalogStore.bumpVersion(txn);
        }
        return present.size();
    }
}
