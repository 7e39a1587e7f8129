package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * CREATE VIEW, DROP VIEW and COMMENT ON in the catalog, and what a view's dependencies mean for DROP TABLE and
 * ALTER TABLE (PostgreSQL's pg_depend, kept as the ids a view reads). Analysing a view's query is the SQL layer's
 * ({@code io.meldb.sql.server.ViewStatements}); this class stores what it found.
 */
public final class ViewDdl {
    private final CatalogStore store;

    public ViewDdl(final CatalogStore store) {
        this.store = store;
    }

    /**
     * The ids of the tables and views that {@code sql} names (a name, or schema.name, that is a table or view of
     * the catalog; unqualified names in {@code defaultSchema}): a view's dependencies.
     */
    public static int[] dependencies(final Catalog catalog, final String db, final String defaultSchema,
                                     final String sql) {
        final List<SqlLexer.Token> tokens = SqlLexer.tokenize(sql);
        final TreeSet<Integer> ids = new TreeSet<>();
        for (int i = 0; i < tokens.size(); i++) {
            final SqlLexer.Token t = tokens.get(i);
            if (t.kind() != SqlLexer.Kind.WORD) {
                continue;
            }
            String schema = defaultSchema;
            String name = fold(t);
            if (i + 2 < tokens.size() && tokens.get(i + 1).text().equals(".")
                    && tokens.get(i + 2).kind() == SqlLexer.Kind.WORD) {
                schema = name;
                name = fold(tokens.get(i + 2));
                i += 2;
            }
            final TableDef table = catalog.table(db, schema, name);
            if (table != null) {
                ids.add(table.id());
            }
            final ViewDef view = catalog.view(db, schema, name);
            if (view != null) {
                ids.add(view.id());
            }
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    private static String fold(final SqlLexer.Token t) {
        return t.quoted() ? t.text() : t.text().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Stores a view: a new one (42P07 when a table, view or sequence has the name), or with {@code orReplace} in
     * place of the view of that name, which PostgreSQL allows only when the new query keeps the old columns (same
     * names and types, in order, more at the end): else 42P16.
     */
    public void createView(final TxnSession txn, final String db, final String schema, final String name,
                           final String sql, final List<ViewDef.Column> columns, final boolean orReplace) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        CatalogStore.requireSchema(catalog, db, schema);
        final ViewDef old = catalog.view(db, schema, name);
        if (catalog.table(db, schema, name) != null || catalog.sequence(db, schema, name) != null
                || old != null && !orReplace) {
            throw new SqlStateException("42P07", "relation \"" + name + "\" already exists");
        }
        if (old != null) {
            if (columns.size() < old.columns().size()) {
                throw new SqlStateException("42P16", "cannot drop columns from view");
            }
            for (int i = 0; i < old.columns().size(); i++) {
                final ViewDef.Column was = old.columns().get(i);
                final ViewDef.Column now = columns.get(i);
                if (!was.name().equals(now.name())) {
                    throw new SqlStateException("42P16", "cannot change name of view column \"" + was.name()
                            + "\" to \"" + now.name() + "\"");
                }
                if (was.jdbcType() != now.jdbcType()) {
                    throw new SqlStateException("42P16", "cannot change data type of view column \"" + was.name()
                            + "\"");
                }
            }
        }
        final int[] deps = dependencies(catalog, db, schema, sql);
        final int id = old != null ? old.id() : CatalogStore.nextId(txn);
        for (int d : deps) {
            if (d == id) {
                throw new SqlStateException("42P17", "infinite recursion detected in view \"" + name + "\"");
            }
        }
        txn.put(Keys.viewKey(db, schema, name), new ViewDef(db, schema, name, id, sql, columns, deps).encode());
        CatalogStore.bumpVersion(txn);
    }

    /**
     * Drops views ({@code DROP VIEW a, b}): every name checked first (42P01 unless {@code ifExists}; 42809 for a
     * table), then each dropped, with the views that read it when {@code cascade}, else 2BP01 if any does.
     */
    public int dropViews(final TxnSession txn, final String db, final List<Ddl.TableName> views,
                         final boolean ifExists, final boolean cascade) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        final List<ViewDef> present = new ArrayList<>();
        for (Ddl.TableName n : views) {
            final ViewDef v = catalog.schemaNames(db).contains(n.schema()) ? catalog.view(db, n.schema(), n.name())
                    : null;
            if (v != null) {
                present.add(v);
            } else if (catalog.table(db, n.schema(), n.name()) != null) {
                throw new SqlStateException("42809", "\"" + n.name() + "\" is not a view (use DROP TABLE)");
            } else if (!ifExists) {
                throw new SqlStateException("42P01", "view \"" + n.name() + "\" does not exist");
            }
        }
        int dropped = 0;
        for (ViewDef v : present) {
            final Catalog now = store.read(txn);
            if (now.view(db, v.schema(), v.name()) != null) {
                dropView(txn, now, v, cascade);
                dropped++;
            }
        }
        return dropped;
    }

    /** Drops view {@code v}, and the views that read it ({@code cascade}; else 2BP01 when there are any). */
    static void dropView(final TxnSession txn, final Catalog catalog, final ViewDef v, final boolean cascade) {
        dropDependents(txn, catalog, v.id(), "view", v.name(), cascade);
        txn.delete(Keys.viewKey(v.db(), v.schema(), v.name()));
        CatalogStore.deleteRange(txn, Keys.commentsPrefix(v.id()));
        CatalogStore.bumpVersion(txn);
    }

    /**
     * The views that read relation {@code id} ({@code kind} "table" or "view" named {@code name}): dropped when
     * {@code cascade}, else SQLState 2BP01 naming one, as PostgreSQL's DROP ... RESTRICT.
     */
    static void dropDependents(final TxnSession txn, final Catalog catalog, final int id, final String kind,
                               final String name, final boolean cascade) {
        for (ViewDef dependent : catalog.viewsUsing(id)) {
            if (!cascade) {
                throw new SqlStateException("2BP01", "cannot drop " + kind + " " + name + " because other objects "
                        + "depend on it: view " + dependent.name() + " depends on " + kind + " " + name + " (use "
                        + "DROP ... CASCADE to drop the dependent objects too)");
            }
            dropView(txn, catalog, dependent, true);
        }
    }

    /**
     * {@code COMMENT ON TABLE | VIEW | COLUMN}: stores (or with a null {@code text}, removes) the comment, keyed
     * by the relation's id and the column's stable number, so renames keep it. 42P01 / 42703 for unknown names.
     */
    public void comment(final TxnSession txn, final String db, final String schema, final Ddl.CommentOn c) {
        store.ensureDatabase(txn, db);
        final Catalog catalog = store.read(txn);
        CatalogStore.requireSchema(catalog, db, schema);
        final String relation = c.relation().name();
        final TableDef table = catalog.table(db, schema, relation);
        final ViewDef view = catalog.view(db, schema, relation);
        if (table == null && view == null) {
            throw new SqlStateException("42P01", "relation \"" + relation + "\" does not exist");
        }
        int attnum = 0;
        if (c.column() != null) {
            if (table != null) {
                final int column = table.columnIndex(c.column());
                attnum = column < 0 ? -1 : table.layout().attnum(column);
            } else {
                attnum = -1;
                for (int i = 0; i < view.columns().size(); i++) {
                    if (view.columns().get(i).name().equals(c.column())) {
                        attnum = i + 1;
                    }
                }
            }
            if (attnum < 0) {
                throw new SqlStateException("42703", "column \"" + c.column() + "\" of relation \"" + relation
                        + "\" does not exist");
            }
        }
        final byte[] key = Keys.commentKey(table != null ? table.id() : view.id(), attnum);
        if (c.text() == null || c.text().isEmpty()) {
            txn.delete(key); // PostgreSQL: an empty comment is no comment
        } else {
            txn.put(key, c.text().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        CatalogStore.bumpVersion(txn);
    }
}
