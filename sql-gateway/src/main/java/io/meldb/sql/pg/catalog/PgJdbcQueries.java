package io.meldb.sql.pg.catalog;

import io.meldb.sql.pg.PgType;
import io.meldb.sql.pg.catalog.PgCatalogView.Namespace;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;
import io.meldb.sql.pg.catalog.PgMetaQuery.Field;
import io.meldb.sql.pg.catalog.PsqlQueries.Attribute;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.meldb.sql.pg.catalog.PgMetaQuery.Field.constant;
import static io.meldb.sql.pg.catalog.PgMetaQuery.Field.of;

/**
 * The catalog queries pgjdbc 42.7 sends for {@code DatabaseMetaData}: getTables, getColumns, getPrimaryKeys,
 * getIndexInfo, getSchemas, getCatalogs, getSQLKeywords and getImportedKeys / getExportedKeys / getCrossReference
 * ({@link ImportedKeys}), recognized by the columns they return and answered from the
 * catalog. Their filters (schema and table patterns, table types, unique indexes only) are read from the WHERE
 * clause, as literals or as parameters bound when the query runs.
 */
final class PgJdbcQueries {
    /** The columns of getColumns' inner query, which pgjdbc reads by name through {@code SELECT *}. */
    private static final List<String> COLUMNS_COLUMNS = List.of("current_database", "nspname", "relname",
            "attname", "atttypid", "attnotnull", "atttypmod", "attlen", "typtypmod", "attnum", "attidentity",
            "attgenerated", "adsrc", "description", "typbasetype", "typtype");
    /** The table types of getTables: {@code c.relkind = 'r' AND n.nspname !~ '^pg_'} is TABLE, 'i' INDEX. */
    private static final Pattern USER_KIND = Pattern.compile("c\\.relkind = '(\\w)' AND n\\.nspname !~ '\\^pg_'");

    private PgJdbcQueries() {
    }

    /** The pgjdbc query {@code sql} (whitespace collapsed) is, or null. */
    static PgMetaQuery recognize(final String sql) {
        if (sql.contains("AS \"TABLE_TYPE\"") && sql.contains("FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c")) {
            return tables(sql);
        }
        if (sql.contains("row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum")) {
            return columns(sql);
        }
        if (sql.contains("AS \"PK_NAME\"") && sql.contains("i.indisprimary")) {
            return primaryKeys(sql);
        }
        if (sql.contains("AS \"INDEX_NAME\"") && sql.contains("_pg_expandarray")) {
            return indexInfo(sql);
        }
        if (sql.contains("AS \"FK_NAME\"") && sql.contains("pg_catalog.pg_constraint con")) {
            return ImportedKeys.query(sql);
        }
        if (sql.startsWith("SELECT nspname AS \"TABLE_SCHEM\"") && sql.contains("FROM pg_catalog.pg_namespace")) {
            return schemas(sql);
        }
        if (sql.startsWith("select string_agg(word, ',') from pg_catalog.pg_get_keywords()")) {
            // getSQLKeywords: the words MeldDB's parser reserves beyond SQL:2003 (pgjdbc asks PostgreSQL's list)
            final Map<String, Field<String>> f = Map.of("string_agg", of(PgType.TEXT, k -> k));
            return PgMetaQuery.of("pgjdbc getSQLKeywords", sql, List.of("string_agg"), f, (view, p) -> List.of(
                    org.apache.calcite.sql.parser.SqlParser.create("").getMetadata().getJdbcKeywords()));
        }
        if (sql.startsWith("SELECT datname AS \"TABLE_CAT\" FROM pg_catalog.pg_database")) {
            final Map<String, Field<String>> f = Map.of("table_cat", of(PgType.NAME, d -> d));
            return PgMetaQuery.of("pgjdbc getCatalogs", sql, PgSelectList.names(sql), f,
                    (view, p) -> List.of(PgCatalogView.DATABASE));
        }
        return null;
    }

