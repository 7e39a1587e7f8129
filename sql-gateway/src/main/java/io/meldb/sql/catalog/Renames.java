package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.List;

/**
 * ALTER TABLE's renames: of the table (its rows, indexes, comments and row layout are keyed by its id, so only its
 * definition's key moves), of a column (CHECK conditions that name it are rewritten), and of a CHECK or UNIQUE
 * constraint. Sequences the table owns follow. A view stores its query as written, so renaming a table it reads,
 * or a column its query names, is refused (0A000) rather than leaving the view broken.
 */
final class Renames {
    private Renames() {
    }

    static TableDef renameTable(final TxnSession txn, final Catalog catalog, final TableDef def, final String to) {
        if (to.equals(def.name())) {
            return def;
        }
        if (catalog.table(def.db(), def.schema(), to) != null || catalog.view(def.db(), def.schema(), to) != null
                || catalog.sequence(def.db(), def.schema(), to) != null) {
            throw new SqlStateException("42P07", "relation \"" + to + "\" already exists");
        }
        for (ViewDef v : catalog.viewsUsing(def.id())) {
            throw viewDepends("table \"" + def.name() + "\"", v);
        }
        for (SequenceDef q : catalog.sequences()) {
            if (q.db().equals(def.db()) && q.schema().equals(def.schema()) && def.name().equals(q.ownerTable())) {
                txn.put(Keys.sequenceKey(q.db(), q.schema(), q.name()), CatalogEntryCodec.encodeSequence(
                        new SequenceDef(q.db(), q.schema(), q.name(), q.id(), q.type(), q.start(), q.increment(),
                                q.min(), q.max(), q.cache(), to, q.ownerColumn())));
            }
        }
        return new TableDef(def.db(), def.schema(), to, def.id(), def.columns(), def.primaryKey(), def.indexes(),
                def.hiddenRowId(), def.checks(), def.foreignKeys(), def.layout());
    }

    static TableDef renameColumn(final TxnSession txn, final Catalog catalog, final TableDef def, final String from,
                                 final String to) {
        final int c = AlterTableDdl.column(def, from);
        if (from.equals(to)) {
            return def;
        }
        if (def.columnIndex(to) >= 0) {
            throw new SqlStateException("42701", "column \"" + to + "\" of relation \"" + def.name()
                    + "\" already exists");
        }
        for (ViewDef v : catalog.viewsUsing(def.id())) {
            if (v.mentions(from)) {
                throw viewDepends("column \"" + from + "\"", v);
            }
        }
        for (SequenceDef q : catalog.sequences()) {
            if (q.db().equals(def.db()) && q.schema().equals(def.schema()) && def.name().equals(q.ownerTable())
                    && from.equals(q.ownerColumn())) {
                txn.put(Keys.sequenceKey(q.db(), q.schema(), q.name()), CatalogEntryCodec.encodeSequence(
                        new SequenceDef(q.db(), q.schema(), q.name(), q.id(), q.type(), q.start(), q.increment(),
                                q.min(), q.max(), q.cache(), q.ownerTable(), to)));
            }
        }
        final List<CheckDef> checks = new ArrayList<>();
        for (CheckDef check : def.checks()) {
            checks.add(new CheckDef(check.name(), renameIdentifier(check.sql(), from, to)));
        }
        final ColumnDef col = def.columns().get(c);
        final List<ColumnDef> columns = new ArrayList<>(def.columns());
        columns.set(c, new ColumnDef(to, col.type(), col.nullable(), col.dflt(), col.identity()));
        return new TableDef(def.db(), def.schema(), def.name(), def.id(), columns, def.primaryKey(), def.indexes(),
                def.hiddenRowId(), checks, def.foreignKeys(), def.layout());
    }

    static TableDef renameConstraint(final TableDef def, final String from, final String to) {
        if (from.equals(to)) {
            return def;
        }
        final boolean check = def.checks().stream().anyMatch(c -> c.name().equals(from));
        final IndexDef index = def.index(from);
        final ForeignKeyDef foreignKey = ForeignKeyDdl.find(def, from);
        if (!check && foreignKey == null && (index == null || !index.constraint())) {
            if (!def.hiddenRowId() && from.equals(def.name() + "_pkey")) {
                throw new SqlStateException("0A000", "renaming the primary key constraint is not supported (MeldDB "
                        + "names it <table>_pkey)");
            }
            throw new SqlStateException("42704", "constraint \"" + from + "\" for table \"" + def.name()
                    + "\" does not exist");
        }
        if (AlterTableDdl.constraintTaken(def, to)) {
            throw new SqlStateException("42710", "constraint \"" + to + "\" for relation \"" + def.name()
                    + "\" already exists");
        }
        final List<CheckDef> checks = new ArrayList<>();
        for (CheckDef c : def.checks()) {
            checks.add(c.name().equals(from) ? new CheckDef(to, c.sql()) : c);
        }
        final List<IndexDef> indexes = new ArrayList<>();
        for (IndexDef i : def.indexes()) {
            indexes.add(i.name().equals(from)
                    ? new IndexDef(to, i.id(), i.columns(), i.unique(), i.constraint(), i.hidden()) : i);
        }
        final List<ForeignKeyDef> foreignKeys = new ArrayList<>();
        for (ForeignKeyDef f : def.foreignKeys()) {
            foreignKeys.add(f.name().equals(from) ? f.renamed(to) : f);
        }
        return new TableDef(def.db(), def.schema(), def.name(), def.id(), def.columns(), def.primaryKey(), indexes,
                def.hiddenRowId(), checks, foreignKeys, def.layout());
    }

    /** {@code sql} with every identifier {@code from} (as folded) written as {@code to}. */
    static String renameIdentifier(final String sql, final String from, final String to) {
        final StringBuilder out = new StringBuilder();
        int copied = 0;
        for (SqlLexer.Token t : SqlLexer.tokenize(sql)) {
            if (t.kind() != SqlLexer.Kind.WORD) {
                continue;
            }
            final String name = t.quoted() ? t.text() : t.text().toLowerCase(java.util.Locale.ROOT);
            if (!name.equals(from)) {
                continue;
            }
            int end = t.position() + t.text().length();
            if (t.quoted()) {
                end = t.position() + 1;
                while (end < sql.length()) {
                    if (sql.charAt(end) == '"') {
                        if (end + 1 < sql.length() && sql.charAt(end + 1) == '"') {
                            end += 2;
                            continue;
                        }
                        end++;
                        break;
                    }
                    end++;
                }
            }
            out.append(sql, copied, t.position()).append(ColumnDefault.quote(to));
            copied = end;
        }
        return out.append(sql.substring(copied)).toString();
    }

    private static SqlStateException viewDepends(final String what, final ViewDef v) {
        return new SqlStateException("0A000", "cannot rename " + what + ": view \"" + v.name() + "\" depends on it "
                + "(MeldDB keeps a view's query as written; drop the view, rename, and create it again)");
    }
}
