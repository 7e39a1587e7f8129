package io.meldb.sql.pg.catalog;

import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.pg.PgType;
import io.meldb.sql.pg.catalog.PgCatalogView.Namespace;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;
import io.meldb.sql.pg.catalog.PgMetaQuery.Field;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.meldb.sql.pg.catalog.PgMetaQuery.Field.constant;
import static io.meldb.sql.pg.catalog.PgMetaQuery.Field.of;

/**
 * The catalog queries psql 15 sends for {@code \d name} (the lookup by pattern, the relation's flags, its
 * columns, its indexes, its foreign keys and those that reference it), which the SQL engine cannot run yet (they
 * need int2vector, {@code pg_partition_ancestors}, a qualified {@code pg_catalog.unnest} and {@code int2[]} casts),
 * recognized by their FROM clauses and answered column by column from the names in their select lists, so that the
 * verbose form ({@code \d+}) gets the columns it asks for (NULL where MeldDB has nothing to say). Patterns
 * ({@code \d public.t}) are psql's regular expressions on names. psql's relation lists ({@code \d}, {@code \dt},
 * {@code \di}, {@code \ds}, {@code \dv}), {@code \dn}, {@code \l}, {@code \du} and {@code \df} run on the catalog
 * tables like any query.
 */
final class PsqlQueries {
    private static final Pattern RELKINDS = Pattern.compile("c\\.relkind IN \\(([^)]*)\\)");
    /** The table OID of psql's "Referenced by:" query. */
    private static final Pattern ANCESTORS = Pattern.compile("pg_partition_ancestors\\('(\\d+)'\\)");
    private static final Pattern VIEWDEF = Pattern.compile("pg_get_viewdef\\('?(\\d+)");

    private PsqlQueries() {
    }

    /** The psql query {@code sql} (whitespace collapsed) is, or null. */
    static PgMetaQuery recognize(final String sql) {
        if (sql.contains("SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN "
                + "pg_catalog.pg_namespace n ON n.oid = c.relnamespace")) {
            return lookup(sql);
        }
        if (sql.contains("c.relchecks, c.relkind, c.relhasindex")) {
            return relationFlags(sql);
        }
        if (sql.contains("FROM pg_catalog.pg_attribute a WHERE a.attrelid =")) {
            return attributes(sql);
        }
        if (sql.contains("FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i")) {
            return indexes(sql);
        }
        if (sql.contains("FROM pg_catalog.pg_index i, pg_catalog.pg_class c, pg_catalog.pg_class c2, "
                + "pg_catalog.pg_am a")) {
            return indexFlags(sql);
        }
        if (sql.contains("FROM pg_catalog.pg_constraint r") && sql.contains("r.contype = 'f'")) {
            return foreignKeys(sql);
        }
        if (sql.contains("FROM pg_catalog.pg_constraint c") && sql.contains("confrelid IN")
                && sql.contains("contype = 'f'")) {
            return referencedBy(sql);
        }
        if (sql.contains("pg_catalog.pg_get_viewdef(")) {
            return viewDefinition(sql);
        }
        return null;
    }

    /** {@code \d pattern}, step 1: the relations whose names match. */
    private static PgMetaQuery lookup(final String sql) {
        final Map<String, Field<Relation>> f = new HashMap<>();
        f.put("oid", of(PgType.OID, Relation::oid));
        f.put("nspname", of(PgType.NAME, r -> r.namespace().name()));
        f.put("relname", of(PgType.NAME, Relation::name));
        return PgMetaQuery.of("psql \\d lookup", sql, PgSelectList.names(sql), f, relations(sql, null));
    }

    /** {@code \d name}, step 2: the relation's flags (relkind, relhasindex, ...). */
    private static PgMetaQuery relationFlags(final String sql) {
        final Map<String, Field<Relation>> f = new HashMap<>();
        f.put("relchecks", constant(PgType.INT2, 0));
        f.put("relkind", of(PgType.TEXT, r -> String.valueOf(r.kind())));
        f.put("relhasindex", of(PgType.BOOL, Relation::isTable));
        // psql asks for foreign keys only of a table with triggers (PostgreSQL enforces them with triggers)
        f.put("relhastriggers", new Field<>(PgType.BOOL, (view, r) -> view.hasForeignKeys(r)));
        for (String no : List.of("relhasrules", "relrowsecurity", "relforcerowsecurity",
                "relhasoids", "relispartition")) {
            f.put(no, constant(PgType.BOOL, false));
        }
        f.put("?column?", constant(PgType.TEXT, ""));
        f.put("reltablespace", constant(PgType.OID, 0));
        f.put("relpersistence", constant(PgType.TEXT, "p"));
        f.put("relreplident", constant(PgType.TEXT, "d"));
        f.put("amname", of(PgType.NAME, r -> r.isTable() ? "heap" : "btree"));
        final int oid = PgNameFilter.oid(PgNameFilter.whereOf(sql), "c.oid");
        return PgMetaQuery.of("psql \\d flags", sql, PgSelectList.names(sql), f, (view, p) -> one(view, oid));
    }

