package io.meldb.sql.calcite;

import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.pg.catalog.SystemSchemas;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.util.BuiltInMethod;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.lookup.CompatibilityLookup;
import org.apache.calcite.schema.lookup.Lookup;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The root of a connection's Calcite schema tree: every schema of the catalog's database is a sub-schema, read
 * from the catalog as the connection's transaction sees it at every lookup (a cheap version check), so a schema
 * created or dropped through any gateway is visible to the next statement. Unqualified names resolve in
 * {@link Catalog#PUBLIC} (the connection's default schema).
 *
 * <p>The read-only system schemas {@code information_schema} and {@code pg_catalog} ({@link SystemSchemas}) are
 * sub-schemas too, found by their name in either case ({@code information_schema} and {@code INFORMATION_SCHEMA},
 * quoted or not); users cannot create schemas of those names. The root also answers pg_catalog's tables by their
 * unqualified names without listing them, so that {@code SELECT relname FROM pg_class} finds
 * {@code pg_catalog.pg_class} when the default schema has no table {@code PG_CLASS} (Calcite searches the
 * default schema, then the root).
 */
public final class MeldRootSchema extends AbstractSchema {
    private final MeldTxnContext context;
    /** Calcite schema objects by name, reused while the schema exists (they cache their table objects). */
    private final Map<String, MeldSchema> schemas = new HashMap<>();
    private final Map<String, Schema> system;
    private final Lookup<Schema> subSchemas;
    private final Lookup<Table> tables;

    /** The catalog and the value last derived from it ({@link #derived}). */
    private volatile Object[] derived;

    /** The connection whose catalog this root shows. */
    public MeldTxnContext context() {
        return context;
    }

    /**
     * {@code derive} of the catalog the connection's transaction sees now, computed again only when that catalog
     * changed (the system catalogs' view of it, which every row of a catalog query may ask for).
     */
    @SuppressWarnings("unchecked")
    public <T> T derived(final java.util.function.Function<Catalog, T> derive) {
        final Catalog catalog = context.catalog();
        final Object[] last = derived;
        if (last != null && last[0] == catalog) {
            return (T) last[1];
        }
        final T value = derive.apply(catalog);
        derived = new Object[] {catalog, value};
        return value;
    }

    public MeldRootSchema(final MeldTxnContext context) {
        this.context = context;
        this.system = SystemSchemas.create(context);
        this.subSchemas = new CompatibilityLookup<>(this::subSchema, () -> getSubSchemaMap().keySet());
        this.tables = SystemSchemas.lookup(
                SystemSchemas.pgCatalogTables(system.get(SystemSchemas.PG_CATALOG)), Set.of());
    }

    /**
     * MeldDB's own functions: the sequence functions by their lower-case names ({@link FunctionNames#OWN}), the
     * PostgreSQL functions Calcite lacks ({@link PgFunctions}) by lower-case ones, the advisory lock functions
     * ({@link AdvisoryLocks}), the system catalog and the session functions ({@link SessionFunctions}) by
     * upper-case ones.
     */
    @Override
    protected com.google.common.collect.Multimap<String, org.apache.calcite.schema.Function> getFunctionMultimap() {
        final com.google.common.collect.ImmutableMultimap.Builder<String, org.apache.calcite.schema.Function> b =
                com.google.common.collect.ImmutableMultimap.builder();
        b.put("nextval", SequenceFunction.nextval());
        b.put("currval", SequenceFunction.currval());
        b.put("setval", SequenceFunction.setval());
        b.put("setval", SequenceFunction.setvalCalled());
        PgFunctions.functions().forEach(b::put);
        GenerateSeries.functions().forEach(f -> b.put(GenerateSeries.NAME, f));
        JsonFunctions.functions().forEach(b::put);
        JsonbFunctions.functions().forEach(b::put);
        PgArrayFunctions.functions().forEach(b::put);
        PgArrayFunctions.overloaded().forEach(e -> b.put(e.getKey(), e.getValue()));
        JsonBuild.objects().forEach(f -> b.put("JSON_BUILD_OBJECT", f));
        JsonBuild.arrays().forEach(f -> b.put("JSON_BUILD_ARRAY", f));
        b.putAll(io.meldb.sql.pg.catalog.PgCatalogFunctions.functions());
        b.putAll(SessionFunctions.functions());
        BackendSignals.functions().forEach(b::put);
        AdvisoryLocks.functions().forEach((nameAndArity, f) ->
                b.put(nameAndArity.substring(0, nameAndArity.indexOf('/')), f));
        return b.build();
    }

    /**
     * {@code json} and {@code jsonb} as type names in CAST: MeldDB keeps JSON as its text, so to the planner they
     * are VARCHAR (the PostgreSQL front end also checks a literal cast with {@code ::json} as JSON).
     */
    @Override
    protected Map<String, org.apache.calcite.rel.type.RelProtoDataType> getTypeMap() {
        final org.apache.calcite.rel.type.RelProtoDataType text =
                f -> f.createSqlType(org.apache.calcite.sql.type.SqlTypeName.VARCHAR);
        // regclass, regtype and regproc values are the names they print as (casts to and from them: MeldConvertlets)
        return Map.of("json", text, "jsonb", text, "regclass", text, "regtype", text, "regproc", text,
                "regnamespace", text);
    }

    @Override
    protected Map<String, Schema> getSubSchemaMap() {
        final Map<String, Schema> out = new LinkedHashMap<>();
        synchronized (schemas) {
            final var names = context.catalog().schemaNames(context.database());
            schemas.keySet().retainAll(names);
            for (String name : names) {
                if (!SystemSchemas.isSystemSchema(name)) {
                    out.put(name, schemas.computeIfAbsent(name, n -> new MeldSchema(context, n)));
                }
            }
        }
        out.putAll(system);
        return out;
    }

    /** A sub-schema by name: a system schema in any case, a user schema exactly. */
    private Schema subSchema(final String name) {
        if (SystemSchemas.isSystemSchema(name)) {
            return system.get(name.toLowerCase(java.util.Locale.ROOT));
        }
        return getSubSchemaMap().get(name);
    }

    @Override
    public Lookup<? extends Schema> subSchemas() {
        return subSchemas;
    }

    @Override
    public Lookup<Table> tables() {
        return tables;
    }

    /**
     * How generated code reaches the root: {@code DataContext.ROOT.getRootSchema()}, as Calcite's own root schema
     * does (the system tables are scanned by generated code that looks them up by name from here).
     */
    @Override
    public Expression getExpression(final SchemaPlus parentSchema, final String name) {
        if (parentSchema == null) {
            return Expressions.call(DataContext.ROOT, BuiltInMethod.DATA_CONTEXT_GET_ROOT_SCHEMA.method);
        }
        return super.getExpression(parentSchema, name);
    }

    @Override
    public boolean isMutable() {
        return false;
    }
}
