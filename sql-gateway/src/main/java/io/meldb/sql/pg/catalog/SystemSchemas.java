package io.meldb.sql.pg.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.MeldTxnContext;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.pg.PgSettings;
import io.meldb.sql.pg.catalog.PgCatalogView.Namespace;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;
import io.meldb.sql.pg.catalog.PsqlQueries.Attribute;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.lookup.CompatibilityLookup;
import org.apache.calcite.schema.lookup.Lookup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The read-only schemas {@code information_schema} and {@code pg_catalog} as Calcite sees them, so that ad-hoc
 * queries of the system catalogs ({@code SELECT table_name FROM information_schema.tables}, {@code SELECT relname
 * FROM pg_catalog.pg_class WHERE relkind = 'r'}) run through the SQL engine over both front ends. Every table is
 * computed at each scan from the catalog as the statement's transaction sees it, through {@link PgCatalogView},
 * so the values are the ones psql's and pgjdbc's recognized queries get ({@link PgMetaQueries}): the same OIDs,
 * type names ({@link PgTypeInfo}) and nullability.
 *
 * <p><b>Names.</b> Schema, table and column names are PostgreSQL's, lower case ({@code table_name},
 * {@code relname}, ...), as an unquoted identifier folds (PostgreSQL's rule, which MeldDB follows): {@code SELECT
 * table_name FROM information_schema.tables} works as written and its result column is labelled
 * {@code table_name}. The two schema names and their table names also resolve in upper case, quoted or not
 * ({@code "PG_CATALOG"."PG_CLASS"} too): {@link #lookup} answers either.
 *
 * <p><b>Values</b> are MeldDB's names as stored ({@code WHERE table_schema = 'public'}). Only users' tables and indexes are listed: the system tables themselves are in neither
 * {@code information_schema.tables} nor {@code pg_class} (as in {@link PgCatalogView}). Constraints are primary
 * keys, UNIQUE and FOREIGN KEY constraints (no NOT NULL or CHECK constraints: {@link ConstraintRows}). {@code pg_settings} lists the
 * defaults of a PostgreSQL session ({@link PgSettings#defaultValues()}), not the values the session has SET;
 * {@code pg_cursors} the session's SQL cursors ({@link PgSessionViews}).
 *
 * <p><b>Clashes.</b> Users cannot create schemas named {@code information_schema} or starting with {@code pg_}
 * ({@link #checkSchemaName}, 42939). An unqualified {@code pg_class} resolves to {@code pg_catalog.pg_class} only
 * when the default schema has no table of that name: the root schema answers pg_catalog's tables after the
 * default schema has been searched (PostgreSQL searches pg_catalog first; MeldDB lets users' tables win, which
 * never changes what an existing user query means).
 */
public final class SystemSchemas {
    public static final String INFORMATION_SCHEMA = "information_schema";
    public static final String PG_CATALOG = "pg_catalog";
    /** PostgreSQL's bootstrap superuser, the owner of everything. */
    static final int OWNER_OID = 10;
    private static final int HEAP_AM = 2;
    private static final int BTREE_AM = 403;
    /** OID of MeldDB's one database (PostgreSQL's {@code postgres} database has it). */
    static final int DATABASE_OID = 5;

    private SystemSchemas() {
    }

    /** Whether {@code name} (any case) is one of the two system schemas. */
    public static boolean isSystemSchema(final String name) {
        return name.equalsIgnoreCase(INFORMATION_SCHEMA) || name.equalsIgnoreCase(PG_CATALOG);
    }

    /** Refuses, as PostgreSQL does, a user schema named information_schema or pg_... (42939). */
    public static void checkSchemaName(final String name) {
        if (name.equalsIgnoreCase(INFORMATION_SCHEMA) || name.toLowerCase(Locale.ROOT).startsWith("pg_")) {
            throw new SqlStateException("42939", "unacceptable schema name \"" + name + "\": the name "
                    + "information_schema and the prefix pg_ are reserved for system schemas");
        }
    }

    /** Both system schemas of one connection, by their names (lower case). */
    public static Map<String, Schema> create(final MeldTxnContext context) {
        final Map<String, Schema> out = new LinkedHashMap<>();
        out.put(INFORMATION_SCHEMA, new SystemSchema(informationSchema(context)));
        out.put(PG_CATALOG, new SystemSchema(pgCatalog(context)));
        return out;
    }

    /**
     * A lookup answering {@code map}'s entries (lower-case keys) by their name in any case; {@code listed} are the
     * names it lists (metadata), which may be none of them.
     */
    public static <T> Lookup<T> lookup(final Map<String, ? extends T> map, final Set<String> listed) {
        return new CompatibilityLookup<>(name -> map.get(name.toLowerCase(Locale.ROOT)), () -> listed);
    }

    /** The tables of pg_catalog, for resolving unqualified names after the default schema. */
    public static Map<String, Table> pgCatalogTables(final Schema pgCatalog) {
        return ((SystemSchema) pgCatalog).tables;
    }

    /** One of the two schemas: its tables by name (lower case), found in any case. */
    private static final class SystemSchema extends AbstractSchema {
        private final Map<String, Table> tables;
        private final Lookup<Table> lookup;

        SystemSchema(final Map<String, Table> tables) {
            this.tables = Collections.unmodifiableMap(tables);
            this.lookup = lookup(this.tables, this.tables.keySet());
        }

        @Override
        protected Map<String, Table> getTableMap() {
            return tables;
        }

        @Override
        public Lookup<Table> tables() {
            return lookup;
        }

        @Override
        public boolean isMutable() {
            return false;
        }
    }

    // ---------------------------------------------------------------- information_schema

    private static Map<String, Table> informationSchema(final MeldTxnContext cx) {
        final Map<String, Table> t = new LinkedHashMap<>();
        t.put("schemata", SystemTable.of(cx, SystemTable.<Namespace>columns()
                .constant("catalog_name", PgCatalogView.DATABASE)
                .text("schema_name", Namespace::name)
                .constant("schema_owner", PgCatalogView.DATABASE)
                .nullText("default_character_set_catalog")
                .nullText("default_character_set_schema")
                .nullText("default_character_set_name")
                .nullText("sql_path"), v -> sorted(v.namespaces())));
        t.put("tables", SystemTable.of(cx, SystemTable.<Relation>columns()
                .constant("table_catalog", PgCatalogView.DATABASE)
                .text("table_schema", r -> r.namespace().name())
                .text("table_name", Relation::name)
                .text("table_type", r -> r.isView() ? "VIEW" : "BASE TABLE")
                .nullText("self_referencing_column_name")
                .nullText("reference_generation")
                .nullText("user_defined_type_catalog")
                .nullText("user_defined_type_schema")
                .nullText("user_defined_type_name")
                .text("is_insertable_into", r -> r.isView() ? "NO" : "YES")
                .constant("is_typed", "NO")
                .nullText("commit_action"), SystemSchemas::tablesOf));
        t.put("columns", SystemTable.of(cx, SystemTable.<Attribute>columns()
                .constant("table_catalog", PgCatalogView.DATABASE)
                .text("table_schema", a -> a.relation().namespace().name())
                .text("table_name", a -> a.relation().name())
                .text("column_name", a -> a.column().name())
                .integer("ordinal_position", Attribute::attnum)
                .nullableText("column_default", a -> PgCatalogView.columnDefault(a.column()))
                .text("is_nullable", a -> notNull(a) ? "NO" : "YES")
                .text("data_type", a -> dataType(a.column().type()))
                .nullableInteger("character_maximum_length", a -> charLength(a.column().type()))
                .nullableInteger("character_octet_length", a -> {
                    final Integer n = charLength(a.column().type());
                    return n == null ? null : (int) Math.min(4L * n, 1_073_741_824L);
                })
                .nullableInteger("numeric_precision", a -> numericPrecision(a.column().type()))
                .nullableInteger("numeric_precision_radix", a -> numericPrecision(a.column().type()) == null
                        ? null : a.column().type().type() == io.meldb.sql.codec.SqlType.DECIMAL ? 10 : 2)
                .nullableInteger("numeric_scale", a -> numericScale(a.column().type()))
                .nullableInteger("datetime_precision", a -> switch (a.column().type().type()) {
                    case DATE -> 0;
                    case TIMESTAMP, TIMESTAMPTZ, TIME -> 3;
                    default -> null;
                })
                .nullText("interval_type")
                .nullableInteger("interval_precision", a -> null)
                .nullText("character_set_catalog")
                .nullText("character_set_schema")
                .nullText("character_set_name")
                .nullText("collation_catalog")
                .nullText("collation_schema")
                .nullText("collation_name")
                .nullText("domain_catalog")
                .nullText("domain_schema")
                .nullText("domain_name")
                .constant("udt_catalog", PgCatalogView.DATABASE)
                .constant("udt_schema", "pg_catalog")
                .text("udt_name", a -> PgTypeInfo.of(a.column().type()).typname())
                .text("dtd_identifier", a -> String.valueOf(a.attnum()))
                .constant("is_self_referencing", "NO")
                .text("is_identity", a -> a.column().identity() == ColumnDef.Identity.NONE ? "NO" : "YES")
                .nullableText("identity_generation", a -> switch (a.column().identity()) {
                    case ALWAYS -> "ALWAYS";
                    case BY_DEFAULT -> "BY DEFAULT";
                    default -> null;
                })
                .constant("is_generated", "NEVER")
                .constant("is_updatable", "YES"), SystemSchemas::columnsOf));
        t.put("views", SystemTable.of(cx, SystemTable.<ViewRow>columns()
                .constant("table_catalog", PgCatalogView.DATABASE)
                .text("table_schema", r -> r.view().namespace().name())
                .text("table_name", r -> r.view().name())
                .nullableText("view_definition", ViewRow::sql)
                .constant("check_option", "NONE")
                .constant("is_updatable", "NO")
                .constant("is_insertable_into", "NO")
                .constant("is_trigger_updatable", "NO")
                .constant("is_trigger_deletable", "NO")
                .constant("is_trigger_insertable_into", "NO"), SystemSchemas::viewsOf));
        t.put("table_constraints", SystemTable.of(cx, SystemTable.<ConstraintRows.Constraint>columns()
                .constant("constraint_catalog", PgCatalogView.DATABASE)
                .text("constraint_schema", r -> r.namespace().name())
                .text("constraint_name", ConstraintRows.Constraint::name)
                .constant("table_catalog", PgCatalogView.DATABASE)
                .text("table_schema", r -> r.namespace().name())
                .text("table_name", r -> r.table().name())
                .text("constraint_type", ConstraintRows.Constraint::type)
                .text("is_deferrable", ConstraintRows.Constraint::isDeferrable)
                .text("initially_deferred", ConstraintRows.Constraint::initiallyDeferred)
                .constant("enforced", "YES")
                .nullableText("nulls_distinct", ConstraintRows.Constraint::nullsDistinct),
                v -> ConstraintRows.constraints(v, keyConstraintsOf(v))));
        t.put("key_column_usage", SystemTable.of(cx, SystemTable.<ConstraintRows.KeyColumn>columns()
                .constant("constraint_catalog", PgCatalogView.DATABASE)
                .text("constraint_schema", a -> a.namespace().name())
                .text("constraint_name", ConstraintRows.KeyColumn::constraint)
                .constant("table_catalog", PgCatalogView.DATABASE)
                .text("table_schema", a -> a.namespace().name())
                .text("table_name", a -> a.table().name())
                .text("column_name", ConstraintRows.KeyColumn::column)
                .integer("ordinal_position", ConstraintRows.KeyColumn::ordinal)
                .nullableInteger("position_in_unique_constraint", ConstraintRows.KeyColumn::uniquePosition),
                v -> ConstraintRows.keyColumns(v, keyConstraintsOf(v))));
        t.put("referential_constraints", SystemTable.of(cx, SystemTable.<PgCatalogView.ForeignKey>columns()
                .constant("constraint_catalog", PgCatalogView.DATABASE)
                .text("constraint_schema", fk -> fk.namespace().name())
                .text("constraint_name", PgCatalogView.ForeignKey::name)
                .constant("unique_constraint_catalog", PgCatalogView.DATABASE)
                .text("unique_constraint_schema", fk -> fk.parent().namespace().name())
                .nullableText("unique_constraint_name", fk -> fk.parentKey() == null ? null : fk.parentKey().name())
                .constant("match_option", "NONE")
                .text("update_rule", fk -> fk.def().onUpdate().sql())
                .text("delete_rule", fk -> fk.def().onDelete().sql()), PgCatalogView::foreignKeys));
        t.put("sequences", SystemTable.of(cx, SystemTable.<io.meldb.sql.catalog.SequenceDef>columns()
                .constant("sequence_catalog", PgCatalogView.DATABASE)
                .text("sequence_schema", io.meldb.sql.catalog.SequenceDef::schema)
                .text("sequence_name", io.meldb.sql.catalog.SequenceDef::name)
                .text("data_type", q -> dataType(io.meldb.sql.codec.ColumnType.of(q.type())))
                .integer("numeric_precision", q -> switch (q.type()) {
                    case SMALLINT -> 16;
                    case INTEGER -> 32;
                    default -> 64;
                })
                .integer("numeric_precision_radix", q -> 2)
                .integer("numeric_scale", q -> 0)
                .text("start_value", q -> String.valueOf(q.start()))
                .text("minimum_value", q -> String.valueOf(q.min()))
                .text("maximum_value", q -> String.valueOf(q.max()))
                .text("increment", q -> String.valueOf(q.increment()))
                .constant("cycle_option", "NO"), PgCatalogView::sequences));
        CheckConstraintRows.addTo(t, cx);
        return t;
    }

    private static List<Namespace> sorted(final List<Namespace> namespaces) {
        final List<Namespace> out = new ArrayList<>(namespaces);
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    /** A row of information_schema.views. */
    private record ViewRow(Relation view, String sql) {
    }

    /** The views, by schema and name. */
    private static List<ViewRow> viewsOf(final PgCatalogView v) {
        final List<ViewRow> out = new ArrayList<>();
        for (Relation r : v.relations()) {
            if (r.isView()) {
                out.add(new ViewRow(r, v.viewDefinition(r)));
            }
        }
        return out;
    }

    /** A row of pg_description: a comment on a relation (objsubid 0) or on its column number objsubid. */
    private record Description(int objoid, int objsubid, String text) {
    }

    private static List<Description> descriptionsOf(final PgCatalogView v) {
        final List<Description> out = new ArrayList<>();
        for (Relation r : v.relations()) {
            if (!r.hasColumns()) {
                continue;
            }
            for (int attnum = 0; attnum <= r.table().columns().size(); attnum++) {
                final String text = v.description(r, attnum);
                if (text != null) {
                    out.add(new Description(r.oid(), attnum, text));
                }
            }
        }
        return out;
    }

    /** The tables and views (not indexes), by schema and name. */
    private static List<Relation> tablesOf(final PgCatalogView v) {
        final List<Relation> out = new ArrayList<>();
        for (Relation r : v.relations()) {
            if (r.hasColumns()) {
                out.add(r);
            }
        }
        return out;
    }

    /** Every column of every table, in table then column order; attnum is the 1-based position. */
    private static List<Attribute> columnsOf(final PgCatalogView v) {
        final List<Attribute> out = new ArrayList<>();
        for (Relation r : tablesOf(v)) {
            for (int i = 0; i < r.table().columns().size(); i++) {
                out.add(new Attribute(r, i, i + 1));
            }
        }
        return out;
    }

    /** Every relation's attributes as pg_attribute has them: a table's columns, an index's key columns. */
    private static List<Attribute> attributesOf(final PgCatalogView v) {
        final List<Attribute> out = new ArrayList<>();
        for (Relation r : v.relations()) {
            if (r.hasColumns()) {
                for (int i = 0; i < r.table().columns().size(); i++) {
                    out.add(new Attribute(r, i, i + 1));
                }
            } else {
                out.addAll(keyColumns(r));
            }
        }
        return out;
    }

    /** The key columns of an index, attnum their 1-based place in the key. */
    private static List<Attribute> keyColumns(final Relation index) {
        final List<Attribute> out = new ArrayList<>();
        for (int k = 0; k < index.keyColumns().length; k++) {
            out.add(new Attribute(index, index.keyColumns()[k], k + 1));
        }
        return out;
    }

    /**
     * The indexes of key constraints: of primary keys (of tables that have one, not a hidden row id) and of UNIQUE
     * constraints (not of CREATE UNIQUE INDEX, which PostgreSQL lists as no constraint either).
     */
    static List<Relation> keyConstraintsOf(final PgCatalogView v) {
        final List<Relation> out = new ArrayList<>();
        for (Relation r : v.relations()) {
            if (r.constraint() && r.keyColumns().length > 0) {
                out.add(r);
            }
        }
        return out;
    }

    private static boolean notNull(final Attribute a) {
        return PgCatalogView.notNull(a.relation().table(), a.position());
    }

    /** information_schema's data_type: format_type without the modifiers ({@code character varying}). */
    static String dataType(final ColumnType t) {
        return PgTypeInfo.of(t).formatted().replaceAll("\\(\\d+(,\\d+)?\\)", "");
    }

    private static Integer charLength(final ColumnType t) {
        return switch (t.type()) {
            case CHAR, VARCHAR -> t.precision();
            default -> null;
        };
    }

    private static Integer numericPrecision(final ColumnType t) {
        return switch (t.type()) {
            case SMALLINT -> 16;
            case INTEGER -> 32;
            case BIGINT -> 64;
            case DOUBLE -> 53;
            case REAL -> 24;
            case DECIMAL -> t.unconstrained() ? null : t.precision();
            default -> null;
        };
    }

    private static Integer numericScale(final ColumnType t) {
        return switch (t.type()) {
            case SMALLINT, INTEGER, BIGINT -> 0;
            case DECIMAL -> t.unconstrained() ? null : t.scale();
            default -> null;
        };
    }

    // ---------------------------------------------------------------- pg_catalog

    /** pg_class's own OID, pg_description's classoid of a comment on a relation or column. */
    private static final int PG_CLASS_OID = 1259;

    /** A pg_settings row. */
    private record Setting(String name, String value) {
    }

    private static Map<String, Table> pgCatalog(final MeldTxnContext cx) {
        final Map<String, Table> t = new LinkedHashMap<>();
        t.put("pg_namespace", SystemTable.of(cx, SystemTable.<Namespace>columns()
                .integer("oid", Namespace::oid)
                .text("nspname", Namespace::name)
                .constant("nspowner", OWNER_OID)
                .nullText("nspacl"), v -> v.namespaces()));
        t.put("pg_class", SystemTable.of(cx, SystemTable.<Relation>columns()
                .integer("oid", Relation::oid)
                .text("relname", Relation::name)
                .integer("relnamespace", r -> r.namespace().oid())
                .constant("reltype", 0)
                .constant("reloftype", 0)
                .constant("relowner", OWNER_OID)
                .integer("relam", r -> r.isTable() ? HEAP_AM : r.kind() == 'i' ? BTREE_AM : 0)
                .integer("relfilenode", Relation::oid)
                .constant("reltablespace", 0)
                .constant("relpages", 0)
                .constant("reltuples", -1)
                .constant("relallvisible", 0)
                .constant("reltoastrelid", 0)
                .bool("relhasindex", Relation::isTable)
                .constant("relisshared", false)
                .constant("relpersistence", "p")
                .text("relkind", r -> String.valueOf(r.kind()))
                .smallint("relnatts", r -> (short) (r.hasColumns() ? r.table().columns().size()
                        : r.kind() == 'S' ? 3 : r.keyColumns().length))
                .smallint("relchecks", r -> (short) 0)
                .constant("relhasrules", false)
                .constant("relhastriggers", false)
                .constant("relhassubclass", false)
                .constant("relrowsecurity", false)
                .constant("relforcerowsecurity", false)
                .constant("relispopulated", true)
                .text("relreplident", r -> r.isTable() ? "d" : "n")
                .constant("relispartition", false)
                .constant("relrewrite", 0)
                .nullText("relacl")
                .nullText("reloptions")
                .nullText("relpartbound"), PgCatalogView::classes));
        t.put("pg_description", SystemTable.of(cx, SystemTable.<Description>columns()
                .integer("objoid", Description::objoid)
                .constant("classoid", PG_CLASS_OID)
                .integer("objsubid", Description::objsubid)
                .text("description", Description::text), SystemSchemas::descriptionsOf));
        t.put("pg_attribute", SystemTable.of(cx, SystemTable.<Attribute>columns()
                .integer("attrelid", a -> a.relation().oid())
                .text("attname", a -> a.column().name())
                .integer("atttypid", a -> PgTypeInfo.of(a.column().type()).oid())
                .smallint("attlen", a -> (short) PgTypeInfo.of(a.column().type()).typlen())
                .smallint("attnum", a -> (short) a.attnum())
                .integer("attndims", a -> 0)
                .integer("atttypmod", a -> PgTypeInfo.of(a.column().type()).typmod())
                .bool("attbyval", a -> byValue(PgTypeInfo.of(a.column().type()).typlen()))
                .constant("attstorage", "p")
                .bool("attnotnull", SystemSchemas::notNull)
                .bool("atthasdef", a -> PgCatalogView.columnDefault(a.column()) != null)
                .constant("atthasmissing", false)
                .text("attidentity", a -> PgCatalogView.attidentity(a.column()))
                .constant("attgenerated", "")
                .constant("attisdropped", false)
                .constant("attislocal", true)
                .constant("attinhcount", 0)
                .integer("attcollation", a -> collation(PgTypeInfo.of(a.column().type()).oid()))
                .nullText("attacl")
                .nullText("attoptions"), SystemSchemas::attributesOf));
        t.put("pg_type", SystemTable.of(cx, SystemTable.<PgTypeCatalog.TypeRow>columns()
                .integer("oid", PgTypeCatalog.TypeRow::oid)
                .text("typname", PgTypeCatalog.TypeRow::typname)
                .constant("typnamespace", 11)
                .constant("typowner", OWNER_OID)
                .smallint("typlen", p -> (short) p.typlen())
                .bool("typbyval", p -> byValue(p.typlen()))
                .text("typtype", p -> String.valueOf(p.typtype()))
                .text("typcategory", p -> String.valueOf(p.typcategory()))
                .bool("typispreferred", p -> switch (p.oid()) {
                    case 16, 25, 701, 1184, 1186, 26 -> true;
                    default -> false;
                })
                .constant("typisdefined", true)
                .constant("typdelim", ",")
                .constant("typrelid", 0)
                .constant("typsubscript", "-")
                .integer("typelem", PgTypeCatalog.TypeRow::typelem)
                .integer("typarray", PgTypeCatalog.TypeRow::typarray)
                .text("typinput", PgTypeCatalog.TypeRow::input)
                .text("typoutput", PgTypeCatalog.TypeRow::output)
                .text("typalign", p -> String.valueOf(p.typalign()))
                .text("typstorage", p -> String.valueOf(p.typstorage()))
                .constant("typnotnull", false)
                .constant("typbasetype", 0)
                .constant("typtypmod", -1)
                .constant("typndims", 0)
                .integer("typcollation", p -> collation(p.oid()))
                .nullText("typdefaultbin")
                .nullText("typdefault")
                .nullText("typacl"), v -> PgTypeCatalog.rows()));
        t.put("pg_index", SystemTable.of(cx, SystemTable.<Relation>columns()
                .integer("indexrelid", Relation::oid)
                .integer("indrelid", SystemSchemas::tableOid)
                .smallint("indnatts", r -> (short) r.keyColumns().length)
                .smallint("indnkeyatts", r -> (short) r.keyColumns().length)
                .bool("indisunique", Relation::unique)
                .constant("indnullsnotdistinct", false)
                .bool("indisprimary", Relation::primary)
                .constant("indisexclusion", false)
                .constant("indimmediate", true)
                .constant("indisclustered", false)
                .constant("indisvalid", true)
                .constant("indcheckxmin", false)
                .constant("indisready", true)
                .constant("indislive", true)
                .constant("indisreplident", false)
                .text("indkey", SystemSchemas::indkey)
                .nullText("indexprs")
                .nullText("indpred"), SystemSchemas::indexesOf));
        t.put("pg_database", SystemTable.of(cx, SystemTable.<String>columns()
                .constant("oid", DATABASE_OID)
                .text("datname", d -> d)
                .constant("datdba", OWNER_OID)
                .constant("encoding", 6)
                .constant("datlocprovider", "c")
                .constant("datistemplate", false)
                .constant("datallowconn", true)
                .constant("datconnlimit", -1)
                .constant("dattablespace", 1663)
                .constant("datcollate", "C")
                .constant("datctype", "C")
                .nullText("daticulocale")
                .nullText("daticurules")
                .nullText("datacl"), v -> List.of(PgCatalogView.DATABASE)));
        t.put("pg_settings", SystemTable.of(cx, SystemTable.<Setting>columns()
                .text("name", Setting::name)
                .text("setting", Setting::value)
                .nullText("unit")
                .constant("category", "")
                .constant("short_desc", "")
                .constant("context", "user")
                .constant("vartype", "string")
                .constant("source", "default")
                .text("boot_val", Setting::value)
                .text("reset_val", Setting::value)
                .constant("pending_restart", false), v -> settings()));
        t.put("pg_am", SystemTable.of(cx, SystemTable.<Object[]>columns()
                .integer("oid", a -> a[0])
                .text("amname", a -> a[1])
                .text("amhandler", a -> a[2])
                .text("amtype", a -> a[3]), v -> List.of(
                        new Object[] {HEAP_AM, "heap", "heap_tableam_handler", "t"},
                        new Object[] {BTREE_AM, "btree", "bthandler", "i"})));
        // the collations PostgreSQL always has; MeldDB compares text by the default one, which is "C"
        t.put("pg_collation", SystemTable.of(cx, SystemTable.<Object[]>columns()
                .integer("oid", c -> c[0])
                .text("collname", c -> c[1])
                .constant("collnamespace", 11)
                .constant("collowner", OWNER_OID)
                .text("collprovider", c -> c[2])
                .constant("collisdeterministic", true)
                .constant("collencoding", -1)
                .nullableText("collcollate", c -> c[3])
                .nullableText("collctype", c -> c[3])
                .nullText("colliculocale")
                .nullText("collversion"), v -> List.of(
                        new Object[] {100, "default", "d", null},
                        new Object[] {950, "C", "c", "C"},
                        new Object[] {951, "POSIX", "c", "POSIX"})));
        t.putAll(PgEmptyCatalogs.tables(cx));
        t.putAll(PgObjectCatalogs.tables(cx));
        t.putAll(PgCatalogViews.tables(cx));
        t.putAll(PgSessionViews.tables(cx));
        return t;
    }

    /** The OID of an index's table. */
    private static int tableOid(final Relation index) {
        return PgCatalogView.FIRST_OID + 2 * index.table().id();
    }

    private static List<Relation> indexesOf(final PgCatalogView v) {
        final List<Relation> out = new ArrayList<>();
        for (Relation r : v.relations()) {
            if (r.kind() == 'i') {
                out.add(r);
            }
        }
        return out;
    }

    /** int2vector's text form: the key columns' attnums separated by blanks. */
    private static String indkey(final Relation index) {
        final StringBuilder b = new StringBuilder();
        for (int k : index.keyColumns()) {
            b.append(b.length() == 0 ? "" : " ").append(k + 1);
        }
        return b.toString();
    }

    private static List<Setting> settings() {
        final List<Setting> out = new ArrayList<>();
        for (Map.Entry<String, String> e : PgSettings.defaultValues().entrySet()) {
            out.add(new Setting(e.getKey(), e.getValue()));
        }
        return out;
    }

    private static boolean byValue(final int typlen) {
        return typlen > 0 && typlen <= 8;
    }

    /** PostgreSQL's default collation for the string types, none for the others. */
    private static int collation(final int typeOid) {
        return switch (typeOid) {
            case 25, 1042, 1043, 19 -> typeOid == 19 ? 950 : 100;
            default -> 0;
        };
    }
}