    /** A column of a table, or a key column of an index ({@code position} in the table's columns). */
    record Attribute(Relation relation, int position, int attnum) {
        ColumnDef column() {
            return relation.table().columns().get(position);
        }
    }

    /** {@code \d name}, step 3: the columns (of a table, or the key columns of an index). */
    private static PgMetaQuery attributes(final String sql) {
        final Map<String, Field<Attribute>> f = new HashMap<>();
        f.put("attname", of(PgType.NAME, a -> a.column().name()));
        f.put("format_type", of(PgType.TEXT, a -> PgTypeInfo.of(a.column().type()).formatted()));
        f.put("attnotnull", of(PgType.BOOL, a -> PgCatalogView.notNull(a.relation().table(), a.position())));
        f.put("attidentity", of(PgType.TEXT, a -> PgCatalogView.attidentity(a.column())));
        // the column default's subquery on pg_attrdef (psql shows it under "Default"; identity columns show none)
        f.put("?column?", of(PgType.TEXT, a -> a.relation().isTable() && a.column().identity() == ColumnDef.Identity.NONE
                ? PgCatalogView.columnDefault(a.column()) : null));
        f.put("attgenerated", constant(PgType.TEXT, ""));
        f.put("attstorage", constant(PgType.TEXT, "p"));
        f.put("indexdef", of(PgType.TEXT, a -> PgCatalogView.quote(a.column().name())));
        f.put("is_key", constant(PgType.TEXT, "yes"));
        final int oid = PgNameFilter.oid(PgNameFilter.whereOf(sql), "a.attrelid");
        return PgMetaQuery.of("psql \\d columns", sql, PgSelectList.names(sql), withDescriptions(f, oid), (view, p) -> {
            final List<Attribute> out = new ArrayList<>();
            final Relation r = view.relation(oid);
            if (r != null && r.hasColumns()) {
                for (int i = 0; i < r.table().columns().size(); i++) {
                    out.add(new Attribute(r, i, i + 1));
                }
            } else if (r != null) {
                for (int k = 0; k < r.keyColumns().length; k++) {
                    out.add(new Attribute(r, r.keyColumns()[k], k + 1));
                }
            }
            return out;
        });
    }

    /** {@code \d table}, step 4: its indexes, the primary key first. */
    private static PgMetaQuery indexes(final String sql) {
        final Map<String, Field<Relation>> f = new HashMap<>();
        f.put("relname", of(PgType.NAME, Relation::name));
        f.put("indisprimary", of(PgType.BOOL, Relation::primary));
        f.put("indisunique", of(PgType.BOOL, Relation::unique));
        f.put("indisclustered", constant(PgType.BOOL, false));
        f.put("indisvalid", constant(PgType.BOOL, true));
        f.put("pg_get_indexdef", of(PgType.TEXT, PgCatalogView::indexDef));
        f.put("pg_get_constraintdef", of(PgType.TEXT, Relation::constraintDef));
        f.put("contype", of(PgType.TEXT, Relation::contype));
        f.put("condeferrable", constant(PgType.BOOL, false));
        f.put("condeferred", constant(PgType.BOOL, false));
        f.put("indisreplident", constant(PgType.BOOL, false));
        f.put("reltablespace", constant(PgType.OID, 0));
        final int oid = PgNameFilter.oid(PgNameFilter.whereOf(sql), "c.oid");
        return PgMetaQuery.of("psql \\d indexes", sql, PgSelectList.names(sql), f, (view, p) -> {
            final Relation r = view.relation(oid);
            return r == null || !r.isTable() ? List.of() : view.indexesOf(r);
        });
    }

    /** {@code \d table}, step 5: its foreign keys ("Foreign-key constraints:"), by name. */
    private static PgMetaQuery foreignKeys(final String sql) {
        final Map<String, Field<PgCatalogView.ForeignKey>> f = new HashMap<>();
        f.put("sametable", constant(PgType.BOOL, true));
        f.put("conname", of(PgType.NAME, PgCatalogView.ForeignKey::name));
        f.put("condef", of(PgType.TEXT, PgCatalogView.ForeignKey::definition));
        f.put("ontable", of(PgType.TEXT, fk -> fk.table().name()));
        final int oid = PgNameFilter.oid(PgNameFilter.whereOf(sql), "r.conrelid");
        return PgMetaQuery.of("psql \\d foreign keys", sql, PgSelectList.names(sql), f, (view, p) -> {
            final List<PgCatalogView.ForeignKey> out = new ArrayList<>();
            for (PgCatalogView.ForeignKey fk : view.foreignKeys()) {
                if (fk.table().oid() == oid) {
                    out.add(fk);
                }
            }
            return out;
        });
    }