    private static PgMetaQuery tables(final String sql) {
        final String where = PgNameFilter.whereOf(sql);
        final PgNameFilter schema = PgNameFilter.find(where, "n.nspname");
        final PgNameFilter name = PgNameFilter.find(where, "c.relname");
        final StringBuilder kinds = new StringBuilder();
        final Matcher m = USER_KIND.matcher(where);
        while (m.find()) {
            kinds.append(m.group(1));
        }
        final boolean allKinds = !where.contains("(false OR");
        final Map<String, Field<Relation>> f = new HashMap<>();
        f.put("table_cat", constant(PgType.NAME, PgCatalogView.DATABASE));
        f.put("table_schem", of(PgType.NAME, r -> r.namespace().name()));
        f.put("table_name", of(PgType.NAME, Relation::name));
        f.put("table_type", of(PgType.TEXT, PgJdbcQueries::tableType));
        for (String empty : List.of("type_cat", "type_schem", "type_name", "self_referencing_col_name",
                "ref_generation")) {
            f.put(empty, constant(PgType.TEXT, ""));
        }
        return PgMetaQuery.of("pgjdbc getTables", sql, PgSelectList.names(sql), f, (view, p) -> {
            final List<Relation> candidates = new ArrayList<>();
            for (Relation r : view.relations()) {
                if (allKinds || kinds.indexOf(String.valueOf(r.kind())) >= 0) {
                    candidates.add(r);
                }
            }
            final List<Relation> out = new ArrayList<>(PgNameFilter.select(name,
                    PgNameFilter.select(schema, candidates, r -> r.namespace().name(), p), Relation::name, p));
            out.sort(Comparator.comparing(PgJdbcQueries::tableType).thenComparing(r -> r.namespace().name())
                    .thenComparing(Relation::name));
            return out;
        });
    }

    private static String tableType(final Relation r) {
        return r.isTable() ? "TABLE" : r.isView() ? "VIEW" : "INDEX";
    }

    private static PgMetaQuery columns(final String sql) {
        final String where = PgNameFilter.whereOf(sql);
        final PgNameFilter schema = PgNameFilter.find(where, "n.nspname");
        final PgNameFilter table = PgNameFilter.find(where, "c.relname");
        final PgNameFilter column = PgNameFilter.find(where, "a.attname", "attname");
        final Map<String, Field<Attribute>> f = new HashMap<>();
        f.put("current_database", constant(PgType.NAME, PgCatalogView.DATABASE));
        f.put("nspname", of(PgType.NAME, a -> a.relation().namespace().name()));
        f.put("relname", of(PgType.NAME, a -> a.relation().name()));
        f.put("attname", of(PgType.NAME, a -> a.column().name()));
        f.put("atttypid", of(PgType.OID, a -> PgTypeInfo.of(a.column().type()).oid()));
        f.put("attnotnull", of(PgType.BOOL, a -> PgCatalogView.notNull(a.relation().table(), a.position())));
        f.put("atttypmod", of(PgType.INT4, a -> PgTypeInfo.of(a.column().type()).typmod()));
        f.put("attlen", of(PgType.INT2, a -> PgTypeInfo.of(a.column().type()).typlen()));
        f.put("typtypmod", constant(PgType.INT4, -1));
        f.put("attnum", of(PgType.INT8, a -> (long) a.attnum()));
        f.put("adsrc", of(PgType.TEXT, a -> PgCatalogView.columnDefault(a.column())));
        f.put("attidentity", of(PgType.TEXT, a -> PgCatalogView.attidentity(a.column())));
        f.put("typbasetype", constant(PgType.OID, 0));
        f.put("typtype", constant(PgType.TEXT, "b"));
        return PgMetaQuery.of("pgjdbc getColumns", sql, COLUMNS_COLUMNS, f, (view, p) -> {
            final List<Attribute> out = new ArrayList<>();
            for (Relation r : tables(view, schema, table, p)) {
                final List<Attribute> all = new ArrayList<>();
                for (int i = 0; i < r.table().columns().size(); i++) {
                    all.add(new Attribute(r, i, i + 1));
                }
                out.addAll(PgNameFilter.select(column, all, a -> a.column().name(), p));
            }
            return out;
        });
    }

    /** One key column of an index: its 1-based place in the key. */
    private record Key(Relation index, int ordinal) {
        String column() {
            return index.table().columns().get(index.keyColumns()[ordinal - 1]).name();
        }
    }

