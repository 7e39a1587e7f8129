package io.meldb.sql.pg.catalog;

import io.meldb.sql.calcite.MeldTxnContext;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;
import org.apache.calcite.schema.Table;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * pg_catalog's views over relations that scripts and tools query by name rather than through pg_class:
 * {@code pg_tables} (the tables, with their owner), {@code pg_views} (with the query as stored), {@code pg_indexes} (each index with its definition as
 * {@code pg_get_indexdef} gives it) and {@code pg_statio_all_tables}/{@code pg_statio_user_tables} (the tables,
 * their I/O counters NULL: Sequelize joins them for column comments), from the same relations as pg_class.
 */
final class PgCatalogViews {
    /** A relation with the name of the user who owns it (the connection's user owns everything in MeldDB). */
    private record Owned(String owner, Relation relation, String definition) {
        Owned(final String owner, final Relation relation) {
            this(owner, relation, null);
        }
    }

    private PgCatalogViews() {
    }

    static Map<String, Table> tables(final MeldTxnContext cx) {
        final Map<String, Table> t = new LinkedHashMap<>();
        t.put("pg_tables", SystemTable.of(cx, SystemTable.<Owned>columns()
                .text("schemaname", o -> o.relation().namespace().name())
                .text("tablename", o -> o.relation().name())
                .text("tableowner", Owned::owner)
                .nullText("tablespace")
                .constant("hasindexes", true)
                .constant("hasrules", false)
                .bool("hastriggers", o -> !o.relation().table().foreignKeys().isEmpty())
                .constant("rowsecurity", false), v -> of(v, 'r')));
        t.put("pg_indexes", SystemTable.of(cx, SystemTable.<Owned>columns()
                .text("schemaname", o -> o.relation().namespace().name())
                .text("tablename", o -> o.relation().table().name())
                .text("indexname", o -> o.relation().name())
                .nullText("tablespace")
                .text("indexdef", o -> PgCatalogView.indexDef(o.relation())), v -> of(v, 'i')));
        t.put("pg_views", SystemTable.of(cx, SystemTable.<Owned>columns()
                .text("schemaname", o -> o.relation().namespace().name())
                .text("viewname", o -> o.relation().name())
                .text("viewowner", Owned::owner)
                .nullableText("definition", Owned::definition), PgCatalogViews::views));
        for (String statio : List.of("pg_statio_all_tables", "pg_statio_user_tables")) {
            // the tables' block I/O counters: MeldDB reads no heap blocks, so each counter is NULL (unknown)
            SystemTable.Builder<Owned> b = SystemTable.<Owned>columns()
                    .integer("relid", o -> o.relation().oid())
                    .text("schemaname", o -> o.relation().namespace().name())
                    .text("relname", o -> o.relation().name());
            for (String counter : List.of("heap_blks_read", "heap_blks_hit", "idx_blks_read", "idx_blks_hit",
                    "toast_blks_read", "toast_blks_hit", "tidx_blks_read", "tidx_blks_hit")) {
                b = b.nullBigint(counter);
            }
            t.put(statio, SystemTable.of(cx, b, v -> of(v, 'r')));
        }
        return t;
    }

    /** The views, each with its query as stored (PostgreSQL's definition is pg_get_viewdef's deparsed text). */
    private static List<Owned> views(final PgCatalogView view) {
        final List<Owned> out = new ArrayList<>();
        for (Relation r : view.relations()) {
            if (r.isView()) {
                out.add(new Owned(view.user(), r, view.viewDefinition(r)));
            }
        }
        return out;
    }

    private static List<Owned> of(final PgCatalogView view, final char kind) {
        final List<Owned> out = new ArrayList<>();
        for (Relation r : view.relations()) {
            if (r.kind() == kind) {
                out.add(new Owned(view.user(), r));
            }
        }
        return out;
    }
}