    /** {@code \d table}, step 6: the foreign keys that reference it ("Referenced by:"), by name. */
    private static PgMetaQuery referencedBy(final String sql) {
        final Map<String, Field<PgCatalogView.ForeignKey>> f = new HashMap<>();
        f.put("conname", of(PgType.NAME, PgCatalogView.ForeignKey::name));
        f.put("condef", of(PgType.TEXT, PgCatalogView.ForeignKey::definition));
        f.put("ontable", of(PgType.TEXT, fk -> fk.table().name()));
        final Matcher m = ANCESTORS.matcher(sql);
        final int oid = m.find() ? Integer.parseInt(m.group(1)) : -1;
        return PgMetaQuery.of("psql \\d referenced by", sql, PgSelectList.names(sql), f, (view, p) -> {
            final List<PgCatalogView.ForeignKey> out = new ArrayList<>();
            for (PgCatalogView.ForeignKey fk : view.foreignKeys()) {
                if (fk.parent().oid() == oid) {
                    out.add(fk);
                }
            }
            out.sort((a, b) -> a.name().compareTo(b.name()));
            return out;
        });
    }

    /** {@code \d index}, step 4: the index's flags and its table. */
    private static PgMetaQuery indexFlags(final String sql) {
        final Map<String, Field<Relation>> f = new HashMap<>();
        f.put("indisunique", of(PgType.BOOL, Relation::unique));
        f.put("indisprimary", of(PgType.BOOL, Relation::primary));
        f.put("indisvalid", constant(PgType.BOOL, true));
        for (String no : List.of("indisclustered", "condeferrable", "condeferred", "indisreplident",
                "indnullsnotdistinct")) {
            f.put(no, constant(PgType.BOOL, false));
        }
        f.put("amname", constant(PgType.NAME, "btree"));
        f.put("relname", of(PgType.NAME, r -> r.table().name()));
        final int oid = PgNameFilter.oid(PgNameFilter.whereOf(sql), "c.oid");
        return PgMetaQuery.of("psql \\d index", sql, PgSelectList.names(sql), f, (view, p) -> {
            final Relation r = view.relation(oid);
            return r == null || r.kind() != 'i' ? List.of() : List.of(r);
        });
    }

    /** {@code \d+ view}: {@code SELECT pg_catalog.pg_get_viewdef('oid'::pg_catalog.oid, true)}. */
    private static PgMetaQuery viewDefinition(final String sql) {
        final Matcher m = VIEWDEF.matcher(sql);
        final int oid = m.find() ? Integer.parseInt(m.group(1)) : -1;
        final Map<String, Field<Relation>> f = new HashMap<>();
        f.put("pg_get_viewdef", new Field<>(PgType.TEXT, (view, r) -> view.viewDefinition(r)));
        return PgMetaQuery.of("psql \\d+ view definition", sql, PgSelectList.names(sql), f, (view, p) -> {
            final Relation r = view.relation(oid);
            return r == null || !r.isView() ? List.of() : List.of(r);
        });
    }

    /** {@code \d+}: the column comments psql asks for as {@code col_description(a.attrelid, a.attnum)}. */
    private static Map<String, Field<Attribute>> withDescriptions(final Map<String, Field<Attribute>> f,
                                                                  final int oid) {
        f.put("col_description", new Field<>(PgType.TEXT, (view, a) -> a.relation().hasColumns()
                ? view.description(a.relation(), a.attnum()) : null));
        return f;
    }

    /** The relation of an OID as a list of one, or an empty list. */
    private static List<Relation> one(final PgCatalogView view, final int oid) {
        final Relation r = view.relation(oid);
        return r == null ? List.of() : List.of(r);
    }

    /**
     * The relations a psql query lists: of the kinds in {@code kinds} (a list of quoted letters; null for all),
     * whose names pass the WHERE clause's patterns; visible ones only unless it names a schema.
     */
    private static PgMetaQuery.Source<Relation> relations(final String sql, final String kinds) {
        final String where = PgNameFilter.whereOf(sql);
        final PgNameFilter schema = PgNameFilter.find(where, "n.nspname");
        final PgNameFilter name = PgNameFilter.find(where, "c.relname");
        final boolean visibleOnly = schema == null && where.contains("pg_table_is_visible");
        return (view, p) -> {
            final List<Relation> candidates = new ArrayList<>();
            for (Relation r : view.relations()) {
                if ((kinds == null || kinds.contains("'" + r.kind() + "'")) && (!visibleOnly || view.visible(r))) {
                    candidates.add(r);
                }
            }
            final List<Relation> inSchema = PgNameFilter.select(schema, candidates, r -> r.namespace().name(), p);
            return PgNameFilter.select(name, inSchema, Relation::name, p);
        };
    }
}