    private static Map<String, Field<Key>> keyFields() {
        final Map<String, Field<Key>> f = new HashMap<>();
        f.put("table_cat", constant(PgType.NAME, PgCatalogView.DATABASE));
        f.put("table_schem", of(PgType.NAME, k -> k.index().namespace().name()));
        f.put("table_name", of(PgType.NAME, k -> k.index().table().name()));
        f.put("column_name", of(PgType.TEXT, Key::column));
        return f;
    }

    private static PgMetaQuery primaryKeys(final String sql) {
        final String where = PgNameFilter.whereOf(sql);
        final PgNameFilter schema = PgNameFilter.find(where, "n.nspname");
        final PgNameFilter table = PgNameFilter.find(where, "ct.relname");
        final Map<String, Field<Key>> f = keyFields();
        f.put("column_name", of(PgType.NAME, Key::column));
        f.put("key_seq", of(PgType.INT4, Key::ordinal));
        f.put("pk_name", of(PgType.NAME, k -> k.index().name()));
        return PgMetaQuery.of("pgjdbc getPrimaryKeys", sql, PgSelectList.names(sql), f, (view, p) -> {
            final List<Key> out = new ArrayList<>();
            for (Relation t : tables(view, schema, table, p)) {
                final Relation pk = view.indexesOf(t).get(0);
                for (int k = 1; k <= pk.keyColumns().length; k++) {
                    out.add(new Key(pk, k));
                }
            }
            out.sort(Comparator.comparing((Key k) -> k.index().table().name())
                    .thenComparing(k -> k.index().name()).thenComparing(Key::ordinal));
            return out;
        });
    }

    private static PgMetaQuery indexInfo(final String sql) {
        final String where = PgNameFilter.whereOf(sql);
        final PgNameFilter schema = PgNameFilter.find(where, "n.nspname");
        final PgNameFilter table = PgNameFilter.find(where, "ct.relname");
        final boolean uniqueOnly = where.contains("i.indisunique");
        final Map<String, Field<Key>> f = keyFields();
        f.put("non_unique", of(PgType.BOOL, k -> !k.index().unique()));
        f.put("index_name", of(PgType.NAME, k -> k.index().name()));
        f.put("type", constant(PgType.INT4, 3)); // DatabaseMetaData.tableIndexOther
        f.put("ordinal_position", of(PgType.INT4, Key::ordinal));
        f.put("asc_or_desc", constant(PgType.TEXT, "A"));
        f.put("cardinality", constant(PgType.FLOAT4, 0f));
        f.put("pages", constant(PgType.INT4, 0));
        return PgMetaQuery.of("pgjdbc getIndexInfo", sql, PgSelectList.names(sql), f, (view, p) -> {
            final List<Key> out = new ArrayList<>();
            for (Relation t : tables(view, schema, table, p)) {
                for (Relation index : view.indexesOf(t)) {
                    if (uniqueOnly && !index.unique()) {
                        continue;
                    }
                    for (int k = 1; k <= index.keyColumns().length; k++) {
                        out.add(new Key(index, k));
                    }
                }
            }
            out.sort(Comparator.comparing((Key k) -> !k.index().unique()).thenComparing(k -> k.index().name())
                    .thenComparing(Key::ordinal));
            return out;
        });
    }

    private static PgMetaQuery schemas(final String sql) {
        final PgNameFilter name = PgNameFilter.find(PgNameFilter.whereOf(sql), "nspname");
        final Map<String, Field<Namespace>> f = new HashMap<>();
        f.put("table_schem", of(PgType.NAME, Namespace::name));
        f.put("table_catalog", constant(PgType.NAME, PgCatalogView.DATABASE));
        return PgMetaQuery.of("pgjdbc getSchemas", sql, PgSelectList.names(sql), f, (view, p) -> {
            final List<Namespace> all = new ArrayList<>(view.namespaces());
            all.sort(Comparator.comparing(Namespace::name));
            return PgNameFilter.select(name, all, Namespace::name, p);
        });
    }

    /** The tables (not indexes) whose schema and name pass the filters. */
    private static List<Relation> tables(final PgCatalogView view, final PgNameFilter schema,
                                         final PgNameFilter table, final Object[] p) {
        final List<Relation> tables = new ArrayList<>();
        for (Relation r : view.relations()) {
            if (r.hasColumns()) {
                tables.add(r);
            }
        }
        return PgNameFilter.select(table, PgNameFilter.select(schema, tables, r -> r.namespace().name(), p),
                Relation::name, p);
    }
}
