package io.meldb.sql.calcite;

import io.meldb.sql.catalog.Catalog;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.impl.AbstractSchema;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The root of a connection's Calcite schema tree: every schema of the catalog's database is a sub-schema, read
 * from the catalog as the connection's transaction sees it at every lookup (a cheap version check), so a schema
 * created or dropped through any gateway is visible to the next statement. Unqualified names resolve in
 * {@link Catalog#PUBLIC} (the connection's default schema).
 */
public final class MeldRootSchema extends AbstractSchema {
    private final MeldTxnContext context;
    /** Calcite schema objects by name, reused while the schema exists (they cache their table objects). */
    private final Map<String, MeldSchema> schemas = new HashMap<>();

    public MeldRootSchema(final MeldTxnContext context) {
        this.context = context;
    }

    @Override
    protected Map<String, Schema> getSubSchemaMap() {
        final Map<String, Schema> out = new LinkedHashMap<>();
        synchronized (schemas) {
            final var names = context.catalog().schemaNames(context.database());
            schemas.keySet().retainAll(names);
            for (String name : names) {
                out.put(name, schemas.computeIfAbsent(name, n -> new MeldSchema(context, n)));
            }
        }
        return out;
    }

    @Override
    public boolean isMutable() {
        return false;
    }
}
