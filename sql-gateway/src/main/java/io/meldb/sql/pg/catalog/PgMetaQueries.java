package io.meldb.sql.pg.catalog;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Recognizes the system catalog queries of psql 15 ({@link PsqlQueries}) and pgjdbc 42.7
 * ({@link PgJdbcQueries}) so that the PostgreSQL front end answers them from MeldDB's catalog
 * ({@link PgCatalogView}) instead of handing them to the SQL engine, which has no {@code pg_catalog}.
 *
 * <p>Why recognition rather than a {@code pg_catalog} schema in Calcite: these clients' queries lean on what
 * only PostgreSQL parses (set-returning {@code information_schema._pg_expandarray} in select lists, composite
 * field access {@code (x).n}, arrays with {@code = any(...)} and subscripts, {@code ::regclass}), so a Calcite
 * schema would still need a rewrite per query. What is covered: psql's {@code \d [pattern]}, {@code \d+},
 * {@code \dt}, {@code \di}, {@code \dn}, {@code \l} and pgjdbc's getTables, getColumns, getPrimaryKeys,
 * getIndexInfo, getSchemas, getCatalogs; pgbench's partitioning probe ({@link PgbenchQueries}); and queries of
 * the catalogs MeldDB has nothing in (policies, statistics objects, publications, inheritance, triggers, rules),
 * which answer no rows. Anything else naming
 * {@code pg_catalog} or {@code information_schema} goes to the SQL engine, which answers plain queries of those
 * catalogs from the same {@link PgCatalogView} ({@link SystemSchemas}).
 */
public final class PgMetaQueries {
    private static final Pattern MENTIONS_CATALOG = Pattern.compile("(?i)\\b(pg_catalog|information_schema)\\s*\\.");
    private static final Pattern EMPTY_CATALOGS = Pattern.compile("(?i)\\bpg_catalog\\.(pg_policy|pg_statistic_ext"
            + "|pg_publication\\w*|pg_inherits|pg_trigger|pg_rewrite|pg_event_trigger|pg_foreign_table)\\b");

    /**
     * The family of the queries of catalogs MeldDB has nothing in: the SQL engine, which has those catalogs as empty
     * tables, answers them when it can run them (a count answers 0, not no row); this answer only stands in for the
     * ones it cannot run yet (psql's publication and trigger queries).
     */
    public static final String EMPTY_CATALOG = "empty catalog";

    private PgMetaQueries() {
    }

    /** The catalog query {@code sql} is, or null when the SQL engine should run it. */
    public static PgMetaQuery recognize(final String sql) {
        if (!MENTIONS_CATALOG.matcher(sql).find()) {
            return null;
        }
        final String flat = sql.replaceAll("\\s+", " ").trim();
        PgMetaQuery q = PsqlQueries.recognize(flat);
        if (q == null) {
            q = PgJdbcQueries.recognize(flat);
        }
        if (q == null) {
            q = PgbenchQueries.recognize(flat);
        }
        if (q == null && EMPTY_CATALOGS.matcher(flat).find()
                && flat.toUpperCase(Locale.ROOT).startsWith("SELECT")) {
            q = PgMetaQuery.of(EMPTY_CATALOG, flat, PgSelectList.names(flat), new HashMap<String,
                    PgMetaQuery.Field<Object>>(), (view, p) -> List.of());
        }
        return q;
    }
}
