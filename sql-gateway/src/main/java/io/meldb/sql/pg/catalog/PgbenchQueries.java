package io.meldb.sql.pg.catalog;

import io.meldb.sql.pg.PgType;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;
import io.meldb.sql.pg.catalog.PgMetaQuery.Field;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.meldb.sql.pg.catalog.PgMetaQuery.Field.constant;

/**
 * The catalog query pgbench 15 sends before a run to learn whether {@code pgbench_accounts} is partitioned: the
 * position of the table's schema in the search path ({@code current_schemas} and {@code array_position}, which
 * only PostgreSQL has), its partition strategy and its partition count. MeldDB has no partitions, so the answer
 * is one row (1, NULL, 0) when the table exists and none otherwise, which is what pgbench reads as "a plain table"
 * and "not initialized" respectively.
 */
final class PgbenchQueries {
    private static final Pattern TABLE_INFO = Pattern.compile("(?i)from pg_catalog\\.pg_class as c .*"
            + "pg_catalog\\.pg_partitioned_table .* where c\\.relname = '([a-z_0-9]+)' and o\\.n is not null");
    private static final List<String> COLUMNS = List.of("n", "partstrat", "count");

    private PgbenchQueries() {
    }

    /** The pgbench query {@code sql} (whitespace collapsed) is, or null. */
    static PgMetaQuery recognize(final String sql) {
        final Matcher m = TABLE_INFO.matcher(sql);
        if (!m.find()) {
            return null;
        }
        final String table = m.group(1);
        final Map<String, Field<Relation>> f = Map.of(
                "n", constant(PgType.INT4, 1),
                "partstrat", constant(PgType.TEXT, null),
                "count", constant(PgType.INT8, 0L));
        return PgMetaQuery.of("pgbench table info", sql, COLUMNS, f, (view, p) -> {
            for (Relation r : view.relations()) {
                final String schema = r.namespace().name().toLowerCase(Locale.ROOT);
                if (r.isTable() && r.name().equalsIgnoreCase(table) && !schema.equals("pg_catalog")
                        && !schema.equals("information_schema")) {
                    return List.of(r);
                }
            }
            return List.of();
        });
    }
}
